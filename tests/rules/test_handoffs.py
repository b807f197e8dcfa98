"""quotecheck/rules/_handoffs.py: what the hand-off rules (QC106-QC113) share."""

from __future__ import annotations

from quotecheck.layers import handoff_types as ho
from quotecheck.trace import build_trace


def test_a_commands_handoffs_are_read_once_by_the_trace() -> None:
    """Nine rules ask every command what it hands on: the trace reads it once, onto the view,
    and the layer the command opens carries that same reading."""
    trace = build_trace("sudo sh -c 'echo a'\necho plain\n", dialect="bash")
    first, plain = trace.layers[0].commands[:2]
    assert [type(h) for h in first.handoffs] == [ho.ExecHandoff, ho.ShellHandoff]
    assert plain.handoffs == []  # each command has its own answer
    sudo = trace.layers[first.opens[0]]
    assert sudo.via == "sudo" and sudo.handoff is first.handoffs[0]
