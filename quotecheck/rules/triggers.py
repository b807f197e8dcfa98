"""When a rule can find anything: its trigger, and the facts of a trace triggers are tested on.

A rule module is imported and run only when its trigger holds for the trace (``registry.
rules_for``), so a plain script without hand-offs never loads the cross-layer analysis. A
trigger must never be narrower than what its rule reads: the test in tests/test_rule_registry.py
runs every rule with and without triggers on the fixtures, the deploy cases and the rule
documents' examples and requires the same findings.

This module imports nothing heavy: the registry reads triggers before any rule is imported.
"""

from __future__ import annotations

from quotecheck.layers.model import Trace
from quotecheck.records import FrozenRecord


class Trigger(FrozenRecord):
    """What must occur in the input for a rule to find anything. Any one part is enough:

    * ``always``: the rule reads every script (syntax, failures, secrets);
    * ``handoffs``: some command hands text or argv on (a second layer, or a hand-off such as
      ``sudo``, ``xargs``, ``ssh -N`` that opens none);
    * ``programs``: a word of some command's argv, as a program name (``/usr/bin/pkill`` counts
      as ``pkill``);
    * ``text``: a string in some layer's text, compared case-insensitively;
    * ``dialects``: some layer is read as one of these (``sh``, ``bash``, ``zsh``, ``unknown``);
      a root script whose ``#!`` line names no bash or zsh counts as ``sh``;
    * ``formats``: the input is a host file of one of these formats (``python``, ``make``).
    """

    always: bool = False
    handoffs: bool = False
    programs: frozenset[str] = frozenset()
    text: tuple[str, ...] = ()
    dialects: frozenset[str] = frozenset()
    formats: frozenset[str] = frozenset()


ALWAYS = Trigger(always=True)
HANDOFFS = Trigger(handoffs=True)


class TraceFacts:
    """What triggers are tested on, read from one trace once."""

    __slots__ = ("_texts", "dialects", "format", "handoffs", "programs", "trace")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.handoffs = len(trace.layers) > 1
        self._texts: str | None = None
        programs: set[str] = set()
        self.dialects = {layer.dialect or "unknown" for layer in trace.layers}
        root = trace.layers[0].text if trace.layers else None
        self.format = trace.layers[0].format if trace.layers else None
        if root is not None and root.startswith("#!") and self.format is None:
            first = root.split("\n", 1)[0]
            if "bash" not in first and "zsh" not in first:
                self.dialects.add("sh")  # `#!/bin/sh`, `#!/usr/bin/env dash`, ...
        for layer in trace.layers:
            for view in layer.commands:
                if view.handoffs:
                    self.handoffs = True
                for arg in view.argv:
                    value = arg.value
                    programs.add(value[value.rfind("/") + 1:])
        self.programs = programs

    @property
    def texts(self) -> str:
        """Every layer's text, lower-cased (made when a text trigger is first asked)."""
        if self._texts is None:
            self._texts = "\n".join(layer.text for layer in self.trace.layers
                                    if layer.text is not None).lower()
        return self._texts

    def hold(self, trigger: Trigger) -> bool:
        return (trigger.always
                or (trigger.handoffs and self.handoffs)
                or not trigger.programs.isdisjoint(self.programs)
                or not trigger.dialects.isdisjoint(self.dialects)
                or (self.format is not None and self.format in trigger.formats)
                or any(t in self.texts for t in trigger.text))
