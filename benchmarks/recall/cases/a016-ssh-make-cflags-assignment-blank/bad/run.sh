#!/bin/bash
# Build the daemon with debug symbols on the build box.
host=build1
echo "building on ${host}"
ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" make -C /srv/src/daemon CFLAGS="-g -O"
