#!/bin/bash
# Poll the build host until the golden-snapshot build is no longer running.
HOST=hil-compute-3
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

while true; do
  state=$(ssh "${SSH_OPTS[@]}" "$HOST" \
    "pgrep -f 'nix build.*goldenSnapshots' >/dev/null && echo RUNNING || echo NOT-RUNNING")
  echo "$(date +%T) build state: $state"
  [ "$state" = NOT-RUNNING ] && break
  sleep 60
done
