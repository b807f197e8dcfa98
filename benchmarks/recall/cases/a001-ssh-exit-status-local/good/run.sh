#!/bin/bash
# Run the pending database migrations on the db host and report the result.
host=db1
echo "running migrations on ${host}"
ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" '/srv/app/bin/migrate --apply; echo remote exit status: $?'
