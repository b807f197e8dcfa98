"""How commands, argv words and positions are written in messages."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from quotecheck.parsing.tree import Node, Script
from quotecheck.positions import LineIndex
from quotecheck.rules._text import one_line_escaped


def show_argv(argv: Sequence[str], limit: int = 70) -> str:
    """A process argv as a reader would type it, shortened."""
    words = [argv[0]] + [shlex.quote(a) for a in argv[1:]] if argv else []
    return one_line_escaped(" ".join(words), limit)


def node_text(script: Script, node: Node, limit: int = 60) -> str:
    return one_line_escaped(" ".join(script.text[node.span[0]:node.span[1]].split()), limit)


class Locator:
    """1-based ``L:C`` of input offsets, for messages."""

    def __init__(self, source: str) -> None:
        self.index = LineIndex(source)

    def at(self, offset: int | None) -> str:
        if offset is None:
            return "?"
        line, col = self.index.position(offset)
        return f"{line + 1}:{col + 1}"
