#!/bin/bash
# Register pm2 so the deploy user's node processes come back after a reboot.
set -e
echo "installing the pm2 startup script for deploy"
sudo su -c env PATH="$PATH:/home/deploy/.nvm/versions/node/v18.19.0/bin" pm2 startup systemd -u deploy --hp /home/deploy
