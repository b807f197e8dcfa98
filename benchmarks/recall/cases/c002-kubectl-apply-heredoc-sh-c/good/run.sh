#!/bin/bash
set -euo pipefail
ns=elastic-system
kubectl apply -n "$ns" -f - <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: max-map-count-setter
spec:
  selector:
    matchLabels: {app: max-map-count-setter}
  template:
    metadata:
      labels: {app: max-map-count-setter}
    spec:
      initContainers:
        - name: setter
          image: docker.io/bash:5.2
          securityContext: {privileged: true}
          command: ['bash', '-c', 'echo 262144 > /proc/sys/vm/max_map_count']
      containers:
        - name: sleep
          image: docker.io/bash:5.2
          command: ['sh', '-c', "while true; do mmc=$(cat /proc/sys/vm/max_map_count); if [ ${mmc} -eq 262144 ]; then sleep 3600; fi; sleep 1; done"]
EOF
