#!/bin/sh
# Entrypoint of the container action: show the arguments the workflow passed in.
set -e
printf '%d args:' "$#"
printf " '%s'" "$@"
printf '\n'
time=$(date)
echo "time=$time" >> "$GITHUB_OUTPUT"
