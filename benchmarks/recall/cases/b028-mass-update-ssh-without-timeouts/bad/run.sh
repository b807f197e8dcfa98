#!/bin/bash
# Report free memory on every router that has a firmware image waiting in images/.
WORK_DIR=${1:-.}

check_memory() {
  local hostname="$1"
  ssh -q -o BatchMode=yes "root@$hostname" 'cat /proc/meminfo' |
    awk '/^MemAvailable:/ {print $2}'
}

for file_path in "$WORK_DIR"/images/*.bin; do
  [ -e "$file_path" ] || continue
  hostname=$(basename "$file_path" .bin)
  memory=$(check_memory "$hostname")
  echo "$hostname: ${memory:-unknown} kB available"
done
