"""Run-time behaviour the QC2xx rules share: which processes a command selects and signals,
which shells are alive when it runs, where background jobs' output goes.

By what they model (the facts are verified with GNU grep 3.8, procps-ng 4.0.2, bash 5.2.15,
dash 0.5.12 and OpenSSH 9.2 unless a module says otherwise):

- ``regex``: grep/pgrep patterns as Python ``re`` patterns;
- ``toolcalls``: the options of grep, pgrep/pkill, ps, kill and awk, and signal names;
- ``cmdline``: process command lines as ps and pgrep show them;
- ``effective``: what a command runs through exec-style wrappers;
- ``selectors``: how ``ps | grep ...`` or ``pgrep`` picks processes, and what it matches;
- ``killsites``: where a script signals processes chosen by pattern;
- ``processes``: the shells alive when a kill runs, and bash's exec of a last command;
- ``slots``, ``script_index``, ``shell_options``: where a command sits in its script, the
  layer's commands by position, which ``set`` options hold there;
- ``jobs``, ``fds``, ``ssh``: background jobs, their file descriptors, the ssh session;
- ``script_messages``: what an echo/printf says and the words that claim success;
- ``word_values``: the values a pattern word may hold when the script sets them (a `for`
  loop's words, assignments in branches);
- ``display``: how commands and positions are written in messages.

Helpers that remember what they found take the check's context (its memo) first.
"""
