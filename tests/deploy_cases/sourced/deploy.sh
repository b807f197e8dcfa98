#!/bin/bash
# expect (with --external-sources): QC103@9
# expect: none
set -euo pipefail
. "$(dirname "$0")/settings.sh"
ssh "${SSH_OPTS[@]}" web1 "sudo systemctl stop $APP"
ssh "${SSH_OPTS[@]}" web1 "mkdir -p /srv/$APP/releases/$RELEASE"
ssh "${SSH_OPTS[@]}" "$DEPLOY_USER@web1" "ln -sfn /srv/$APP/releases/$RELEASE /srv/$APP/current"
ssh "${SSH_OPTS[@]}" web1 "tar -czf $BACKUP_DIR/$APP.tgz /srv/$APP/current"
ssh "${SSH_OPTS[@]}" web1 "sudo systemctl start $APP"
