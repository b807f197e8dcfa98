"""QC002 not-analysed: part of the input was skipped; say which part, never silently."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from quotecheck.diagnostics import problem_message
from quotecheck.rules import registry
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.unevaluated import Report
from quotecheck.rules.triggers import ALWAYS

# The rules that match kill and grep patterns (each module's ``not_evaluated``), and what a
# pattern they could not evaluate leaves unknown.
_EVALUATORS: tuple[tuple[str, str], ...] = (
    ("QC201", "the kill also kills that shell (QC201)"),
    ("QC202", "`ps` lists that process of the pipeline itself (QC202)"),
    ("QC210", "the program is started again while the old one may still run (QC210)"),
)


def _evaluators(ctx: CheckContext) -> Iterator[tuple[Callable[[CheckContext], list[Report]], str]]:
    """The evaluators of the rules whose trigger holds (the others match no pattern)."""
    for code, left_open in _EVALUATORS:
        if registry.triggered(code, ctx.facts()):
            yield registry.module_of(code).not_evaluated, left_open


_ZSH_SYNTAX_ANALYSED_HERE = Template(
    "zsh-syntax-analysed-here",
    "zsh syntax not analysed here ({message})",
    "the commands around it are analysed",
    ";")


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.script is None:
            continue
        for p in layer.script.problems:
            if p.code == "QC002":
                yield Finding(ctx.span_in_source(layer, p.start, p.end), problem_message(p.message),
                              layer)
            elif layer.dialect == "zsh":
                # Not bash, but it may well be zsh (`zsh -n` is the judge): no error.
                yield Finding(ctx.span_in_source(layer, p.start, p.end),
                              _ZSH_SYNTAX_ANALYSED_HERE(message=p.message), layer, severity="info")
    yield from _not_evaluated(ctx)


_PATTERN_WAS_EVALUATED = Template(
    "pattern-was-evaluated",
    "the pattern `{pattern}` of `{tool}` was not evaluated",
    "{reason}; {values}")


def _not_evaluated(ctx: CheckContext) -> Iterator[Finding]:
    """One note per pattern word a rule needed matched but did not match."""
    by_span: dict[tuple[int, int], list[tuple[Report, str]]] = {}
    for evaluate, left_open in _evaluators(ctx):
        try:
            reports = evaluate(ctx)
        except Exception:  # the rule itself reports its failure when it runs
            continue
        for report in reports:
            by_span.setdefault(report.what.span, []).append((report, left_open))
    for span, found in sorted(by_span.items()):
        first = found[0][0].what
        parts: list[str] = []
        for report, what_for in found:
            size = f" (a line of {report.what.length} characters)" if report.what.length else ""
            # Another rule's matcher may give up for another reason: say it there.
            why = f" ({report.what.reason})" if report.what.reason != first.reason else ""
            text = (f"it was not matched against {report.against}{size}{why}, so whether "
                    f"{what_for} is not known")
            if text not in parts:
                parts.append(text)
        message = (_PATTERN_WAS_EVALUATED(pattern=one_line_escaped(first.pattern, 40),
                                          tool=first.tool, reason=first.reason,
                                          values='; '.join(parts)))
        yield Finding(span, message, found[0][0].layer, severity="info")


RULE = Rule("QC002", "not-analysed", "Part of the input was not analysed", "warning", check,
            trigger=ALWAYS)
