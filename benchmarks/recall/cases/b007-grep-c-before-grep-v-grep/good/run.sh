#!/bin/sh
# Warn about processes that interfere with monitor mode before starting a capture.
PROCESSES="wpa_action\|wpa_supplicant\|wpa_cli\|dhclient\|ifplugd\|dhcdbd\|dhcpcd\|udhcpc\|NetworkManager"

scan_processes() {
	# busybox grep matches itself, so filter it out
	match="$(ps -ef | grep "$PROCESSES" | grep -v grep | wc -l)"
	if [ "$match" -gt 0 ]; then
		echo "Found $match processes that could cause trouble."
		echo "Run 'airmon-ng check kill' to stop them first."
	fi
}

scan_processes
