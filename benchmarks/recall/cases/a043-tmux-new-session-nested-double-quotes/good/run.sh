#!/bin/bash
# Start the dev server with dev3000 in a detached tmux session.
session=d3k-shop
cd /srv/shop || exit 1
tmux new-session -d -s "$session" "bash -c 'dev3000 --command \"pnpm dev:user\" --date-time local; exec bash'"
echo "attach with: tmux attach -t ${session}"
