#!/bin/bash
# E2E helper: wait until the freshly provisioned AWS test VM has finished cloud-init.
KEY="$HOME/.ssh/e2e_aws"

aws_wait_ready() {
  local ip=$1
  ssh -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o ConnectTimeout=10 \
    -i "$KEY" "ubuntu@$ip" 'cloud-init status --wait'
}

aws_wait_ready "${1:?instance ip required}"
