#!/bin/bash
# Stop the file preview service.
APP_NAME=kkFileView

PID=$(ps -ef | grep "$APP_NAME" | awk 'NR==1{print $2}')
echo "Stopping $APP_NAME (pid $PID)"
kill -15 "$PID"
