"""One analysis of one input: the layer trace and the diagnostics found on it.

A thin convenience over ``checker.check_source`` for callers that want both at once
(``quotecheck explain`` shows the diagnostics of ``quotecheck check`` under the trace).
"""

from __future__ import annotations

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.layers.model import Trace
from quotecheck.records import Record


class Analysis(Record):
    source: str
    trace: Trace
    diagnostics: list[Diagnostic]


def analyse(source: str, options: Options | None = None, path: str | None = None) -> Analysis:
    """``options``: as ``config.build_options`` makes them (None: the checker's defaults)."""
    result = check_source(source, options, path)
    return Analysis(source, result.trace, result.diagnostics)
