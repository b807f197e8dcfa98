"""One analysis of one input: the layer trace and the diagnostics found on it."""

from __future__ import annotations

from dataclasses import dataclass

from quotecheck.diagnostics import Diagnostic
from quotecheck.layers.model import Layer, Trace
from quotecheck.trace import build_trace


@dataclass
class Analysis:
    source: str
    trace: Trace
    diagnostics: list[Diagnostic]


def analyse(
    source: str,
    *,
    dialect: str = "bash",
    remote_shell: str | None = None,
    path: str | None = None,
) -> Analysis:
    trace = build_trace(source, dialect=dialect, remote_shell=remote_shell, path=path)
    diagnostics = parse_diagnostics(trace)
    diagnostics.sort(key=lambda d: (d.span, d.code))
    return Analysis(source, trace, diagnostics)


def _source_span(layer: Layer, start: int, end: int) -> tuple[int, int]:
    """Map a span of a layer's text to the input; fall back to the command that opened it."""
    if layer.origin is not None:
        mapped = layer.origin.span(start, max(end, start + 1))
        if mapped is not None:
            return mapped
    if layer.source_span is not None:
        return layer.source_span
    return (0, 0)


def parse_diagnostics(trace: Trace) -> list[Diagnostic]:
    """QC001/QC002 for every part of every layer that could not be parsed or was skipped."""
    out: list[Diagnostic] = []
    seen: set[tuple[str, tuple[int, int], str]] = set()
    for layer in trace.layers:
        if layer.script is None:
            continue
        chain = tuple(x.label() for x in layer.chain(trace.layers))
        inner = layer.parent is not None
        for p in layer.script.problems:
            span = _source_span(layer, p.start, p.end)
            if p.code == "QC001":
                where = f" in the text {layer.label()} receives" if inner else ""
                tail = f"; {layer.label()} will fail to run it too" if inner else ""
                message = f"{p.message}{where}{tail}"
                d = Diagnostic("QC001", "parse-error", "error", message, span, chain)
            else:
                d = Diagnostic("QC002", "not-analysed", "warning", p.message, span, chain)
            key = (d.code, d.span, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    return out
