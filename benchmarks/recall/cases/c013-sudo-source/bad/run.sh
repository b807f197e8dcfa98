#!/bin/bash
# Run a scheduled job's script as the job owner.
set -euo pipefail

job_user=$1
job_dir=$2

cd "$job_dir"
echo "starting job in $job_dir as $job_user"
if sudo -E -u "$job_user" source "$job_dir/run.sh"; then
    echo "job succeeded"
else
    echo "job failed"
    exit 1
fi
