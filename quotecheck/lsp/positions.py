"""LSP positions (line, character in the negotiated unit) to offsets into the text, and back.

quotecheck's offsets count code points; the client counts UTF-16 code units unless it offered
UTF-8 or UTF-32 at initialize and the server chose it (``positionEncoding``).
"""

from __future__ import annotations

from typing import Any

from quotecheck.lsp.engine import Encoding, LineIndex

ENCODINGS: dict[str, Encoding] = {"utf-8": "utf-8", "utf-16": "utf-16", "utf-32": "utf-32"}


def encoding_of(name: str | None) -> Encoding:
    """The server's position encoding from its negotiated name (UTF-16 when none)."""
    return ENCODINGS.get(str(name or "utf-16").lower(), "utf-16")


def _units(ch: str, encoding: Encoding) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    return len(ch.encode("utf-8", "surrogatepass"))


def offset_at(index: LineIndex, line: int, character: int, encoding: Encoding) -> int:
    """The offset of an LSP position. A line past the end is the end of the text, a character
    past the end of its line is the line's end (LSP: the client may send either), and one in
    the middle of a character is that character's start."""
    if line < 0:
        return 0
    if line >= len(index.starts):
        return len(index.text)
    start = index.starts[line]
    end = index.starts[line + 1] - 1 if line + 1 < len(index.starts) else len(index.text)
    if encoding == "utf-32":
        return min(start + max(character, 0), end)
    used = 0
    offset = start
    while offset < end:
        width = _units(index.text[offset], encoding)
        if used + width > character:
            break
        used += width
        offset += 1
    return offset


def span_of(index: LineIndex, lsp_range: Any, encoding: Encoding) -> tuple[int, int]:
    """The offsets of an LSP range (an lsprotocol Range or its JSON dict)."""
    def point(p: Any) -> tuple[int, int]:
        if isinstance(p, dict):
            return int(p["line"]), int(p["character"])
        return int(p.line), int(p.character)

    start = offset_at(index, *point(lsp_range["start"] if isinstance(lsp_range, dict)
                                    else lsp_range.start), encoding)
    end = offset_at(index, *point(lsp_range["end"] if isinstance(lsp_range, dict)
                                  else lsp_range.end), encoding)
    return (start, end) if start <= end else (end, start)


def range_json(index: LineIndex, span: tuple[int, int], encoding: Encoding) -> dict[str, Any]:
    sl, sc = index.position(span[0], encoding)
    el, ec = index.position(span[1], encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def touches(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """The spans overlap, or one is empty and lies in or at an edge of the other (a cursor
    at the end of a word still asks about that word)."""
    return a[0] <= b[1] and b[0] <= a[1]
