#!/bin/bash
# expect: QC209@11
# Rolling restart over a host list, the helper shifting its host off the parameters.
run_on() {
  local host=$1
  shift
  ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" "$@"
}

while read -r h; do
  run_on "$h" "sudo systemctl restart shopfront"
done < hosts.txt
