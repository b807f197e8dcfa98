#!/bin/bash
# Show the PIDs of the Java services on every application server.
set -euo pipefail

inventory=inventory/prod.ini
group=appservers

echo "Java PIDs in $group:"
ansible "$group" -i "$inventory" -m shell \
    -a "ps aux | grep java | grep -v grep | awk '{print \$2}'"
