#!/bin/bash
# Warm the application caches after a deploy; -t keeps the progress output live.
HOST=web1

ssh -t -o BatchMode=yes -o ConnectTimeout=10 "$HOST" \
  '/srv/app/bin/warm-cache & /srv/app/bin/warm-sessions; wait'
