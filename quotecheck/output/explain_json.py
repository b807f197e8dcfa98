"""``quotecheck explain --format json``: the layer-trace contract (its fields: README.md)."""

from __future__ import annotations

from typing import Any

from quotecheck.layers.model import Arg, Layer, Trace

CONTRACT_VERSION = 1


def _span(span: tuple[int, int] | None) -> list[int] | None:
    return [span[0], span[1]] if span is not None else None


def _argv(args: list[Arg]) -> tuple[list[str], list[int]]:
    return [a.value for a in args], [i for i, a in enumerate(args) if a.dynamic]


def layer_document(layer: Layer) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": layer.id, "parent": layer.parent, "kind": layer.kind}
    if layer.kind == "host":
        doc["format"] = layer.format
        doc["text"] = layer.text
        doc["span"] = _span(layer.source_span)
    elif layer.kind == "shell":
        doc["dialect"] = layer.dialect
        doc["where"] = layer.where
        doc["text"] = layer.text
        commands = []
        for view in layer.commands:
            argv, dynamic = _argv(view.argv)
            commands.append({"argv": argv, "dynamic": dynamic, "span": _span(view.source_span),
                             "opens": view.opens})
        doc["commands"] = commands
        doc["process"] = layer.process
        doc["span"] = _span(layer.source_span)
        if layer.positional:
            doc["positional"] = [a.value for a in layer.positional]
        if layer.stdin_script:
            doc["stdin_script"] = True
    elif layer.kind in ("ssh", "join"):
        doc["via"] = layer.via
        if layer.kind == "ssh":
            doc["destination"] = layer.destination
            doc["options"] = layer.options
            doc["sends_dynamic"] = [[a, b] for a, b in layer.sends_dynamic]
        doc["where"] = layer.where
        doc["sends"] = layer.sends
        doc["span"] = _span(layer.source_span)
    elif layer.kind == "exec":
        argv, dynamic = _argv(layer.argv)
        doc["via"] = layer.via
        doc["where"] = layer.where
        doc["argv"] = argv
        doc["dynamic"] = dynamic
        doc["span"] = _span(layer.source_span)
    elif layer.kind == "awk":
        doc["via"] = layer.via
        doc["text"] = layer.text
        doc["span"] = _span(layer.source_span)
        doc["assignments"] = [{"name": n, "value": v} for n, v in layer.assignments]
    if layer.dynamic_text:
        doc["dynamic_text"] = True
    if layer.through:
        doc["through"] = layer.through
    if layer.uncertain:
        doc["uncertain"] = layer.uncertain
    return doc


def explain_document(trace: Trace, diagnostics: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "version": CONTRACT_VERSION,
        "source": trace.source,
        "layers": [layer_document(layer) for layer in trace.layers],
        "diagnostics": diagnostics,
    }
