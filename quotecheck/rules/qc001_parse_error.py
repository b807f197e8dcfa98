"""QC001 parse-error: a layer's text does not parse.

Not for a zsh layer: the parser reads bash's grammar, and much valid zsh (``for k v in``,
``files=(**/*(N.))``) is not bash; what it cannot parse there is a QC002 note instead.

A text built at run time (an inner layer whose text holds outer expansions) is judged with the
values it could hold (``parsing.runtime_text``): only an error no plain value avoids is one."""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.parsing.runtime_text import certain_errors
from quotecheck.rules.api import CheckContext, Finding, Rule


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.script is None or layer.dialect == "zsh":
            continue
        inner = layer.parent is not None
        problems = [p for p in layer.script.problems if p.code == "QC001"]
        if problems and inner and layer.dynamic_ranges:
            problems = certain_errors(layer.script.text, layer.script.dialect, layer.dynamic_ranges)
        for p in problems:
            span = ctx.span_in_source(layer, p.start, p.end)
            if inner:
                message = (f"{p.message} in the text the {layer.label()} receives: "
                           "it will fail on it too")
            else:
                message = p.message
            yield Finding(span, message, layer)


RULE = Rule("QC001", "parse-error", "A layer's text does not parse", "error", check)
