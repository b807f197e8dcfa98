"""Text for messages: a piece of script shown on one line, cut to a length.

Two ways to show a line break, each used by its own family of rules, and kept apart so that
their messages stay what they are:

- ``one_line_escaped`` writes a newline as ``\\n`` and a tab as ``\\t``, as a writer would type
  them inside ``$'...'`` (the run-time rules QC201-QC206 and their fixes);
- ``one_line_marked`` writes a newline as ``⏎`` (the operations rules QC207-QC211): evidence
  quoted from a script often holds a literal backslash-n itself (``printf 'a\\n'``), which the
  mark keeps apart from a line break.
"""

from __future__ import annotations

ELLIPSIS = "…"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def one_line_escaped(text: str, limit: int = 60) -> str:
    """``text`` on one line (newline as ``\\n``, tab as ``\\t``), at most ``limit`` characters."""
    return _cut(text.replace("\n", "\\n").replace("\t", "\\t"), limit)


def one_line_marked(text: str, limit: int = 60) -> str:
    """``text`` on one line (newline as ``⏎``), at most ``limit`` characters."""
    return _cut(text.replace("\n", "⏎"), limit)
