#!/bin/bash
# Entrypoint of the autosync action: run complyscribe with the action inputs.
set -eu
git config --global --add safe.directory "$GITHUB_WORKSPACE"

command="complyscribe autosync \
    --markdown-dir=\"${INPUT_MARKDOWN_DIR}\" \
    --commit-message=\"${INPUT_COMMIT_MESSAGE}\" \
    --branch=\"${INPUT_BRANCH}\""

if [[ ${INPUT_DRY_RUN} == true ]]; then
    command+=" --dry-run"
fi

eval "${command}"
