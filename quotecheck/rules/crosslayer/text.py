"""Text helpers of the cross-layer rules: where a layer's text came from in the input, the
line around an expansion, and the small pieces messages are made of."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence

from quotecheck.layers.model import Layer
from quotecheck.programs import basename
from quotecheck.rules._text import one_line_escaped

__all__ = ["basename"]


def article(word: str) -> str:
    return ("an " if word[:1] in "aeio" else "a ") + word


def single_quote(text: str) -> str:
    """``text`` as one word for a POSIX shell, single quotes preferred."""
    if "'" not in text:
        return f"'{text}'"
    return shlex.quote(text)


def source_offsets(smap_runs: Iterable[tuple[int, int | None, int]]) -> set[int]:
    out: set[int] = set()
    for _start, target, n in smap_runs:
        if target is not None:
            out.update(range(target, target + n))
    return out


def text_index(layer: Layer, source: int) -> int | None:
    """Index in ``layer.text`` of the character that came from ``source``."""
    return None if layer.origin is None else layer.origin.index_of(source)


def line_around(layer: Layer, sources: Sequence[int]) -> str:
    """The line of ``layer.text`` holding the first of ``sources``, shortened."""
    text = layer.text or ""
    for s in sources:
        i = text_index(layer, s)
        if i is None:
            continue
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        line = text[start: end if end >= 0 else len(text)].strip()
        if len(line) > 70:
            lo = max(0, i - start - 30)
            line = ("…" if lo else "") + line[lo: lo + 68] + "…"
        return line
    return one_line_escaped(text)
