#!/bin/bash
# Run a command as the dev user inside the sandbox container, from the project dir.
set -euo pipefail
container=devbox
CMD="cd /src && "
for arg in "$@"; do
    CMD+="$(printf '%q ' "$arg")"
done
docker exec -it "$container" su -s /bin/bash dev -c "$CMD"
