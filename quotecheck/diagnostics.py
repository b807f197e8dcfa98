"""The one Diagnostic type every output format is made from."""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from quotecheck.records import FrozenRecord, field, replace
from quotecheck.summaries import SUMMARY_LIMIT, problem_parts, shorten

Severity = Literal["error", "warning", "info", "hint"]
SEVERITY_ORDER: dict[str, int] = {"hint": 0, "info": 1, "warning": 2, "error": 3}
LSP_SEVERITY: dict[str, int] = {"error": 1, "warning": 2, "info": 3, "hint": 4}
Applicability = Literal["safe", "unsafe", "display-only"]


class Edit(FrozenRecord):
    """Replace ``span`` (offsets into the input) with ``text``."""

    span: tuple[int, int]
    text: str


class Fix(FrozenRecord):
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability


class Related(FrozenRecord):
    span: tuple[int, int]
    message: str


class Message(FrozenRecord):
    """What a finding says, as data (as pyflakes keeps each message as a class): the rule
    writes the summary (one line: what is wrong and where) and the explanation (evidence,
    consequence, remedy) separately, and names the values it filled in.

    ``text`` is the message as one text, as ``explain`` and ``guard`` print it: the summary
    (or ``lead``, a longer first part the summary is the short form of), ``joint`` (the
    ``:``, ``;`` or ``.`` that ends it, or nothing) and the explanation."""

    summary: str
    explanation: str = ""
    kind: str = ""  # which message of its rule: the template's name
    values: tuple[tuple[str, str], ...] = ()  # (name, value) the template was filled with
    joint: str = ""  # a Template gives ":" unless told otherwise
    lead: str | None = None

    @property
    def text(self) -> str:
        head = self.summary if self.lead is None else self.lead
        return head + self.joint + (" " + self.explanation if self.explanation else "")

    def value(self, name: str) -> str:
        """The value the message was filled with for ``name`` (KeyError if none)."""
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(name)

    def extended(self, more: str) -> Message:
        """The message with ``more`` at the end of its text: of its explanation, or of its
        summary when it has no explanation part."""
        if self.joint:
            return replace(self, explanation=self.explanation + more if self.explanation
                           else more.strip())
        if self.lead is not None:
            return replace(self, lead=self.lead + more)
        return replace(self, summary=self.summary + more)

    def noted(self, note: str) -> Message:
        """The message with `` (note)`` at the end of its text."""
        return self.extended(f" ({note})")


def problem_message(text: str) -> Message:
    """The message of a parser problem (QC001, QC002), which is one text: see
    ``summaries.problem_parts``."""
    summary, joint, explanation = problem_parts(text)
    return Message(summary, explanation, "parse-problem", (), joint)


class Diagnostic(FrozenRecord):
    """One finding: which rule, where in the input, which layer chain, and how to fix it.

    ``message`` is what the rule said, as data; people read its ``summary`` (one line, cut to
    ``SUMMARY_LIMIT`` characters when longer) and its ``explanation``."""

    code: str
    name: str
    severity: Severity
    message: Message
    span: tuple[int, int]
    layers: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        return self.message.text

    @cached_property
    def _shown(self) -> tuple[str, bool]:
        """The summary line and whether it is a short form of what the message says first."""
        said = self.message
        whole = " ".join(said.summary.split())
        if said.lead is None and len(whole) <= SUMMARY_LIMIT:
            return whole, False
        return shorten(said.summary), True

    @property
    def summary(self) -> str:
        return self._shown[0]

    @property
    def explanation(self) -> str:
        # A shortened summary without an explanation: what it leaves out is said here.
        said = self.message
        if said.explanation or not self._shown[1]:
            return said.explanation
        return said.text.strip()

    def at_least(self, severity: str) -> bool:
        return SEVERITY_ORDER[self.severity] >= SEVERITY_ORDER[severity]
