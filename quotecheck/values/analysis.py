"""The answers: what a variable holds where it is read, and what a word expands to."""

from __future__ import annotations

from bisect import bisect_right

from quotecheck.parsing.scanner import Problem
from quotecheck.parsing.tree import Script
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import NUMBER_SPECIALS, NUMBER_VARIABLES
from quotecheck.values.expand import Field, Val, part_value, word_fields
from quotecheck.values.flow import (
    Resolver,
    Snapshot,
    State,
    Walker,
    environment,
    find_snapshot,
)
from quotecheck.values.knowledge import Kind, Knowledge, budget_note
from quotecheck.values.shapes import command_output_kind


class Values:
    """What is known about the variables of one script, by offset in ``script.text``."""

    __slots__ = ("_quoting", "_snaps", "_starts", "ifs_default", "script")

    def __init__(self, script: Script, snaps: list[Snapshot], ifs_default: bool,
                 quoting: frozenset[str]) -> None:
        self.script = script
        self._snaps = snaps
        self._starts = [s[0] for s in snaps]
        self.ifs_default = ifs_default
        self._quoting = quoting

    def _state(self, offset: int) -> State:
        found = find_snapshot(self._snaps, self._starts, offset)
        return found if found is not None else {}

    def at(self, name: str, offset: int) -> Knowledge:
        """What `$name` gives when read at ``offset`` (an offset in the script's text)."""
        k = self._state(offset).get(name)
        if k is not None:
            return k
        if name in NUMBER_VARIABLES or name in NUMBER_SPECIALS:
            return Knowledge(name, "number")
        return environment(name)

    def array_at(self, name: str, offset: int) -> tuple[tuple[str, ...], ...] | None:
        """The possible element lists of `${name[@]}` at ``offset``, or None if not known."""
        return self.at(name, offset).arrays

    def value_of(self, part_offset: int, word: Word) -> Val | None:
        """The value of the part of ``word`` starting at ``part_offset``."""
        state = self._state(part_offset)
        for part in word.parts:
            if part.span[0] == part_offset:
                return part_value(part, lambda n: state.get(n) or environment(n),
                                  self._quoting_part)
        return None

    def expand_all(self, word: Word, offset: int | None = None) -> list[list[Field]] | None:
        """Every possible list of fields ``word`` expands to (quote removal, word splitting),
        when every part is known; None when a part is known only at run time or globs."""
        state = self._state(word.span[0] if offset is None else offset)

        def lookup(n: str) -> Knowledge:
            k = state.get(n)
            return k if k is not None else environment(n)

        vals = [part_value(p, lookup, self._quoting_part) for p in word.parts]
        return word_fields(word.parts, vals, self.ifs_default)

    def expand(self, word: Word, offset: int | None = None) -> list[Field] | None:
        """The fields ``word`` expands to when that is known (one possible value only)."""
        found = self.expand_all(word, offset)
        if found is None or len(found) != 1:
            return None
        return found[0]

    def output_kind(self, part: Part) -> Kind:
        """What the output of a `$( )` part of this script can hold: `quoted`, `number`,
        `word` (one plain word: `$(hostname)`, `$(date +%Y%m%d)`), else `unknown`."""
        return command_output_kind(self.script, part, self._quoting)

    def _quoting_part(self, part: Part) -> Kind:
        return command_output_kind(self.script, part, self._quoting)


def analyse_values(script: Script, source: str | None = None,
                   sources: Resolver | None = None) -> Values:
    """Walk ``script`` once. ``source`` is the text its origin map points into (for the lines
    a value was set on); without it, lines are counted in ``script.text``. ``sources``: the
    files the script sources that can be read (--external-sources); their assignments are
    known where the script sources them. Without it a `source` may change any variable."""
    text = script.text
    origin = script.origin
    if source is not None and source is not text and source != text:
        base = source
        newlines = [i for i, c in enumerate(base) if c == "\n"] if len(base) < 4096 else \
            _newlines(base)

        def line_of(at: int) -> int:
            mapped = origin[at] if 0 <= at < len(text) else None
            return bisect_right(newlines, mapped if mapped is not None else at) + 1
    else:
        newlines = _newlines(text)

        def line_of(at: int) -> int:
            return bisect_right(newlines, at) + 1

    walker = Walker(script, line_of, sources)
    snaps = walker.run()
    note_over_budget(script, walker.over_budget)
    return Values(script, snaps, walker.ifs_default, frozenset(walker.quoting))


def note_over_budget(script: Script, places: dict[int, str]) -> None:
    """A QC002 problem on ``script`` for each value left unknown past MAX_VALUE_CHARS (at the
    assignment that would have built it), once however often the script is analysed."""
    have = {(p.start, p.message) for p in script.problems}
    for at, name in sorted(places.items()):
        end = min(at + len(name) + 1, len(script.text))
        problem = Problem("QC002", at, max(end, at), budget_note(name))
        if (problem.start, problem.message) not in have:
            script.problems.append(problem)


def _newlines(text: str) -> list[int]:
    out: list[int] = []
    at = text.find("\n")
    while at >= 0:
        out.append(at)
        at = text.find("\n", at + 1)
    return out
