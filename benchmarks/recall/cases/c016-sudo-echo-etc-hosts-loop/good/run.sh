#!/bin/bash
# Make the local Barge services resolvable by name.
set -euo pipefail

ip=127.0.0.1
for name in aquarius provider ganache; do
    if ! grep -q "[[:space:]]$name\$" /etc/hosts; then
        echo "$ip $name" | sudo tee -a /etc/hosts > /dev/null
    fi
done
echo "hosts entries checked"
