#!/bin/bash
# Docker HEALTHCHECK: the VPN tunnel and the torrent daemon must both be up.
# Expected count is 2: one line for the process and one for the grep itself.

OPENVPN=$(ps -ef | grep 'openvpn --script-security' | wc -l)
TRANSMISSION=$(ps -ef | grep 'transmission-daemon' | wc -l)

if [ "$OPENVPN" -ne 2 ]; then
  echo "openvpn process not running" >&2
  exit 1
fi
if [ "$TRANSMISSION" -ne 2 ]; then
  echo "transmission-daemon process not running" >&2
  exit 1
fi
exit 0
