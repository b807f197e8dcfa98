#!/bin/bash
# Deploy step: run the update on the staging web host, keeping a remote debug log.
HOST=annuaire-entreprises-staging-www-1
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

ssh "${SSH_OPTS[@]}" "$HOST" 'cd /srv/site && ./deploy.sh 2>&1 | tee --append /tmp/debug_err' \
  && echo 'success' || echo 'error'
