"""QC104 heredoc-expands-locally: an unquoted heredoc feeds a script to an inner shell.

The decision (which of QC101/QC103/QC104/QC105 an expansion gets) lives in ``crosslayer.decide``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.crosslayer.decide import findings
from quotecheck.rules.triggers import HANDOFFS


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from findings(ctx, "QC104")


RULE = Rule("QC104", "heredoc-expands-locally",
            "An unquoted heredoc sends a script to an inner shell after expanding it locally",
            "warning", check, fix="unsafe",
            trigger=HANDOFFS)
