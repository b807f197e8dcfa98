#!/bin/bash
# Copy every text note from the inbox one directory up, keeping its file name.
cd /srv/notes/inbox || exit 1
fd --type f --extension txt --exec /srv/notes/bin/copy-up.sh {} ../{/}
echo "notes copied"
