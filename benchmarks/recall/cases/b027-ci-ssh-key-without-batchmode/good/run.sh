#!/bin/bash
# CI after_success hook: list the release directory on the test host.
KEY="$HOME/.aws/skybase_test_rsa"
HOST=10.253.116.251

ssh -o BatchMode=yes -o UserKnownHostsFile=ci/known_hosts -o ConnectTimeout=10 -i "$KEY" \
  "ubuntu@$HOST" 'ls -al /srv/release'
