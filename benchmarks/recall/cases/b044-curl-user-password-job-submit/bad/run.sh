#!/bin/bash
# Submit a job to the SnappyData lead node's job server.
LEAD=${LEAD:-localhost:8090}
APP_NAME=${1:?app name required}
CLASS_PATH=${2:?class required}
USER_NAME=${3:?user required}
PASSWORD=${4:?password required}

curl --user "$USER_NAME:$PASSWORD" -d "" \
  "http://$LEAD/jobs?appName=$APP_NAME&classPath=$CLASS_PATH"
