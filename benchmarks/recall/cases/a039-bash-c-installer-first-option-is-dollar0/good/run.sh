#!/bin/bash
# Provision a build box with the Tenstorrent software stack, without the kernel module.
set -euo pipefail
echo "running the tt-installer"
/bin/bash -c "$(curl -fsSL https://github.com/tenstorrent/tt-installer/releases/latest/download/install.sh)" -- --no-install-kmd
