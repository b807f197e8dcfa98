#!/bin/bash
# Check that the postStart handler wrote its message inside the pod.
set -euo pipefail

pod=handlers
display_message="cat /usr/share/message"
exec_command="sh -c ${display_message}"

kubectl wait --for=condition=Ready "pod/$pod" --timeout=60s
output=$(kubectl exec "$pod" -- "${exec_command}")
if [ "$output" = "Hello from the postStart handler" ]; then
    echo "handler ran"
else
    echo "unexpected output: $output"
    exit 1
fi
