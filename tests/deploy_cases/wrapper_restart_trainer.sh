#!/bin/bash
# expect: QC201@9 QC203@9 QC210@9
# A training launcher's restart step, after the pattern of cluster start/stop scripts that wrap
# ssh in a helper taking the host and the command.
set -euo pipefail
remote() {
  ssh -o BatchMode=yes -o ConnectTimeout=10 "$1" "$2"
}
remote gpu1 "pkill -f train.py; nohup python3 train.py &"
