#!/bin/bash
# Stop the file preview service.
APP_NAME=kkFileView
BIN_DIR=$(cd "$(dirname "$0")" && pwd)
PID_FILE="$BIN_DIR/$APP_NAME.pid"   # written by startup.sh

if [ ! -s "$PID_FILE" ]; then
  echo "$APP_NAME is not running (empty or missing pid file)" >&2
  exit 1
fi
PID=$(cat "$PID_FILE")
echo "Stopping $APP_NAME (pid $PID)"
kill -15 "$PID" && : > "$PID_FILE"
