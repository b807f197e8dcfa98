#!/bin/bash
# Smoke test: a one-off pod must see the variable passed with --env.
set -e
kubectl run env-check --image=busybox:1.36 --restart=Never --env="GREETING=hello" -- sh -c 'echo "GREETING is $GREETING"'
kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/env-check --timeout=60s
kubectl logs env-check
kubectl delete pod env-check
