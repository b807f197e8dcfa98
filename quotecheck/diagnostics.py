"""The one Diagnostic type every output format is made from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

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
    """One finding: which rule, where in the input, which layer chain, and how to fix it."""

    code: str
    name: str
    severity: Severity
    message: str
    span: tuple[int, int]
    layers: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = field(default_factory=tuple)

    def at_least(self, severity: str) -> bool:
        return SEVERITY_ORDER[self.severity] >= SEVERITY_ORDER[severity]
