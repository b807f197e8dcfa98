#!/bin/bash
# Nightly database backup, run from cron.
# /etc/ureport/backup.cnf (mode 600): [client] user=... password=...
DEFAULTS_FILE=/etc/ureport/backup.cnf
DBNAME=ureport
BACKUP_DIR=/srv/backups/ureport
BACKUPFILE="$BACKUP_DIR/$DBNAME-$(date +%Y%m%d).sql"

mkdir -p "$BACKUP_DIR"
mysqldump --defaults-extra-file="$DEFAULTS_FILE" --opt "$DBNAME" > "$BACKUPFILE"
gzip -f "$BACKUPFILE"
