#!/bin/bash
# Nightly database backup, run from cron.
DBUSER=ureport
DBPASS='change-me'
DBNAME=ureport
BACKUP_DIR=/srv/backups/ureport
BACKUPFILE="$BACKUP_DIR/$DBNAME-$(date +%Y%m%d).sql"

mkdir -p "$BACKUP_DIR"
mysqldump --user="$DBUSER" --password="$DBPASS" --opt "$DBNAME" > "$BACKUPFILE"
gzip -f "$BACKUPFILE"
