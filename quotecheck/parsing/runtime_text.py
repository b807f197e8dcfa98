"""Parse errors of a text that holds values only known at run time.

The text an inner layer receives (`eval "$name=( ... )"`, `ssh host "cd $dir && ..."`) holds an
outer expansion where its value will be: the analysis keeps the expansion's spelling there as a
stand-in. Parsed literally, the stand-in makes errors the shell never sees (`$name=(` is a syntax
error, `X_OPTS=(` is an array assignment). So an error counts only when it stays with every
value put in as a plain word. A quote left open is an error with any plain value; so is a
grammar error before the first value that stands where the shell reads code (unquoted).

A grammar error after such a value is judged by the exact text alone: it counts when it stays
with nothing in the values' place as well (`case $1 in ${patterns[@]} esac` does not: it builds
its patterns from the value on purpose), for then no data the value holds avoids it, only a
value that is itself unbalanced shell code (`echo $(date` before a stray `)`). It is sure when
every such value before it stands where the shell reads data (an argument, an assignment's
value, a redirection's file), and likely when one stands where code goes (a command name, a
pattern). A construct left open at the end is not counted after a value: the value may hold its
closing word.
"""

from __future__ import annotations

from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import Problem, scan
from quotecheck.parsing.syntax_errors import is_grammar_error, reached_end
from quotecheck.parsing.tree import Script, SimpleCommand, iter_nodes
from quotecheck.programs import Dialect
from quotecheck.records import FrozenRecord

# The parse of the stand-in text is a second opinion: it gets little time.
_TIME_LIMIT = 1.0
_TOTAL_TIME_LIMIT = 2.0


def with_plain_values(text: str, ranges: list[tuple[int, int]], filler: str = "x") -> str:
    """``text`` with every run-time range replaced by a plain word of the same length (or,
    with a blank ``filler``, by nothing)."""
    chars = list(text)
    for a, b in ranges:
        for k in range(max(a, 0), min(b, len(chars))):
            chars[k] = filler
    return "".join(chars)


def _quoted_spans(text: str, dialect: Dialect) -> list[tuple[int, int]]:
    scanned = scan(text, dialect)
    return [(i, e) for i, e in scanned.ends.items()
            if text[i] in "'\"" or text.startswith(("$'", '$"'), i)]


class RunTimeError(FrozenRecord):
    """A QC001 of a run-time text, and the run-time values read as code before it that could
    make it valid only by being unbalanced shell code themselves (none: it is sure)."""

    problem: Problem
    code_values: tuple[tuple[int, int], ...] = ()


def certain_errors(text: str, dialect: Dialect, ranges: list[tuple[int, int]],
                   extglob: bool | None = None) -> list[Problem]:
    """The QC001 problems of ``text`` that no plain value of ``ranges`` (its run-time parts)
    avoids and that do not follow a value read as code (so are there whatever the values),
    located in ``text``; ``extglob``: on for the shell reading it (None: when the text turns it
    on)."""
    return [e.problem for e in run_time_errors(text, dialect, ranges, extglob)
            if not e.code_values]


def run_time_errors(text: str, dialect: Dialect, ranges: list[tuple[int, int]],
                    extglob: bool | None = None) -> list[RunTimeError]:
    """The QC001 problems of ``text`` that no data in the values of ``ranges`` avoids (see
    the module's docstring), each with the values read as code that could still avoid it."""
    ranges = [(a, b) for a, b in ranges if b > a]
    plain = with_plain_values(text, ranges)
    script = _parse(plain, dialect, extglob)
    errors = [p for p in script.problems if p.code == "QC001"]
    if not errors or not ranges:
        return [RunTimeError(p) for p in errors]
    quoted = _quoted_spans(plain, dialect)
    code_at = [(a, b) for a, b in ranges if not any(q < a < e for q, e in quoted)]
    if not code_at:
        return [RunTimeError(p) for p in errors]
    first = min(a for a, _ in code_at)
    out: list[RunTimeError] = []
    empty: set[int] | None = None  # where the text fails with nothing in the values' place
    data = _data_spans(script)
    for p in errors:
        if not is_grammar_error(p.message) or (p.start < first and not reached_end(p.message)):
            # A quote left open stays open whatever word the value is (only a value with a
            # stray quote in it could close it).
            out.append(RunTimeError(p))
            continue
        if reached_end(p.message):
            continue  # a construct left open: a value before the end may hold its closing word
        if empty is None:
            blank = _parse(with_plain_values(plain, code_at, " "), dialect, extglob)
            empty = {q.start for q in blank.problems if q.code == "QC001"}
        if p.start in empty:
            out.append(RunTimeError(p, tuple(
                (a, b) for a, b in code_at
                if a < p.start and not any(s <= a < e for s, e in data))))
    return out


def _parse(text: str, dialect: Dialect, extglob: bool | None) -> Script:
    return parse_script(text, dialect, time_limit=_TIME_LIMIT,
                        total_time_limit=_TOTAL_TIME_LIMIT, extglob=extglob)


def _data_spans(script: Script) -> list[tuple[int, int]]:
    """The spans of the words of ``script`` that the shell reads as data: an argument after
    the command name, an assignment's value, a redirection's file name."""
    out: list[tuple[int, int]] = []
    # (the `$( )` scripts cut from the same text: their offsets are the text's)
    bodies = [script.body, *(sub.body for sub in script.substitutions.values()
                             if sub.text is script.text)]
    for node in (n for body in bodies for n in iter_nodes(body)):
        if not isinstance(node, SimpleCommand):
            continue
        words = [*node.words[1:], *(a.value for a in node.assignments),
                 *(r.target for r in node.redirects if r.target is not None)]
        out.extend(w.span for w in words)
    return out
