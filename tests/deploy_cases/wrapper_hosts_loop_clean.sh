#!/bin/bash
# expect: none
# The same rolling restart done right: ssh -n keeps the loop's input for `read`.
run_on() {
  local host=$1
  shift
  ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$host" "$@"
}

while read -r h; do
  run_on "$h" "sudo systemctl restart shopfront"
done < hosts.txt
