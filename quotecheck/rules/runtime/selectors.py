"""How a command line picks processes: ``pgrep``/``pkill``, or ``ps`` followed by filters
(grep, awk, sort, head...), and which processes such a selection matches."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Literal

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView
from quotecheck.parsing.tree import Node, SimpleCommand
from quotecheck.programs import AWK_PROGRAMS, GREP_PROGRAMS
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules.runtime.cmdline import comm_name, render_cmdline
from quotecheck.rules.runtime.regex import UnsupportedPattern, too_costly, translate
from quotecheck.rules.runtime.toolcalls import (
    GrepCall,
    PgrepCall,
    PsCall,
    parse_awk_program,
    parse_grep,
    parse_pgrep,
    parse_ps,
)
from quotecheck.rules.runtime.unevaluated import NotEvaluated, Unevaluated, unsupported


class Filter(FrozenRecord):
    """One line filter applied to the process list."""

    tool: str  # grep, pgrep, pkill, awk
    pattern: str
    regex: re.Pattern[str]
    invert: bool
    syntax: str  # "basic regex", "extended regex", "fixed string"...
    view: CommandView
    arg: Arg | None  # the word holding the pattern (None for awk programs)

    def describe(self) -> str:
        return f"{self.tool_flags()} {shlex.quote(self.pattern)}"

    def tool_flags(self) -> str:
        """The tool with the options that decide how the pattern is read: `pkill -f`."""
        flags = ""
        if self.tool in ("pgrep", "pkill"):
            eff = self.view.effective
            call = parse_pgrep(eff.values, eff.start) if eff is not None else None
            if call is not None:
                flags = "".join(f" -{c}" for c, on in (("f", call.full), ("i", call.ignore_case),
                                                        ("x", call.exact)) if on)
        elif self.tool == "grep":
            eff = self.view.effective
            call2 = parse_grep(eff.values, eff.start) if eff is not None else None
            if call2 is not None:
                flags = "".join(f" -{c}" for c, on in (
                    ("E", call2.syntax == "extended"), ("F", call2.syntax == "fixed"),
                    ("P", call2.syntax == "perl"), ("i", call2.ignore_case),
                    ("w", call2.word), ("x", call2.line)) if on)
        return f"{self.tool}{flags}{' -v' if self.invert else ''}"


class Match(FrozenRecord):
    filter: Filter
    start: int  # in the rendered command line of the process
    end: int
    text: str


class Selector(Record):
    """How a command line picks processes: a pgrep/pkill, or ps followed by filters."""

    source: Literal["ps", "pgrep", "pkill"]
    filters: list[Filter]
    views: list[CommandView]
    ps: PsCall | None
    pgrep: PgrepCall | None
    uncertain: bool
    partial: bool  # head/tail/-n/-o: only some of the matches are used
    transformed: bool
    # Filters whose pattern the translator does not model: not applied, so ``match`` raises
    # NotEvaluated where the answer depends on them.
    refused: list[Unevaluated]
    # Pattern words known only at run time (`pkill -f "$p"`): (the command, the argv index).
    # Their filters hold the word as written; ``with_value`` gives the selector for a value.
    open_words: list[tuple[CommandView, int]]

    def __init__(
        self,
        source: Literal["ps", "pgrep", "pkill"],
        filters: list[Filter],
        views: list[CommandView],
        ps: PsCall | None = None,
        pgrep: PgrepCall | None = None,
        uncertain: bool = False,
        partial: bool = False,
        transformed: bool = False,
        refused: list[Unevaluated] | None = None,
        open_words: list[tuple[CommandView, int]] | None = None,
    ) -> None:
        self.source = source
        self.filters = filters
        self.views = views
        self.ps = ps
        self.pgrep = pgrep
        self.uncertain = uncertain
        self.partial = partial
        self.transformed = transformed
        self.refused = [] if refused is None else refused
        self.open_words = [] if open_words is None else open_words

    @property
    def exact(self) -> bool:
        """Every pattern is known before run time, and every stage is understood."""
        return not self.uncertain and not self.open_words

    def with_value(self, value: str) -> Selector:
        """This selector with its one open pattern word holding ``value``."""
        assert len(self.open_words) == 1
        view, index = self.open_words[0]
        arg = view.argv[index]
        out = Selector(self.source, [], list(self.views), self.ps, self.pgrep, self.uncertain,
                       self.partial, self.transformed,
                       [r for r in self.refused if r.arg is not arg])
        done = False
        for f in self.filters:
            if f.view is view and f.arg is arg:
                done = True
                out._add_with(view, index, value)
            else:
                out.filters.append(f)
        if not done:
            out._add_with(view, index, value)
        return out

    def _add_with(self, view: CommandView, index: int, value: str) -> None:
        """Add the filter of ``view`` with its pattern word ``index`` holding ``value``."""
        eff = view.effective
        if eff is None:
            self.uncertain = True
            return
        values = list(eff.values)
        values[index] = value
        arg = view.argv[index]
        if eff.name in ("pgrep", "pkill"):
            call = parse_pgrep(values, eff.start)
            if call is None or call.pattern_index != index:
                self.uncertain = True
                return
            self.pgrep = call
            try:
                regex = call.regex()
            except UnsupportedPattern as exc:
                self.refused.append(Unevaluated(eff.name + (" -f" if call.full else ""), value,
                                                arg, view, unsupported(str(exc))))
                return
            self.filters.append(Filter(eff.name, value, regex, call.invert,
                                       "extended regex" if call.full else "process name", view,
                                       arg))
            return
        grep = parse_grep(values, eff.start)
        if grep is None or grep.pattern_indices != (index,):
            self.uncertain = True
            return
        flt = _filter_from_grep(view, grep)
        if isinstance(flt, Unevaluated):
            self.refused.append(flt)
        else:
            self.filters.append(flt)

    def positive(self) -> Filter | None:
        for f in self.filters:
            if not f.invert:
                return f
        return None

    def line_of(self, argv: Sequence[str]) -> tuple[str, int] | None:
        """The text the filters see for a process, and where its command line starts."""
        if self.source == "ps":
            assert self.ps is not None
            if self.ps.shows == "none":
                return None
            if self.ps.shows == "comm":
                name = comm_name(argv)
                return None if name is None else (self.ps.prefix + name, -1)
            return self.ps.prefix + render_cmdline(argv), len(self.ps.prefix)
        assert self.pgrep is not None
        if self.pgrep.full:
            return render_cmdline(argv), 0
        name = comm_name(argv)
        return None if name is None else (name, -1)

    def match(self, argv: Sequence[str],
              blocked: Sequence[tuple[int, int]] = ()) -> Match | None:
        """Whether the process with ``argv`` is selected, and where the pattern matched.

        ``blocked`` are ranges of the command line known only at run time: a match inside
        them does not count. Raises NotEvaluated when the answer depends on a pattern that was
        not matched (too costly on this line, or refused).
        """
        got = self.line_of(argv)
        if got is None or not (self.filters or self.refused):
            return None
        line, base = got
        first: Match | None = None
        # A filter not applied decides only if every other one lets the process through.
        pending = list(self.refused)
        for f in self.filters:
            why = too_costly(f.regex, line)
            if why is not None:
                pending.append(Unevaluated(f.tool_flags(), f.pattern, f.arg, f.view, why,
                                           len(line)))
                continue
            found: re.Match[str] | None = None
            for m in f.regex.finditer(line):
                s, e = m.start() - base, m.end() - base
                if base >= 0 and any(a < max(e, s + 1) and s < b for a, b in blocked):
                    continue
                found = m
                break
            if f.invert:
                if f.regex.search(line) is not None:
                    return None
                continue
            if found is None:
                return None
            if first is None:
                s = found.start() - base if base >= 0 else -1
                e = found.end() - base if base >= 0 else -1
                first = Match(f, s, e, found.group(0))
        if pending:
            raise NotEvaluated(pending)
        return first


def _filter_from_grep(view: CommandView, call: GrepCall) -> Filter | Unevaluated:
    idx = call.pattern_indices[0] if call.pattern_indices else None
    arg = view.argv[idx] if idx is not None and idx < len(view.argv) else None
    pattern = "\n".join(call.patterns)
    try:
        regex = call.regex()
    except UnsupportedPattern as exc:
        flags = {"extended": " -E", "fixed": " -F", "perl": " -P"}.get(call.syntax, "")
        return Unevaluated(f"grep{flags}{' -v' if call.invert else ''}", pattern, arg, view,
                           unsupported(str(exc)))
    names = {"basic": "basic regex", "extended": "extended regex", "fixed": "fixed string",
             "perl": "Perl regex"}
    return Filter("grep", pattern, regex, call.invert, names[call.syntax], view, arg)


_NEUTRAL_STAGES = frozenset({"sort", "uniq", "cat", "tee"})
_TRANSFORM_STAGES = frozenset({"cut", "tr", "sed", "awk", "gawk", "mawk", "nawk", "paste",
                               "column", "grep"})
_PARTIAL_STAGES = frozenset({"head", "tail", "shuf"})


def _one_value(arg: Arg) -> bool:
    """``arg`` is one expansion that cannot split into several words: `"$pid"`, `$$`, `$!`."""
    parts = arg.word.parts if arg.word is not None else ()
    if len(parts) != 1:
        return False
    part = parts[0]
    if part.name == "@" or "[@]" in part.value:
        return False  # `"$@"`: as many words as there are elements
    return part.kind in ("parameter", "special", "command", "backtick", "arithmetic") and (
        part.quoting == "double" or part.name in ("$", "!", "PPID"))


def selector_start(view: CommandView) -> Selector | None:
    """A selector from the first command of a pipeline (``ps ...`` or ``pgrep ...``)."""
    eff = view.effective
    if eff is None or eff.via_xargs:
        return None
    base = eff.start
    values = eff.values
    if eff.name == "ps":
        runtime = {i for i, a in enumerate(view.argv)
                   if a.dynamic_ranges and a.dynamic_ranges[0][0] == 0}
        ps = parse_ps(values, base, runtime,
                      {i for i in runtime if _one_value(view.argv[i])})
        if ps is None or ps.restricted:
            return None
        return Selector("ps", [], [view], ps=ps)
    if eff.name in ("pgrep", "pkill"):
        call = parse_pgrep(values, base)
        if call is None or call.pattern_index is None:
            return None
        arg = view.argv[call.pattern_index] if call.pattern_index < len(view.argv) else None
        sel = Selector("pgrep" if eff.name == "pgrep" else "pkill", [], [view], pgrep=call)
        if arg is not None and arg.dynamic:
            sel.open_words.append((view, call.pattern_index))
        try:
            regex = call.regex()
        except UnsupportedPattern as exc:
            sel.refused.append(Unevaluated(
                eff.name + (" -f" if call.full else ""), values[call.pattern_index], arg, view,
                unsupported(str(exc))))
        else:
            sel.filters.append(Filter(eff.name, values[call.pattern_index], regex, call.invert,
                                      "extended regex" if call.full else "process name", view,
                                      arg))
        sel.partial = call.partial or call.restricted
        return sel
    return None


def extend_selector(sel: Selector, view: CommandView) -> bool:
    """Add one pipeline stage after the selector's start; False when it is not understood."""
    eff = view.effective
    if eff is None:
        sel.uncertain = True
        return False
    name = eff.name
    if name in GREP_PROGRAMS:
        call = parse_grep(eff.values, eff.start)
        if call is None or not call.reads_stdin:
            sel.uncertain = True
            return False
        if sel.transformed or sel.source != "ps":
            sel.uncertain = True
            sel.views.append(view)
            return True
        flt = _filter_from_grep(view, call)
        if isinstance(flt, Unevaluated):
            sel.refused.append(flt)
        else:
            if flt.arg is not None and flt.arg.dynamic:
                if len(call.pattern_indices) == 1:
                    sel.open_words.append((view, call.pattern_indices[0]))
                else:
                    sel.uncertain = True
            sel.filters.append(flt)
        sel.views.append(view)
        if call.count or call.only_matching:
            # `grep -c P` prints a number and `grep -o P` the matched text, not the process
            # lines: a later `grep -v grep` filters that output, not the process list.
            sel.transformed = True
        return True
    if name in AWK_PROGRAMS:
        h = eff.handoff
        if not isinstance(h, ho.AwkHandoff) or h.program is None or h.files():
            sel.uncertain = True
            return False
        prog = parse_awk_program(eff.values[h.program])
        if not prog.understood:
            sel.uncertain = True
        for ere, inverted in prog.filters:
            if sel.transformed or sel.source != "ps":
                sel.uncertain = True
                break
            arg = view.argv[h.program] if h.program < len(view.argv) else None
            try:
                regex = translate(ere, "extended")
            except UnsupportedPattern as exc:
                sel.refused.append(Unevaluated("awk", ere, arg, view, unsupported(str(exc))))
                continue
            sel.filters.append(Filter("awk", ere, regex, inverted, "awk regex", view, arg))
        sel.transformed = sel.transformed or prog.transforms
        sel.views.append(view)
        return True
    if name in _PARTIAL_STAGES:
        sel.partial = True
        sel.views.append(view)
        return True
    if name in _NEUTRAL_STAGES:
        sel.views.append(view)
        return True
    if name in _TRANSFORM_STAGES:
        if name == "sed" and any(v.startswith("-n") for v in eff.argv[1:]):
            sel.uncertain = True
        sel.transformed = True
        sel.views.append(view)
        return True
    sel.uncertain = True
    return False


def selector_from_stages(stages: Sequence[Node], views: dict[int, CommandView],
                          stop_at_kill: bool) -> tuple[Selector, int] | None:
    if not stages or not isinstance(stages[0], SimpleCommand):
        return None
    first = views.get(id(stages[0]))
    if first is None:
        return None
    sel = selector_start(first)
    if sel is None:
        return None
    k = 1
    while k < len(stages):
        node = stages[k]
        if not isinstance(node, SimpleCommand):
            break
        view = views.get(id(node))
        if view is None:
            break
        eff = view.effective
        if stop_at_kill and eff is not None and eff.via_xargs and eff.name in ("kill",):
            break
        if not extend_selector(sel, view):
            break
        k += 1
    return sel, k
