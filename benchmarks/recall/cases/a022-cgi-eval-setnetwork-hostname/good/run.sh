#!/bin/sh
# Apply the network settings posted from the camera's web form.
network_interface=$POST_network_interface
network_hostname=$POST_network_hostname
network_address=$POST_network_address
network_netmask=$POST_network_netmask
if [ "$POST_network_dhcp" = "false" ]; then network_mode=static; else network_mode=dhcp; fi

set -- -i "$network_interface" -m "$network_mode" -h "$network_hostname"
if [ "$network_mode" != "dhcp" ]; then
	set -- "$@" -a "$network_address" -n "$network_netmask"
fi
setnetwork "$@" > /dev/null 2>&1
echo "network settings updated"
