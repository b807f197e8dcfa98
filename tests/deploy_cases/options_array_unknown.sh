#!/bin/bash
# expect: none
# Options from the environment in an array: which words are options is not known, but the
# array is no destination and `$host` no command word.
ssh "${SSH_OPTS[@]}" "$host" "mkdir -p /srv/app"
