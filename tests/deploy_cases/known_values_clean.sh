#!/bin/bash
# expect: none
# A web deploy that names its app and directories once at the top and pastes them into the
# remote commands: every value is a plain word the script set itself.
set -euo pipefail
APP=shopfront
RELEASE=2024.06.1
DATA_DIR=/data/shopfront
SSH_OPTS=(-n -o BatchMode=yes -o ConnectTimeout=10)

ssh "${SSH_OPTS[@]}" web1 "sudo systemctl stop $APP"
ssh "${SSH_OPTS[@]}" web1 "mkdir -p /srv/$APP/releases/$RELEASE"
ssh -o BatchMode=yes -o ConnectTimeout=10 web1 bash -s <<EOF
set -e
ls $DATA_DIR
ln -sfn /srv/$APP/releases/$RELEASE /srv/$APP/current
EOF
ssh "${SSH_OPTS[@]}" web1 "sudo systemctl start $APP"
