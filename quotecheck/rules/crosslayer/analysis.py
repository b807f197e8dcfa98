"""What the cross-layer decision reads of each layer, computed once per check."""

from __future__ import annotations

from collections.abc import Iterable

from quotecheck.layers.model import Arg, CommandView, Layer, Trace
from quotecheck.records import Record
from quotecheck.rules.crosslayer.assignments import Assigned, assigned_names
from quotecheck.rules.crosslayer.chars import CharInfo, char_map
from quotecheck.rules.crosslayer.expansions import Result
from quotecheck.rules.crosslayer.programs import Program, programs_in_view
from quotecheck.rules.crosslayer.text import source_offsets


class Analysis(Record):
    trace: Trace
    results: list[Result]
    _chars: dict[int, dict[int, CharInfo]]
    _assigned: dict[int, dict[str, list[Assigned]]]
    _programs: dict[int, list[Program]]
    _children: dict[int, list[int]]
    _through_calls: dict[int, list[int]] | None
    # Per layer id: the words ssh/watch joins for it, by the id of their Word (joined_words.py)
    joined: dict[int, tuple[list[Arg], dict[int, list[int]]] | None]

    def __init__(
        self,
        trace: Trace,
        results: list[Result] | None = None,
        _chars: dict[int, dict[int, CharInfo]] | None = None,
        _assigned: dict[int, dict[str, list[Assigned]]] | None = None,
        _programs: dict[int, list[Program]] | None = None,
        _children: dict[int, list[int]] | None = None,
        _through_calls: dict[int, list[int]] | None = None,
        joined: dict[int, tuple[list[Arg], dict[int, list[int]]] | None] | None = None,
    ) -> None:
        self.trace = trace
        self.results = [] if results is None else results
        self._chars = {} if _chars is None else _chars
        self._assigned = {} if _assigned is None else _assigned
        self._programs = {} if _programs is None else _programs
        self._children = {} if _children is None else _children
        self._through_calls = _through_calls
        self.joined = {} if joined is None else joined

    def chars(self, layer: Layer) -> dict[int, CharInfo]:
        if layer.id not in self._chars:
            self._chars[layer.id] = char_map(layer)
        return self._chars[layer.id]

    def assigned(self, layer: Layer) -> dict[str, list[Assigned]]:
        if layer.id not in self._assigned:
            self._assigned[layer.id] = assigned_names(layer)
        return self._assigned[layer.id]

    def programs(self, layer: Layer) -> list[Program]:
        """Program texts read by ``layer`` (an awk layer) or by commands of ``layer``."""
        if layer.id not in self._programs:
            found: list[Program] = []
            if layer.kind == "awk" and layer.text is not None and layer.origin is not None:
                found.append(Program(
                    "awk", layer, layer.text, layer.opened_by,
                    frozenset(source_offsets(layer.origin.runs())), frozenset(),
                    tuple(layer.origin[i] for i in range(len(layer.text)))))
            elif layer.kind == "shell":
                for view in layer.commands:
                    found.extend(programs_in_view(layer, view))
            self._programs[layer.id] = found
        return self._programs[layer.id]

    def opened(self, view: CommandView) -> list[int]:
        """The layers a command opens. A function body's command that the calls of its
        function hand on opens nothing itself: its layers are those opened through the calls
        (one per call), where the body's own expansions (`$host` set in the body) land."""
        if view.opens:
            return view.opens
        if self._through_calls is None:
            self._through_calls = {}
            for layer in self.trace.layers:
                if layer.through is not None and layer.opened_by is not None:
                    key = id(layer.opened_by.command)
                    self._through_calls.setdefault(key, []).append(layer.id)
        return self._through_calls.get(id(view.command), [])

    def subtree(self, roots: Iterable[int]) -> list[Layer]:
        if not self._children:
            for layer in self.trace.layers:
                if layer.parent is not None:
                    self._children.setdefault(layer.parent, []).append(layer.id)
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen or i < 0 or i >= len(self.trace.layers):
                continue
            seen.add(i)
            stack.extend(self._children.get(i, []))
        return [self.trace.layers[i] for i in sorted(seen)]
