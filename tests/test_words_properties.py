"""Property tests of the lexical layer against real shells (see tests/strategies.py).

1. Quote removal equals bash (and dash): every static word segments to exactly the one word the
   shell produces; a word called dynamic really holds a piece that may expand, and a glob, brace
   or plain tilde the segmenter reports really does expand. The parser (the scanner's mask plus
   the grammar) finds each of those words whole, and scripts of them that the shell accepts
   parse without an error, command by command.
2. Source maps round-trip: every value character points at the source character that produced
   it (ANSI-C escapes point at their backslash, as words.py documents); ``SourceMap`` encodes,
   composes and spans like the per-character lists it stands for; and through the trace (ssh,
   ``sh -c``, ``bash -c``), every character of an inner layer maps back to the same source
   character.
3. The scanner never raises and never hangs on arbitrary shell-ish text, including very deep
   nesting, and what it records lies within the text.

The default profile runs in well under a minute; ``HYPOTHESIS_PROFILE=nightly`` runs 5000
examples per property.
"""

from __future__ import annotations

import itertools
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from harness.shells import ShellWordsError, run_shell
from hypothesis import event, example, given
from hypothesis import strategies as st
from strategies import (
    PREFIX,
    SEPARATOR,
    GenWord,
    examples,
    shell_scripts,
    shell_text,
    shell_word_lists,
    word_lines,
)

from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import Dialect, Scan, scan
from quotecheck.parsing.tree import SimpleCommand, walk
from quotecheck.parsing.words import EXPANSION_KINDS, Word, segment
from quotecheck.sourcemap import SourceMap, compact_offsets
from quotecheck.trace import build_trace

# -- helpers -----------------------------------------------------------------------------------


def segment_line(words: list[GenWord], dialect: str) -> tuple[Scan, list[Word]]:
    """Scan the words in the context the shell sees them in, and segment each one."""
    line = PREFIX + f" {SEPARATOR} ".join(w.source for w in words)
    d: Dialect = "sh" if dialect == "sh" else "bash"
    sc = scan(line, d)
    out: list[Word] = []
    at = len(PREFIX)
    for w in words:
        out.append(segment(sc, at, at + len(w.source), d))
        at += len(w.source) + len(SEPARATOR) + 2
    return sc, out


# Dynamic parts whose expansion always shows in the sandbox, so the shell must not print the
# word's value unchanged: nullglob removes an unmatched pattern (bash), braces make several
# words, and `~` is $HOME (/nonexistent).
def _must_show(word: Word, dialect: str) -> bool:
    kinds = {"glob", "brace", "tilde"} if dialect == "bash" else {"tilde"}
    dyn = [p for p in word.parts if p.dynamic]
    return bool(dyn) and all(
        p.kind in kinds and (p.kind != "tilde" or p.value in ("~", "~+")) for p in dyn
    )


def _outputs(shell: str, words: list[GenWord], segs: list[Word]) -> list[list[str] | None]:
    """What the shell makes of each word; None for a dynamic word whose expansion failed."""
    try:
        return list(shell_word_lists(shell, [w.source for w in words]))
    except ShellWordsError:
        pass
    # One word failed: find it. Only an expansion may fail (`{$,}{}` expands to `${}`, a bad
    # substitution; `{$,}[/]` to `$[/]`, an arithmetic error: "syntax error: operand expected
    # (error token is ...)"), and only at run time, not as a syntax error the lexer should
    # have seen.
    out: list[list[str] | None] = []
    for w, seg in zip(words, segs, strict=True):
        try:
            out.append(shell_word_lists(shell, [w.source])[0])
        except ShellWordsError as exc:
            message = str(exc)
            parse_error = ("syntax error" in message and "error token is" not in message) \
                or "unexpected EOF" in message
            if not seg.dynamic or parse_error:
                raise
            out.append(None)
    return out


def check_against_shell(words: list[GenWord], dialect: str) -> None:
    sc, segs = segment_line(words, dialect)
    shell = "dash" if dialect == "sh" else "bash"
    outputs = _outputs(shell, words, segs)
    assert not [p for p in sc.problems if p.code == "QC001"], (sc.problems, words)
    for w, seg, out in zip(words, segs, outputs, strict=True):
        check_offsets(sc.text, seg)
        if out is None:
            assert w.may_expand, (w.source, seg.parts)
            continue
        if not seg.dynamic:
            assert out == [seg.value], (w.source, seg.parts)
            continue
        # `dynamic` must not be a way out: the word really holds a piece that may expand.
        assert w.may_expand, (w.source, seg.parts)
        if _must_show(seg, dialect):
            assert out != [seg.value], (w.source, seg.parts)


# -- 1. quote removal equals the shell ---------------------------------------------------------


@given(word_lines("bash"))
# `$`, a line continuation, then a quote: bash reads `$'...'`, so `{` inside is not a brace.
@example([GenWord(source="~$\\\n'\\x{}',}", may_expand=True)])
def test_quote_removal_matches_bash(words: list[GenWord]) -> None:
    check_against_shell(words, "bash")


@given(word_lines("sh"))
def test_quote_removal_matches_dash(words: list[GenWord]) -> None:
    check_against_shell(words, "sh")


def _trim(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """``span`` without line continuations at either end (they belong to no word)."""
    a, b = span
    while text.startswith("\\\n", a) and a < b:
        a += 2
    while b - 2 >= a and text.endswith("\\\n", 0, b):
        b -= 2
    return (a, b)


def check_parse(words: list[GenWord], dialect: Dialect) -> None:
    """The parser (scanner mask + grammar) finds every word whole, with the same value."""
    line = PREFIX + f" {SEPARATOR} ".join(w.source for w in words)
    script = parse_script(line, dialect)
    assert not [p for p in script.problems if p.code == "QC001"], script.problems
    commands = [c for c, _ in walk(script) if isinstance(c, SimpleCommand)]
    assert commands, script
    got = [_trim(line, w.span) for w in commands[0].words[3::2]]
    _, segs = segment_line(words, dialect)
    assert got == [_trim(line, w.span) for w in segs], [w.source for w in words]
    assert [w.value for w in commands[0].words[3::2]] == [w.value for w in segs]


@examples(0.3)
@given(word_lines("bash"))
def test_parser_finds_each_word_whole(words: list[GenWord]) -> None:
    check_parse(words, "bash")


@examples(0.3)
@given(word_lines("sh"))
def test_parser_finds_each_word_whole_sh(words: list[GenWord]) -> None:
    check_parse(words, "sh")


@examples(0.25)
@pytest.mark.parametrize("dialect", ["bash", "sh"])
@given(data=st.data())
def test_valid_scripts_parse_whole(dialect: Dialect, data: st.DataObject) -> None:
    """Scripts of generated words that the shell accepts parse with no error, command by
    command."""
    script = data.draw(shell_scripts(dialect))
    shell = "dash" if dialect == "sh" else "bash"
    checked = run_shell(shell, "set -n\n" + script.source, env={}, timeout=20)
    assert checked.returncode == 0, (checked.stderr, script.source)  # the generator's promise
    parsed = parse_script(script.source, dialect)
    assert not [p for p in parsed.problems if p.code == "QC001"], (parsed.problems, script)
    top = [c for c, ctx in walk(parsed) if isinstance(c, SimpleCommand) and ctx.script is parsed]
    assert len(top) == script.commands, script


# -- 2. source maps ----------------------------------------------------------------------------


_ANSI_C_ESCAPES = frozenset("abeEfnrtv\\'\"?01234567xuUc")


def _from_escape(text: str, off: int, ch: str) -> bool:
    """``ch`` was decoded from the ANSI-C escape sequence at ``off``, as words.py documents it.

    The offset is the escape's backslash (every other escape points at the escaped character,
    so a backslash there starts an ANSI-C escape); when one escape gives several bytes that
    are not one UTF-8 character (`\\U110000`), each further byte points at the escape's next
    character.
    """
    if "\udc80" <= ch <= "\udcff":
        return True
    return text[off] == "\\" and text[off + 1:off + 2] in _ANSI_C_ESCAPES


def check_offsets(text: str, word: Word) -> None:
    start, end = word.span
    last = start - 1
    for part in word.parts:
        assert len(part.value) == len(part.offsets), part
        assert start <= part.span[0] <= part.span[1] <= end, (part, word.span)
        if part.kind in EXPANSION_KINDS:
            # Expansions are kept as written.
            assert part.value == text[part.span[0]:part.span[1]], part
            assert tuple(part.offsets) == tuple(range(*part.span)), part
        for ch, off in zip(part.value, part.offsets, strict=True):
            assert part.span[0] <= off < part.span[1], (part, off)
            assert off > last, ("offsets must increase", word.parts)
            last = off
            if text[off] == ch:
                continue
            # Only an ANSI-C escape (`\n`, `\x41`, `\u00e9`...) decodes to another character;
            # its offset is the escape's backslash (words.py, decode_ansi_c).
            assert part.quoting == "ansi_c" and _from_escape(text, off, ch), (ch, off, part)


# The shell comparisons check offsets too; these run without a shell, on fewer examples.
@examples(0.3)
@given(word_lines("bash"))
def test_word_offsets_point_at_their_characters(words: list[GenWord]) -> None:
    sc, segs = segment_line(words, "bash")
    for seg in segs:
        check_offsets(sc.text, seg)


@examples(0.3)
@given(word_lines("sh"))
def test_word_offsets_point_at_their_characters_sh(words: list[GenWord]) -> None:
    sc, segs = segment_line(words, "sh")
    for seg in segs:
        check_offsets(sc.text, seg)


_offset_lists = st.lists(
    st.one_of(
        st.none(),
        st.integers(0, 50),
        # Runs of consecutive offsets, the common case the encoding compresses.
        st.tuples(st.integers(0, 50), st.integers(1, 8)).map(lambda t: list(range(t[0],
                                                                             t[0] + t[1]))),
        st.integers(1, 5).map(lambda n: [None] * n),
    ),
    max_size=20,
).map(lambda xs: [y for x in xs for y in (x if isinstance(x, list) else [x])])


@given(_offset_lists)
def test_sourcemap_from_offsets_round_trips(xs: list[int | None]) -> None:
    m = SourceMap.from_offsets(xs)
    assert m.length == len(xs)
    assert [m[i] for i in range(len(xs))] == xs
    assert m[-1] is None and m[len(xs)] is None
    # Run-length encoding: adjacent runs never continue each other.
    runs = m.runs()
    for (s1, t1, n1), (s2, t2, _n2) in itertools.pairwise(runs):
        assert s1 + n1 <= s2
        if s1 + n1 == s2 and t1 is not None and t2 is not None:
            assert t1 + n1 != t2


@given(_offset_lists, st.lists(st.one_of(st.none(), st.integers(-2, 30)), max_size=30))
def test_sourcemap_compose_is_elementwise(xs: list[int | None], ys: list[int | None]) -> None:
    m = SourceMap.from_offsets(xs)
    composed = m.compose(ys)
    expected = [None if y is None or not 0 <= y < len(xs) else xs[y] for y in ys]
    assert [composed[i] for i in range(len(ys))] == expected


@given(_offset_lists, st.integers(0, 40), st.integers(0, 40))
def test_sourcemap_span(xs: list[int | None], a: int, b: int) -> None:
    m = SourceMap.from_offsets(xs)
    known = [x for x in xs[a:b] if x is not None]
    assert m.span(a, b) == ((min(known), max(known) + 1) if known else None)


@given(_offset_lists, st.integers(0, 40), st.integers(0, 40))
def test_sourcemap_map_span_and_offsets(xs: list[int | None], a: int, b: int) -> None:
    m = SourceMap.from_offsets(xs)
    span = (a, b)
    mapped = m.map_span(span)
    assert mapped == m.span(a, b)
    if mapped == span:
        assert mapped is span  # the caller's own tuple, not a copy
    wanted = range(a, b)
    found = m.map_offsets(wanted)
    assert list(found) == [m[o] for o in wanted]
    assert found == compact_offsets([m[o] for o in wanted])


@given(st.lists(st.one_of(st.none(), st.integers(-3, 50)), max_size=12))
def test_compact_offsets_keeps_the_sequence(xs: list[int | None]) -> None:
    compact = compact_offsets(xs)
    assert list(compact) == xs
    consecutive = bool(xs) and all(isinstance(x, int) for x in xs) and all(
        y == x + 1 for x, y in itertools.pairwise(xs))  # type: ignore[operator]
    assert isinstance(compact, range) == consecutive
    assert compact_offsets(compact) == compact


def _trace_words() -> st.SearchStrategy[list[GenWord]]:
    return word_lines("bash", max_words=3)


@st.composite
def _trace_commands(draw: st.DrawFn) -> str:
    words = [w.source for w in draw(_trace_words())]
    form = draw(st.sampled_from(["ssh", "sh -c", "bash -c", "ssh-sh"]))
    if form == "ssh":
        return "ssh h " + " ".join(words)
    if form == "ssh-sh":
        return "ssh h sh -c " + words[0]
    return f"{form} {words[0]}" + (" a0 a1" if draw(st.booleans()) else "")


@examples(0.5)
@given(_trace_commands())
def test_trace_layers_map_back_to_source(source: str) -> None:
    trace = build_trace(source)
    event(f"{len(trace.layers)} layers")
    for layer in trace.layers:
        if layer.text is None or layer.origin is None:
            continue
        assert layer.origin.length == len(layer.text)
        for i, ch in enumerate(layer.text):
            src = layer.origin[i]
            if src is None:
                continue  # generated, e.g. the spaces ssh joins words with
            assert 0 <= src < len(source)
            if source[src] == ch:
                continue
            # Decoded from an ANSI-C escape, in this layer's parent or any layer above it.
            assert _from_escape(source, src, ch), (
                layer.kind, i, ch, src, source
            )
        for view in layer.commands:
            for arg in view.argv:
                if arg.dynamic:
                    continue
                assert len(arg.offsets) == len(arg.value)
                for ch, src in zip(arg.value, arg.offsets, strict=True):
                    if src is None:
                        continue
                    assert source[src] == ch or _from_escape(source, src, ch), (arg, source)


# -- 3. the scanner never raises nor hangs -----------------------------------------------------


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: object) -> None:
        raise TimeoutError(f"scan took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("dialect", ["bash", "sh"])
@given(text=shell_text())
def test_scanner_total_and_bounded(dialect: Dialect, text: str) -> None:
    n = len(text)
    with time_limit(5):
        sc = scan(text, dialect)
        # The segmenter is total too, on any span the scan could be asked about.
        word = segment(sc, 0, n)
        sc.masked(0, n, 0)
    assert len(sc.mask) == n
    for k, end in sc.ends.items():
        assert 0 <= k < end <= n, (k, end)
    for script in sc.nested:
        assert 0 <= script.start <= script.inner[0] <= script.inner[1] <= script.end <= n
    for h in sc.heredocs:
        assert 0 <= h.operator[0] < h.operator[1] <= n
        assert 0 <= h.body[0] <= h.body[1] <= n
        assert 0 <= h.delimiter_span[0] <= h.delimiter_span[1] <= n
    for p in sc.problems:
        assert 0 <= p.start <= p.end <= n
    for a, b in sc.comments:
        assert 0 <= a <= b <= n
    assert len(word.value) == len(word.offsets)
    assert all(0 <= o < n for o in word.offsets)
    assert list(word.offsets) == sorted(set(word.offsets))


@given(st.text(alphabet="abcXYZ019_./:=,+%@-", min_size=1, max_size=12),
       st.sampled_from(["bash", "sh"]), st.booleans())
def test_plain_words_take_a_short_cut_to_the_same_word(word: str, dialect: str,
                                                       assignment: bool) -> None:
    import re as _re

    import quotecheck.parsing.words as words_module
    from quotecheck.parsing.scanner import scan as _scan
    from quotecheck.parsing.words import segment

    text = f"echo {word} end"
    sc = _scan(text, dialect)  # type: ignore[arg-type]
    start, end = 5, 5 + len(word)
    at = start if assignment else None
    quick = segment(sc, start, end, assignment_value_at=at)
    saved = words_module._PLAIN_WORD
    words_module._PLAIN_WORD = _re.compile(r"(?!)")  # never: the whole segmenter
    try:
        full = segment(sc, start, end, assignment_value_at=at)
    finally:
        words_module._PLAIN_WORD = saved
    assert quick == full
    assert [(p.kind, p.quoting, p.span, p.value, list(p.offsets)) for p in quick.parts] == \
        [(p.kind, p.quoting, p.span, p.value, list(p.offsets)) for p in full.parts]
