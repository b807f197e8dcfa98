"""Run the rules over one input and produce its diagnostics.

The trace is built once; every selected rule reads it. A rule that raises is reported as a
QC002 finding on the input (the analysis is incomplete) instead of stopping the run. Inline
directives (``# quotecheck: disable=...``) and the minimum severity are applied here, in one
place, after all rules have run.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace

from quotecheck.diagnostics import SEVERITY_ORDER, Diagnostic, Severity
from quotecheck.layers.model import Trace
from quotecheck.parsing.tree import CommandList, Node, Script
from quotecheck.rules.api import CheckContext, Rule
from quotecheck.rules.registry import all_rules, select
from quotecheck.trace import build_trace

_DIRECTIVE = re.compile(r"#\s*quotecheck\s*:\s*(?P<body>.*)$")
_CODE = re.compile(r"QC\d{3}")
_SHELLS = ("bash", "sh", "dash", "zsh")


@dataclass
class Options:
    select: list[str] | None = None
    ignore: list[str] | None = None
    severity: Severity = "info"  # report findings at or above this
    remote_shell: str | None = None
    dialect: str = "bash"


@dataclass
class Directive:
    span: tuple[int, int]
    disabled: set[str] = field(default_factory=set)
    remote_shell: str | None = None
    scope: tuple[int, int] | None = None  # the input span it applies to (None: whole file)


@dataclass
class CheckResult:
    source: str
    trace: Trace
    diagnostics: list[Diagnostic]


def check_source(source: str, options: Options | None = None,
                 path: str | None = None) -> CheckResult:
    """Check one script or command line; never raises on any input string."""
    options = options or Options()
    remote_shell = options.remote_shell
    directives, problems = read_directives(source)
    for directive in directives:
        if directive.remote_shell and remote_shell is None:
            remote_shell = directive.remote_shell
    trace = build_trace(source, dialect=options.dialect, remote_shell=remote_shell, path=path)
    if trace.root.script is not None:
        scope_directives(directives, trace.root.script)
    ctx = CheckContext(source, trace, remote_shell_known=remote_shell is not None)
    known = all_rules()
    diagnostics: list[Diagnostic] = list(problems)
    rules = select(known, options.select, options.ignore)
    if "\r\n" in source and any(rule.code == "QC002" for rule in rules):
        diagnostics.append(_crlf_note(source))
    for rule in rules:
        found = run_rule(rule, ctx)
        if "\r\n" in source:
            found = [_crlf_ends(d, source) for d in found]
        diagnostics.extend(found)
    index = _Suppressions(directives)
    diagnostics = [d for d in diagnostics if not index.suppressed(d)]
    diagnostics = [d for d in diagnostics
                   if SEVERITY_ORDER[d.severity] >= SEVERITY_ORDER[options.severity]]
    unique: dict[tuple[str, tuple[int, int], str], Diagnostic] = {}
    for d in diagnostics:
        unique.setdefault((d.code, d.span, d.message), d)
    return CheckResult(source, trace,
                       sorted(unique.values(), key=lambda d: (d.span[0], d.code, d.span[1])))


def _crlf_note(source: str) -> Diagnostic:
    at = source.index("\r\n")
    return Diagnostic(
        "QC002", "not-analysed", "warning",
        "this file has CRLF (Windows) line endings: bash and sh read each `\\r` as part of the "
        "last word of its line (`then\\r` is not `then`, `\"$x\"\\r` is not `$x`), so the "
        "script fails or passes stray carriage returns on; it was analysed as if the line "
        "endings were LF; convert it (`sed -i 's/\\r$//' FILE` or `dos2unix`)",
        (at, at + 1))


def _crlf_end(span: tuple[int, int], source: str) -> tuple[int, int]:
    a, b = span
    if a < b < len(source) and source[b - 1] == "\r" and source[b] == "\n":
        return (a, b + 1)
    return span


def _crlf_ends(d: Diagnostic, source: str) -> Diagnostic:
    """In a CRLF source a line's newline maps to its \r (trace.without_crlf): a span that ends
    with the newline ends after the \n too, on the next line as in the LF text."""
    return replace(
        d, span=_crlf_end(d.span, source),
        related=tuple(replace(r, span=_crlf_end(r.span, source)) for r in d.related),
        fixes=tuple(replace(f, edits=tuple(replace(e, span=_crlf_end(e.span, source))
                                           for e in f.edits)) for f in d.fixes))


def run_rule(rule: Rule, ctx: CheckContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    try:
        for f in rule.check(ctx):
            chain = tuple(x.label() for x in f.layer.chain(ctx.layers)) if f.layer else ()
            out.append(Diagnostic(rule.code, rule.name, f.severity or rule.severity, f.message,
                                  f.span, chain, f.related, f.fixes))
    except Exception as exc:  # a broken rule must not hide the others
        out.append(Diagnostic(
            "QC002", "not-analysed", "warning",
            f"rule {rule.code} ({rule.name}) failed on this input and was skipped "
            f"({type(exc).__name__}: {exc}); please report it",
            (0, 0),
        ))
    return out


def read_directives(source: str) -> tuple[list[Directive], list[Diagnostic]]:
    """``# quotecheck: disable=QC101,QC205`` and ``# quotecheck: remote-shell=bash`` lines.

    Unknown codes and malformed directives are reported (QC002: the directive is skipped).
    """
    directives: list[Directive] = []
    problems: list[Diagnostic] = []
    known = all_rules()
    offset = 0
    for line in source.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            m = _DIRECTIVE.match(stripped.rstrip("\r\n"))
            if m:
                start = offset + (len(line) - len(stripped))
                span = (start, start + len(stripped.rstrip("\r\n")))
                d, errors = _parse_directive(m.group("body"), span, known)
                problems.extend(errors)
                if d is not None:
                    directives.append(d)
        offset += len(line)
    return directives, problems


def _parse_directive(body: str, span: tuple[int, int],
                     known: dict[str, Rule]) -> tuple[Directive | None, list[Diagnostic]]:
    errors: list[Diagnostic] = []
    d = Directive(span)
    items = [item for item in re.split(r"\s+", body.strip()) if item]
    if not items:
        items = [""]
    for item in items:
        key, eq, value = item.partition("=")
        if key == "disable" and eq:
            for code in filter(None, (c.strip().upper() for c in value.split(","))):
                if not _CODE.fullmatch(code) or code not in known:
                    errors.append(Diagnostic(
                        "QC002", "not-analysed", "warning",
                        f"unknown rule code `{code}` in quotecheck directive "
                        "(see `quotecheck rules`); the directive is ignored for it", span))
                else:
                    d.disabled.add(code)
        elif key == "remote-shell" and eq:
            if value in _SHELLS:
                d.remote_shell = value
            else:
                errors.append(Diagnostic(
                    "QC002", "not-analysed", "warning",
                    f"unknown shell `{value}` in quotecheck directive "
                    f"(expected one of: {', '.join(_SHELLS)})", span))
        else:
            errors.append(Diagnostic(
                "QC002", "not-analysed", "warning",
                f"malformed quotecheck directive `{body.strip()}`: expected "
                "`disable=QC101,QC205` or `remote-shell=bash`", span))
    if not d.disabled and d.remote_shell is None:
        return None, errors
    return d, errors


def _top_items(nodes: list[Node]) -> list[Node]:
    items: list[Node] = []
    for node in nodes:
        if isinstance(node, CommandList):
            items.extend(_top_items(node.items))
        else:
            items.append(node)
    return items


def scope_directives(directives: list[Directive], script: Script) -> None:
    """A directive covers the command after it, or the whole file before the first command."""
    # Node spans are offsets into the root layer's text, directive spans into the source: the
    # same unless the source has CRLF line endings (trace.without_crlf), so map the nodes'.
    spans = sorted(script.origin.span(*n.span) or n.span for n in _top_items(script.body))
    starts = [a for a, _ in spans]
    for d in directives:
        if not spans or d.span[1] <= starts[0]:
            d.scope = None
            continue
        # The first command after the directive (a search: a scan per directive was quadratic).
        k = bisect_left(starts, d.span[1])
        d.scope = spans[k] if k < len(spans) else (d.span[1], d.span[1])


class _Suppressions:
    """``suppressed`` for many diagnostics: a file of a directive before every command made
    checking every diagnostic against every directive quadratic."""

    def __init__(self, directives: list[Directive]) -> None:
        self.everywhere: set[str] = set()
        scopes: dict[str, dict[tuple[int, int], None]] = {}
        for directive in directives:
            for code in directive.disabled:
                if directive.scope is None:
                    self.everywhere.add(code)
                else:
                    scopes.setdefault(code, {})[directive.scope] = None
        # Scopes are top-level commands (or empty spans after the last one): they do not overlap,
        # so only the last scope starting at or before an offset can hold it.
        self.scopes = {code: sorted(found) for code, found in scopes.items()}
        self.starts = {code: [a for a, _ in found] for code, found in self.scopes.items()}

    def suppressed(self, d: Diagnostic) -> bool:
        if d.code in self.everywhere:
            return True
        scopes = self.scopes.get(d.code)
        if not scopes:
            return False
        k = bisect_right(self.starts[d.code], d.span[0]) - 1
        while k >= 0:
            a, b = scopes[k]
            if a <= d.span[0] < max(b, a + 1):
                return True
            if b > a:  # an empty scope (a point) may sit right after a non-empty one
                return False
            k -= 1
        return False


def suppressed(d: Diagnostic, directives: list[Directive]) -> bool:
    for directive in directives:
        if d.code not in directive.disabled:
            continue
        if directive.scope is None or directive.scope[0] <= d.span[0] < max(
            directive.scope[1], directive.scope[0] + 1
        ):
            return True
    return False
