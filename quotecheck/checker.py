"""Run the rules over one input and produce its diagnostics.

The trace is built once; every selected rule reads it. A rule that raises is reported as a
QC002 finding on the input (the analysis is incomplete) instead of stopping the run, and the
rules run within the rule time and memory (``watchdog.py``). The input's directives
(``directives.py``) and the minimum severity are applied here, in one place, after all rules
have run.
"""

from __future__ import annotations

from quotecheck.diagnostics import (
    SEVERITY_ORDER,
    Diagnostic,
    Fix,
    Severity,
    problem_message,
)
from quotecheck.directives import (
    Suppressions,
    named_dialect,
    read_directives,
    scope_directives,
)
from quotecheck.layers.model import Layer, Trace
from quotecheck.layers.reachability import dead_spans
from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import Limits
from quotecheck.parsing.bats import as_shell, is_bats
from quotecheck.parsing.scanner import Problem
from quotecheck.records import Record
from quotecheck.rules import notes
from quotecheck.rules.api import CheckContext, Rule, not_analysed
from quotecheck.rules.registry import rules_for
from quotecheck.trace import build_trace
from quotecheck.watchdog import Stopped, Watchdog


class Options(Record):
    select: list[str] | None
    ignore: list[str] | None
    severity: Severity  # report findings at or above this
    remote_shell: str | None
    dialect: str
    dialect_given: bool  # --shell: a `shell=` directive does not change it
    limits: Limits  # nesting, layers, parse and rule time
    external_sources: bool  # read the files the script sources, beside it
    host: str | None  # the input is a host file of this format (hosts/kinds.py), not a script

    def __init__(self, select: list[str] | None = None, ignore: list[str] | None = None,
                 severity: Severity = "info", remote_shell: str | None = None,
                 dialect: str = "bash", dialect_given: bool = False,
                 limits: Limits | None = None, external_sources: bool = False,
                 host: str | None = None) -> None:
        self.select = select
        self.ignore = ignore
        self.severity = severity
        self.remote_shell = remote_shell
        self.dialect = dialect
        self.dialect_given = dialect_given
        self.limits = Limits() if limits is None else limits
        self.external_sources = external_sources
        self.host = host



class CheckResult(Record):
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
    # --shell, else the text's own directive, else its #! line or extension (options.dialect:
    # config.build_options).
    dialect = options.dialect if options.dialect_given else \
        named_dialect(directives, source) or options.dialect
    host = None
    if options.host is not None:
        from pathlib import PurePath

        from quotecheck.hosts.kinds import read_host

        host = read_host(options.host, source, PurePath(path) if path else None)
        problems.extend(_host_problem(p) for p in host.problems)
    # (a bats file is parsed as bash runs it, after bats made its tests functions)
    parsed = as_shell(source) if host is None and is_bats(path, source) else source
    trace = build_trace(parsed, dialect=dialect, remote_shell=remote_shell, path=path,
                        limits=options.limits, external_sources=options.external_sources,
                        host=host)
    if trace.root.script is not None:
        scope_directives(directives, trace.root.script)
    ctx = CheckContext(source, trace, remote_shell_known=remote_shell is not None)
    diagnostics: list[Diagnostic] = list(problems)
    rules = rules_for(ctx.facts(), options.select, options.ignore)
    # (a host file's reader takes CRLF in: Python reads `\r\n` as a newline)
    if "\r\n" in source and host is None and any(rule.code == "QC002" for rule in rules):
        diagnostics.append(_crlf_note(source))
    found = run_rules(rules, ctx, options.limits)
    dead = dead_spans(trace.layers)
    if dead:  # (code after a top-level `exit`: nothing there happens)
        found = [d for d in found if not any(lo <= d.span[0] < hi for lo, hi in dead)]
    if "\r\n" in source:
        found = [_crlf_ends(d, source) for d in found]
    diagnostics.extend(found)
    index = Suppressions(directives)
    diagnostics = [d for d in diagnostics if not index.suppressed(d)]
    diagnostics = [d for d in diagnostics
                   if SEVERITY_ORDER[d.severity] >= SEVERITY_ORDER[options.severity]]
    unique: dict[tuple[str, tuple[int, int], str], Diagnostic] = {}
    for d in diagnostics:
        # A wrapper function's body analysed once per call says the same thing about the
        # body's own text at each call (only the host differs): once is enough.
        through = any(_THROUGH.match(label) for label in d.layers)
        unique.setdefault((d.code, d.span, "" if through else d.text), d)
    return CheckResult(source, trace,
                       sorted(unique.values(), key=lambda d: (d.span[0], d.code, d.span[1])))


def _host_problem(problem: Problem) -> Diagnostic:
    """What the host file's reader could not take in (a Python file that does not parse)."""
    if problem.code == "QC001":
        return Diagnostic("QC001", "parse-error", "error", problem_message(problem.message),
                          (problem.start, problem.end))
    return Diagnostic("QC002", "not-analysed", "info", problem_message(problem.message),
                      (problem.start, problem.end))


def _crlf_note(source: str) -> Diagnostic:
    at = source.index("\r\n")
    return not_analysed(notes.CRLF(), (at, at + 1))


def _crlf_end(span: tuple[int, int], source: str) -> tuple[int, int]:
    a, b = span
    if a < b < len(source) and source[b - 1] == "\r" and source[b] == "\n":
        return (a, b + 1)
    return span


def _crlf_ends(d: Diagnostic, source: str) -> Diagnostic:
    """In a CRLF source a line's newline maps to its \r (trace.without_crlf): a span that ends
    with the newline ends after the \n too, on the next line as in the LF text."""
    from quotecheck.records import replace

    return replace(
        d, span=_crlf_end(d.span, source),
        related=tuple(replace(r, span=_crlf_end(r.span, source)) for r in d.related),
        fixes=tuple(replace(f, edits=tuple(replace(e, span=_crlf_end(e.span, source))
                                           for e in f.edits)) for f in d.fixes))


# Layer.through labels: one function, or a chain of them (`x0() at line 1 -> x1() ...`)
_THROUGH = lazy_compile(r"\S+\(\) (?:at line \d+|in .+)(?: -> .+)?\Z")
_LOWER: dict[str, Severity] = {"error": "warning", "warning": "info"}


def _uncertain_split(ctx: CheckContext, layer: Layer | None) -> str | None:
    """Why the layers a finding stands on were split by a guess (see ``Layer.uncertain``)."""
    while layer is not None:
        if layer.uncertain:
            return layer.uncertain
        layer = ctx.layers[layer.parent] if layer.parent is not None else None
    return None


def _touches_known(trace: Trace, fix: Fix) -> bool:
    """The fix replaces a word that reads a value the script set and drops the expansion:
    it would write the value in (freezing or changing it) where the author wrote `$APP`."""
    for edit in fix.edits:
        a, b = edit.span
        for start, end, names in trace.known_spans:
            if start < b and a < end and not all(n in edit.text for n in names):
                return True
    return False


def _for_host(ctx: CheckContext, fixes: tuple[Fix, ...]) -> tuple[Fix, ...]:
    from quotecheck.hosts.escaping import host_edit
    from quotecheck.records import replace

    host = ctx.trace.host
    assert host is not None
    out: list[Fix] = []
    for fix in fixes:
        edits = [host_edit(host, ctx.trace.source, e) for e in fix.edits]
        if all(e is not None for e in edits):
            out.append(replace(fix, edits=tuple(e for e in edits if e is not None)))
    return tuple(out)


def run_rule(rule: Rule, ctx: CheckContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    _collect(rule, ctx, out)
    return out


def _collect(rule: Rule, ctx: CheckContext, out: list[Diagnostic]) -> None:
    """Append the rule's findings to ``out`` as they come (a rule stopped half-way by the rule
    time keeps what it found)."""
    try:
        for f in rule.check(ctx):
            chain = f.layer.chain_labels(ctx.layers) if f.layer else ()
            severity, message = f.severity or rule.severity, f.message
            guess = _uncertain_split(ctx, f.layer)
            if guess is not None:
                severity = _LOWER.get(severity, severity)
                message = message.noted(guess)
            fixes = f.fixes
            if fixes and ctx.trace.host is not None and "host" not in rule.tags:
                # A shell rule's edit is shell text: in a host file it is written with the
                # host's own escaping, or not offered.
                fixes = _for_host(ctx, fixes)
            if fixes and ctx.trace.known_spans:
                fixes = tuple(x for x in fixes if not _touches_known(ctx.trace, x))
            out.append(Diagnostic(rule.code, rule.name, severity, message,
                                  f.span, chain, f.related, fixes))
    except Exception as exc:  # a broken rule must not hide the others
        out.append(not_analysed(notes.RULE_FAILED(code=rule.code, name=rule.name,
                                             error=f"{type(exc).__name__}: {exc}")))


def run_rules(rules: list[Rule], ctx: CheckContext, limits: Limits | None = None
              ) -> list[Diagnostic]:
    """Run ``rules`` in order within the rule-time and rule-memory limits.

    Some rules are slow on pathological input (quadratic in the number of substitutions of a
    text, say). Once the time is up, or the process has grown by more than the memory limit
    since the rules started, the rule still running is stopped (an exception raised in this
    thread by a watchdog thread, see watchdog.py) and the rules after it are not run; a QC002
    says which. Where a running rule cannot be stopped (not CPython) the time is only checked
    between rules; where the memory cannot be read (not Linux) it is not watched."""
    limits = limits or Limits()
    out: list[Diagnostic] = []
    k = 0
    watchdog = Watchdog(limits.rule_time, limits.rule_memory)
    try:
        with watchdog:
            while k < len(rules):
                if watchdog.expired():
                    watchdog.reason = "time"
                    break
                _collect(rules[k], ctx, out)
                k += 1
    except Stopped:
        pass
    if k < len(rules):
        out.append(_stopped(rules[k:], limits, watchdog.reason or "time",
                            running=watchdog.fired))
    return out


def _stopped(left: list[Rule], limits: Limits, reason: str, running: bool) -> Diagnostic:
    codes = [rule.code for rule in left]
    if running:
        what = f"{codes[0]} was stopped"
        if len(codes) > 1:
            what += f" and {_names(codes[1:])} not run"
    else:
        what = f"{_names(codes)} not run"
    if reason == "memory":
        why = (f"the rules took more than {limits.rule_memory // (1024 * 1024):,} MiB of memory "
               "on this input (the rule-memory limit)")
    else:
        why = f"the time for the rules on this input ran out (the rule-time limit, " \
              f"{limits.rule_time:g} s)"
    return not_analysed(notes.RULES_STOPPED(why=why, what=what))


def _names(codes: list[str]) -> str:
    shown = ", ".join(codes[:8]) + (f" and {len(codes) - 8} more" if len(codes) > 8 else "")
    return f"{shown} {'was' if len(codes) == 1 else 'were'}"
