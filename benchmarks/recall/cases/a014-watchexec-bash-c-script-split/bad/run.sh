#!/bin/bash
# Rebuild and restart the API server whenever a Go file changes.
cd /srv/api || exit 1
watchexec --restart --exts go -- bash -c 'go build -o bin/api ./cmd/api; ./bin/api --listen :8080;'
