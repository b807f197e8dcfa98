#!/bin/bash
# expect: none
# A function named like a program is that function: this `watch` is not procps watch.
watch() {
  printf 'watching %s\n' "$@"
}
watch "build; test"
