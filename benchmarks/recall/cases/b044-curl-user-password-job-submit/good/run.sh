#!/bin/bash
# Submit a job to the SnappyData lead node's job server.
LEAD=${LEAD:-localhost:8090}
APP_NAME=${1:?app name required}
CLASS_PATH=${2:?class required}
PASSWORD_FILE=${3:?curl config file with 'user = "name:password"' required}

curl --config "$PASSWORD_FILE" -d "" \
  "http://$LEAD/jobs?appName=$APP_NAME&classPath=$CLASS_PATH"
