"""What the script's own assignments make known, put into the argv the trace computes.

A shell layer's values (``quotecheck.values``) are analysed once, when a word first needs them
(``LazyValues``); ``known_args`` puts them into a command's argv, ``written_args`` gives back
the expansions as written where a later layer parses the text as code, and ``known_in`` says
where in a joined text the known values landed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from quotecheck.layers.model import Arg
from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import MAX_VALUE_CHARS
from quotecheck.parsing.scanner import Problem
from quotecheck.parsing.tree import Script
from quotecheck.parsing.words import Part, Word

if TYPE_CHECKING:
    from quotecheck.values import Field, Resolver, Values


class LazyValues:
    """A shell layer's :func:`analyse_values`, run the first time a word asks."""

    __slots__ = ("_failed", "_settable", "_values", "script", "source", "sources")

    def __init__(self, script: Script, source: str | None,
                 sources: Resolver | None = None) -> None:
        self.script = script
        self.source = source
        self.sources = sources  # the files `source` reads (--external-sources), else None
        self._values: Values | None = None
        self._failed = False
        self._settable: tuple[frozenset[str] | None] | None = None  # (names,) once read

    def may_know(self, word: Word) -> bool:
        """Whether ``word`` reads a variable the script may set (the names its text may assign,
        ``settable_names``): a word that reads none has no value the analysis could know, and
        asks nothing of it."""
        if self._settable is None:
            from quotecheck.values.flow import settable_names

            # The files it sources may set any name.
            self._settable = (settable_names(self.script.text) if self.sources is None
                              else None,)
        names = self._settable[0]
        if names is None:
            return True
        return any(p.name in names for p in word.parts if p.name is not None)

    def get(self) -> Values | None:
        """The values, or None if the analysis failed on this script (then nothing is known:
        the trace goes on as if the script set nothing)."""
        if self._values is None and not self._failed:
            # Imported here: a script with nothing to look up pays nothing for the module.
            from quotecheck.values import analyse_values
            try:
                self._values = analyse_values(self.script, self.source, self.sources)
            except (ValueError, IndexError, KeyError, RecursionError, AttributeError,
                    TypeError, AssertionError):
                self._failed = True
        return self._values


def known_args(words: Sequence[Word], args: list[Arg], script: Script, values: Values | None,
               inherited: bytearray | None, split: bool = True,
               may_know: Callable[[Word], bool] | None = None) -> list[Arg]:
    """``args`` with what the script's own assignments make known put in.

    A word every part of which is known becomes the fields it expands to (`$SSH` set to `ssh
    -o BatchMode=yes` is three words); in a word only partly known, each quoted `$APP` whose
    value is known becomes that value, the rest stays as written. A character an outer layer
    fills in (``inherited``) keeps its word unknown: the variable read there is not this
    layer's. A substituted character is placed where its value is read (the `$SSH` of the
    command), so that findings about it are said at the command."""
    if values is None or len(words) != len(args):
        return args
    out: list[Arg] = []
    # The characters of known values put into this command so far: each value is within
    # MAX_VALUE_CHARS, but a command reading it 2,000 times would build 2,000 of them (and
    # the text ssh joins from them). Past the budget the rest stay as written, run-time values.
    room = [MAX_VALUE_CHARS]
    for word, arg in zip(words, args, strict=True):
        if not word.dynamic or (inherited is not None and _touches(word, inherited)) or \
                (may_know is not None and not may_know(word)) or room[0] < 0:
            out.append(arg)
            continue
        try:
            fields = values.expand(word) if split else None
        except (ValueError, IndexError, KeyError, RecursionError):
            fields = None
        if fields is not None:
            size = sum(len(f.text) for f in fields)
            if size <= room[0]:
                room[0] -= size
                out.extend(_known_fields(word, arg, fields, script))
                continue
            room[0] = -1
        out.append(_known_parts(word, arg, script, values, room))
    if room[0] < 0:
        _note_budget(script, words)
    return out


def _note_budget(script: Script, words: Sequence[Word]) -> None:
    """QC002 on the command whose known values were left out past the budget (once)."""
    start, end = words[0].span[0], words[-1].span[1]
    message = (f"the known values this command reads would be longer than "
               f"{MAX_VALUE_CHARS // 1024} KiB together: the rest are taken as known only at "
               "run time (the value-size budget)")
    if not any(p.start == start and p.message == message for p in script.problems):
        script.problems.append(Problem("QC002", start, end, message))


def _known_fields(word: Word, arg: Arg, fields: Sequence[Field], script: Script) -> list[Arg]:
    """The args of a word every part of which is known: its ``fields``, each character of a
    variable's value placed at the expansion that reads it (`$APP` of `"pkill -f $APP"`)."""
    origin = script.origin
    a, b = word.span
    expansions = [p for p in word.parts if p.kind != "literal"]
    out: list[Arg] = []
    last = -1  # the word's last own character so far: the value after it is the next read
    for f in fields:
        offs: list[int | None] = []
        # Runs of characters that come from outside the word: a variable's value, each with
        # the expansion that reads it.
        known: list[tuple[int, int, str]] = []
        reads: list[Part | None] = []
        for i, o in enumerate(f.offsets):
            if o is not None and a <= o < b:
                offs.append(origin[o])
                last = o
                continue
            read = next((p for p in expansions if p.span[1] > last), None)
            name = read.value if read is not None else word.raw
            offs.append(origin[a])
            if known and known[-1][1] == i and reads[-1] is read:
                known[-1] = (known[-1][0], i + 1, name)
            else:
                known.append((i, i + 1, name))
                reads.append(read)
        for (s, e, _), read in zip(known, reads, strict=True):
            if read is not None:
                offs[s:e] = [origin[o] for o in _at_read(read.span, e - s)]
        out.append(Arg(f.text, False, word, arg.source_span, offs, known=tuple(known)))
    # Only a value with a blank or metacharacter reads differently as code: a later layer is
    # given that word as written. The word's own text (`"pkill -f $APP; sleep 3"`) is code
    # the local shell passes on exactly, whatever it holds.
    if any(not _PLAIN.fullmatch(x.value[s:e]) for x in out for s, e, _ in x.known):
        out = [Arg(x.value, x.dynamic, x.word, x.source_span, x.offsets, x.dynamic_ranges,
                   x.known, arg) for x in out]
    return out


def _at_read(span: tuple[int, int], length: int) -> list[int]:
    """Where each of the ``length`` characters of a value read by the expansion at ``span``
    is said to be: spread over the expansion, so that a finding about the whole value marks
    the whole `$APP` (a value shorter than the expansion: its start, and its last character
    at the expansion's end)."""
    start, n = span[0], max(span[1] - span[0], 1)
    return [start + (n - 1 if j == length - 1 and length > 1 else min(j, n - 1))
            for j in range(length)]


def _touches(word: Word, inherited: bytearray) -> bool:
    a, b = word.span
    return any(inherited[max(a, 0):max(min(b, len(inherited)), 0)])


def _known_parts(word: Word, arg: Arg, script: Script, values: Values,
                 room: list[int]) -> Arg:
    """``arg`` with each quoted parameter part whose value is known put in, while the
    characters put in fit in ``room[0]`` (taken from it; it goes below 0 once one did not)."""
    origin = script.origin
    text: list[str] = []
    offsets: list[int | None] = []
    ranges: list[tuple[int, int]] = []
    known: list[tuple[int, int, str]] = []
    at = 0
    k = 0
    changed = False
    arg_offsets = list(arg.offsets)
    for part in word.parts:
        n = len(part.value)
        field = None
        if part.kind == "parameter" and part.quoting in ("double", "heredoc"):
            try:
                got = values.expand(Word(part.span, part.value, (part,)), part.span[0])
            except (ValueError, IndexError, KeyError, RecursionError):
                got = None
            if got is not None and len(got) == 1:
                field = got[0]
                if len(field.text) > room[0]:
                    room[0] = -1
                    field = None
                else:
                    room[0] -= len(field.text)
        if field is not None:
            changed = True
            text.append(field.text)
            # Said where the value is read, not where it was set: a finding about it belongs
            # to the command that uses it.
            offsets.extend(origin[o] for o in _at_read(part.span, len(field.text)))
            known.append((at, at + len(field.text), part.value))
            at += len(field.text)
        else:
            text.append(part.value)
            offsets.extend(arg_offsets[k:k + n])
            if part.dynamic:
                ranges.append((at, at + n))
            at += n
        k += n
    if not changed:
        return arg
    value = "".join(text)
    unsafe = any(not _PLAIN.fullmatch(value[s:e]) for s, e, _ in known)
    return Arg(value, bool(ranges), word, arg.source_span, offsets, tuple(ranges),
               tuple(known), arg if unsafe else None)


# A value that reads the same as code and as data: no blank, quote or shell metacharacter.
_PLAIN = lazy_compile(r"[A-Za-z0-9_./:,+%@=-]*")


def written_args(args: Sequence[Arg]) -> list[Arg]:
    """``args`` as the text a later layer parses as code: where a known value with a blank
    or metacharacter was put in, the expansion as written (the fields one word split into
    become that word again)."""
    if not any(a.written is not None for a in args):
        return list(args)
    out: list[Arg] = []
    for a in args:
        w = a.written
        if w is None:
            out.append(a)
        elif not out or out[-1] is not w:
            out.append(w)
    return out


def known_in(args: Sequence[Arg]) -> list[tuple[int, int, str]]:
    """The known-value ranges of ``args`` (see ``Arg.known``) in their text joined by ssh."""
    out: list[tuple[int, int, str]] = []
    at = 0
    for i, a in enumerate(args):
        if i:
            at += 1
        out.extend((at + s, at + e, n) for s, e, n in a.known)
        at += len(a.value)
    return out
