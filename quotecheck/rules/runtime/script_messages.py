"""What a script prints to say how things went: echo/printf texts and the words that claim
success."""

from __future__ import annotations

import re

from quotecheck.layers.model import CommandView
from quotecheck.lazy_regex import lazy_compile

SUCCESS_WORDS = lazy_compile(
    r"\b(done|ok|okay|success|successful|successfully|succeeded|killed|stopped|started|"
    r"confirmed|complete|completed|deployed|launched|restarted|finished|installed|"
    r"updated|uploaded|created|passed|ready|running|alive|"
    r"backed up|backuped|saved|copied|synced|synchronized|restored|migrated|published|"
    r"released|built|downloaded|extracted|archived|mounted|pushed|applied|configured)\b|✓|✔",
    re.IGNORECASE,
)
NEGATIVE_WORDS = lazy_compile(
    r"\b(not|no|fail|failed|failure|error|errors|unable|cannot|can't|couldn't|didn't|"
    r"won't|skip|skipped|skipping|if|unless|whether|maybe|check|usage|warning|warn|"
    r"starting|stopping|killing|launching|deploying|restarting|waiting)\b|\?",
    re.IGNORECASE,
)


# Colour codes as scripts write them (`\033[1;32m`, `\e[0m`, `\x1b[31m`, `\u001b[33m`, or the ESC
# character itself) and the written escapes `\n` `\t` `\r`: they are not words, and left in
# they glue to the word after them (`\033[33mWARNING` has no word boundary before WARNING).
_COLOUR = lazy_compile(r"(?:\\(?:033|e|E|x1[bB]|u001[bB])|\x1b)\[[0-9;]*[A-Za-z]")
_ESCAPE = lazy_compile(r"\\[ntr]")


def plain(text: str) -> str:
    """``text`` without colour codes and written escapes, for reading its words."""
    return _ESCAPE.sub(" ", _COLOUR.sub(" ", text))


def message_text(view: CommandView) -> str | None:
    """The words an ``echo``/``printf`` prints (None for other commands), colour codes and
    written escapes taken out (see ``plain``)."""
    if not view.argv:
        return None
    name = view.values[0]
    args = view.values[1:]
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return plain(" ".join(args))
    if name == "printf":
        if args and args[0] == "-v":
            return None
        return plain(" ".join(args))
    return None
