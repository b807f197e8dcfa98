#!/bin/bash
# Update every server listed by the inventory, going through the bastion host.
BASTION=bastion.example.org

./list-servers.sh | while read -r server; do
  {
    echo "Updating $server"
    ssh -o BatchMode=yes -o ConnectTimeout=10 -J "$BASTION" "deploy@$server" \
      'sudo /opt/terraware/bin/update.sh'
  } < /dev/null
done
