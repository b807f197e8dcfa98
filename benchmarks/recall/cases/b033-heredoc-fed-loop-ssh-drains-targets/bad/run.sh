#!/bin/bash
# Fetch the latest tags on every configured remote tenant before the build phase.
while read -r tenant host; do
  [ -n "$host" ] || continue
  echo "[$tenant] fetching on $host"
  ssh -o BatchMode=yes -o ConnectTimeout=10 "deploy@$host" \
    'cd /srv/agentric && git fetch --tags --quiet'
done <<EOF
alpha  alpha.example.net
beta   beta.example.net
EOF
