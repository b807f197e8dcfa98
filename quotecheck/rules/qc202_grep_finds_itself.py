"""QC202 grep-finds-itself: ``ps ... | grep P`` lists grep's own process, and a ``pgrep``
whose answer is used finds the shell that runs it.

grep runs at the same time as ps, and its command line (``grep P``) contains P: unless the
pattern cannot match its own text (``[p]attern``), a later ``grep -v grep`` drops it, or pgrep
is used, the result includes grep. That matters only when the result is used: a count that is
one too high, a test that always succeeds, a pid list holding a pid that is gone by the time
``kill`` runs. A ``ps`` run in a container or on another machine (``docker exec c ps``,
``kubectl exec p -- ps``) lists processes that do not include a grep running here.

pgrep leaves itself out but not its shell: in ``ssh h "pgrep -f trainer && echo RUNNING"`` the
remote shell's command line holds ``trainer``, so the test always succeeds.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import Node, Pipeline, SimpleCommand
from quotecheck.programs import AWK_PROGRAMS, GREP_PROGRAMS, PROCESS_BOUNDARIES, PROCESS_LISTERS
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.cmdline import render_cmdline
from quotecheck.rules.runtime.killsites import loop_kill
from quotecheck.rules.runtime.processes import Candidate, blocked_ranges, running_processes
from quotecheck.rules.runtime.regex import UnsupportedPattern, can_match_quickly, translate
from quotecheck.rules.runtime.selectors import (
    Filter,
    Match,
    Selector,
    selector_from_stages,
    selector_start,
)
from quotecheck.rules.runtime.slots import local_chain, views_by_command
from quotecheck.rules.runtime.toolcalls import parse_grep
from quotecheck.rules.runtime.unevaluated import NotEvaluated, Report
from quotecheck.rules.runtime.word_values import word_values
from quotecheck.rules.triggers import Trigger

_KINDS = (*GREP_PROGRAMS, *AWK_PROGRAMS)


def _pipelines(ctx: CheckContext, layer: Layer) -> Iterator[tuple[Pipeline, CommandView]]:
    seen: set[int] = set()
    for view in layer.commands:
        chain = local_chain(ctx, view)
        if len(chain) < 2:
            continue
        parent = chain[-2]
        if isinstance(parent, Pipeline) and parent.commands and parent.commands[0] is \
                view.command and id(parent) not in seen:
            seen.add(id(parent))
            yield parent, view


def _use(pipeline: Pipeline, first: CommandView, sel: Selector,
         views: dict[int, CommandView], end: int) -> str | None:
    """How the pipeline's result is used, or None when it is only displayed."""
    ctx = first.context
    for view in sel.views[1:]:
        eff = view.effective
        if eff is None:
            continue
        if eff.name in GREP_PROGRAMS:
            call = parse_grep(eff.values, eff.start)
            if call is not None and call.count:
                return "count"
            if call is not None and call.quiet:
                return "test"
    rest: list[Node] = list(pipeline.commands[end:])
    for node in rest:
        if not isinstance(node, SimpleCommand):
            return "kill" if loop_kill(node, views) else "value"
        stage = views.get(id(node))
        eff = stage.effective if stage is not None else None
        if eff is None:
            continue
        if eff.name == "wc":
            return "count"
        if eff.name == "kill" or (eff.via_xargs and eff.name in ("kill", "pkill")):
            return "kill"
    if ctx.in_substitution:
        return "value"
    if ctx.conditional:
        return "test"
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from _analysis(ctx)[0]


def not_evaluated(ctx: CheckContext) -> list[Report]:
    """The grep patterns whose match against grep's own command line was not computed."""
    return _analysis(ctx)[1]


def _analysis(ctx: CheckContext) -> tuple[list[Finding], list[Report]]:
    # Computed once for QC202 and QC002 (which may run first).
    return ctx.memo.get_or_compute("qc202", ctx.trace, lambda: _analyse(ctx))


def _analyse(ctx: CheckContext) -> tuple[list[Finding], list[Report]]:
    findings: list[Finding] = []
    reports: list[Report] = []
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        views = views_by_command(layer)
        for pipeline, first in _pipelines(ctx, layer):
            eff = first.effective
            if eff is None or eff.name != "ps":
                continue
            if PROCESS_BOUNDARIES.intersection(eff.wrappers):
                # `docker exec c ps -ef | grep x`: ps lists the container's processes (or
                # another machine's), the grep runs here: ps cannot see it.
                continue
            found = selector_from_stages(pipeline.commands, views, stop_at_kill=True)
            if found is None:
                continue
            sel, end = found
            if sel.ps is None or (sel.positive() is None and not sel.refused):
                continue
            use = _use(pipeline, first, sel, views, end)
            if use is None:
                continue
            finding = _self_match(ctx, layer, sel, use, reports)
            if finding is not None:
                findings.append(finding)
        findings.extend(_pgrep_tests(ctx, layer))
    return findings, reports


_FINDS_ITS_SHELL = Template(
    "finds-its-shell",
    "`{search}` finds the shell that runs it",
    "pgrep leaves out only itself: the {who} is alive while it runs, and its command line "
    "`{cmdline}` holds `{matched}`, so the test always succeeds, whether or not the "
    "program runs. Write the pattern so that the shell's text cannot match it: "
    "`[{first}]{rest}`.")


def _pgrep_tests(ctx: CheckContext, layer: Layer) -> Iterator[Finding]:
    """`ssh h "pgrep -f trainer && echo RUNNING"`: a pgrep whose answer is used, and whose
    pattern matches the command line of a shell alive while it runs (its own shell)."""
    for view in layer.commands:
        eff = view.effective
        c = view.context
        # Its status tested (if, while, && or ||); a pid list it prints for a kill is QC201's.
        if eff is None or eff.name != "pgrep" or not c.conditional or c.in_substitution:
            continue
        if PROCESS_BOUNDARIES.intersection(eff.wrappers):
            continue
        sel = selector_start(view)
        if sel is None or sel.uncertain or sel.pgrep is None or sel.pgrep.ignore_ancestors:
            continue
        procs = running_processes(ctx.trace, layer, view, False, view.command)
        tried = [sel]
        if sel.open_words:
            # `pgrep -f "$p"`: with each value the script gives `$p`, when the test is wrong
            # with every value it may run with (or with the one a `for` loop reaches first).
            known = word_values(ctx, layer, *sel.open_words[0]) \
                if len(sel.open_words) == 1 else None
            if known is None:
                continue
            tried = [sel.with_value(v) for v in known.values]
            if not known.each and not all(_matches_any(s, procs) for s in tried):
                continue
        for cand, m in ((c, _match(s, c)) for s in tried for c in procs):
            if m is None or not m.text:
                continue
            pattern = m.filter.pattern
            span = view.source_span or ctx.span_in_source(layer, *view.command.span)
            who = "remote shell" if cand.layer.where != "local" else "shell"
            msg = _FINDS_ITS_SHELL(
                search=one_line_escaped(" ".join(view.values), 50), who=who,
                cmdline=one_line_escaped(render_cmdline(cand.argv), 60),
                matched=one_line_escaped(m.text, 30),
                first=pattern[:1], rest=pattern[1:])
            yield Finding(span, msg, layer)
            break


def _match(sel: Selector, cand: Candidate) -> Match | None:
    try:
        return sel.match(cand.argv, blocked_ranges(cand.layer, cand.argv))
    except NotEvaluated:
        return None


def _matches_any(sel: Selector, procs: list[Candidate]) -> bool:
    return any(_match(sel, c) is not None for c in procs)


_LISTS_ITSELF = Template(
    "lists-itself",
    "`{one_line_escaped}` lists itself",
    "the processes of a pipeline start together, so `ps` usually sees {tool}'s own "
    "command line, `{one_line_escaped2}`, which contains `{one_line_escaped3}`, and "
    "no later filter drops it: {replace}.")


def _self_match(ctx: CheckContext, layer: Layer, sel: Selector, use: str,
                reports: list[Report]) -> Finding | None:
    for view in sel.views[1:]:
        eff = view.effective
        if eff is None or eff.name not in _KINDS:
            continue
        argv = eff.argv
        own = [f for f in sel.filters if f.view is view]
        if not own and not any(r.view is view for r in sel.refused):
            continue
        dynamic = any(f.arg is not None and f.arg.dynamic for f in own)
        try:
            m = sel.match(argv)
        except NotEvaluated as exc:
            own_line = one_line_escaped(render_cmdline(argv), 40)
            reports.extend(Report(what, f"`{own_line}`, the pipeline's own `{eff.name}`",
                                  "QC202", layer) for what in exc.whats)
            continue
        if m is None or not own:
            continue
        flt = own[0]
        tool = eff.name
        line = render_cmdline(argv)
        effect = {
            "count": "the count is one too high (it counts grep's own line)",
            "test": "the test always succeeds, even when no such process runs",
            "kill": ("the pid list includes grep's pid, gone by the time `kill` runs: "
                     "`kill` prints `No such process` and fails even when the target was "
                     "killed"),
            "value": ("the captured value includes grep's own line (or pid) even when no "
                      "such process runs"),
        }[use]
        pattern = flt.pattern
        fix_pattern = None if flt.syntax == "fixed string" else _bracketed(pattern)
        msg = (_LISTS_ITSELF(one_line_escaped=one_line_escaped(line, 50), tool=tool,
                             one_line_escaped2=one_line_escaped(line, 40),
                             one_line_escaped3=one_line_escaped(m.text, 30),
                             replace=effect.replace('grep', tool)))
        if dynamic:
            msg = msg.extended(" (The pattern comes from a variable: this holds whenever its value "
                    "matches itself, as a plain name does.)")
        late = _late_exclusion(sel, view)
        if late is not None:
            what, flag = late
            printed = "the count" if flag == "-c" else "the matched text"
            msg = msg.extended(f" `{what}` comes after `{tool} {flag}`, so it filters {printed}, "
                               "not the process lines: put it first (`... | grep -v grep | "
                               "wc -l`).")
        ere = _as_ere(pattern, flt.syntax)
        icase = " -i" if flt.regex.flags & re.IGNORECASE else ""
        pgrep = (f"`pgrep -f{icase} {shlex.quote(ere)}`" if ere is not None
                 else "`pgrep -f` with the same pattern as an extended regex")
        own_fix = None
        if fix_pattern is not None and not _still_matches(fix_pattern, flt, argv, pattern):
            if tool in GREP_PROGRAMS:
                own_fix = f"`{tool} {shlex.quote(fix_pattern)}`"
            elif flt.arg is not None:
                own_fix = f"`{tool} {shlex.quote(flt.arg.value.replace(pattern, fix_pattern, 1))}`"
        msg = msg.extended(f" Use {pgrep} (it never lists itself)"
                + (f", or write the pattern so it cannot match its own text: {own_fix}"
                   if own_fix else "")
                + ".")
        arg = flt.arg
        span = (arg.source_span if arg is not None and arg.source_span is not None
                else view.source_span or (0, 0))
        return Finding(span, msg, layer)
    return None


def _late_exclusion(sel: Selector, view: CommandView) -> tuple[str, str] | None:
    """A `grep -v ...` after ``view`` when ``view`` counts (`-c`) or prints only the matched
    text (`-o`): it reads that output, so it cannot drop grep's own line (its text, shown, and
    the flag)."""
    eff = view.effective
    call = parse_grep(eff.values, eff.start) if eff is not None and \
        eff.name in GREP_PROGRAMS else None
    if call is None or not (call.count or call.only_matching):
        return None
    k = next((i for i, v in enumerate(sel.views) if v is view), None)
    for later in sel.views[k + 1:] if k is not None else ():
        leff = later.effective
        if leff is None or leff.name not in GREP_PROGRAMS:
            continue
        lcall = parse_grep(leff.values, leff.start)
        if lcall is not None and lcall.invert:
            return one_line_escaped(" ".join(leff.argv), 30), "-c" if call.count else "-o"
    return None


def _still_matches(fixed: str, flt: Filter, argv: tuple[str, ...], pattern: str) -> bool:
    """Whether the bracketed pattern would still find its own command line."""
    syntax = {"basic regex": "basic", "extended regex": "extended", "awk regex": "extended"}
    try:
        regex = translate(fixed, syntax.get(flt.syntax, "basic"),  # type: ignore[arg-type]
                          ignore_case=bool(flt.regex.flags & re.IGNORECASE))
    except UnsupportedPattern:
        return True
    own = render_cmdline([a.replace(pattern, fixed, 1) for a in argv])
    if not can_match_quickly(regex, own):
        return True  # not known: the fix is not offered
    return regex.search(own) is not None


def _as_ere(pattern: str, syntax: str) -> str | None:
    """The same pattern for pgrep (extended regex), when the spelling carries over."""
    if re.fullmatch(r"[\w .:/=,@%+-]*", pattern):
        return pattern.replace(".", "\\.") if syntax == "fixed string" else pattern
    return None


def _bracketed(pattern: str) -> str | None:
    """``python3`` -> ``[p]ython3``: the same matches, but not its own text."""
    for i, ch in enumerate(pattern):
        if ch.isalnum():
            if i > 0 and pattern[i - 1] == "\\":
                return None
            return pattern[:i] + "[" + ch + "]" + pattern[i + 1:]
    return None


RULE = Rule("QC202", "grep-finds-itself",
            "`ps | grep P` counts or kills grep's own process", "warning", check,
            trigger=Trigger(programs=PROCESS_LISTERS))
