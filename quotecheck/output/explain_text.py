"""``quotecheck explain``: the layer trace for a person at a terminal (80 columns wide)."""

from __future__ import annotations

import textwrap

from quotecheck.diagnostics import Diagnostic
from quotecheck.layers.model import Arg, CommandView, Layer, Trace
from quotecheck.output.style import Style
from quotecheck.output.terminal import printable
from quotecheck.parsing.tree import Redirect
from quotecheck.parsing.words import Word
from quotecheck.positions import LineIndex

WIDTH = 80


def show_value(value: str, limit: int = 60, dynamic: bool = False) -> str:
    """A value with its boundaries visible, control characters escaped, long ones cut: ‹...›
    for an exact value, «...» for one known only at run time (shown as written), so the
    difference survives without colour."""
    shown = printable(value)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"«{shown}»" if dynamic else f"‹{shown}›"


def show_marked(value: str, ranges: list[tuple[int, int]], limit: int = 60) -> str:
    """``value`` like :func:`show_value`, the parts known only at run time inside «...»
    (``ssh h ls ~/x`` sends ‹ls «~»/x›), so that they stand out without colour."""
    if not ranges:
        return show_value(value, limit)
    pieces: list[str] = []
    at = 0
    for a, b in ranges:
        if a > at:
            pieces.append(printable(value[at:a]))
        pieces.append(f"«{printable(value[a:b])}»")
        at = max(at, b)
    pieces.append(printable(value[at:]))
    shown = "".join(pieces)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"‹{shown}›"


def show_word(word: Word, limit: int = 60) -> str:
    return show_value(word.value, limit, word.dynamic)


def redirect_text(r: Redirect) -> str:
    """A redirection as written, its target shown like a value."""
    fd = "" if r.fd is None else str(r.fd)
    if r.heredoc is not None:
        spec = r.heredoc.spec
        how = "as written" if spec.quoted else "expanded locally"
        return f"{fd}{r.op}{printable(spec.delimiter)} (here-document, {how})"
    if r.target is not None:
        return f"{fd}{r.op} {show_word(r.target, 40)}"
    return f"{fd}{r.op}{'' if r.dup_fd is None else r.dup_fd}"


class ExplainRenderer:
    def __init__(self, trace: Trace, diagnostics: list[Diagnostic], style: Style) -> None:
        self.trace = trace
        self.diagnostics = diagnostics
        self.style = style
        self.index = LineIndex(trace.source)
        self.lines: list[str] = []

    def where(self, span: tuple[int, int] | None) -> str:
        if span is None:
            return "generated"
        line, col = self.index.position(span[0])
        return f"{line + 1}:{col + 1}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(" " * depth + text)

    def render(self) -> str:
        layers = self.trace.layers
        total = len(layers)
        self.emit(0, self.style.bold(f"{total} layer{'s' if total != 1 else ''}") +
                  self.style.dim("  (‹…› = exact value received; «…» = known only at run time)"))
        self.layer(layers[0], 0)
        if self.diagnostics:
            self.lines.append("")
            for d in self.diagnostics:
                head = f"{self.where(d.span)}: {d.severity} {d.code} "
                body = textwrap.wrap(d.text, WIDTH - 4, initial_indent=" " * len(head),
                                     subsequent_indent="    ", break_on_hyphens=False)
                first = body[0][len(head):] if body else ""
                self.lines.append(f"{self.where(d.span)}: {self.style.severity(d.severity)} "
                                  f"{d.code} {first}")
                self.lines.extend(body[1:])
        return "\n".join(self.lines) + "\n"

    def header(self, layer: Layer) -> str:
        s = self.style
        through = f" through {layer.through}" if layer.through else ""
        if layer.kind == "shell":
            dialect = layer.dialect or "?"
            kind_, _, place = layer.where.partition(":")
            where = ("local shell" if layer.where == "local" else
                     f"shell in container {place}" if kind_ == "container" else
                     f"shell on {place}")
            extra = " (see --remote-shell)" if dialect == "unknown" else ""
            extra += through
            how = " reading its script on stdin" if layer.stdin_script else ""
            return s.heading(f"[{layer.id}] {where}, {dialect}{how}") + s.dim(extra)
        if layer.kind == "ssh":
            return s.heading(f"[{layer.id}] ssh to {layer.destination}") + s.dim(
                f" from {self.where(layer.source_span)}{through}")
        if layer.kind == "join":
            return s.heading(f"[{layer.id}] {layer.via} joins its words") + s.dim(through)
        if layer.kind == "exec":
            at = f" at {self.where(layer.source_span)}" if layer.parent == 0 and \
                self.trace.root.kind == "host" else ""
            return s.heading(f"[{layer.id}] {layer.via} runs an argv (no shell)") + s.dim(
                at + through)
        if layer.kind == "host":
            return s.heading(f"[{layer.id}] {layer.format} file") + s.dim(
                f" ({self.trace.source.count(chr(10)) + 1} lines)")
        return s.heading(f"[{layer.id}] {layer.via or layer.kind} program") + s.dim(through)

    def argv_lines(self, args: list[Arg], first: str, indent: int) -> list[str]:
        """``first`` then the argv, wrapped at WIDTH with continuation lines under the argv."""
        lead = " " * indent
        hang = " " * (indent + len(first))
        room = max(WIDTH - len(hang), 24)
        lines: list[str] = []
        current, used = lead + first, 0
        for a in args:
            shown = show_value(a.value, min(room - 2, 60), a.dynamic)
            styled = self.style.dynamic(shown) if a.dynamic else shown
            if used and used + 1 + len(shown) > room:
                lines.append(current)
                current, used = hang, 0
            current += (" " if used else "") + styled
            used += (1 if used else 0) + len(shown)
        lines.append(current)
        return lines

    def surroundings(self, view: CommandView, indent: int) -> None:
        """What the argv does not show: the command's own environment assignments, its
        redirections, and whether it runs in the background."""
        s = self.style
        command = view.command
        if command.assignments:
            env = " ".join(f"{printable(a.name)}{'+' if a.append else ''}={show_word(a.value, 40)}"
                           for a in command.assignments)
            self.emit(indent, s.dim("env ") + env)
        if command.redirects:
            self.emit(indent, s.dim("redirects ") +
                      " ".join(redirect_text(r) for r in command.redirects))
        if view.context.background:
            self.emit(indent, s.dim("in the background (&)"))

    def layer(self, layer: Layer, depth: int) -> None:
        s = self.style
        self.emit(depth, self.header(layer))
        body = depth + 4
        room = WIDTH - body - 12
        if layer.kind in ("ssh", "join"):
            text = layer.sends or ""
            shown = show_marked(text, layer.sends_dynamic, room - 12) if layer.kind == "ssh" \
                else show_value(text, room - 12)
            self.emit(body, f"sends {shown}" +
                      s.dim(f" ({len(text)} chars)" if len(show_value(text)) > room - 12 else ""))
            if (layer.sends_dynamic if layer.kind == "ssh" else layer.dynamic_text):
                self.emit(body, s.dynamic("part of it is expanded locally at run time"))
            if layer.uncertain:
                for line in textwrap.wrap(layer.uncertain, WIDTH - body):
                    self.emit(body, s.dynamic(line))
        elif layer.kind == "exec":
            self.lines.extend(self.argv_lines(layer.argv, "argv ", body))
        elif layer.kind == "awk":
            self.emit(body, f"program {show_value(layer.text or '', room)}")
            for name, value in layer.assignments:
                self.emit(body, f"-v {name} = {show_value(value, room - 20)} (after awk escapes)")
        elif layer.kind == "shell":
            if layer.parent == 0 and self.trace.root.kind == "host":
                self.emit(body, s.dim("from ") + self.where(layer.source_span))
            if layer.process and layer.parent is not None:
                proc = " ".join(show_value(p, max(room // 3, 12)) for p in layer.process)
                self.emit(body, s.dim("process: ") + proc)
            if layer.positional:
                pos = " ".join(f"${i}={show_value(a.value, 16)}"
                               for i, a in enumerate(layer.positional))
                self.emit(body, s.dim("parameters: ") + pos)
            children = {c.id: c for c in self.trace.children(layer)}
            for view in layer.commands:
                lead = f"{self.where(view.source_span):<7} "
                if not view.argv:
                    names = " ".join(f"{a.name}=…" for a in view.command.assignments)
                    self.emit(body, lead + s.dim(f"(sets {names or 'nothing'}; runs nothing)"))
                    continue
                self.lines.extend(self.argv_lines(view.argv, lead, body))
                self.surroundings(view, body + len(lead))
                for child_id in view.opens:
                    child = children.pop(child_id, None)
                    if child is not None:
                        self.layer(child, body + 2)
            for child in children.values():
                self.layer(child, body + 2)
            return
        for child in self.trace.children(layer):
            self.layer(child, body)


def render_explain(trace: Trace, diagnostics: list[Diagnostic], style: Style) -> str:
    return ExplainRenderer(trace, diagnostics, style).render()
