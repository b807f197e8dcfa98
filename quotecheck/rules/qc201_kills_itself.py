"""QC201 kills-itself: a kill by pattern also hits the shell that runs the script.

``pkill -f P``, ``pgrep -f P | xargs kill``, ``ps ... | grep P | ... | xargs kill``,
``kill $(pgrep -f P)``: the pattern is matched against every process's command line, and the
command line of a shell started with ``-c`` (an ssh remote shell, ``sh -c``, ``bash -c``) holds
the whole script. When the pattern matches text of the script, the shell is killed with the
target, before the commands after the kill run. The script file's own invocation (``bash
deploy.sh``) and every shell above it on the same machine are checked as well.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Fix, Related, Severity
from quotecheck.layers.model import CommandView, Layer, Trace
from quotecheck.parsing.tree import Node
from quotecheck.programs import PROCESS_KILLERS
from quotecheck.records import Record
from quotecheck.rules import _fixes
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.cmdline import comm_name
from quotecheck.rules.runtime.display import Locator, node_text, show_argv
from quotecheck.rules.runtime.killsites import KillSite, kill_sites
from quotecheck.rules.runtime.processes import (
    Candidate,
    blocked_ranges,
    map_match,
    running_processes,
    shell_program,
)
from quotecheck.rules.runtime.script_index import script_index
from quotecheck.rules.runtime.selectors import Match, Selector
from quotecheck.rules.runtime.toolcalls import exit_status_for
from quotecheck.rules.runtime.unevaluated import NotEvaluated, Report
from quotecheck.rules.runtime.word_values import WordValues, word_values
from quotecheck.rules.triggers import Trigger


def _who(trace: Trace, layer: Layer) -> str:
    if layer.parent is None:
        return "the shell running this script file"
    parent = trace.layers[layer.parent]
    if parent.kind == "ssh":
        on = f" on {parent.destination}" if parent.destination not in (None, "?") else ""
        return f"the remote shell that runs this script{on}"
    if layer.stdin_script:
        return "the shell reading this script"
    name = shell_program(layer) or "shell"
    if name == "login shell":
        return "the login shell that runs this `-c` script"
    return f"the `{name} -c` shell that runs this script"


def _consequence(trace: Trace, layer: Layer, signal: str, printed_before: bool) -> str:
    status = exit_status_for(signal)
    if layer.parent is not None and trace.layers[layer.parent].kind == "ssh":
        out = "with no output at all" if not printed_before else "with no further output"
        return (f"ssh exits 255 {out}, the same status as a failed connection")
    if layer.parent is None:
        return (f"the script ends with status {status}" if status else "the script ends")
    name = shell_program(layer)
    who = f"`{name}`" if name and name != "login shell" else "the shell"
    return f"{who} ends with status {status}" if status else f"{who} ends"


def _next_command(ctx: CheckContext, layer: Layer, view: CommandView, item: Node) -> tuple[
        CommandView | None, CommandView | None]:
    """The first command after the kill step, and the first one that prints something (of the
    commands written in the input: not a line a host adds, such as drone-ssh's status check)."""
    first: CommandView | None = None
    for v in script_index(ctx, layer, view.context.script).after(item.span[1]):
        if v.source_span is None:
            continue
        if first is None:
            first = v
        if v.argv and v.values[0] in ("echo", "printf"):
            return first, v
    return first, None


def _words_around(layer: Layer, offset: int) -> str | None:
    """The words of the layer's command around input ``offset``: `nohup python3 x.py ...`."""
    for view in layer.commands:
        for k, arg in enumerate(view.argv):
            if offset in arg.offsets:
                if k <= 3:
                    words = view.values[:k + 2]
                else:
                    words = [view.values[0], "…", *view.values[k - 1:k + 2]]
                more = " …" if k + 2 < len(view.argv) else ""
                return one_line_escaped(" ".join(words), 50) + more
    return None


def _printed_before(ctx: CheckContext, layer: Layer, item: Node, view: CommandView) -> bool:
    index = script_index(ctx, layer, view.context.script)
    return index.any_named_before(("echo", "printf", "cat"), item.span[0])


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from _analysis(ctx)[0]


def not_evaluated(ctx: CheckContext) -> list[Report]:
    """The kill patterns whose match against a shell's command line was not computed."""
    return _analysis(ctx)[1]


def _analysis(ctx: CheckContext) -> tuple[list[Finding], list[Report]]:
    # Computed once for QC201 and QC002 (which may run first).
    return ctx.memo.get_or_compute("qc201", ctx.trace, lambda: _analyse(ctx))


def _analyse(ctx: CheckContext) -> tuple[list[Finding], list[Report]]:
    trace = ctx.trace
    where = Locator(ctx.source)
    findings: list[Finding] = []
    reports: list[Report] = []
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        for site in kill_sites(ctx, layer):
            sel = site.selector
            if sel.uncertain:
                continue
            candidates = running_processes(trace, layer, site.killer, site.replaceable,
                                           site.item)
            if not sel.open_words:
                hits = _hits(trace, layer, sel, candidates, reports)
                if hits:
                    findings.append(_finding(ctx, trace, where, layer, site, hits))
                continue
            # `pkill -f "$p"`: with each value the script gives `$p`.
            if len(sel.open_words) != 1:
                continue
            view, index = sel.open_words[0]
            known = word_values(ctx, layer, view, index)
            if known is None:
                continue
            matching = [(v, h) for v in known.values
                        if (h := _hits(trace, layer, sel.with_value(v), candidates, reports))]
            if not matching:
                continue
            value, hits = matching[0]
            findings.append(_finding(ctx, trace, where, layer, site, hits,
                                     _Values(known, value, len(matching))))
    return findings, reports


class _Values(Record):
    """The values of the pattern word a finding was computed with."""

    known: WordValues
    value: str  # the first value that matches
    matching: int  # how many of the values match

    @property
    def every(self) -> bool:
        """The kill hits the shell whichever value it runs with, or runs with each in turn."""
        return self.known.each or self.matching == len(self.known.values)


def _hits(trace: Trace, layer: Layer, sel: Selector, candidates: list[Candidate],
          reports: list[Report]) -> list[tuple[Candidate, Match]]:
    """The candidate shells ``sel`` matches (patterns not matched are reported for QC002)."""
    hits: list[tuple[Candidate, Match]] = []
    for cand in candidates:
        if sel.pgrep is not None and sel.pgrep.ignore_ancestors:
            continue
        try:
            m = sel.match(cand.argv, blocked_ranges(cand.layer, cand.argv))
        except NotEvaluated as exc:
            seen = sel.line_of(cand.argv)
            whose = "process name" if seen is not None and seen[1] < 0 else "command line"
            reports.extend(Report(what, f"the {whose} of {_who(trace, cand.layer)}",
                                  "QC201", layer) for what in exc.whats)
            continue
        if m is not None:
            hits.append((cand, m))
    return hits


# What the pattern matches and why, then the consequence of the signal and what to do instead
# (the evidence); the other shells it matches and when it holds are named values of their own.
_MATCHES_ITSELF = Template("matches-itself", "{what} matches {who}", "{evidence}")


def _finding(ctx: CheckContext, trace: Trace, where: Locator, layer: Layer,
             site: KillSite, hits: list[tuple[Candidate, Match]],
             known: _Values | None = None) -> Finding:
    sel = site.selector
    cand, m = hits[0]
    flt = m.filter
    related: list[Related] = []
    # Where the matched text is in the input.
    inside = map_match(cand.layer, cand.argv, m.start, m.end)
    matched_at = ""
    if inside is not None:
        span = ctx.span_in_source(cand.layer, inside[0], inside[1])
        matched_at = f" at {where.at(span[0])}"
        context = _words_around(cand.layer, span[0])
        if context:
            matched_at += f" (in `{context}`)"
        related.append(Related(span, f"`{one_line_escaped(m.text, 40)}` in the command line of "
                                     f"{_who(trace, cand.layer)} comes from here"))
    what = (f"`{flt.describe()}` ({flt.syntax})" if flt.tool != "awk"
            else f"the awk pattern `/{flt.pattern}/`")
    by_name = (sel.source == "ps" and sel.ps is not None and sel.ps.shows == "comm") or (
        sel.pgrep is not None and not sel.pgrep.full)
    if by_name:
        line = f"the process name `{comm_name(cand.argv)}`"
    else:
        line = f"the command line `{show_argv(cand.argv)}`"
    parts = [
        "its own command line holds the script, and "
        f"the pattern finds `{one_line_escaped(m.text, 50)}`{matched_at} in {line}."
    ]
    if known is not None:
        parts.insert(0, _values_said(ctx, where, layer, known))
    if flt.tool == "grep" and "[" in flt.pattern and "]" in flt.pattern:
        parts.append("The `[x]` bracket only keeps grep from matching its own command line.")
    for other, om in hits[1:]:
        parts.append(f"It also matches {_who(trace, other.layer)} "
                     f"(`{one_line_escaped(om.text, 30)}` in `{show_argv(other.argv, 50)}`).")
    killer = " ".join(site.killer.values)
    signal = "SIGKILL" if site.signal == "KILL" else f"SIG{site.signal}"
    if site.signal in ("STOP", "TSTP", "TTIN", "TTOU"):
        parts.append(f"`{one_line_escaped(killer, 40)}` sends {signal} to that shell too: it stops "
                     "there and nothing resumes it, so the script hangs (and ssh with it).")
    item_view = site.killer
    stopped = site.signal in ("STOP", "TSTP", "TTIN", "TTOU")
    nxt, printing = _next_command(ctx, layer, item_view, site.item)
    if stopped:
        pass
    elif nxt is not None:
        at = nxt.source_span[0] if nxt.source_span else None
        tail = f"it dies before `{node_text(nxt.context.script, nxt.command, 40)}` " \
               f"({where.at(at)})"
        if printing is not None and printing is not nxt:
            pat = printing.source_span[0] if printing.source_span else None
            tail += (f"; nothing after the kill runs, so "
                     f"`{node_text(printing.context.script, printing.command, 40)}` "
                     f"({where.at(pat)}) never prints")
        else:
            tail += "; nothing after the kill runs"
        before = _printed_before(ctx, layer, site.item, item_view)
        parts.append(f"`{one_line_escaped(killer, 40)}` sends {signal} to that shell too: "
                     f"{tail}, and {_consequence(trace, cand.layer, site.signal, before)}.")
    else:
        parts.append(f"`{one_line_escaped(killer, 40)}` sends {signal} to that shell too, so "
                     f"{_consequence(trace, cand.layer, site.signal, True)}.")
    if cand.alive == "depends":
        parts.append(f"This holds {cand.note}; the remote login shell is not known (set "
                     "`--remote-shell`)." if cand.layer.dialect == "unknown" else
                     f"This holds {cand.note}.")
    if sel.partial:
        parts.append("(Only some of the matches are used here, so the shell may or may not "
                     "be among them.)")
    if cand.layer.parent is None:
        parts.append(
            "Match something only the target has (its own program, e.g. `pgrep -f "
            "'^/usr/bin/rsync '`), keep a single copy running with a lock instead of killing "
            "(`exec 9> /run/lock/job.lock; flock -n 9 || exit 0`), or use `pkill -A` "
            "(procps-ng 4.0.2 has it: ignore the caller's ancestors).")
    else:
        parts.append(
            "Keep the script off every command line (send it on stdin: `ssh host bash -s "
            "<<'EOF'` ... `EOF`), or select the target so the script cannot match: a pid file, "
            "a pattern anchored at the start of the target's own command line (`pgrep -f "
            "'^python3 app\\.py'`), or `pkill -A` / `pgrep -A` (procps-ng 4.0.2 has them: ignore "
            "the caller's ancestors).")
    arg = flt.arg
    span = arg.source_span if arg is not None and arg.source_span is not None else (
        site.killer.source_span or (0, 0))
    if arg is None or arg.source_span is None:
        span = flt.view.source_span or span
    severity: Severity | None = "warning" if (cand.alive == "depends" or sel.partial or (
        known is not None and not known.every)) else None
    message = _MATCHES_ITSELF(
        what=what, who=_who(trace, cand.layer), evidence=" ".join(parts), signal=signal,
        others=", ".join(_who(trace, other.layer) for other, _ in hits[1:]),
        holds=cand.note if cand.alive == "depends" else "")
    return Finding(span, message, layer, tuple(related), severity=severity,
                   fixes=_fixes_for(ctx, layer, hits))


def _values_said(ctx: CheckContext, where: Locator, layer: Layer, known: _Values) -> str:
    """Where the pattern's value comes from, as a lead-in: "`$p` takes each of ... in turn
    (the `for` loop at 2:5); with `validator.sh`,"."""
    k = known.known
    shown = ", ".join(f"`{one_line_escaped(v, 30)}`" for v in k.values[:4])
    more = " ..." if len(k.values) > 4 else ""
    value = f"`{one_line_escaped(known.value, 30)}`"
    if k.each and k.loop_at is not None:
        at = where.at(ctx.span_in_source(layer, k.loop_at, k.loop_at + 1)[0])
        if len(k.values) == 1:
            return f"`{k.shown}` is {value} (the `for` loop at {at}):"
        return (f"`{k.shown}` takes each of {shown}{more} in turn (the `for` loop at {at}); "
                f"with {value},")
    if known.every:
        return f"`{k.shown}` is one of {shown}{more}, and with each of them"
    return f"`{k.shown}` is one of {shown}{more}, set by the script; when it is {value},"


def _fixes_for(ctx: CheckContext, layer: Layer, hits: list[tuple[Candidate, Match]]
               ) -> tuple[Fix, ...]:
    """Send the remote script on stdin, when the shell it kills is that script's own."""
    if any(cand.layer is not layer for cand, _ in hits):
        return ()
    edits = _fixes.send_on_stdin(ctx, layer)
    if edits is None:
        return ()
    shell = edits[0].text.split(" ", 1)[0]
    return (Fix(f"send the remote script on stdin (`{shell} -s <<'EOF'`): no command line "
                "holds it", edits, "unsafe"),)


RULE = Rule("QC201", "kills-itself",
            "A kill by pattern matches the command line of the shell running the script",
            "error", check, fix="unsafe",
            trigger=Trigger(programs=PROCESS_KILLERS))
