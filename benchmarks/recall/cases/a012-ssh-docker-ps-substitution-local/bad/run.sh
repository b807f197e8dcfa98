#!/bin/bash
# Reload DNS in the Pi-hole container on the secondary host.
remote=pi@10.0.0.3
docker_bin=/usr/bin/docker
container=pihole
RH_EXEC="sudo ${docker_bin} exec $(sudo ${docker_bin} ps -qf name=${container}) pihole"
echo "reloading DNS on ${remote}"
ssh -o BatchMode=yes -o ConnectTimeout=10 "$remote" "${RH_EXEC} restartdns reload"
