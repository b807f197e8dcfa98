# quotecheck guard for interactive zsh: each command line is checked before it runs.
# Install: add to ~/.zshrc:  eval "$(quotecheck init zsh)"
# accept-line (Enter) is wrapped: on an error the findings are shown and the line runs only if
# you answer y; otherwise it stays in the editor, not run. quotecheck only reads the line: it
# never runs it.
if [[ -o interactive ]]; then
  __quotecheck_accept_line() {
    local line=$BUFFER report answer
    integer qc_status
    if [[ $line == *[![:space:]]* ]]; then
      report=$(command quotecheck guard --command="$line" 2>&1 >/dev/null)
      qc_status=$?
      # 2 is also a usage error (an older quotecheck without guard): only a block asks.
      if (( qc_status == 2 )) && [[ $report == 'quotecheck guard: blocked'* ]]; then
        zle -I
        print -r -- "$report" >&2
        # zle -R puts ZLE back in charge of the terminal, so read -k gets one raw key.
        zle -R "quotecheck: run it anyway? [y/N]"
        read -k 1 answer
        if [[ $answer != [yY] ]]; then
          zle -M "quotecheck: not run; the line is still here to edit (Ctrl-U clears it)"
          return 0
        fi
        zle -M ''
      fi
    fi
    zle __quotecheck_orig_accept_line
  }
  # Keep whatever accept-line was (builtin or another plugin's wrapper) and call it; once.
  if (( ! ${+widgets[__quotecheck_orig_accept_line]} )); then
    zle -A accept-line __quotecheck_orig_accept_line
  fi
  zle -N accept-line __quotecheck_accept_line
fi
