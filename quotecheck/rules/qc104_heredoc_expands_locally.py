"""QC104 heredoc-expands-locally: an unquoted heredoc feeds a script to an inner shell.

The decision (which of QC101/QC103/QC104/QC105 an expansion gets) lives in ``crosslayer.decide``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.crosslayer.decide import findings
from quotecheck.rules.triggers import Trigger


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from findings(ctx, "QC104")


RULE = Rule("QC104", "heredoc-expands-locally",
            "An unquoted heredoc sends or writes code for another shell after expanding it locally",
            "warning", check, fix="unsafe",
            # (a heredoc no shell reads now may still be code a later one runs)
            trigger=Trigger(handoffs=True, text=("<<",)))
