#!/bin/bash
# expect: QC201@8 QC210@8
# A script that defines its own `ssh` with the options it always wants (`command ssh` reaches
# the real one); a call of `ssh` is that function.
ssh() {
  command ssh -o BatchMode=yes -o ConnectTimeout=10 "$@"
}
ssh worker3 "pkill -f celery; nohup celery -A app worker > /var/log/celery.log 2>&1 < /dev/null &"
