# quotecheck guard for interactive bash: each command line is checked before it runs.
# Install: add to ~/.bashrc:  eval "$(quotecheck init bash)"
# Enter runs __quotecheck_guard_line (bind -x), then accept-line. On an error the findings are
# shown and the line runs only if you answer y; otherwise it is put in the history (Up brings
# it back) and not run. quotecheck only reads the line: it never runs it.
if [[ $- == *i* ]] && (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
  __quotecheck_guard_line() {
    local line=$READLINE_LINE report answer status
    [[ $line == *[![:space:]]* ]] || return 0
    # The reason goes through a file: a command substitution here, run while a command typed
    # over several lines is being read, made bash 5.2.15 abort (free(): invalid next size).
    # noclobber (for this function only): the file is created new, never an existing one.
    local -
    set -C
    report=${TMPDIR:-/tmp}/quotecheck-guard.$$.$RANDOM
    command quotecheck guard --command="$line" 2>"$report" >/dev/null
    status=$?
    [[ -f $report && ! -L $report ]] || return 0
    local -a reason=()
    mapfile -t reason <"$report"
    command rm -f -- "$report"
    # 2 is also a usage error (an older quotecheck without guard): only a block asks.
    (( status == 2 )) && [[ ${reason[0]} == 'quotecheck guard: blocked'* ]] || return 0
    printf '%s\n' "${reason[@]}" >&2
    read -r -n 1 -p 'quotecheck: run it anyway? [y/N] ' answer </dev/tty
    printf '\n' >&2
    [[ $answer == [yY] ]] && return 0
    history -s -- "$line"
    READLINE_LINE=''
    READLINE_POINT=0
  }
  for __quotecheck_map in emacs vi-insert; do
    bind -m "$__quotecheck_map" -x '"\C-x\C-q\C-g": __quotecheck_guard_line'
    bind -m "$__quotecheck_map" '"\C-x\C-q\C-a": accept-line'
    bind -m "$__quotecheck_map" '"\C-m": "\C-x\C-q\C-g\C-x\C-q\C-a"'
    bind -m "$__quotecheck_map" '"\C-j": "\C-x\C-q\C-g\C-x\C-q\C-a"'
  done
  unset __quotecheck_map
fi
