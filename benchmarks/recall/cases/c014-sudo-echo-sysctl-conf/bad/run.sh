#!/bin/bash
# Host preparation for the Elastic stack (run as a sudo-capable user).
set -euo pipefail

echo "Raising vm.max_map_count"
sudo sysctl -w vm.max_map_count=262144
sudo echo 'vm.max_map_count=262144' >> /etc/sysctl.conf
echo "setting persisted in /etc/sysctl.conf"
