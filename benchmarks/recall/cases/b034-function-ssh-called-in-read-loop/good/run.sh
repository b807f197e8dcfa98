#!/bin/bash
# Report the WordPress core version of every site listed in sites.txt (name host).

execute_wp_via_ssh() {
  local host=$1
  ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$host" 'cd ~/public_html && wp core version'
}

while read -r site host; do
  [ -n "$host" ] || continue
  printf '%s: ' "$site"
  execute_wp_via_ssh "$host"
done < sites.txt
