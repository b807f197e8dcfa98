#!/bin/bash
# Restart the VPN container on the managed host as a non-root sudo user.
HOST=vpn1
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)
: "${SUDO_PASS:?SUDO_PASS must be set}"

printf '%s\n' "$SUDO_PASS" | ssh "${SSH_OPTS[@]}" "admin@$HOST" \
  "sudo -S -p '' docker restart amnezia-awg"
