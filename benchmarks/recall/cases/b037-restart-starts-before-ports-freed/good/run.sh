#!/bin/bash
# /etc/init.d/gluu-server: start, stop or restart the services in the Gluu chroot.
CHROOT=/opt/gluu-server
PORTS="443 8080 8081"

ports_free() {
  for port in $PORTS; do
    ss -Hltn "sport = :$port" | grep -q . && return 1
  done
  return 0
}
start() {
  ports_free || { echo "required ports are still in use" >&2; return 1; }
  chroot "$CHROOT" /etc/init.d/start-services
}
stop() { chroot "$CHROOT" /etc/init.d/stop-services; }

case "$1" in
  start) start ;;
  stop) stop ;;
  restart)
    stop
    for _ in $(seq 30); do ports_free && break; sleep 1; done
    start ;;
esac
