#!/bin/bash
# Start a headless Neovim server in the project directory on the dev box.
host=devbox
echo "starting nvim on ${host}"
ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" 'cd "~/my-project" && exec nvim --headless --listen 127.0.0.1:7777'
