#!/bin/bash
# Style checks for the Go tree; run them in parallel when GNU parallel is installed.
set -eu
export PKG=${PKG:-./...}

TestVet() { go vet "$PKG"; }
TestGolint() { golint -set_exit_status "$PKG"; }
TestStaticcheck() { staticcheck "$PKG"; }
export -f TestVet TestGolint TestStaticcheck

checks=(TestVet TestGolint TestStaticcheck)
if command -v parallel > /dev/null; then
    parallel --halt now,fail=1 ::: "${checks[@]}"
else
    for check in "${checks[@]}"; do "$check"; done
fi
