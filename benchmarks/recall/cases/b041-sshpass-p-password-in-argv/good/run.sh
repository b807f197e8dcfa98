#!/bin/bash
# Make sure the remote work directory exists before syncing the benchmark tree.
set -u
: "${L2_SSH_HOST:?L2_SSH_HOST is required (remote host or IP)}"
: "${L2_SSH_PASS:?L2_SSH_PASS is required (ssh password)}"
L2_SSH_USER=${L2_SSH_USER:-root}

echo "[sync] ensuring /root/work exists on $L2_SSH_HOST"
SSHPASS="$L2_SSH_PASS" sshpass -e ssh -o ConnectTimeout=10 \
  "$L2_SSH_USER@$L2_SSH_HOST" 'mkdir -p /root/work'
