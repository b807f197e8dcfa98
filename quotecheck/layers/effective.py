"""What a command really runs, through exec-style wrappers (``exec``, ``sudo``, ``timeout``,
``nohup``, ``xargs``...). The trace reads it once for each command (``CommandView.effective``)."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from quotecheck.layers import dispatch as ho
from quotecheck.layers.wrappers import in_place_command
from quotecheck.programs import IN_PLACE_BUILTINS
from quotecheck.records import FrozenRecord


class Effective(FrozenRecord):
    """The program a simple command ends up running, through exec-style wrappers."""

    values: tuple[str, ...]
    start: int  # index in ``values`` of the program word
    wrappers: tuple[str, ...]
    exec_builtin: bool  # `exec prog`: the shell itself is replaced
    via_xargs: bool  # the program gets its arguments from stdin (xargs)
    placeholder: str | None = None
    # What the program hands on (`ssh -t h cmd`'s SshHandoff), read from ``start`` to the end
    # of ``values``; indices are into ``values``.
    handoff: ho.Handoff | None = None

    @property
    def name(self) -> str:
        return ho.basename(self.values[self.start]) if self.start < len(self.values) else ""

    @property
    def argv(self) -> tuple[str, ...]:
        return self.values[self.start:]


def effective(values: Sequence[str], dynamic: AbstractSet[int] = frozenset(),
              found: list[ho.Handoff] | None = None,
              limit: int | None = None) -> Effective | None:
    """Follow ``exec``/``command``/``sudo``/``timeout``/``nohup``/``xargs``... to the program.

    ``found``: ``dispatch.chain(values, dynamic)`` when the caller has it (the trace does):
    it is read again only for a command that starts with in-place builtins. ``limit``: at
    most this many wrappers are followed (`dispatch.chain`)."""
    vals = tuple(values)
    i = 0
    exec_builtin = False
    while i < len(vals) and vals[i] in IN_PLACE_BUILTINS:
        inner = in_place_command(vals, dynamic, i)
        if inner is None:
            # `command -v ssh` runs no command: the builtin itself is what runs (a lone `exec`
            # stays unknown, as a missing program word is)
            return Effective(vals, i, (), False, False) if i + 1 < len(vals) else None
        if vals[i] == "exec":
            exec_builtin = True
        i = inner
    if i >= len(vals) or i in dynamic:
        return None
    if i or found is None:
        found = ho.chain(vals, dynamic, i, limit)
    wrappers: list[str] = []
    via_xargs = False
    placeholder: str | None = None
    start = i
    used = 0  # the wrappers of ``found`` that lead to the program
    for h in found:
        if not isinstance(h, ho.ExecHandoff) or h.prefix or not h.words:
            break
        wrappers.append(h.wrapper)
        if h.wrapper == "xargs":
            via_xargs = True
            placeholder = h.placeholder
        start = h.words[0]
        used += 1
    return Effective(vals, start, tuple(wrappers), exec_builtin, via_xargs, placeholder,
                     _program_handoff(vals, dynamic, start, found, used))


def _program_handoff(vals: tuple[str, ...], dynamic: AbstractSet[int], start: int,
                     found: list[ho.Handoff], used: int) -> ho.Handoff | None:
    """``classify(vals, dynamic, start)``. The chain read the same words already, unless the
    last wrapper runs words that stop short of the end (find's `-exec ... ;`) or skip some."""
    if used:
        last = found[used - 1]
        assert isinstance(last, ho.ExecHandoff)
        if last.words != tuple(range(last.words[0], len(vals))):
            return ho.classify(vals, dynamic, start)
    return found[used] if used < len(found) else None
