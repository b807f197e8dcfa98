#!/bin/bash
# Check which environment the worker image picks up from -e.
image=registry.example.com/worker:1.4
docker run --rm -e APP_ENV=staging "$image" sh -c 'echo "worker sees APP_ENV=$APP_ENV"'
