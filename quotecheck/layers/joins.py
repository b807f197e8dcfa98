"""Layers that join words into one string for a shell, and terminal multiplexers.

Facts (verified here unless marked):
- `eval W1 W2` joins its words with single spaces and parses the result in the current shell;
  bash drops a leading `--` (and rejects other options: `eval -x` is an error), dash runs
  `--` as a command (exit 127);
- procps-ng watch 4.0.2 joins its command words with spaces and runs `sh -c STRING` (`watch
  echo '$0' 'a  b'` shows `sh a b`); with -x/--exec it execs the words directly (`a  b` kept);
  options stop at the first command word (watch(1) NOTES);
- tmux 3.3a: a single shell-command word runs as `default-shell -c WORD` (default-shell comes
  from $SHELL, else the passwd shell, else /bin/sh: `SHELL=/bin/bash tmux new -d 'echo $0'`
  shows `bash`); several words are exec'd directly without a shell (tmux(1), "shell-command
  arguments"; verified: `tmux new -d sh -c '...' zero 'a  b'` keeps `a  b`). tmux before 3.0
  joined several words with spaces for the shell instead; `tmux -c CMD` runs CMD with the
  default shell;
- GNU screen `screen [-opts] [cmd [args]]` runs cmd with args directly, no shell (screen(1)
  synopsis; the usual idiom is `screen -dm sh -c '...'`). Not verified: screen is not
  installed here.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from quotecheck.layers.argv_options import Grammar, Option, scan
from quotecheck.layers.handoff_types import (
    ExecHandoff,
    Handler,
    Handoff,
    JoinHandoff,
    ShellHandoff,
)

_TMUX_SHELL = "tmux default-shell: $SHELL, else the passwd shell, else /bin/sh"


def parse_eval(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    first = start + 1
    skipped: int | None = None
    if first < end and argv[first] == "--" and first not in dynamic:
        skipped = first
        first += 1
    words = tuple(range(first, end))
    if not words:
        return None
    return JoinHandoff(
        argv=argv, joiner=" ", words=words, shell="same", wrapper="eval",
        skipped_dashdash=skipped,
    )


# procps-ng watch(1) 4.0.2.
WATCH_GRAMMAR = Grammar(
    short_flags="bcegptwxhv",
    short_values="nq",
    short_optional="d",
    long_flags=frozenset({"beep", "color", "errexit", "chgexit", "precise", "no-title",
                          "no-wrap", "exec", "help", "version"}),
    long_values=frozenset({"interval", "equexit"}),
    long_optional=frozenset({"differences"}),
)


def parse_watch(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    sc = scan(argv, WATCH_GRAMMAR, start + 1, end, dynamic)
    if sc.has("-h", "--help", "-v", "--version") or not sc.operands:
        return None
    words = sc.operands
    if sc.has("-x", "--exec"):
        return ExecHandoff(
            argv=argv, wrapper="watch", inner=words[0], end=words[-1] + 1, words=words,
            options=sc.options, uncertain=sc.uncertain,
        )
    return JoinHandoff(
        argv=argv, joiner=" ", words=words, shell="sh", wrapper="watch", options=sc.options,
        uncertain=sc.uncertain,
    )


# tmux(1) 3.3a: global options, then a command with its own options.
TMUX_GRAMMAR = Grammar(short_flags="2CDdlNquUvV", short_values="cfLST", abbreviations=False)
_TMUX_COMMANDS: dict[str, Grammar] = {}
for _names, _flags, _values in (
    (("new-session", "new"), "AdDEPX", "cefFnstxy"),
    (("new-window", "neww"), "abdkPS", "ceFnt"),
    (("split-window", "splitw"), "bdfhIvPZ", "ceFlpt"),
    (("respawn-pane", "respawnp", "respawn-window", "respawnw"), "k", "cet"),
):
    for _name in _names:
        _TMUX_COMMANDS[_name] = Grammar(short_flags=_flags, short_values=_values,
                                        abbreviations=False)


def parse_tmux(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    sc = scan(argv, TMUX_GRAMMAR, start + 1, end, dynamic)
    shell_cmd = sc.last("-c")
    if shell_cmd is not None:
        return ShellHandoff(
            argv=argv, shell="unknown", mode="c", script=shell_cmd.value_index,
            script_offset=0 if shell_cmd.value_index != shell_cmd.index else 2,
            wrapper="tmux", shell_source=_TMUX_SHELL, options=sc.options,
            uncertain=sc.uncertain,
        )
    if not sc.operands or argv[sc.operands[0]] not in _TMUX_COMMANDS:
        return None
    at = sc.operands[0]
    # A lone `;` word separates tmux commands; only the first command is read here.
    stop = next((k for k in range(at + 1, end) if argv[k] == ";"), end)
    sub = scan(argv, _TMUX_COMMANDS[argv[at]], at + 1, stop, dynamic)
    words = sub.operands
    options: tuple[Option, ...] = sc.options + sub.options
    if not words:
        return None
    if len(words) == 1:
        return ShellHandoff(
            argv=argv, shell="unknown", mode="c", script=words[0], wrapper="tmux",
            shell_source=_TMUX_SHELL, options=options,
            uncertain=sc.uncertain or sub.uncertain or words[0] in dynamic,
        )
    return ExecHandoff(
        argv=argv, wrapper="tmux", inner=words[0], end=words[-1] + 1, words=words,
        action=argv[at], options=options, uncertain=sc.uncertain or sub.uncertain,
    )


# GNU screen(1): letters taking a value (attached or the next word), letters that may take a
# session name from the next word, and whole words with their own meaning.
_SCREEN_VALUES = "cehpsStT"
_SCREEN_SESSION = "dDrRx"
_SCREEN_NO_COMMAND = frozenset({"-ls", "-list", "-wipe", "-X", "-Q", "-v", "-version",
                                "--version", "--help"})


def parse_screen(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    options: list[Option] = []
    i = start + 1
    new_session = attach = False
    while i < end and argv[i].startswith("-") and len(argv[i]) > 1:
        word = argv[i]
        if word in _SCREEN_NO_COMMAND:
            return None
        if word == "--":
            i += 1
            break
        if word == "-Logfile":
            options.append(Option(word, i, argv[i + 1] if i + 1 < end else None,
                                  i + 1 if i + 1 < end else None))
            i += 2
            continue
        j = 1
        step = 1
        while j < len(word):
            letter = word[j]
            rest = word[j + 1 :]
            if letter in _SCREEN_VALUES:
                if rest:
                    options.append(Option("-" + letter, i, rest, i))
                elif i + 1 < end:
                    options.append(Option("-" + letter, i, argv[i + 1], i + 1))
                    step = 2
                break
            if letter == "m":
                new_session = True
            elif letter in _SCREEN_SESSION:
                attach = attach or letter in "rRx"
                if not rest and i + 1 < end and not argv[i + 1].startswith("-") and not (
                    new_session or "m" in word
                ):
                    options.append(Option("-" + letter, i, argv[i + 1], i + 1))
                    step = 2
                    break
            options.append(Option("-" + letter, i))
            j += 1
        i += step
    words = tuple(range(i, end))
    if not words or (attach and not new_session):
        return None
    return ExecHandoff(
        argv=argv, wrapper="screen", inner=words[0], end=end, words=words,
        options=tuple(options), uncertain=words[0] in dynamic,
    )


HANDLERS: dict[str, Handler] = {
    "eval": parse_eval,
    "watch": parse_watch,
    "tmux": parse_tmux,
    "screen": parse_screen,
}
