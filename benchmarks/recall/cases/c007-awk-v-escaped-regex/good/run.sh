#!/bin/bash
# Count review comments that mention a given module name (dots are literal).
set -euo pipefail

term=$1
log=${2:-review.log}

esc=$(printf '%s' "$term" | sed 's/\./\\./g')
hits=$(pat="$esc" awk '$0 ~ ENVIRON["pat"] { n++ } END { print n + 0 }' "$log")
echo "$term: $hits hits"
