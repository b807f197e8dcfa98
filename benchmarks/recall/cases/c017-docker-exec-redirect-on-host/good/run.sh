#!/bin/bash
# Mark the data volume of the db container as initialised.
set -euo pipefail

container=dbdata
docker exec "$container" mkdir -p /dbdata
docker exec "$container" sh -c 'echo initialised > /dbdata/testwork'
echo "marker written in $container"
