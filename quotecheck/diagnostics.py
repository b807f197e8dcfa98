"""The one Diagnostic type every output format is made from."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from quotecheck.summaries import split_message

Severity = Literal["error", "warning", "info", "hint"]
SEVERITY_ORDER: dict[str, int] = {"hint": 0, "info": 1, "warning": 2, "error": 3}
LSP_SEVERITY: dict[str, int] = {"error": 1, "warning": 2, "info": 3, "hint": 4}
Applicability = Literal["safe", "unsafe", "display-only"]


@dataclass(frozen=True)
class Edit:
    """Replace ``span`` (offsets into the input) with ``text``."""

    span: tuple[int, int]
    text: str


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability


@dataclass(frozen=True)
class Related:
    span: tuple[int, int]
    message: str


@dataclass(frozen=True)
class Diagnostic:
    """One finding: which rule, where in the input, which layer chain, and how to fix it.

    ``message`` is all the rule wrote; people read it as ``summary`` (one line, what is wrong
    and where) and ``explanation`` (evidence, consequence, remedy): see ``summaries.py``."""

    code: str
    name: str
    severity: Severity
    message: str
    span: tuple[int, int]
    layers: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = field(default_factory=tuple)
    given_summary: str | None = None  # the rule's own summary line, if its message has none

    @cached_property
    def _parts(self) -> tuple[str, str]:
        return split_message(self.message, self.given_summary)

    @property
    def summary(self) -> str:
        return self._parts[0]

    @property
    def explanation(self) -> str:
        return self._parts[1]

    def at_least(self, severity: str) -> bool:
        return SEVERITY_ORDER[self.severity] >= SEVERITY_ORDER[severity]
