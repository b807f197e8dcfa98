#!/bin/bash
# Options given on the command line override the values read from the config file.
DOWNLOADDIR=/tmp
EMAIL=
[ -f /etc/plexupdate.conf ] && source /etc/plexupdate.conf

while getopts "d:e:" opt; do
	case "$opt" in
		d) DOWNLOADDIR_CL=$OPTARG ;;
		e) EMAIL_CL=$OPTARG ;;
		*) exit 1 ;;
	esac
done

for VAR in DOWNLOADDIR EMAIL; do
	VAR2="${VAR}_CL"
	if [ -n "${!VAR2}" ]; then
		eval $VAR='${!VAR2}'
	fi
done
echo "downloading to ${DOWNLOADDIR}"
