#!/bin/sh
# Entrypoint of the container action: show the arguments the workflow passed in.
set -e
sh -c "echo $*"
time=$(date)
echo "time=$time" >> "$GITHUB_OUTPUT"
