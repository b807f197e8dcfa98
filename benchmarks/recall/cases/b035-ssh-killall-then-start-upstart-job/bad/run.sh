#!/bin/bash
# Install the freshly built server binary on the VM and bounce the Upstart job.
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)
VM=root@gamevm

scp "${SSH_OPTS[@]}" output/vndf-server "$VM:/opt/vndf/vndf-server" || exit 1
ssh "${SSH_OPTS[@]}" "$VM" 'killall vndf-server; start vndf-server'
