#!/bin/bash
# Kick off the nightly report generator on the reporting host and return.
HOST=reports1
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

echo "Starting report generator on $HOST"
ssh "${SSH_OPTS[@]}" "$HOST" 'cd /srv/reports && nohup ./generate-reports.sh > report.out 2> report.err < /dev/null &'
