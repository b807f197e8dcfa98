#!/bin/sh
# /usr/local/etc/init.d/docker
PIDFILE=/var/run/docker.pid

check() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
start() {
	check && return 0
	/usr/local/bin/dockerd --pidfile "$PIDFILE" >> /var/lib/boot2docker/docker.log 2>&1 &
}
stop() { check && kill "$(cat "$PIDFILE")"; }
restart() {
	if check; then
		stop; i=0
		while check; do
			i=$((i + 1))
			[ "$i" -gt 30 ] && { echo "docker did not stop within 30s" >&2; return 1; }
			sleep 1
		done
	fi
	start
}
case "$1" in
	start|stop|restart) "$1" ;;
	*) echo "usage: $0 start|stop|restart" >&2; exit 1 ;;
esac
