#!/bin/bash
# expect: QC201@8 QC210@8
# Options kept in an array the script sets: the array is options, `$host` the destination, and
# the remote command's self-kill is found.
SSH_OPTS=(-n -o BatchMode=yes -o ConnectTimeout=10)
host=app1
ssh "${SSH_OPTS[@]}" "$host" "mkdir -p /srv/app"
ssh "${SSH_OPTS[@]}" "$host" "pkill -f app.py; nohup python3 app.py > app.log 2>&1 < /dev/null &"
