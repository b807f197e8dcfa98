"""Where a sed script stands at each character: at the start of a command (where an address
such as `$` may come), inside a command's arguments, or after a complete command.

QC105 asks it two questions about a `$` a shell would expand: whether the `$` stands where sed
reads an address (`$d`, `1,$p`, not the replacement of `s|}|$HOST|`), and whether the text that
follows reads as a sed command (`$d`, `${p}`, `$!N`), not as one sed rejects (`$PFLOGSUMM...`:
`P` takes nothing, so `F` is an error). Text the shell fills in at run time (``opaque``) has no
known sed meaning: after it, up to the end of that command, nothing is known.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Literal

from quotecheck.programs import (
    SED_BARE_COMMANDS,
    SED_DELIMITED_COMMANDS,
    SED_NUMBER_COMMANDS,
    SED_TEXT_COMMANDS,
    SED_WORD_COMMANDS,
)

State = Literal["start", "inside", "after", "unknown", "bad"]
_ADDRESS = frozenset("0123456789$,~+! \t")
_ENDS = frozenset(";\n}")


def _section_end(text: str, i: int, delimiter: str) -> int:
    """The index just past the unescaped ``delimiter`` that ends the section at ``i``."""
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        i += 1
        if c == delimiter:
            return i
    return len(text)


def _line_end(text: str, i: int, stops: str = "\n") -> int:
    """The index of the first character of ``stops`` from ``i`` (a backslash escapes one)."""
    while i < len(text) and text[i] not in stops:
        i += 2 if text[i] == "\\" else 1
    return min(i, len(text))


def states(text: str, opaque: AbstractSet[int] = frozenset()) -> list[State]:
    """The state before each character of ``text`` (one more entry, for its end)."""
    out: list[State] = []
    state: State = "start"
    i = 0

    def fill(end: int, what: State) -> int:
        out.extend([what] * (max(end, i) - i))
        return max(end, i)

    while i < len(text):
        c = text[i]
        if i in opaque:
            # A value filled in at run time: what it is to sed, and what follows, is not known
            # before the command ends.
            out.append(state if state == "start" else "inside")
            state = "unknown"
            i += 1
            continue
        out.append(state)
        if state in ("unknown", "bad"):
            if c in _ENDS:
                state = "start"
            i += 1
        elif state == "after":
            if c in _ENDS:
                state = "start"
            elif c == "#":
                i += 1
                i = fill(_line_end(text, i), "inside")
                continue
            elif c not in " \t":
                out[-1] = "bad"  # text after a command that takes none
                state = "unknown"
            i += 1
        elif c in _ADDRESS or c in ";{}\n":
            i += 1
        elif c in "/\\":
            # A regex address: `/re/` or `\cREc`.
            delimiter = c if c == "/" else text[i + 1:i + 2]
            start = i + 1 if c == "/" else i + 2
            i += 1
            i = fill(_section_end(text, start, delimiter), "inside")
        elif c == "#":
            i += 1
            i = fill(_line_end(text, i), "inside")
        elif c in SED_BARE_COMMANDS:
            state = "after"
            i += 1
        elif c in SED_NUMBER_COMMANDS:
            i += 1
            j = i
            while j < len(text) and text[j] in " \t":
                j += 1
            while j < len(text) and text[j].isdigit():
                j += 1
            i = fill(j, "inside")
            state = "after"
        elif c in SED_DELIMITED_COMMANDS:
            i += 1
            delimiter = text[i:i + 1]
            if not delimiter or delimiter in "\\\n":
                state = "bad"
                continue
            i = fill(i + 1, "inside")
            i = fill(_section_end(text, i, delimiter), "inside")
            i = fill(_section_end(text, i, delimiter), "inside")
            if c == "s":
                # Flags (`g`, `p`, `2`, `I`, `e`, `m`), and `w file` to the end of the line.
                j = i
                while j < len(text) and text[j] not in _ENDS and text[j] not in " \t#":
                    if text[j] == "w":
                        j = _line_end(text, j)
                        break
                    j += 1
                i = fill(j, "inside")
            state = "after"
        elif c in SED_TEXT_COMMANDS:
            i += 1
            i = fill(_line_end(text, i), "inside")
        elif c in SED_WORD_COMMANDS:
            i += 1
            i = fill(_line_end(text, i, ";\n" if c in "btT" else "\n"), "inside")
        else:
            out[-1] = "bad"  # not a sed command
            state = "unknown"
            i += 1
    out.append(state)
    return out[:len(text) + 1]


def at_address(text: str, at: int, opaque: AbstractSet[int] = frozenset()) -> bool:
    """The character at ``at`` stands where sed reads an address or a command."""
    return 0 <= at < len(text) and states(text, opaque)[at] == "start"


def reads_as_command(text: str, start: int, end: int,
                     opaque: AbstractSet[int] = frozenset()) -> bool:
    """``text[start:end]``, read as sed, is an address and a command sed accepts as far as
    the character after it."""
    got = states(text, opaque - set(range(start, end)))
    return got[start] == "start" and "bad" not in got[start:end + 1]
