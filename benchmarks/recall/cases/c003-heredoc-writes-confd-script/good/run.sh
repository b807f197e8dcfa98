#!/bin/bash
# prep.sh: runs inside the image chroot before the image is sealed.
set -euo pipefail

echo "Configuring hostname handling"
cat > /etc/conf.d/hostname <<"EOL"
# Set to the hostname of this machine
if [ -f /etc/hostname ]; then
  hostname=$(cut -d. -f1 /etc/hostname 2>/dev/null)
else
  hostname="localhost"
fi
EOL
chmod 0644 /etc/conf.d/hostname
echo "hostname config written"
