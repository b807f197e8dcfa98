#!/bin/bash
# CI step: wait until Prometheus reports more than one scrape target.
set -euo pipefail
export PROM_URL="http://10.1.0.5:9090"
echo "waiting for targets on ${PROM_URL}"
timeout 600 bash -c "until [ $(curl -s "${PROM_URL}/api/v1/targets" | jq '.data.activeTargets[].health' | wc -l) -gt 1 ]; do sleep 5; done"
echo "prometheus has its targets"
