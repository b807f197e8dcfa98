"""What a script prints to say how things went: echo/printf texts and the words that claim
success."""

from __future__ import annotations

import re

from quotecheck.layers.model import CommandView
from quotecheck.lazy_regex import lazy_compile

SUCCESS_WORDS = lazy_compile(
    r"\b(done|ok|okay|success|successful|successfully|succeeded|killed|stopped|started|"
    r"confirmed|complete|completed|deployed|launched|restarted|finished|installed|"
    r"updated|uploaded|created|passed|ready|running|alive)\b|✓|✔",
    re.IGNORECASE,
)
NEGATIVE_WORDS = lazy_compile(
    r"\b(not|no|fail|failed|failure|error|errors|unable|cannot|can't|couldn't|didn't|"
    r"won't|skip|skipped|skipping|if|unless|whether|maybe|check|usage|warning|warn|"
    r"starting|stopping|killing|launching|deploying|restarting|waiting)\b|\?",
    re.IGNORECASE,
)


def message_text(view: CommandView) -> str | None:
    """The text an ``echo``/``printf`` prints (None for other commands)."""
    if not view.argv:
        return None
    name = view.values[0]
    args = view.values[1:]
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return " ".join(args)
    if name == "printf":
        if args and args[0] == "-v":
            return None
        return " ".join(args)
    return None
