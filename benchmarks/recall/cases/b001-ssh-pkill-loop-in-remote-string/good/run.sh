#!/bin/bash
# Stop every test-net process on the validator hosts before a new run.
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

stop_node() {
  local host=$1
  echo "Cleaning up $host"
  # net/remote/cleanup.sh holds the pkill loop and the ledger removal
  ssh "${SSH_OPTS[@]}" "solana@$host" 'bash solana/net/remote/cleanup.sh'
}

for host in node01 node02 node03; do
  stop_node "$host"
done
