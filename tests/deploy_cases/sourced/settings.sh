# Settings of the shop deploy (sourced by deploy.sh, never run).
APP=shopfront
RELEASE=2024.06.1
export DEPLOY_USER=deploy
readonly BACKUP_DIR="/srv/backups/shop front"
SSH_OPTS=(-n -o BatchMode=yes -o ConnectTimeout=10)
