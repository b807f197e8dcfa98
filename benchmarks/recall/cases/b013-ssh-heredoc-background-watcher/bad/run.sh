#!/bin/bash
# Start the shared file watcher on the build box and log out again.
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

ssh "${SSH_OPTS[@]}" build1 bash -s <<'EOF'
cd /srv/build || exit 1
./bin/watcher --config watcher.conf &
echo "watcher pid $!"
EOF
