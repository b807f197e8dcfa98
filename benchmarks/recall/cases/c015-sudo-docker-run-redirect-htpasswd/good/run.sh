#!/bin/bash
# Create the registry's htpasswd file for one user.
set -euo pipefail

user=$1
read -rsp "Password for $user: " password
echo
sudo mkdir -p /etc/docker/registry/auth
printf '%s\n' "$password" |
    sudo docker run --rm -i --entrypoint htpasswd registry.suse.com/sles12/registry:2.6.2 -Bin "$user" | sudo tee /etc/docker/registry/auth/htpasswd > /dev/null
echo "htpasswd written for $user"
