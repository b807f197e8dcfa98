"""Patterns whose match a rule needed but did not compute: the matcher gave up on the line
(regex.too_costly) or does not model the pattern (regex.UnsupportedPattern).

A rule that meets one records a ``Report``; QC002 says it (once per pattern word), so that no
finding goes missing silently.
"""

from __future__ import annotations

from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.records import FrozenRecord


class Unevaluated(FrozenRecord):
    """A pattern that was not matched, and why."""

    tool: str  # how it is applied: "pkill -f", "grep -E", "awk"
    pattern: str  # as the tool reads it
    arg: Arg | None  # the word holding it
    view: CommandView  # the command it belongs to
    reason: str  # why it was not matched, for a message
    length: int | None = None  # the length of the line it gave up on (None: refused on any line)

    @property
    def span(self) -> tuple[int, int]:
        """The pattern's word in the input (the command's when the word has no span)."""
        if self.arg is not None and self.arg.source_span is not None:
            return self.arg.source_span
        return self.view.source_span or (0, 0)


class NotEvaluated(Exception):
    """Whether a process or line is selected depends on patterns that were not matched."""

    def __init__(self, whats: list[Unevaluated]) -> None:
        super().__init__("; ".join(w.reason for w in whats))
        self.whats = whats


def unsupported(detail: str) -> str:
    """The reason for a pattern the translator refused (``UnsupportedPattern``'s text)."""
    return f"the matcher does not model it ({detail})"


class Report(FrozenRecord):
    """One give-up of one rule: what was not evaluated, for whom, and in which layer."""

    what: Unevaluated
    against: str  # "the command line of the remote shell that runs this script on h"
    rule: str  # the rule whose answer is not known: "QC201"
    layer: Layer | None
