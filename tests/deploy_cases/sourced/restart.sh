#!/bin/bash
# expect (with --external-sources): QC201@5 QC210@5
. "$(dirname "$0")/common.sh"
remote gpu1 "nvidia-smi"
remote gpu1 "pkill -f train.py; nohup python3 train.py > /dev/null 2>&1 &"
