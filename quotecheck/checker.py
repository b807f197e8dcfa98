"""Run the rules over one input and produce its diagnostics.

The trace is built once; every selected rule reads it. A rule that raises is reported as a
QC002 finding on the input (the analysis is incomplete) instead of stopping the run. Inline
directives (``# quotecheck: disable=...``) and the minimum severity are applied here, in one
place, after all rules have run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
    for rule in select(known, options.select, options.ignore):
        diagnostics.extend(run_rule(rule, ctx))
    diagnostics = [d for d in diagnostics if not suppressed(d, directives)]
    diagnostics = [d for d in diagnostics
                   if SEVERITY_ORDER[d.severity] >= SEVERITY_ORDER[options.severity]]
    unique: dict[tuple[str, tuple[int, int], str], Diagnostic] = {}
    for d in diagnostics:
        unique.setdefault((d.code, d.span, d.message), d)
    return CheckResult(source, trace,
                       sorted(unique.values(), key=lambda d: (d.span[0], d.code, d.span[1])))


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
    items = sorted(_top_items(script.body), key=lambda n: n.span[0])
    first = items[0].span[0] if items else len(script.text)
    for d in directives:
        if d.span[1] <= first:
            d.scope = None
            continue
        following = [n for n in items if n.span[0] >= d.span[1]]
        d.scope = following[0].span if following else (d.span[1], d.span[1])


def suppressed(d: Diagnostic, directives: list[Directive]) -> bool:
    for directive in directives:
        if d.code not in directive.disabled:
            continue
        if directive.scope is None or directive.scope[0] <= d.span[0] < max(
            directive.scope[1], directive.scope[0] + 1
        ):
            return True
    return False
