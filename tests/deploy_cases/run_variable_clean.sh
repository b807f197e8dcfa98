#!/bin/bash
# expect: none
# A backup rotation that keeps the remote command prefix in a variable.
REMOTE="ssh -n -o BatchMode=yes -o ConnectTimeout=10 backup01"
$REMOTE "cd /srv/backups && ls -t | tail -n +8 | xargs -r rm -f"
$REMOTE "df -h /srv/backups"
