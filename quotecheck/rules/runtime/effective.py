"""What a command really runs, through exec-style wrappers (``exec``, ``sudo``, ``timeout``,
``nohup``, ``xargs``...)."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from quotecheck.layers import dispatch as ho
from quotecheck.layers.model import CommandView
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
    placeholder: str | None

    def __init__(
        self,
        values: tuple[str, ...],
        start: int,
        wrappers: tuple[str, ...],
        exec_builtin: bool,
        via_xargs: bool,
        placeholder: str | None = None,
    ) -> None:
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "wrappers", wrappers)
        object.__setattr__(self, "exec_builtin", exec_builtin)
        object.__setattr__(self, "via_xargs", via_xargs)
        object.__setattr__(self, "placeholder", placeholder)

    @property
    def name(self) -> str:
        return ho.basename(self.values[self.start]) if self.start < len(self.values) else ""

    @property
    def argv(self) -> tuple[str, ...]:
        return self.values[self.start:]


def effective(values: Sequence[str], dynamic: AbstractSet[int] = frozenset()) -> Effective | None:
    """Follow ``exec``/``command``/``sudo``/``timeout``/``nohup``/``xargs``... to the program."""
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
    wrappers: list[str] = []
    via_xargs = False
    placeholder: str | None = None
    start = i
    try:
        found = ho.chain(vals[i:], frozenset(d - i for d in dynamic if d >= i))
    except (ValueError, IndexError, KeyError):
        found = []
    for h in found:
        if not isinstance(h, ho.ExecHandoff) or h.prefix or not h.words:
            break
        wrappers.append(h.wrapper)
        if h.wrapper == "xargs":
            via_xargs = True
            placeholder = h.placeholder
        start = i + h.words[0]
    return Effective(vals, start, tuple(wrappers), exec_builtin, via_xargs, placeholder)


def view_effective(view: CommandView) -> Effective | None:
    if not view.argv:
        return None
    return effective(view.values, frozenset(view.dynamic))
