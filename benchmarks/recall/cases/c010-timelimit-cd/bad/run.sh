#!/bin/bash
# Pull the latest site build into the deploy checkout.
set -uo pipefail

deploy_dir=/home/peter/cdnjs-deploy/new-website
timelimit -q -s 9 -t 1 -T 2 cd "$deploy_dir"
git pull --ff-only || exit 1
npm ci --omit=dev || exit 1
echo "deployed $(git rev-parse --short HEAD)"
