"""What a rule is and what it gets: the contract between the checker and every rule module.

A rule module defines ``RULE = Rule(...)`` and a ``check(ctx)`` generator of ``Finding``s. The
checker turns findings into ``Diagnostic``s (adding the code, name, severity and layer chain),
so rules never build output themselves. A rule says what it found with ``Template``s, one per
kind of message, kept in its module beside its doc: each fills the summary and the explanation
from named values, so the message is data (``diagnostics.Message``), never cut out of a text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from quotecheck.diagnostics import Applicability, Diagnostic, Fix, Message, Related, Severity
from quotecheck.layers.model import CommandView, Layer, Trace
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules.triggers import ALWAYS, TraceFacts, Trigger

T = TypeVar("T")


class Template(FrozenRecord):
    """One kind of message of a rule: a summary and an explanation with ``{name}`` fields
    (``str.format``), joined in the message's text by ``joint``. ``lead``, when given, is the
    text's own first part, of which the summary is the short form (a first part that can be
    longer than a summary line)."""

    kind: str
    summary: str
    explanation: str = ""
    joint: str = ":"
    lead: str | None = None

    def __call__(self, **values: object) -> Message:
        named = {k: str(v) for k, v in values.items()}
        return Message(self.summary.format_map(named), self.explanation.format_map(named),
                       self.kind, tuple(named.items()), self.joint,
                       None if self.lead is None else self.lead.format_map(named))


def not_analysed(message: Message, span: tuple[int, int] = (0, 0)) -> Diagnostic:
    """A QC002 the checker or a command reports itself (not from a rule's check): part of the
    input, or of the analysis, was skipped."""
    return Diagnostic("QC002", "not-analysed", "warning", message, span)


class Finding(FrozenRecord):
    """One problem a rule found. ``span`` is in offsets of the original input."""

    span: tuple[int, int]
    message: Message
    layer: Layer | None = None  # where the damage happens (gives the layer chain)
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()
    severity: Severity | None = None  # overrides the rule's default for this finding


class Memo:
    """What the rules of one check compute once and share (the same layer or command is
    analysed by many rules). It belongs to one check's context, so a value never outlives
    the input it was computed from."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[tuple[str, int], tuple[object, object]] = {}

    def get_or_compute(self, kind: str, of: object, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``kind`` is asked of the object ``of`` (by identity),
        then the same value. The entry holds ``of``, so its id cannot be reused meanwhile."""
        key = (kind, id(of))
        hit = self._values.get(key)
        if hit is not None and hit[0] is of:
            return hit[1]  # type: ignore[return-value]
        value = compute()
        self._values[key] = (of, value)
        return value


class CheckContext(Record):
    """The analysed input as rules see it."""

    source: str
    trace: Trace
    remote_shell_known: bool
    memo: Memo  # results shared by the rules of this check

    def __init__(self, source: str, trace: Trace, remote_shell_known: bool = False,
                 memo: Memo | None = None) -> None:
        self.source = source
        self.trace = trace
        self.remote_shell_known = remote_shell_known
        self.memo = Memo() if memo is None else memo

    @property
    def layers(self) -> list[Layer]:
        return self.trace.layers

    @property
    def script_path(self) -> str:
        """The path of the file checked (as the outer shell would be given it), or "" for a
        command typed at a prompt or read from stdin without a name."""
        process = self.trace.root.process
        return process[1] if process and len(process) >= 2 and process[1] else ""

    def commands(self) -> Iterator[tuple[Layer, CommandView]]:
        """Every simple command of every shell layer, outermost layer first; a host file's
        argv launches (`subprocess.run([...])`) count as commands of the host layer."""
        for layer in self.trace.layers:
            if layer.kind in ("shell", "host"):
                for view in layer.commands:
                    yield layer, view

    def facts(self) -> TraceFacts:
        """What rule triggers are tested on, read from the trace once."""
        return self.memo.get_or_compute("trace-facts", self.trace, lambda: TraceFacts(self.trace))

    def span_in_source(self, layer: Layer, start: int, end: int) -> tuple[int, int]:
        """Map ``[start, end)`` of ``layer``'s text to the input, falling back to the layer."""
        if layer.origin is not None:
            mapped = layer.origin.span(start, max(end, start + 1))
            if mapped is not None:
                return mapped
        if layer.source_span is not None:
            return layer.source_span
        return (0, 0)

    def chain(self, layer: Layer) -> str:
        return self.trace.chain_label(layer)

    def parent(self, layer: Layer) -> Layer | None:
        return self.trace.layers[layer.parent] if layer.parent is not None else None


CheckFunction = Callable[[CheckContext], Iterable[Finding]]


class Rule(FrozenRecord):
    code: str
    name: str
    summary: str
    severity: Severity
    check: CheckFunction
    fix: Applicability | None  # the best applicability its fixes can have
    tags: tuple[str, ...]
    trigger: Trigger  # what must occur in the input for the rule to find anything

    def __init__(self, code: str, name: str, summary: str, severity: Severity, check: CheckFunction,
                 fix: Applicability | None = None, tags: tuple[str, ...] | None = None,
                 trigger: Trigger = ALWAYS) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "summary", summary)
        object.__setattr__(self, "severity", severity)
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "fix", fix)
        object.__setattr__(self, "tags", () if tags is None else tags)
        object.__setattr__(self, "trigger", trigger)
