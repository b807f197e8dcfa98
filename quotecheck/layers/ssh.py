"""The OpenSSH client's argv grammar.

Verified with OpenSSH 9.2p1 (`ssh -G` prints the resolved configuration without connecting):
- option parsing restarts after the destination, so `ssh h -p 2222 -l u echo hi` uses port 2222
  and user u and sends `echo hi`; it stops at the first non-option word after the destination
  (`ssh -G h echo -p 3` keeps port 22);
- a `--` before the destination ends ALL option parsing (`ssh -G -- h -p 3` keeps port 22: the
  words after h are the command); after the destination `--` ends the options as usual;
- settings given by `-o`, `-p`, `-l` and the destination: see `ssh_settings.py`;
- -t toggles between "yes" and "force" (-t yes, -tt force, -ttt yes, -tttt force), -T sets
  "no"; `-o RequestTTY=yes -t` is force; `-t -o RequestTTY=no` stays yes (first -o value only
  applies while unset);
- `-f` without a command fails: "Cannot fork into background without a command to execute."
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Literal

from quotecheck.layers.argv_options import Grammar, Option, scan
from quotecheck.layers.handoff_types import Handler, SshHandoff
from quotecheck.layers.ssh_settings import parse_config_option
from quotecheck.lazy_regex import lazy_compile

# `-P tag` takes a value since OpenSSH 9.4 (`Tag` option); 9.2 here still accepts -P as an
# ignored flag (verified: `ssh -G -P tag h` resolves hostname "tag"). We follow current OpenSSH.
SSH_GRAMMAR = Grammar(
    short_flags="46AaCfGgKkMNnqsTtVvXxYy",
    short_values="BbcDEeFIiJLlmOoPpQRSWw",
    abbreviations=False,
)

# A run-time word that may stand for any number of words, options among them: an array's
# elements, the parameters, or a variable named for options (`$SSH_OPTS`, `$SSH_ARGS`), the
# word a whole part of its name (`$target_host` is no `ARG`).
_SPREADS = lazy_compile(
    r"\$(?:[@*]|\{[@*]\}|\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}"
    r"|\{?[A-Za-z_0-9]*?(?:OPT(?:ION)?S?|ARG(?:UMENT)?S?|FLAGS?|PARAM(?:ETER)?S?)"
    r"(?:_[A-Za-z_0-9]*)?\}?)\Z", re.I)
_NO_REMOTE_COMMAND = frozenset({"-N", "-W", "-O", "-G", "-V", "-Q"})
_TTY_LEVEL = {"auto": 0, "no": 0, "yes": 1, "force": 2}


def asks_for_tty(config: str) -> bool:
    """Whether one -o argument sets RequestTTY to ask for a terminal (yes or force)."""
    keyword, value = parse_config_option(config)
    return keyword.lower() == "requesttty" and _TTY_LEVEL.get(value.lower(), 0) > 0


def _tty_state(options: Iterable[Option]) -> Literal["auto", "no", "yes", "force"]:
    state: str | None = None
    for opt in options:
        if opt.name == "-t":
            state = "force" if state == "yes" else "yes"
        elif opt.name == "-T":
            state = "no"
        elif opt.name == "-o" and opt.value is not None and state is None:
            keyword, value = parse_config_option(opt.value)
            if keyword.lower() == "requesttty" and value.lower() in _TTY_LEVEL:
                state = value.lower()
    if state == "no":
        return "no"
    if state == "yes":
        return "yes"
    if state == "force":
        return "force"
    return "auto"


def parse_ssh(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> SshHandoff:
    first = scan(argv, SSH_GRAMMAR, start + 1, end, dynamic)
    spread: list[int] = []
    while first.operands and first.dashdash is None and len(first.operands) > 1 and \
            first.operands[0] in dynamic and _SPREADS.match(argv[first.operands[0]]):
        # `ssh "${SSH_OPTS[@]}" "$host" cmd`: the array holds options (it cannot be the
        # destination and leave `$host` as the command's first word in a working script).
        spread.append(first.operands[0])
        before = first.options
        first = scan(argv, SSH_GRAMMAR, first.operands[0] + 1, end, dynamic)
        first = type(first)((*before, *first.options), first.operands, first.dashdash,
                            first.unknown, first.missing_value, True)
    options = list(first.options)
    problems: list[str] = []
    uncertain = first.uncertain
    destination: int | None = None
    command: tuple[int, ...] = ()
    dashdash = first.dashdash
    if first.operands:
        destination = first.operands[0]
        if first.dashdash is not None:
            command = first.operands[1:]
        else:
            second = scan(argv, SSH_GRAMMAR, destination + 1, end, dynamic)
            options.extend(second.options)
            command = second.operands
            dashdash = second.dashdash
            uncertain = uncertain or second.uncertain
            if second.missing_value is not None:
                problems.append(f"ssh: option requires an argument -- {second.missing_value.name}")
    if first.missing_value is not None:
        problems.append(f"ssh: option requires an argument -- {first.missing_value.name}")
    if destination is not None and not command and destination in dynamic and \
            _SPREADS.match(argv[destination]):
        spread.append(destination)  # `ssh "$@"`: the host, and perhaps a command, in one word
    names = {opt.name for opt in options}
    no_command = bool(names & _NO_REMOTE_COMMAND)
    if destination is None and not names & {"-V", "-G", "-Q"}:
        problems.append("ssh: no destination")
    background = "-f" in names
    if background and not command and "-N" not in names:
        problems.append("ssh -f: cannot fork into background without a command to execute")
    state = _tty_state(options)
    return SshHandoff(
        argv=argv,
        destination=destination,
        command=command,
        options=tuple((opt.name, opt.value_index) for opt in options),
        tty=_TTY_LEVEL[state],
        stdin_null=background or "-n" in names,
        background=background,
        request_tty=state,
        parsed=tuple(options),
        no_command=no_command,
        subsystem="-s" in names,
        dashdash=dashdash,
        uncertain=uncertain,
        problems=tuple(problems),
        spread=tuple(spread),
    )


HANDLERS: dict[str, Handler] = {"ssh": parse_ssh}
