"""Which simple commands hand text or argv on to another interpretation layer, and how.

`classify(argv, dynamic)` looks at the argv of one simple command (after the local shell's
quote removal) and, when argv[0] names a program that passes something on (ssh, sudo, sh -c,
eval, awk...), says exactly which words go where, as one of the kinds in `handoff_types`.
Pure functions, no I/O: the grammars come from manuals and from behaviour verified against the
real programs (see each program's module: `ssh.py`, `wrappers.py`, `shells.py`, `joins.py`,
`awk.py`).

Indices always refer to positions in the argv given to `classify`; a word listed in `dynamic`
is unknown at analysis time and its value is never guessed (see `handoff_types`).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from quotecheck.layers import ansible_adhoc, awk, joins, shells, ssh, wrappers
from quotecheck.layers.handoff_types import (
    AwkAssignment,
    AwkHandoff,
    ExecHandoff,
    Handler,
    Handoff,
    JoinHandoff,
    ShellHandoff,
    SshHandoff,
    basename,
)

# The hand-off kinds (and `basename`, the name `classify` dispatches on) are re-exported: a
# caller that classifies and then reads the result can take all of it from here.
__all__ = [
    "AwkAssignment",
    "AwkHandoff",
    "ExecHandoff",
    "Handoff",
    "JoinHandoff",
    "ShellHandoff",
    "SshHandoff",
    "basename",
    "chain",
    "classify",
    "find_exec_clauses",
    "with_other_clauses",
]


def _busybox(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    """`busybox APPLET args`: the applet is the program."""
    return classify(argv, dynamic, start + 1, end)


_HANDLERS: dict[str, Handler] = {
    **ssh.HANDLERS,
    **wrappers.HANDLERS,
    **shells.HANDLERS,
    **joins.HANDLERS,
    **awk.HANDLERS,
    **ansible_adhoc.HANDLERS,
    "busybox": _busybox,
}
"""Program basename -> the parser of its argv."""


def classify(
    argv: Sequence[str],
    dynamic: AbstractSet[int] = frozenset(),
    start: int = 0,
    end: int | None = None,
) -> Handoff | None:
    """The hand-off performed by the simple command argv[start:end], or None.

    Dispatches on the basename of argv[start] (`/usr/bin/ssh` is ssh). `start`/`end` let a
    caller classify an inner argv in place (e.g. the words an ExecHandoff runs) and keep
    indices relative to the full argv. A dynamic program word is never guessed: None.

    Never raises: the grammars are written not to (tests/test_handoffs_read_from_trace.py
    feeds them generated argvs), and should one still fail on some argv, that command is
    taken as handing nothing on, here, rather than by each caller.
    """
    words = tuple(argv)
    stop = len(words) if end is None else min(end, len(words))
    if start >= stop or start in dynamic:
        return None
    handler = _HANDLERS.get(basename(words[start]))
    if handler is None:
        return None
    try:
        return handler(words, dynamic, start, stop)
    except (ValueError, IndexError, KeyError):
        return None


def find_exec_clauses(
    argv: Sequence[str],
    dynamic: AbstractSet[int] = frozenset(),
    start: int = 0,
    end: int | None = None,
) -> list[ExecHandoff]:
    """Every -exec/-execdir/-ok/-okdir clause of a find command, in order."""
    words = tuple(argv)
    stop = len(words) if end is None else end
    return wrappers.find_clauses(words, dynamic, start, stop)


def chain(
    argv: Sequence[str], dynamic: AbstractSet[int] = frozenset(), start: int = 0,
    limit: int | None = None,
) -> list[Handoff]:
    """Follow exec wrappers: `sudo -u u timeout 5 sh -c X` gives sudo, timeout, then sh.

    Stops at the first non-exec hand-off or when the inner argv is not a plain run of argv
    words (a prefix from env -S, xargs' default echo or docker --entrypoint; permuted words).
    For find it follows the first -exec clause. ``start``: the program word, for a command
    whose first words are not a program (`exec sudo ...` read past `exec`). ``limit``: at
    most this many hand-offs (each holds its run of words: `sudo sudo ... x` read to the end
    would take memory quadratic in its length).
    """
    words = tuple(argv)
    result: list[Handoff] = []
    end = len(words)
    while limit is None or len(result) < limit:
        found = classify(words, dynamic, start, end)
        if found is None:
            return result
        result.append(found)
        if not isinstance(found, ExecHandoff) or found.prefix or not found.words:
            return result
        if found.words != tuple(range(found.words[0], found.words[-1] + 1)):
            return result
        start, end = found.words[0], found.words[-1] + 1
    return result


def with_other_clauses(
    found: list[Handoff], argv: Sequence[str], dynamic: AbstractSet[int] = frozenset()
) -> list[Handoff]:
    """``found`` (the `chain` of ``argv``), and when ``argv`` is a find command, each of its
    further -exec clauses, each followed by what it runs: every hand-off of the command."""
    if not found or not isinstance(found[0], ExecHandoff) or found[0].wrapper != "find":
        return found
    extra: list[Handoff] = []
    for clause in find_exec_clauses(argv, dynamic)[1:]:
        extra.append(clause)
        if clause.words and not clause.prefix:
            inner = classify(argv, dynamic, clause.words[0], clause.words[-1] + 1)
            if inner is not None:
                extra.append(inner)
    return [*found, *extra]
