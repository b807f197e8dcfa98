#!/bin/bash
# Go to the newest release directory and show what is deployed there.
set -euo pipefail

releases=/srv/app/releases
cd "$(find "$releases" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)"
echo "current release: $PWD"
ls -l
