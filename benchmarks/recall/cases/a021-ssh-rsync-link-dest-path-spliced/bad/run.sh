#!/bin/bash
# Refresh the hard-link shadow next to a remote backup so renamed files are detected.
set -u
target_host=$1
target_dir=$2
shadow=.rsync_shadow
echo "updating the shadow of ${target_dir} on ${target_host}"
ssh -o BatchMode=yes -o ConnectTimeout=10 "$target_host" "rsync -a --delete --link-dest=$target_dir --exclude=/$shadow $target_dir/ $target_dir/$shadow"
