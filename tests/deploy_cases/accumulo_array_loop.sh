#!/bin/bash
# expect: QC209@10
# After apache/accumulo's accumulo-cluster (see SOURCE.md): an ssh command array, here
# without its `-n`, used inside a loop reading the host list.
SSH=('ssh' '-q' '-o' 'ConnectTimeout=2' '-o' 'BatchMode=yes')
conf=/opt/accumulo/conf

while read -r host; do
  echo "stopping tservers on $host"
  "${SSH[@]}" "$host" "pkill -f '^java.*TabletServer' || true"
done < "$conf/tservers"
