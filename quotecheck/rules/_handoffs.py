"""Shared helpers for the hand-off rules (QC106-QC113).

These rules judge what one simple command hands to the next layer: which of its words become
the text of an inner shell, an ssh remote command, an awk program, or the argv of an exec-style
wrapper. Everything here reads the trace (`CommandView.handoffs`); nothing re-parses options.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.parsing.tree import Compound
from quotecheck.parsing.words import EXPANSION_KINDS, Part, Word
from quotecheck.programs import POSIX_SHELLS, basename
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules.api import CheckContext

Span = tuple[int, int]


def script_span(view: CommandView, start: int, end: int) -> Span | None:
    """Map ``[start, end)`` of the text ``view``'s words were cut from to the input."""
    return view.context.script.origin.span(start, max(end, start + 1))


def part_span(view: CommandView, part: Part) -> Span | None:
    return script_span(view, *part.span)


def command_span(ctx: CheckContext, layer: Layer, view: CommandView) -> Span:
    if view.source_span is not None:
        return view.source_span
    if layer.source_span is not None:
        return layer.source_span
    return (0, 0)


def arg_span(ctx: CheckContext, layer: Layer, view: CommandView, arg: Arg) -> Span:
    if arg.source_span is not None:
        return arg.source_span
    return command_span(ctx, layer, view)


class _Index(Record):
    opened: dict[int, list[Layer]]  # id(view) -> layers whose opened_by is that view
    views: dict[int, set[int]]  # layer id -> ids of its command views


def index(ctx: CheckContext) -> _Index:
    """Lookups over the check's trace, built once (the rules of one check share them)."""
    def make() -> _Index:
        opened: dict[int, list[Layer]] = {}
        views: dict[int, set[int]] = {}
        for layer in ctx.layers:
            if layer.opened_by is not None:
                opened.setdefault(id(layer.opened_by), []).append(layer)
            views[layer.id] = {id(v) for v in layer.commands}
        return _Index(opened, views)
    return ctx.memo.get_or_compute("handoff_index", ctx.trace, make)


def owns(ctx: CheckContext, layer: Layer, view: CommandView) -> bool:
    """``view`` is one of ``layer``'s own commands (by identity)."""
    return id(view) in index(ctx).views.get(layer.id, set())


def descendants(ctx: CheckContext, view: CommandView) -> list[Layer]:
    """Every layer ``view`` opens, directly or through ssh/exec/join layers (not through the
    shells it opens: their own commands open the layers below them). Outermost first."""
    return sorted(index(ctx).opened.get(id(view), []), key=lambda x: x.id)


def outer_shell(ctx: CheckContext, layer: Layer) -> Layer | None:
    """The nearest shell layer above ``layer``."""
    parent = ctx.parent(layer)
    while parent is not None and parent.kind != "shell":
        parent = ctx.parent(parent)
    return parent


def between(ctx: CheckContext, layer: Layer, ancestor: Layer) -> list[Layer]:
    """The layers strictly between ``ancestor`` and ``layer`` (outermost first)."""
    out: list[Layer] = []
    parent = ctx.parent(layer)
    while parent is not None and parent.id != ancestor.id:
        out.insert(0, parent)
        parent = ctx.parent(parent)
    return out


def shell_program(layer: Layer) -> str:
    """The program running a shell layer: `sh`, `dash`, `bash`, or `unknown`."""
    if layer.process:
        name = basename(layer.process[0]).lstrip("-")
        if name and not name.startswith("<"):
            return name
    if layer.dialect in (None, "unknown"):
        return "unknown"
    return str(layer.dialect)


def posix_risk(layer: Layer) -> Literal["sh", "unknown"] | None:
    """Whether a shell layer may be a POSIX sh that lacks bash's quoting: `sh` when it is run
    as sh/dash/ash, `unknown` when it is a login shell nobody named, None for bash/zsh/ksh."""
    if layer.kind != "shell":
        return None
    program = shell_program(layer)
    if program in POSIX_SHELLS or layer.dialect == "sh":
        return "sh"
    if program == "unknown" or layer.dialect == "unknown":
        return "unknown"
    return None


def where_label(layer: Layer) -> str:
    """`the local bash`, `the remote shell on h`... for messages."""
    if layer.kind != "shell":
        return f"the {layer.label()}"
    if layer.where.startswith("remote:"):
        host = layer.where.partition(":")[2]
        program = shell_program(layer)
        name = "login shell" if program == "unknown" else program
        return f"the remote {name} on {host}"
    if layer.where.startswith("container:"):
        return f"the {shell_program(layer)} in container {layer.where.partition(':')[2]}"
    if layer.parent is None:
        return f"the local {layer.dialect or 'shell'}"
    return f"the inner {shell_program(layer)}"


def is_remote_hop(ctx: CheckContext, layer: Layer) -> bool:
    return any(x.kind == "ssh" for x in layer.chain(ctx.layers))


# -- the words a command hands on as text --------------------------------------------------------


class TextWord(FrozenRecord):
    """An argv word that becomes (part of) the text another layer parses."""

    index: int
    kind: Literal["ssh", "shell", "join", "awk"]
    target: str  # shell program of the reader: sh, dash, bash, unknown, awk, same
    handoff: ho.Handoff


def text_words(ctx: CheckContext, view: CommandView) -> list[TextWord]:
    out: list[TextWord] = []
    for h in view.handoffs:
        if isinstance(h, ho.SshHandoff):
            if h.no_command or h.subsystem:
                continue
            target = "unknown"
            for layer in descendants(ctx, view):
                if layer.kind == "shell" and layer.where.startswith("remote:"):
                    target = shell_program(layer)
                    break
            out.extend(TextWord(i, "ssh", target, h) for i in h.command)
        elif isinstance(h, ho.ShellHandoff):
            if h.script_words:
                out.extend(TextWord(i, "shell", h.shell, h) for i in h.script_words)
            elif h.mode == "c" and h.script is not None:
                out.append(TextWord(h.script, "shell", h.shell, h))
        elif isinstance(h, ho.JoinHandoff):
            out.extend(TextWord(i, "join", h.shell, h) for i in h.words)
        elif isinstance(h, ho.AwkHandoff) and h.program is not None:
            out.append(TextWord(h.program, "awk", "awk", h))
    return [t for t in out if 0 <= t.index < len(view.argv)]


# -- quoting structure of a word as written ------------------------------------------------------


class Token(FrozenRecord):
    """A top-level piece of a word as written: a quoted region, an unquoted run, an escape."""

    kind: Literal["single", "double", "unquoted", "escape", "other"]
    start: int  # offsets in the text the word was cut from
    end: int
    expansion: bool = False  # holds an unquoted (or, for double, any) expansion
    pattern: bool = False  # holds an unquoted glob, tilde or brace part

    def inner(self, text: str) -> str:
        """A quoted region's contents, or an unquoted run's text."""
        if self.kind in ("single", "double"):
            return text[self.start + 1 : max(self.end - 1, self.start + 1)]
        return text[self.start : self.end]


def tokens(text: str, word: Word) -> list[Token]:
    """Split ``word`` (cut from ``text``) into top-level quoted regions and unquoted runs.

    The extents of expansions and of `$'...'`/`$"..."` come from the word's parts (the scanner
    found them), so a quote inside `$(...)` never ends a region.
    """
    skip: dict[int, tuple[int, str]] = {}
    patterns: list[Span] = []
    for p in word.parts:
        if p.quoting in ("ansi_c", "locale"):
            skip[p.span[0]] = (p.span[1], "other")
        elif p.kind in EXPANSION_KINDS:
            skip.setdefault(p.span[0], (p.span[1], "expansion"))
        elif p.kind in ("glob", "tilde", "brace") and p.quoting == "none":
            patterns.append(p.span)
    out: list[Token] = []
    i, end = word.span
    end = min(end, len(text))
    while i < end:
        if i in skip:
            j, what = skip[i]
            j = max(j, i + 1)
            if what == "other":
                out.append(Token("other", i, j))
            else:
                out.append(Token("unquoted", i, j, expansion=True))
            i = j
            continue
        c = text[i]
        if c == "'":
            j = text.find("'", i + 1, end)
            j = end if j < 0 else j + 1
            out.append(Token("single", i, j))
            i = j
        elif c == '"':
            j = i + 1
            expansion = False
            while j < end:
                if j in skip:
                    expansion = True
                    j = max(skip[j][0], j + 1)
                    continue
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == '"':
                    break
                j += 1
            j = min(j + 1, end)
            out.append(Token("double", i, j, expansion=expansion))
            i = j
        elif c == "\\":
            out.append(Token("escape", i, min(i + 2, end)))
            i += 2
        else:
            pattern = any(a <= i < b for a, b in patterns)
            out.append(Token("unquoted", i, i + 1, pattern=pattern))
            i += 1
    merged: list[Token] = []
    for t in out:
        if merged and t.kind == "unquoted" and merged[-1].kind == "unquoted":
            last = merged[-1]
            merged[-1] = Token("unquoted", last.start, t.end, last.expansion or t.expansion,
                               last.pattern or t.pattern)
        else:
            merged.append(t)
    return merged


# -- parameters a shell layer reads --------------------------------------------------------------


def outer_dynamic_offsets(layer: Layer) -> set[int]:
    """Input offsets of the characters of ``layer``'s text that an outer layer fills in."""
    out: set[int] = set()
    if layer.origin is None:
        return out
    for a, b in layer.dynamic_ranges:
        for i in range(max(a, 0), b):
            off = layer.origin[i]
            if off is not None:
                out.add(off)
    return out


def view_words(view: CommandView) -> list[Word]:
    """Every word of a simple command: argv words, assignment values, redirect targets and
    heredoc bodies."""
    cmd = view.command
    return [*cmd.words, *(a.value for a in cmd.assignments),
            *(r.target for r in cmd.redirects if r.target is not None),
            *(r.heredoc.body for r in cmd.redirects if r.heredoc is not None)]


def in_function(view: CommandView) -> bool:
    return any(isinstance(a, Compound) and a.kind == "function" for a in view.context.ancestors)


def parameter_reads(layer: Layer) -> Iterator[tuple[CommandView, Part]]:
    """Parameter and special-parameter parts the layer itself expands (not the parts an outer
    layer already filled in)."""
    outer = outer_dynamic_offsets(layer)
    for view in layer.commands:
        origin = view.context.script.origin
        for word in view_words(view):
            for p in word.parts:
                if p.kind not in ("parameter", "special"):
                    continue
                if outer:
                    off = origin[p.span[0]]
                    if off is not None and off in outer:
                        continue
                yield view, p


# -- display -------------------------------------------------------------------------------------

_CONTROL_NAMES = {"\t": "<TAB>", "\n": "<NL>", "\r": "<CR>", "\x1b": "<ESC>", "\a": "<BEL>",
                  "\b": "<BS>", "\f": "<FF>", "\v": "<VT>", "\0": "<NUL>"}


def show(text: str, limit: int = 70) -> str:
    """Text for a message: control characters made visible, long texts shortened."""
    # Only the characters that can be shown: each shows as at least one, and a long text
    # (a whole generated ssh line) would otherwise be rendered in full for every finding.
    out = "".join(_CONTROL_NAMES.get(c, f"<0x{ord(c):02x}>" if ord(c) < 32 or ord(c) == 127
                                     else c) for c in text[:limit + 1])
    if len(out) > limit:
        out = out[: limit - 1] + "…"
    return out


def code(text: str, limit: int = 70) -> str:
    """Inline code for a message."""
    shown = show(text, limit)
    fence = "``" if "`" in shown else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def sh_quote(text: str) -> str:
    """POSIX single-quote ``text`` (as shlex.quote does), for suggestions."""
    if text and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"
