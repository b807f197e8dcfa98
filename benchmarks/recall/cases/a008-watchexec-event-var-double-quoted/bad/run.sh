#!/bin/bash
# Rebuild the docs whenever a markdown file changes and say which one it was.
cd /srv/handbook || exit 1
watchexec --exts md -- "echo \"changed: $WATCHEXEC_WRITTEN_PATH\"; make -C docs html"
