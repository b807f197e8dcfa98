#!/bin/bash
# Look around inside the first rails pod of the shop namespace.
set -euo pipefail

ns=shop
pod=$(kubectl get pods -n "$ns" -l app=rails -o jsonpath='{.items[0].metadata.name}')
echo "Listing /usr in $pod"
kubectl exec -n "$ns" "$pod" -c rails -- ls /usr
