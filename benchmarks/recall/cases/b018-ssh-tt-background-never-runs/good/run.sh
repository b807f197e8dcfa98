#!/bin/bash
# Start a headless browser on the UI test VM before the test suite runs.
VM=uitest1

ssh -o BatchMode=yes -o ConnectTimeout=10 "tester@$VM" \
  'firefox --headless --marionette > /tmp/firefox.log 2>&1 < /dev/null &'
