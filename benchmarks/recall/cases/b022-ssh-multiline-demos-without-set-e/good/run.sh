#!/bin/bash
# Package test: install the fresh package in the test container and run the demos.
LXC_IP=${1:?container address required}
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

ssh "${SSH_OPTS[@]}" "$LXC_IP" 'sudo apt-get install -y python-oq-risklib' || exit 1
ssh "${SSH_OPTS[@]}" "$LXC_IP" 'set -e
cd /usr/share/doc/python-oq-risklib/examples/demos
oq-lite run AreaSourceClassicalPSHA/job.ini
oq-lite run ScenarioDamage/job_hazard.ini,ScenarioDamage/job_risk.ini
oq-lite run ProbabilisticEventBased/job_hazard.ini'
