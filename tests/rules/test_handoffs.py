"""quotecheck/rules/_handoffs.py: what the hand-off rules (QC106-QC113) share."""

from __future__ import annotations

from quotecheck.rules._handoffs import _handoffs, handoffs
from quotecheck.rules.api import CheckContext
from quotecheck.trace import build_trace


def test_a_commands_handoffs_are_found_once_per_check() -> None:
    """handoffs() is asked by nine rules of every command: the check's memo keeps each
    command's answer for the rules of that check, and another check finds it afresh."""
    source = "sudo sh -c 'echo a'\necho plain\n"
    trace = build_trace(source, dialect="bash")
    first, plain = trace.layers[0].commands[:2]
    ctx = CheckContext(source, trace)
    kinds = [type(h).__name__ for h in handoffs(ctx, first)]
    assert handoffs(ctx, first) is handoffs(ctx, first)  # asked again: remembered
    assert kinds and kinds == [type(h).__name__ for h in _handoffs(first)]
    assert handoffs(ctx, plain) == []  # each command has its own answer
    again = CheckContext(source, trace)
    assert handoffs(again, first) is not handoffs(ctx, first)
    assert [type(h).__name__ for h in handoffs(again, first)] == kinds
