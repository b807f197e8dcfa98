#!/bin/bash
# Push the freshly built agent packages to a hypervisor and install them there.
set -e
hv=root@10.20.0.11
cd /srv/build/dist
ssh -o BatchMode=yes -o ConnectTimeout=10 "$hv" rm -f cloudstack-\*
scp -o BatchMode=yes -o ConnectTimeout=10 cloudstack-agent*.rpm cloudstack-common*.rpm "$hv":./
ssh -o BatchMode=yes -o ConnectTimeout=10 "$hv" 'yum -y localinstall cloudstack-agent*.rpm cloudstack-common*.rpm'
ssh -o BatchMode=yes -o ConnectTimeout=10 "$hv" systemctl restart cloudstack-agent
