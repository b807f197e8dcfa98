#!/bin/bash
# Record the new brick's mount in the storage node's heketi fstab.
node=gluster1
echo "adding fstab entry on ${node}"
ssh -o BatchMode=yes -o ConnectTimeout=10 "$node" "/bin/bash -c 'echo '\''/dev/mapper/vg_1-brick_1 /var/lib/heketi/mounts/vg_1/brick_1 xfs rw,inode64,noatime,nouuid 1 2'\'' >> /var/lib/heketi/fstab'"
