#!/bin/bash
# Record each node's short hostname in its config directory during bootstrap.
nodes_file=${1:-nodes.txt}

while read -r node; do
  [ -n "$node" ] || continue
  echo "Configuring $node"
  ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$node" \
    'mkdir -p /var/lib/hare && hostname -s > /var/lib/hare/node-name'
done < "$nodes_file"
