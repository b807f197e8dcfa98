"""QC001 parse-error: a layer's text does not parse.

Not for a zsh layer: the parser reads bash's grammar, and much valid zsh (``for k v in``,
``files=(**/*(N.))``) is not bash; what it cannot parse there is a QC002 note instead."""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.rules.api import CheckContext, Finding, Rule


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.script is None or layer.dialect == "zsh":
            continue
        inner = layer.parent is not None
        for p in layer.script.problems:
            if p.code != "QC001":
                continue
            span = ctx.span_in_source(layer, p.start, p.end)
            if inner:
                message = (f"{p.message} in the text the {layer.label()} receives: "
                           "it will fail on it too")
            else:
                message = p.message
            yield Finding(span, message, layer)


RULE = Rule("QC001", "parse-error", "A layer's text does not parse", "error", check)
