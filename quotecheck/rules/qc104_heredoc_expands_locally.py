"""QC104 heredoc-expands-locally: an unquoted heredoc feeds a script to an inner shell.

The decision (which of QC101/QC103/QC104/QC105 an expansion gets) lives in ``crosslayer.decide``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.parsing.tree import Redirect
from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.triggers import Trigger


def check(ctx: CheckContext) -> Iterator[Finding]:
    if len(ctx.layers) == 1 and not any(_expanding_heredoc(r) for _, view in ctx.commands()
                                        for r in view.command.redirects):
        return  # a script with no inner layer and no heredoc that expands anything
    from quotecheck.rules.crosslayer.decide import findings  # (the whole analysis: not for one)

    yield from findings(ctx, "QC104")


def _expanding_heredoc(redirect: Redirect) -> bool:
    h = redirect.heredoc
    return h is not None and not h.spec.quoted and ("$" in h.body.raw or "`" in h.body.raw)


RULE = Rule("QC104", "heredoc-expands-locally",
            "An unquoted heredoc sends or writes code for another shell after expanding it locally",
            "warning", check, fix="unsafe",
            # (a heredoc no shell reads now may still be code a later one runs)
            trigger=Trigger(handoffs=True, text=("<<",)))
