"""Run the rules over one input and produce its diagnostics.

The trace is built once; every selected rule reads it. A rule that raises is reported as a
QC002 finding on the input (the analysis is incomplete) instead of stopping the run. Inline
directives (``# quotecheck: disable=...``) and the minimum severity are applied here, in one
place, after all rules have run.
"""

from __future__ import annotations

import os
import queue
import re
import threading
import time
from bisect import bisect_left, bisect_right
from types import TracebackType

from quotecheck.diagnostics import SEVERITY_ORDER, Diagnostic, Fix, Severity
from quotecheck.layers.model import Layer, Trace
from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import Limits
from quotecheck.parsing.shell_directive import directive_shell
from quotecheck.parsing.tree import CommandList, Node, Script
from quotecheck.programs import SHELL_OPTION_VALUES, shell_dialect
from quotecheck.records import Record
from quotecheck.rules import notes
from quotecheck.rules.api import CheckContext, Rule, not_analysed
from quotecheck.rules.registry import all_rules, select
from quotecheck.trace import build_trace

_DIRECTIVE = lazy_compile(r"#\s*quotecheck\s*:\s*(?P<body>.*)$")
# `# quotecheck disable=QC101`: meant as a directive, but without its colon.
_COLONLESS = lazy_compile(r"#\s*quotecheck\s+(?:disable|enable|shell|remote-shell)\b|"
                        r"#\s*quotecheck\s*[-\w]*=")
_CODE = lazy_compile(r"QC\d{3}")


class Options(Record):
    select: list[str] | None
    ignore: list[str] | None
    severity: Severity  # report findings at or above this
    remote_shell: str | None
    dialect: str
    dialect_given: bool  # --shell: a `shell=` directive does not change it
    limits: Limits  # nesting, layers, parse and rule time
    external_sources: bool  # read the files the script sources, beside it

    def __init__(self, select: list[str] | None = None, ignore: list[str] | None = None,
                 severity: Severity = "info", remote_shell: str | None = None,
                 dialect: str = "bash", dialect_given: bool = False,
                 limits: Limits | None = None, external_sources: bool = False) -> None:
        self.select = select
        self.ignore = ignore
        self.severity = severity
        self.remote_shell = remote_shell
        self.dialect = dialect
        self.dialect_given = dialect_given
        self.limits = Limits() if limits is None else limits
        self.external_sources = external_sources


class Directive(Record):
    span: tuple[int, int]
    disabled: set[str]
    remote_shell: str | None
    shell: str | None  # the local shell that reads this file
    scope: tuple[int, int] | None  # the input span it applies to (None: whole file)
    line: bool  # at the end of a command's line: it applies to that line

    def __init__(self, span: tuple[int, int], disabled: set[str] | None = None,
                 remote_shell: str | None = None, shell: str | None = None,
                 scope: tuple[int, int] | None = None, line: bool = False) -> None:
        self.span = span
        self.disabled = set() if disabled is None else disabled
        self.remote_shell = remote_shell
        self.shell = shell
        self.scope = scope
        self.line = line


class CheckResult(Record):
    source: str
    trace: Trace
    diagnostics: list[Diagnostic]

    def __init__(self, source: str, trace: Trace, diagnostics: list[Diagnostic]) -> None:
        self.source = source
        self.trace = trace
        self.diagnostics = diagnostics


def check_source(source: str, options: Options | None = None,
                 path: str | None = None) -> CheckResult:
    """Check one script or command line; never raises on any input string."""
    options = options or Options()
    remote_shell = options.remote_shell
    directives, problems = read_directives(source)
    dialect = options.dialect
    for directive in directives:
        if directive.remote_shell and remote_shell is None:
            remote_shell = directive.remote_shell
    shells = [d.shell for d in directives if d.shell]
    named = shells[0] if shells else directive_shell(source)  # or ShellCheck's directive
    if named is not None and not options.dialect_given and shell_dialect(named) != "unknown":
        dialect = str(shell_dialect(named))
    trace = build_trace(source, dialect=dialect, remote_shell=remote_shell, path=path,
                        limits=options.limits, external_sources=options.external_sources)
    if trace.root.script is not None:
        scope_directives(directives, trace.root.script)
    ctx = CheckContext(source, trace, remote_shell_known=remote_shell is not None)
    known = all_rules()
    diagnostics: list[Diagnostic] = list(problems)
    rules = select(known, options.select, options.ignore)
    if "\r\n" in source and any(rule.code == "QC002" for rule in rules):
        diagnostics.append(_crlf_note(source))
    found = run_rules(rules, ctx, options.limits)
    if "\r\n" in source:
        found = [_crlf_ends(d, source) for d in found]
    diagnostics.extend(found)
    index = _Suppressions(directives)
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
    from dataclasses import replace  # CRLF inputs only: not imported for the others

    return replace(
        d, span=_crlf_end(d.span, source),
        related=tuple(replace(r, span=_crlf_end(r.span, source)) for r in d.related),
        fixes=tuple(replace(f, edits=tuple(replace(e, span=_crlf_end(e.span, source))
                                           for e in f.edits)) for f in d.fixes))


# Layer.through labels: one function, or a chain of them (`x0() at line 1 -> x1() ...`)
_THROUGH = re.compile(r"\S+\(\) (?:at line \d+|in .+)(?: -> .+)?\Z")
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
    thread by a watchdog thread, see _Watchdog) and the rules after it are not run; a QC002
    says which. Where a running rule cannot be stopped (not CPython) the time is only checked
    between rules; where the memory cannot be read (not Linux) it is not watched."""
    limits = limits or Limits()
    out: list[Diagnostic] = []
    k = 0
    watchdog = _Watchdog(limits.rule_time, limits.rule_memory)
    try:
        with watchdog:
            while k < len(rules):
                if watchdog.expired():
                    watchdog.reason = "time"
                    break
                _collect(rules[k], ctx, out)
                k += 1
    except _Stopped:
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


class _Stopped(BaseException):
    """Raised in a rule still running when the rule time or memory is used up (a BaseException:
    no rule's ``except Exception`` swallows it)."""


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> bool:
    """Raise ``exc`` asynchronously in a thread (``None``: withdraw one not raised yet)."""
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
        set_async_exc(ctypes.c_ulong(thread_id),
                      ctypes.py_object(exc) if exc is not None else None)
    except Exception:  # not CPython: the time is only checked between rules
        return False
    return True


def _resident_bytes() -> int | None:
    """This process's resident memory now (Linux), or None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


def _page_size() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 4096


_PAGE_SIZE = _page_size()
# How often the watchdog looks at the memory while rules run.
_MEMORY_POLL = 0.05


class _Watchdog:
    """Raises _Stopped in the thread that entered it once ``seconds`` have passed or the
    process has grown by more than ``max_growth`` bytes, unless it has been left by then.

    One watcher thread (``_WATCHER``) serves every watchdog: entering and leaving one costs a
    few microseconds, not a thread start. A thread rather than SIGALRM: it works in any thread
    and leaves the alarm to whoever else uses it (the parser's time limit, libFuzzer).

    The exception can arrive at any bytecode of the watched thread, so that thread takes no
    lock to hand the watchdog back: whichever of the two threads takes it out of the watcher's
    table first (one atomic ``dict.pop``) decides whether it fires. A lock taken there could be
    left held by an exception arriving just after it was acquired."""

    def __init__(self, seconds: float, max_growth: int) -> None:
        self.thread_id = threading.get_ident()
        self.deadline = time.monotonic() + max(seconds, 0.0)
        self.max_growth = max_growth
        self.base: int | None = None  # the memory when the watcher first looked
        self.reason: str | None = None  # set when the watcher takes it: "time" or "memory"
        self.fired = False  # the exception was raised in the thread (or is on its way)
        self.settled = False  # the watcher is done with it

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def __enter__(self) -> _Watchdog:
        _WATCHER.add(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if _WATCHER.take(self) or isinstance(exc, _Stopped):
            return  # it never fires now, or it has fired and the exception is here
        # The watcher took it first: its exception is on its way (or it could not be raised);
        # wait for it here, where it cannot land anywhere else (the caller catches it).
        while not self.settled:
            time.sleep(0.0005)
        for _ in range(2000):  # it arrives at once; give up after a second all the same
            if not self.fired:
                return
            time.sleep(0.0005)
        _raise_in(self.thread_id, None)


class _Watcher:
    """The thread that watches every running _Watchdog; started on first use, and again in a
    forked child (threads do not survive a fork)."""

    def __init__(self) -> None:
        self.watching: dict[int, _Watchdog] = {}
        # Wakes the watcher for a new dog: SimpleQueue.put is one C call, no Python-level lock
        # an exception could leave held (a threading.Event takes one).
        self.wake: queue.SimpleQueue[None] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None

    def add(self, dog: _Watchdog) -> None:
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, daemon=True,
                                           name="quotecheck-rule-watchdog")
            self.thread.start()
        self.watching[id(dog)] = dog
        self.wake.put(None)

    def take(self, dog: _Watchdog) -> bool:
        """Take ``dog`` out of the table; False if the watcher has taken it (to fire)."""
        return self.watching.pop(id(dog), None) is not None

    def _sleep(self, seconds: float | None) -> None:
        """Until a dog is added, or ``seconds`` have passed (None: no time limit)."""
        try:
            self.wake.get(timeout=seconds)
            while True:
                self.wake.get_nowait()
        except queue.Empty:
            pass

    def _run(self) -> None:
        while True:
            if not self.watching:
                self._sleep(None)
            now = time.monotonic()
            resident = _resident_bytes()
            for dog in list(self.watching.values()):
                if dog.base is None:
                    dog.base = resident
                if now >= dog.deadline:
                    reason = "time"
                elif resident is not None and dog.base is not None and \
                        resident - dog.base > dog.max_growth:
                    reason = "memory"
                else:
                    continue
                if self.watching.pop(id(dog), None) is None:
                    continue  # the thread took it back first
                dog.reason = reason
                dog.fired = _raise_in(dog.thread_id, _Stopped)
                dog.settled = True
            deadlines = [dog.deadline for dog in list(self.watching.values())]
            if deadlines:
                self._sleep(max(min(min(deadlines) - now, _MEMORY_POLL), 0.001))


_WATCHER = _Watcher()


def _after_fork_in_child() -> None:
    global _WATCHER
    _WATCHER = _Watcher()  # the parent's watcher thread is not in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _comment_start(line: str) -> int | None:
    """Where the comment of one line starts (a `#` at the start of a word, outside quotes),
    or None. Read line by line: a quote opened on an earlier line is not seen, and a `#` in
    such a string could be taken for a directive only if it spells one out."""
    quote = ""
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if quote == "'":
            if c == "'":
                quote = ""
        elif c == "\\":
            i += 1
        elif quote == '"':
            if c == '"':
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t;&|()"):
            return i
        i += 1
    return None


def read_directives(source: str) -> tuple[list[Directive], list[Diagnostic]]:
    """``# quotecheck: disable=QC101,expands-too-early``, ``# quotecheck: remote-shell=bash``
    and ``# quotecheck: shell=zsh`` comments, on a line of their own or at the end of a
    command's line (``cmd  # quotecheck: disable=QC101``: that line only).

    Unknown codes and malformed directives (``# quotecheck disable=...`` without the colon)
    are reported (QC002: the directive is skipped).
    """
    directives: list[Directive] = []
    problems: list[Diagnostic] = []
    known = all_rules()
    names = {rule.name: code for code, rule in known.items()}
    offset = 0
    for line in source.splitlines(keepends=True):
        if "quotecheck" in line:
            body_line = line.rstrip("\r\n")
            at = _comment_start(body_line)
            if at is not None:
                comment = body_line[at:]
                m = _DIRECTIVE.match(comment)
                own_line = not body_line[:at].strip()
                span = (offset + at, offset + len(body_line))
                if m:
                    d, errors = _parse_directive(m.group("body"), span, known, names)
                    problems.extend(errors)
                    if d is not None:
                        if not own_line:
                            d.scope = (offset, offset + len(body_line))
                            d.line = True
                        directives.append(d)
                elif _COLONLESS.match(comment):
                    problems.append(not_analysed(
                        notes.COLONLESS_DIRECTIVE(directive=printable_head(comment)), span))
        offset += len(line)
    return directives, problems


def printable_head(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _parse_directive(body: str, span: tuple[int, int], known: dict[str, Rule],
                     names: dict[str, str]) -> tuple[Directive | None, list[Diagnostic]]:
    errors: list[Diagnostic] = []
    d = Directive(span)
    items = [item for item in re.split(r"\s+", body.strip()) if item]
    if not items:
        items = [""]
    for item in items:
        key, eq, value = item.partition("=")
        if key == "disable" and eq:
            for given in filter(None, (c.strip() for c in value.split(","))):
                code = names.get(given.lower(), given.upper())
                if not _CODE.fullmatch(code) or code not in known:
                    errors.append(not_analysed(notes.UNKNOWN_CODE(code=given), span))
                else:
                    d.disabled.add(code)
        elif key in ("remote-shell", "shell") and eq:
            if value in SHELL_OPTION_VALUES:
                if key == "shell":
                    d.shell = value
                else:
                    d.remote_shell = value
            else:
                errors.append(not_analysed(
                    notes.UNKNOWN_SHELL(shell=value, shells=", ".join(SHELL_OPTION_VALUES)), span))
        else:
            errors.append(not_analysed(
                notes.MALFORMED_DIRECTIVE(directive=printable_head(body.strip())), span))
    if not d.disabled and d.remote_shell is None and d.shell is None:
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


def top_command_spans(script: Script) -> list[tuple[int, int]]:
    """The spans of the script's top-level commands, sorted, as input offsets: what a
    directive before a command covers."""
    # Node spans are offsets into the root layer's text, directive spans into the source: the
    # same unless the source has CRLF line endings (trace.without_crlf), so map the nodes'.
    return sorted(script.origin.span(*n.span) or n.span for n in _top_items(script.body))


def scope_directives(directives: list[Directive], script: Script) -> None:
    """A directive covers the command after it, or the whole file before the first command."""
    spans = top_command_spans(script)
    starts = [a for a, _ in spans]
    for d in directives:
        if d.line:
            continue
        if not spans or d.span[1] <= starts[0]:
            d.scope = None
            continue
        # The first command after the directive (a binary search: a scan per directive would
        # make the whole quadratic).
        k = bisect_left(starts, d.span[1])
        d.scope = spans[k] if k < len(spans) else (d.span[1], d.span[1])


class _Suppressions:
    """``suppressed`` for many diagnostics: a file of a directive before every command made
    checking every diagnostic against every directive quadratic."""

    def __init__(self, directives: list[Directive]) -> None:
        self.everywhere: set[str] = set()
        scopes: dict[str, dict[tuple[int, int], None]] = {}
        lines: dict[str, dict[tuple[int, int], None]] = {}
        for directive in directives:
            for code in directive.disabled:
                if directive.line and directive.scope is not None:
                    lines.setdefault(code, {})[directive.scope] = None
                elif directive.scope is None:
                    self.everywhere.add(code)
                else:
                    scopes.setdefault(code, {})[directive.scope] = None
        # Scopes are top-level commands (or empty spans after the last one): they do not overlap,
        # so only the last scope starting at or before an offset can hold it.
        self.scopes = {code: sorted(found) for code, found in scopes.items()}
        self.starts = {code: [a for a, _ in found] for code, found in self.scopes.items()}
        # Lines of end-of-line directives: they do not overlap either.
        self.lines = {code: sorted(found) for code, found in lines.items()}
        self.line_starts = {code: [a for a, _ in found] for code, found in self.lines.items()}

    def suppressed(self, d: Diagnostic) -> bool:
        if d.code in self.everywhere:
            return True
        lines = self.lines.get(d.code)
        if lines:
            k = bisect_right(self.line_starts[d.code], d.span[0]) - 1
            if k >= 0 and lines[k][0] <= d.span[0] <= lines[k][1]:
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
        if directive.line and directive.scope[0] <= d.span[0] <= directive.scope[1]:
            return True
    return False
