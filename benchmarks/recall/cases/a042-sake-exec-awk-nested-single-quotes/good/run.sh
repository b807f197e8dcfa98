#!/bin/bash
# Print the kernel release (without the flavour suffix) of the web server.
cd /srv/ops/sake || exit 1
sake exec -s web1 $'uname -r | awk -v FS=\'-\' \'{print $1}\''
