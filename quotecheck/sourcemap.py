"""Source maps: where each character of a layer's text came from in the original input.

An inner layer's text is assembled from an outer layer's words (ssh joins them, ``sh -c`` takes
one), so its characters are scattered over the source, and some (the spaces ssh inserts) come
from nowhere. A map is stored as runs of consecutive offsets, which keeps the common case (a
quoted script copied as a whole) at one run however long the text is.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from itertools import pairwise
from operator import eq
from typing import overload


@overload
def compact_offsets(offsets: Sequence[int]) -> Sequence[int]: ...
@overload
def compact_offsets(offsets: Sequence[int | None]) -> Sequence[int | None]: ...


def compact_offsets(offsets: Sequence[int | None]) -> Sequence[int | None]:
    """``offsets`` as a ``range`` when they are consecutive (most are), else as a tuple.

    Every character of every word carries its offset; as tuples of ints these were a third of
    the memory a long script took. Compare offsets as sequences (``list(a) == list(b)``): a
    range is never ``==`` to a tuple."""
    n = len(offsets)
    if n == 0:
        return ()
    first = offsets[0]
    if first is None:
        return tuple(offsets)
    if isinstance(offsets, range) and offsets.step == 1:
        return offsets
    run = range(first, first + n)
    if offsets[-1] == run[-1] and all(map(eq, offsets, run)):
        return run
    return tuple(offsets)


class SourceMap:
    """Maps an index in a derived text to an offset in the source, or None (generated)."""

    __slots__ = ("_by_target", "_lengths", "_starts", "_targets", "length")

    def __init__(self, runs: Iterable[tuple[int, int | None, int]], length: int) -> None:
        # Each run: (start index in the text, source offset of that index or None, run length).
        self._starts: list[int] = []
        self._targets: list[int | None] = []
        self._lengths: list[int] = []
        for start, target, n in runs:
            if n > 0:
                self._starts.append(start)
                self._targets.append(target)
                self._lengths.append(n)
        self.length = length
        # For index_of, built on first use: the mapped runs as (source offset, text index,
        # length) sorted by source offset, or where two share a source offset, the first
        # index of each source offset.
        self._by_target: list[tuple[int, int, int]] | dict[int, int] | None = None

    @classmethod
    def identity(cls, length: int, base: int = 0) -> SourceMap:
        return cls([(0, base, length)], length)

    @classmethod
    def from_offsets(cls, offsets: Sequence[int | None]) -> SourceMap:
        """Run-length encode a per-character list of source offsets."""
        runs: list[tuple[int, int | None, int]] = []
        i, n = 0, len(offsets)
        while i < n:
            first = offsets[i]
            j = i + 1
            if first is None:
                while j < n and offsets[j] is None:
                    j += 1
            else:
                while j < n and offsets[j] == first + (j - i):
                    j += 1
            runs.append((i, first, j - i))
            i = j
        return cls(runs, n)

    def __getitem__(self, index: int) -> int | None:
        if index < 0 or index >= self.length:
            return None
        k = bisect_right(self._starts, index) - 1
        if k < 0:
            return None
        start, target, n = self._starts[k], self._targets[k], self._lengths[k]
        if index >= start + n or target is None:
            return None
        return target + (index - start)

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """The smallest source span covering the mapped characters of ``[start, end)``."""
        if len(self._starts) == 1:  # most maps: the input's own text, or one quoted string
            s, t, n = self._starts[0], self._targets[0], self._lengths[0]
            a, b = max(s, start), min(s + n, end)
            return None if a >= b or t is None else (t + (a - s), t + (b - s))
        lo: int | None = None
        hi: int | None = None
        # Only the runs overlapping [start, end) (runs are sorted by start and do not overlap):
        # scanning every run made each lookup linear in the number of runs, and the text ssh
        # builds has a run per word, so `ssh h ssh h ... ` (n words) took O(n^2) per layer.
        first = max(bisect_right(self._starts, start) - 1, 0)
        last = bisect_left(self._starts, end)
        for k in range(first, last):
            s, t, n = self._starts[k], self._targets[k], self._lengths[k]
            a, b = max(s, start), min(s + n, end)
            if a >= b or t is None:
                continue
            first, last = t + (a - s), t + (b - s)
            lo = first if lo is None else min(lo, first)
            hi = last if hi is None else max(hi, last)
        if lo is None or hi is None:
            return None
        return (lo, hi)

    def map_span(self, span: tuple[int, int]) -> tuple[int, int] | None:
        """``span(*span)``, as the very tuple given when the map leaves it where it is (the
        input's own text): a trace holds a span per word and command, and copies add up."""
        mapped = self.span(*span)
        return span if mapped == span else mapped

    def map_offsets(self, offsets: Sequence[int]) -> Sequence[int | None]:
        """The source offsets of the text offsets ``offsets`` (compacted)."""
        if isinstance(offsets, range) and len(offsets) and offsets.step == 1:
            k = bisect_right(self._starts, offsets[0]) - 1
            if k >= 0:
                start, target, n = self._starts[k], self._targets[k], self._lengths[k]
                if target is not None and offsets[-1] < start + n:
                    shift = target - start  # one run holds them all: shift the range
                    if shift == 0:
                        return offsets
                    return range(offsets.start + shift, offsets.stop + shift)
        return compact_offsets([self[o] for o in offsets])

    def compose(self, offsets: Sequence[int | None]) -> SourceMap:
        """A map for a text whose characters come from ``offsets`` in *this* map's text."""
        return SourceMap.from_offsets([None if o is None else self[o] for o in offsets])

    def index_of(self, source: int) -> int | None:
        """The first index in the text whose character came from ``source``, or None.

        A bisection over the runs sorted by source offset (a rule asks once per finding, and
        scanning every run made a line of n words O(n^2)); where runs share source offsets (a
        known value, each character placed at the `$NAME` that reads it), a table of each
        source offset's first index, built once."""
        if self._by_target is None:
            ordered = sorted((t, s, n) for s, t, n in self.runs() if t is not None)
            if any(a[0] + a[2] > b[0] for a, b in pairwise(ordered)):
                first: dict[int, int] = {}
                for start, target, n in self.runs():
                    if target is not None:
                        for j in range(n):
                            first.setdefault(target + j, start + j)
                self._by_target = first
            else:
                self._by_target = ordered
        if isinstance(self._by_target, dict):
            return self._by_target.get(source)
        ordered = self._by_target
        k = bisect_right(ordered, (source, self.length + 1)) - 1
        if k < 0:
            return None
        target, start, n = ordered[k]
        return start + (source - target) if source < target + n else None

    def runs(self) -> list[tuple[int, int | None, int]]:
        return list(zip(self._starts, self._targets, self._lengths, strict=True))
