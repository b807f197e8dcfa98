#!/bin/bash
# Exercise: ask for a website inside the container and fetch it after a pause.
image=curler:latest
echo "starting ${image}"
docker run -it --rm "$image" sh -c 'echo "Input website:"; read -r website; echo "Searching.."; sleep 1; curl "http://$website"'
