#!/bin/bash
# Stop every test-net process on the validator hosts before a new run.
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

stop_node() {
  local host=$1
  echo "Cleaning up $host"
  ssh "${SSH_OPTS[@]}" "solana@$host" '
    for pattern in validator.sh bootstrap-leader.sh solana- remote- iftop; do
      echo "killing $pattern"
      pkill -f "$pattern"
    done
    rm -rf ~/solana/config/ledger
  '
}

for host in node01 node02 node03; do
  stop_node "$host"
done
