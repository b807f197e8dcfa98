"""What every layer receives, reduced to plain values: the part of a trace a hover shows.

A trace holds parse trees and source maps; the server gets its checks back from a worker
process, so it keeps this outline instead: per layer what it reads or runs, per command its
argv (dynamic parts flagged) and the layers it opens. Long texts are cut (a hover shows the
start of them; the full trace is ``quotecheck explain``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotecheck.records import FrozenRecord

if TYPE_CHECKING:
    from quotecheck.layers.model import Arg, Layer, Trace

# Characters kept of one value or text; a hover shows fewer.
KEEP = 400


class Value(FrozenRecord):
    text: str  # cut to KEEP characters
    length: int  # the whole value's length
    dynamic: bool = False  # known only at run time (shown as written)


class Command(FrozenRecord):
    span: tuple[int, int] | None  # in the input (None: a command a layer makes up)
    layer: int
    argv: tuple[Value, ...]
    opens: tuple[int, ...]  # ids of the layers it opens
    sets: tuple[str, ...] = ()  # variables assigned by a command that runs nothing


class LayerOutline(FrozenRecord):
    id: int
    parent: int | None
    kind: str  # shell, ssh, join, exec, awk
    title: str  # "ssh to host", "shell on host, unknown (see --remote-shell)", ...
    chain: str  # "local bash -> ssh -> remote shell"
    receives: Value | None = None  # what ssh/join send, awk's program
    argv: tuple[Value, ...] = ()  # an exec wrapper's argv, a child shell's process
    notes: tuple[str, ...] = ()  # -v assignments, positional parameters, run-time parts
    commands: tuple[int, ...] = ()  # indices into Outline.commands, in order


class Outline(FrozenRecord):
    layers: tuple[LayerOutline, ...]
    commands: tuple[Command, ...]

    def children(self, layer_id: int) -> list[LayerOutline]:
        return [x for x in self.layers if x.parent == layer_id]


def _value(text: str, dynamic: bool = False) -> Value:
    return Value(text[:KEEP], len(text), dynamic)


def _arg(arg: Arg) -> Value:
    return _value(arg.value, arg.dynamic)


def _title(layer: Layer) -> str:
    if layer.kind == "shell":
        kind, _, place = layer.where.partition(":")
        where = ("local shell" if layer.where == "local" else
                 f"shell in container {place}" if kind == "container" else f"shell on {place}")
        dialect = layer.dialect or "?"
        title = f"{where}, {dialect}"
        if dialect == "unknown":
            title += " login shell (see --remote-shell)"
        if layer.stdin_script:
            title += ", reading its script on stdin"
        return title
    if layer.kind == "ssh":
        return f"ssh to {layer.destination}"
    if layer.kind == "join":
        return f"{layer.via} joins its words into one text"
    if layer.kind == "exec":
        return f"{layer.via} runs an argv (no shell)"
    return f"{layer.via or layer.kind} program"


def _layer(trace: Trace, layer: Layer, first_command: int) -> LayerOutline:
    receives: Value | None = None
    argv: tuple[Value, ...] = ()
    notes: list[str] = []
    if layer.kind in ("ssh", "join"):
        receives = _value(layer.sends or "")
        if layer.dynamic_text:
            notes.append("part of it is expanded locally at run time")
    elif layer.kind == "exec":
        argv = tuple(_arg(a) for a in layer.argv)
    elif layer.kind == "awk":
        receives = _value(layer.text or "")
        notes.extend(f"-v {name} = {value[:KEEP]!r} (after awk's escapes)"
                     for name, value in layer.assignments)
    elif layer.kind == "shell":
        if layer.process and layer.parent is not None:
            argv = tuple(_value(p) for p in layer.process)
        notes.extend(f"${i} = {a.value[:KEEP]!r}" for i, a in enumerate(layer.positional))
    count = len(layer.commands) if layer.kind == "shell" else 0
    return LayerOutline(
        id=layer.id, parent=layer.parent, kind=layer.kind, title=_title(layer),
        chain=trace.chain_label(layer), receives=receives, argv=argv, notes=tuple(notes),
        commands=tuple(range(first_command, first_command + count)))


def build_outline(trace: Trace) -> Outline:
    layers: list[LayerOutline] = []
    commands: list[Command] = []
    for layer in trace.layers:
        layers.append(_layer(trace, layer, len(commands)))
        if layer.kind != "shell":
            continue
        for view in layer.commands:
            sets = tuple(a.name for a in view.command.assignments) if not view.argv else ()
            commands.append(Command(view.source_span, layer.id, tuple(_arg(a) for a in view.argv),
                                    tuple(view.opens), sets))
    return Outline(tuple(layers), tuple(commands))
