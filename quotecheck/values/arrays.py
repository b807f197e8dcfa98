"""The elements of an array value as written: `(a "b c" $x)` cut into words."""

from __future__ import annotations

from quotecheck.parsing.scanner import scan
from quotecheck.parsing.words import Part, Word, segment
from quotecheck.programs import Dialect


def array_words(raw: str, base: int, dialect: Dialect) -> list[Word] | None:
    """The words between the parentheses of ``raw`` (which starts at ``base``), or None when
    it is not an array value. Comments are skipped; `[i]=v` elements are kept as written."""
    if len(raw) < 2 or raw[0] != "(" or raw[-1] != ")":
        return None
    body = raw[1:-1]
    sc = scan(body, dialect)
    text, ends = sc.text, sc.ends
    words: list[Word] = []
    i, n = 0, len(body)
    while i < n:
        c = text[i]
        if c in " \t\n":
            i += 1
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        begin = i
        while i < n and text[i] not in " \t\n":
            if i in ends and ends[i] > i:
                i = ends[i]
            elif text[i] == "\\":
                i += 2
            else:
                i += 1
        words.append(_shifted(segment(sc, begin, min(i, n)), base + 1))
    return words


def _shifted(word: Word, by: int) -> Word:
    parts = tuple(Part(p.kind, p.quoting, (p.span[0] + by, p.span[1] + by), p.value,
                       [o + by for o in p.offsets], p.name) for p in word.parts)
    return Word((word.span[0] + by, word.span[1] + by), word.raw, parts)
