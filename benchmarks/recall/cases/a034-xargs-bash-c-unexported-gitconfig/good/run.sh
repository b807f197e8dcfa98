#!/bin/bash
# Run the Go test packages in parallel, each with the shared test gitconfig.
set -euo pipefail
repo_root=$(git rev-parse --show-toplevel)
gc_test_gitconfig=$("$repo_root/scripts/test-gitconfig-path")
export gc_test_gitconfig
export TEST_LOCAL_GOCACHE="$repo_root/.cache/go-build"
jobs=$(nproc)

go list ./... | tr '\n' '\0' | xargs -0 -n1 -P "$jobs" bash -c '
set -euo pipefail
GIT_CONFIG_GLOBAL="$gc_test_gitconfig" GOCACHE="$TEST_LOCAL_GOCACHE" go test -count=1 "$1"
' _
