#!/bin/sh
# List the xcode-* subcommands found in the directories on PATH.
available_commands=$(
  echo "$PATH" \
  | tr ":" "\n" \
  | xargs -I {} sh -c 'test -d "$@" && echo "$@"' test {} \
  | xargs -I {} find {} -maxdepth 1 -type f -perm -u+x -name "xcode-*"
)
printf '%s\n' "$available_commands"
