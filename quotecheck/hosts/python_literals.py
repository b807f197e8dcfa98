"""Python string literals read character by character, each value character with its offset.

``ast`` gives a string's value but, on Python 3.11, not where an f-string's parts are, nor
which source character each value character came from (escapes, implicit concatenation). This
reads the literal's source again: prefixes, the four quote forms, backslash escapes, `{{`/`}}`
and replacement fields of f-strings (kept as dynamic stand-ins).
"""

from __future__ import annotations

import unicodedata

from quotecheck.hosts.model import HostText, stand_in

_SIMPLE = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n",
           "r": "\r", "t": "\t", "v": "\v"}
_HEX = "0123456789abcdefABCDEF"


class _Out:
    def __init__(self) -> None:
        self.chars: list[str] = []
        self.offsets: list[int | None] = []
        self.ranges: list[tuple[int, int]] = []

    def add(self, text: str, offset: int | None) -> None:
        for ch in text:
            self.chars.append(ch)
            self.offsets.append(offset)

    def field(self, source: str, start: int, end: int) -> None:
        at = len(self.chars)
        text, offsets = stand_in(source[start:end], start)
        self.chars.extend(text)
        self.offsets.extend(offsets)
        self.ranges.append((at, len(self.chars)))

    def text(self) -> HostText:
        return HostText("".join(self.chars), self.offsets, tuple(self.ranges))


def read_literals(source: str, start: int, end: int) -> HostText | None:
    """The value of the adjacent string literals in ``source[start:end]`` (one or several,
    implicitly joined), or None for what this does not read (bytes, a syntax it does not know)."""
    out = _Out()
    i = start
    found = False
    while i < end:
        ch = source[i]
        if ch in " \t\r\n\f\\":  # blanks, and line joins between parts
            i += 1
            continue
        if ch == "#":
            nl = source.find("\n", i, end)
            i = end if nl < 0 else nl
            continue
        if ch in "()":  # a parenthesised literal
            i += 1
            continue
        j = i
        while j < end and source[j].isalpha():
            j += 1
        prefix = source[i:j].lower()
        if j >= end or source[j] not in "'\"" or any(c not in "rfu" for c in prefix):
            return None
        i = _one(source, j, end, "r" in prefix, "f" in prefix, out)
        if i < 0:
            return None
        found = True
    return out.text() if found else None


def _one(source: str, q: int, end: int, raw: bool, fmt: bool, out: _Out) -> int:
    """Read the literal whose opening quote is at ``q``; the offset after it, or -1."""
    quote = source[q] * 3 if source.startswith(source[q] * 3, q) else source[q]
    i = q + len(quote)
    while i < end:
        if source.startswith(quote, i):
            return i + len(quote)
        ch = source[i]
        if ch == "\\":
            if i + 1 >= end:
                return -1
            nxt = source[i + 1]
            if raw:
                out.add(ch, i)
                out.add(nxt, i + 1)
                i += 2
                continue
            i = _escape(source, i, end, out)
            if i < 0:
                return -1
            continue
        if fmt and ch in "{}":
            if source.startswith(ch * 2, i):
                out.add(ch, i)
                i += 2
                continue
            if ch == "}":
                return -1
            close = _field_end(source, i, end)
            if close < 0:
                return -1
            out.field(source, i, close)
            i = close
            continue
        out.add(ch, i)
        i += 1
    return -1


def _escape(source: str, i: int, end: int, out: _Out) -> int:
    nxt = source[i + 1]
    if nxt == "\n":
        return i + 2
    if nxt in _SIMPLE:
        out.add(_SIMPLE[nxt], i)
        return i + 2
    if nxt in "01234567":
        j = i + 1
        while j < min(i + 4, end) and source[j] in "01234567":
            j += 1
        out.add(chr(int(source[i + 1:j], 8)), i)
        return j
    width = {"x": 2, "u": 4, "U": 8}.get(nxt)
    if width is not None:
        digits = source[i + 2:i + 2 + width]
        if len(digits) != width or any(c not in _HEX for c in digits):
            return -1
        out.add(chr(int(digits, 16)), i)
        return i + 2 + width
    if nxt == "N" and source.startswith("{", i + 2):
        close = source.find("}", i + 3, end)
        if close < 0:
            return -1
        try:
            out.add(unicodedata.lookup(source[i + 3:close]), i)
        except KeyError:
            return -1
        return close + 1
    out.add("\\" + nxt, i)  # an unknown escape keeps its backslash
    return i + 2


def _field_end(source: str, i: int, end: int) -> int:
    """The offset after the `}` closing the replacement field that opens at ``i``."""
    depth = 0
    j = i
    while j < end:
        ch = source[j]
        if ch in "'\"":
            close = source.find(ch, j + 1, end)
            if close < 0:
                return -1
            j = close + 1
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth == 0:
                return j + 1 if ch == "}" else -1
        j += 1
    return -1
