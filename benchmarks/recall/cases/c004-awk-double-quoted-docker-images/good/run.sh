#!/bin/bash
# Remove dangling images left behind by CI builds.
set -euo pipefail

mapfile -t ids < <(docker images | grep '^<none>' | awk '{print $3}')
if [ "${#ids[@]}" -eq 0 ]; then
    echo "no dangling images"
    exit 0
fi
echo "removing ${#ids[@]} images"
docker rmi "${ids[@]}"
