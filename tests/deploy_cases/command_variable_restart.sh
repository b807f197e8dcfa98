#!/bin/bash
# expect: QC201@8 QC210@8
# A GPU job restarter that keeps its ssh command line in a variable; `$SSH` is that command,
# so the self-kill is the same as with ssh written out.
set -eu
SSH="ssh -o BatchMode=yes -o ConnectTimeout=10"
host=gpu1
$SSH "$host" "pkill -f train.py; nohup python3 train.py > /dev/null 2>&1 < /dev/null &"
