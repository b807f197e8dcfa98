"""The settings an OpenSSH command line gives: `-o` keywords, the destination's parts, and
which source of a setting wins.

Verified with OpenSSH 9.2p1 (`ssh -G` prints the resolved configuration without connecting):
- the first value of a setting wins, whichever form sets it: `-p 1 -p 2` -> 1, `-o Port=1 -p 2`
  -> 1, `-p 2 -o Port=1` -> 2, `-l y -o User=x` -> y, `root@h -l bob` -> root,
  `ssh://u@h:2200 -p 3` -> 2200;
- `-o` keywords are case-insensitive and may be written `Name=value`, `Name value`,
  `Name = value`; double quotes around the value are removed (`User="bob x"` -> `bob x`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from quotecheck.layers.argv_options import Option


def parse_config_option(text: str) -> tuple[str, str]:
    """Split one -o argument into (keyword, value) the way ssh_config lines are read:
    keyword, then whitespace and/or one `=`; surrounding double quotes are removed."""
    body = text.lstrip(" \t")
    cut = 0
    while cut < len(body) and body[cut] not in " \t=":
        cut += 1
    keyword, rest = body[:cut], body[cut:].lstrip(" \t")
    if rest.startswith("="):
        rest = rest[1:].lstrip(" \t")
    rest = rest.rstrip(" \t")
    if len(rest) >= 2 and rest[0] == '"' and rest[-1] == '"':
        rest = rest[1:-1]
    return keyword, rest


def config_value(values: Iterable[str], name: str) -> str | None:
    """First value of keyword `name` among -o arguments (case-insensitive keyword)."""
    wanted = name.lower()
    for text in values:
        keyword, value = parse_config_option(text)
        if keyword.lower() == wanted:
            return value
    return None


def split_destination(word: str) -> tuple[str | None, str, str | None]:
    """(user, host, port) of `[user@]host` or `ssh://[user@]host[:port]`."""
    if word.startswith("ssh://"):
        rest = word[len("ssh://") :].rstrip("/")
        user: str | None = None
        if "@" in rest:
            user, rest = rest.rsplit("@", 1)
        port: str | None = None
        if rest.startswith("["):
            host, _, tail = rest[1:].partition("]")
            if tail.startswith(":"):
                port = tail[1:]
        else:
            host, sep, tail = rest.partition(":")
            port = tail if sep else None
        return user, host, port
    if "@" in word:
        user, host = word.rsplit("@", 1)
        return user, host, None
    return None, word, None


def first_setting(
    options: Iterable[Option],
    destination: int | None,
    argv: Sequence[str],
    setting: Literal["port", "user"],
) -> str | None:
    """The first command-line source of Port or User, in argv order: among the parsed
    `options` and the destination word `argv[destination]`."""
    events: list[tuple[int, str | None]] = []
    letter = "-p" if setting == "port" else "-l"
    for opt in options:
        if opt.name == letter and opt.value is not None:
            events.append((opt.index, opt.value))
        elif opt.name == "-o" and opt.value is not None:
            keyword, value = parse_config_option(opt.value)
            if keyword.lower() == setting and value:
                events.append((opt.index, value))
    if destination is not None:
        user, _, port = split_destination(argv[destination])
        found = port if setting == "port" else user
        if found is not None:
            events.append((destination, found))
    events.sort(key=lambda event: event[0])
    return events[0][1] if events else None
