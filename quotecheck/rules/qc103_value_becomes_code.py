"""QC103 value-becomes-code: an outer value is spliced unquoted into an inner layer's code.

The decision (which of QC101/QC103/QC104/QC105 an expansion gets) lives in ``crosslayer.decide``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.crosslayer.decide import findings
from quotecheck.rules.triggers import HANDOFFS


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from findings(ctx, "QC103")


RULE = Rule("QC103", "value-becomes-code",
            "A variable, command output or {} is pasted unquoted into an inner layer's code",
            "warning", check,
            trigger=HANDOFFS)
