#!/bin/bash
# expect: none
# Deploy helpers that run a command as the service user; the commands are the script's own.
as_app() {
  sudo -u app sh -c "$1"
}
in_container() {
  docker exec "$CONTAINER" sh -c "$1"
}
as_app "cd /srv/app && git pull --ff-only"
in_container "cd /app && python manage.py migrate --noinput"
