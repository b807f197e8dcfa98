"""Offsets to line/column positions, in the units editors and file formats ask for.

Offsets everywhere in quotecheck are indices into the decoded input string (code points). LSP
counts columns in UTF-16 code units by default, SARIF and the text output count code points, and
some clients negotiate UTF-8: ``LineIndex`` converts for all three.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]


class LineIndex:
    """Line starts of a text, for offset -> (line, column) conversion (both 0-based)."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.starts = starts

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, max(0, min(offset, len(self.text)))) - 1

    def position(self, offset: int, encoding: Encoding = "utf-32") -> tuple[int, int]:
        """0-based (line, column) of ``offset``, the column counted in ``encoding`` units."""
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        start = self.starts[line]
        if encoding == "utf-32":
            return line, offset - start
        segment = self.text[start:offset]
        if encoding == "utf-16":
            return line, len(segment.encode("utf-16-le", "surrogatepass")) // 2
        return line, len(segment.encode("utf-8", "surrogatepass"))

    def line_text(self, line: int) -> str:
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def offset(self, line: int, column: int) -> int:
        """Inverse of ``position`` for code-point columns."""
        return min(self.starts[min(line, len(self.starts) - 1)] + column, len(self.text))
