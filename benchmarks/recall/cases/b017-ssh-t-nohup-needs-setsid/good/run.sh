#!/bin/bash
# Restart the node web proxy on every node after a config push, with a tty as in an interactive login.
SSH_OPTS=(-t -o BatchMode=yes -o ConnectTimeout=10)

for node in node01 node02; do
  ssh "${SSH_OPTS[@]}" "$node" \
    'setsid nohup supervisor /opt/node-web-proxy/server.js > /tmp/node-web-proxy.log 2>&1 < /dev/null & date > /tmp/node-web-proxy.stamp'
done
