"""QC002 not-analysed: part of the input was skipped; say which part, never silently."""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.rules.api import CheckContext, Finding, Rule


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.script is None:
            continue
        for p in layer.script.problems:
            if p.code == "QC002":
                yield Finding(ctx.span_in_source(layer, p.start, p.end), p.message, layer)
            elif layer.dialect == "zsh":
                # Not bash, but it may well be zsh (`zsh -n` is the judge): no error.
                yield Finding(ctx.span_in_source(layer, p.start, p.end),
                              f"zsh syntax not analysed here ({p.message}); the commands "
                              "around it are analysed", layer, severity="info")


RULE = Rule("QC002", "not-analysed", "Part of the input was not analysed", "warning", check)
