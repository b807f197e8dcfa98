#!/bin/bash
# expect: none
# After apache/accumulo's accumulo-cluster (see SOURCE.md): the `-qn` command array and a
# helper that runs its arguments in the background; the remote command is the script's own.
SSH=('ssh' '-qn' '-o' 'ConnectTimeout=2' '-o' 'BatchMode=yes')
bin=/opt/accumulo/bin

debugOrRunAsync() {
  ("$@") &
}

for host in tserver1 tserver2; do
  debugOrRunAsync "${SSH[@]}" "$host" "bash -c '$bin/accumulo-service tserver start > /dev/null 2>&1 < /dev/null'"
done
wait
