#!/bin/bash
# Stop the network benchmark server on every segment host after a perf run.
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)
SEGMENT_HOSTS=(sdw1 sdw2 sdw3 sdw4)

for host in "${SEGMENT_HOSTS[@]}"; do
  echo "Stopping gpnetbenchServer on $host"
  ssh "${SSH_OPTS[@]}" "gpadmin@$host" \
    'F=gpnetbenchServer && (pkill $F || pkill -f $F || killall -9 $F) > /dev/null 2>&1 || true'
done
