"""Hover text: what every layer receives for the command under the cursor, and what the
diagnostics there mean, as Markdown.

The command's trace is the part of ``quotecheck explain`` below that command: the layer it
runs in, its argv, and every layer it opens, depth first, each with its argv or text. Values
are code spans; a value known only at run time (a variable, a substitution, a glob) is shown as
written and in italics.
"""

from __future__ import annotations

from collections.abc import Iterable

from quotecheck.lsp.engine import (
    CheckOutcome,
    Diagnostic,
    LineIndex,
    rule_doc_uri,
    rule_href,
    rule_summary,
)
from quotecheck.lsp.outline import Command, LayerOutline, Outline, Value

SHOWN = 60  # characters of one value shown
MAX_ITEMS = 300  # list items of one hover; the rest is counted
LEGEND = ("`value` is exactly what the layer receives; _`value`_ (in italics) is known only at "
          "run time and shown as written")


def code(text: str, limit: int = SHOWN) -> str:
    """``text`` as one Markdown code span: control characters escaped, long ones cut."""
    out: list[str] = []
    for ch in text:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 32 or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    shown = "".join(out)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    if not shown:
        return "` `"  # an empty argument is still an argument
    longest = run = 0
    for ch in shown:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or shown.startswith(" ") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def value(v: Value, limit: int = SHOWN) -> str:
    shown = code(v.text if v.length == len(v.text) else v.text + "…", limit)
    return f"_{shown}_" if v.dynamic else shown


def _where(index_position: tuple[int, int] | None) -> str:
    if index_position is None:
        return "generated"
    return f"{index_position[0] + 1}:{index_position[1] + 1}"


class PositionOf:
    """Offset -> 0-based (line, column in code points) for the hover's `line:col`s."""

    def __init__(self, text: str) -> None:
        self.index = LineIndex(text)

    def __call__(self, offset: int) -> tuple[int, int]:
        return self.index.position(offset)


class _Writer:
    def __init__(self, outline: Outline, position: PositionOf) -> None:
        self.outline = outline
        self.position = position
        self.lines: list[str] = []
        self.items = 0
        self.left = 0  # items not shown

    def item(self, depth: int, text: str) -> bool:
        if self.items >= MAX_ITEMS:
            self.left += 1
            return False
        self.items += 1
        self.lines.append("  " * depth + "- " + text)
        return True

    def argv(self, values: Iterable[Value]) -> str:
        return " ".join(value(v) for v in values) or "(no arguments)"

    def command(self, command: Command, depth: int) -> None:
        where = _where(self.position(command.span[0]) if command.span else None)
        if command.argv:
            self.item(depth, f"{where} {self.argv(command.argv)}")
        else:
            sets = " ".join(f"`{name}=…`" for name in command.sets)
            self.item(depth, f"{where} sets {sets or 'nothing'}, runs nothing")
        children = {c.id: c for c in self.outline.children(command.layer)}
        for child_id in command.opens:
            child = children.get(child_id)
            if child is not None:
                self.layer(child, depth + 1)

    def layer(self, layer: LayerOutline, depth: int) -> None:
        head = f"**[{layer.id}] {layer.title}**"
        if layer.kind in ("ssh", "join") and layer.receives is not None:
            head += f" sends {value(layer.receives)} ({layer.receives.length} characters)"
        elif layer.kind == "awk" and layer.receives is not None:
            head += f": {value(layer.receives)}"
        elif layer.kind == "exec":
            head += f": {self.argv(layer.argv)}"
        elif layer.kind == "shell" and layer.argv:
            head += f", process {self.argv(layer.argv)}"
        if not self.item(depth, head):
            return
        for note in layer.notes:
            self.item(depth + 1, f"_{note}_")
        for k in layer.commands:
            self.command(self.outline.commands[k], depth + 1)
        opened = {c for k in layer.commands for c in self.outline.commands[k].opens}
        for child in self.outline.children(layer.id):  # opened by no command of this layer
            if child.id not in opened:
                self.layer(child, depth + 1)


def command_at(outline: Outline, offset: int) -> Command | None:
    """The innermost command whose span holds ``offset`` (its last character included)."""
    best: Command | None = None
    for command in outline.commands:
        if command.span is None:
            continue
        a, b = command.span
        if a <= offset <= b and (best is None or best.span is None
                                 or b - a < best.span[1] - best.span[0]):
            best = command
    return best


def command_markdown(outline: Outline, command: Command, position: PositionOf) -> str:
    writer = _Writer(outline, position)
    layer = outline.layers[command.layer]
    name = command.argv[0].text if command.argv else "(assignment)"
    lines = [f"**{code(name)}** in the {layer.chain}: what each layer receives", "",
             LEGEND, ""]
    writer.command(command, 0)
    lines.extend(writer.lines)
    if writer.left:
        lines.append(f"- … {writer.left} more (the whole trace: `quotecheck explain`)")
    return "\n".join(lines)


def diagnostics_at(outcome: CheckOutcome, offset: int) -> list[Diagnostic]:
    found = []
    for d in outcome.diagnostics:
        a, b = d.span
        if a <= offset < b or offset == a:
            found.append(d)
    return found


def diagnostic_markdown(d: Diagnostic) -> str:
    known = rule_summary(d.code)
    name, summary = (known[0], known[2]) if known else (d.name, "")
    doc = rule_doc_uri(d.code)
    links = f"[rules/{d.code}.md]({doc})" if doc else f"`quotecheck rule {d.code}`"
    lines = [f"**{d.code}** {name} ({d.severity}): {summary}".rstrip(": "), ""]
    if d.explanation:  # the diagnostic's message is its summary only
        lines += [d.explanation, ""]
    lines.append(f"Document: {links} · [online]({rule_href(d.code)})")
    if d.layers:
        lines += ["", "Layers: " + " → ".join(d.layers)]
    return "\n".join(lines)


def hover_markdown(outcome: CheckOutcome, offset: int) -> tuple[str, tuple[int, int]] | None:
    """The hover at ``offset`` and the span it is about, or None where there is nothing."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    for d in diagnostics_at(outcome, offset):
        parts.append(diagnostic_markdown(d))
        spans.append(d.span)
    command = command_at(outcome.outline, offset)
    if command is not None and command.span is not None:
        parts.append(command_markdown(outcome.outline, command, PositionOf(outcome.text)))
        spans.append(command.span)
    if not parts:
        return None
    span = min(spans, key=lambda s: s[1] - s[0])
    return "\n\n---\n\n".join(parts), span
