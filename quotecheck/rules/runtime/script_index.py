"""A layer's commands by script and by position in the text."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence

from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import Script
from quotecheck.records import Record
from quotecheck.rules.api import CheckContext


def layer_position(layer: Layer, script: Script, offset: int) -> int:
    """A position in the layer's own text for ``offset`` in ``script`` (a nested script's
    position is that of its ``$( )``/backticks in the layer's text)."""
    while script is not layer.script and script.text is not (layer.text or ""):
        if script.anchor is None:
            return offset
        offset = script.anchor[0]
        parent = next((v.context.script for v in layer.commands
                       if v.context.script.substitutions.get(script.anchor[0]) is script), None)
        if parent is None or parent is script:
            return offset
        script = parent
    return offset


class ScriptIndex(Record):
    """The layer's commands cut from one script, in textual order, found by position."""

    starts: list[int]
    views: list[CommandView]
    by_name: dict[str, list[int]]  # argv[0] -> sorted start positions

    def after(self, pos: int) -> Iterator[CommandView]:
        """Commands starting at or after ``pos``, in order."""
        for k in range(bisect_left(self.starts, pos), len(self.views)):
            yield self.views[k]

    def named(self, name: str, before: int | None = None) -> Iterator[CommandView]:
        """Commands whose argv[0] is ``name`` (starting before ``before``), in order."""
        for start in self.by_name.get(name, []):
            if before is not None and start >= before:
                return
            yield self.views[bisect_left(self.starts, start)]

    def any_named_after(self, name: str, pos: int) -> bool:
        found = self.by_name.get(name, [])
        return bisect_left(found, pos) < len(found)

    def any_named_before(self, names: Sequence[str], pos: int) -> bool:
        return any(self.by_name.get(n, [pos])[0] < pos for n in names)


def script_index(ctx: CheckContext, layer: Layer, script: Script) -> ScriptIndex:
    def make() -> ScriptIndex:
        views = sorted((v for v in layer.commands if v.context.script is script),
                       key=lambda v: v.command.span[0])
        by_name: dict[str, list[int]] = {}
        for v in views:
            if v.argv:
                by_name.setdefault(v.values[0], []).append(v.command.span[0])
        return ScriptIndex([v.command.span[0] for v in views], views, by_name)
    return ctx.memo.get_or_compute(f"script_index:{id(layer)}", script, make)
