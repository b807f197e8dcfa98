#!/bin/bash
# Install the node dependencies of the current release on the app server.
set -e
host=deploy@app1
ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" bash -s <<'REMOTE'
set -e
source "~/.nvm/nvm.sh"
cd /srv/app/current
nvm use
npm ci --omit=dev
REMOTE
echo "dependencies installed on ${host}"
