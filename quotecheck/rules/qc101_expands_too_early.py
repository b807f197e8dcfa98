"""QC101 expands-too-early: an outer shell expands text that was meant for an inner layer.

The decision (which of QC101/QC103/QC104/QC105 an expansion gets) lives in ``crosslayer.decide``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.crosslayer.decide import findings
from quotecheck.rules.triggers import HANDOFFS


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from findings(ctx, "QC101")


RULE = Rule("QC101", "expands-too-early",
            "An outer shell expands $... meant for an inner layer (ssh remote shell, sh -c)",
            "warning", check, fix="unsafe",
            trigger=HANDOFFS)
