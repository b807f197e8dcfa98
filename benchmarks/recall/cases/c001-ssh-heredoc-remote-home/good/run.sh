#!/bin/bash
# Prepare the FPGA test box so the docs job can talk to the board.
set -euo pipefail

remote=fpga-ci
echo "Writing board config on $remote"

ssh -o BatchMode=yes -o ConnectTimeout=10 "$remote" <<EOF
set -e
FPGA_CONFIG="\$HOME/fpga_config"
mkdir -p "\$FPGA_CONFIG"
cp /opt/fpga/board.ini "\$FPGA_CONFIG/board.ini"
echo "config ready in \$FPGA_CONFIG"
EOF

echo "remote setup finished"
