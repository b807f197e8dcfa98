#!/bin/bash
# Run the coding agent headless with a wall-clock limit.
set -uo pipefail

limit=${AGENT_TIMEOUT:-3600}
prompt_file=$1

timeout "$limit" command claude -p "$(cat "$prompt_file")" --output-format json > result.json
status=$?
if [ "$status" -eq 124 ]; then
    echo "agent timed out after ${limit}s"
elif [ "$status" -ne 0 ]; then
    echo "agent failed with status $status"
else
    echo "agent finished"
fi
exit "$status"
