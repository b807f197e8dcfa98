#!/bin/bash
# Nightly backup of a Docker volume into a dated tar file.
backupDir=/srv/backup
today=$(date +%F)
container=nextcloud
volumeName=nextcloud-data
volumePath=/var/www/html/data

mkdir -pv "$backupDir/daily/$today"
docker run --rm --volumes-from "$container" \
  -v "$backupDir/daily/$today":/backup \
  ubuntu tar cvf "/backup/$volumeName.tar" "$volumePath"
exitCode=$?
if [ "$exitCode" -eq 0 ]; then
  echo "========================="
  echo "$volumeName Volume backuped"
  echo "========================="
else
  echo "$volumeName Volume backup FAILED (exit code $exitCode)" >&2
fi
