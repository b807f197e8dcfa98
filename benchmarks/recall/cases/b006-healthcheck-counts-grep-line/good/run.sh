#!/bin/bash
# Docker HEALTHCHECK: the VPN tunnel and the torrent daemon must both be up.
# Expected count is 1: the grep lines are filtered out.

OPENVPN=$(ps -ef | grep 'openvpn --script-security' | grep -v 'grep openvpn --script-security' | wc -l)
TRANSMISSION=$(ps -ef | grep 'transmission-daemon' | grep -v 'grep transmission-daemon' | wc -l)

if [ "$OPENVPN" -ne 1 ]; then
  echo "openvpn process not running" >&2
  exit 1
fi
if [ "$TRANSMISSION" -ne 1 ]; then
  echo "transmission-daemon process not running" >&2
  exit 1
fi
exit 0
