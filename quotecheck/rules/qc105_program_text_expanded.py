"""QC105 program-text-expanded: the shell expands `$...` inside an awk/sed/perl/jq program.

The decision (which of QC101/QC103/QC104/QC105 an expansion gets) lives in ``crosslayer.decide``.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.programs import PROGRAM_TEXT_LANGUAGES
from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.crosslayer.decide import findings
from quotecheck.rules.crosslayer.programs import PYTHON_NAME_PARTS
from quotecheck.rules.triggers import Trigger


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from findings(ctx, "QC105")


RULE = Rule("QC105", "program-text-expanded",
            "A double-quoted awk/sed/perl/jq/python program has $... expanded by the shell",
            "error", check, fix="unsafe",
            trigger=Trigger(handoffs=True, programs=frozenset(PROGRAM_TEXT_LANGUAGES),
                            text=PYTHON_NAME_PARTS))
