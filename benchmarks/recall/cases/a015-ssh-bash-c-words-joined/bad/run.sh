#!/bin/bash
# Ask the app host for the status of the application, with its profile loaded.
host=app1
ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" bash -c "source /etc/profile.d/app.sh && app-ctl status"
