#!/bin/bash
# Deploy PicoShare to fly.io from the published image.
APP_NAME=picoshare-demo
REGION=iad
PICOSHARE_IMAGE="mtlynch/picoshare:0.1.0"

fly deploy \
  --app "${APP_NAME}" \
  --region="${REGION}" \
  --image "${PICOSHARE_IMAGE}"

PICOSHARE_URL="https://${APP_NAME}.fly.dev/"
echo "Your PicoShare instance is now ready at: ${PICOSHARE_URL}"
