"""Parse errors of a text that holds values only known at run time.

The text an inner layer receives (`eval "$name=( ... )"`, `ssh host "cd $dir && ..."`) holds an
outer expansion where its value will be: the analysis keeps the expansion's spelling there as a
stand-in. Parsed literally, the stand-in makes errors the shell never sees (`$name=(` is a syntax
error, `X_OPTS=(` is an array assignment). An error is certain only when it stays with every
value put in as a plain word, and when no value before it stands where the shell reads code
(`case $1 in ${patterns[@]} *) ...` builds its patterns from the value on purpose); a quote
left open is an error with any plain value.
"""

from __future__ import annotations

from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import Problem, scan
from quotecheck.parsing.syntax_errors import is_grammar_error, reached_end
from quotecheck.programs import Dialect

# The parse of the stand-in text is a second opinion: it gets little time.
_TIME_LIMIT = 1.0
_TOTAL_TIME_LIMIT = 2.0


def with_plain_values(text: str, ranges: list[tuple[int, int]]) -> str:
    """``text`` with every run-time range replaced by a plain word of the same length."""
    chars = list(text)
    for a, b in ranges:
        for k in range(max(a, 0), min(b, len(chars))):
            chars[k] = "x"
    return "".join(chars)


def _quoted_spans(text: str, dialect: Dialect) -> list[tuple[int, int]]:
    scanned = scan(text, dialect)
    return [(i, e) for i, e in scanned.ends.items()
            if text[i] in "'\"" or text.startswith(("$'", '$"'), i)]


def certain_errors(text: str, dialect: Dialect, ranges: list[tuple[int, int]],
                   extglob: bool | None = None) -> list[Problem]:
    """The QC001 problems of ``text`` that do not depend on the values of ``ranges`` (its
    run-time parts), located in ``text``; ``extglob``: on for the shell reading it (None: when
    the text turns it on)."""
    ranges = [(a, b) for a, b in ranges if b > a]
    plain = with_plain_values(text, ranges)
    script = parse_script(plain, dialect, time_limit=_TIME_LIMIT,
                          total_time_limit=_TOTAL_TIME_LIMIT, extglob=extglob)
    errors = [p for p in script.problems if p.code == "QC001"]
    if not errors or not ranges:
        return errors
    quoted = _quoted_spans(plain, dialect)
    code_at = [a for a, _ in ranges if not any(q < a < e for q, e in quoted)]
    if not code_at:
        return errors
    first = min(code_at)
    # A quote left open stays open whatever word the value is (only a value with a stray
    # quote in it could close it); a grammar error after a value read as code may come from
    # it, and one found only at the end of the text (a construct left open) is after them all.
    return [p for p in errors if not is_grammar_error(p.message) or
            (p.start < first and not reached_end(p.message))]
