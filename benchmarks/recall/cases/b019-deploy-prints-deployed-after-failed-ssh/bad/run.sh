#!/bin/bash
# Build the game server and push it to the staging VM.
BINARY=output/vndf-server
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

deploy_server() {
  echo "Deploying server..."
  make "$BINARY"
  scp "${SSH_OPTS[@]}" "$BINARY" root@stagingvm:/opt/vndf/
  ssh "${SSH_OPTS[@]}" root@stagingvm 'systemctl restart vndf-server'
  echo "Server deployed."
}

deploy_server
