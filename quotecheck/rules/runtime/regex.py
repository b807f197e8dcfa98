"""grep and pgrep patterns as Python ``re`` patterns.

``grep`` patterns are POSIX basic regular expressions with the GNU extensions ``\\|``,
``\\+``, ``\\?``, ``\\<``, ``\\>``, ``\\b``, ``\\w``...; ``-E`` extended, ``-F`` fixed strings. A
newline in a pattern separates several patterns. ``pgrep``/``pkill`` compile their pattern with
``regcomp(REG_EXTENDED)``. ``translate`` turns both into Python ``re`` patterns (tested against
the real grep, GNU grep 3.8, with generated patterns: tests/rules/test_runtime_regex.py).
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import Any, Literal

from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import C_LOCALE_CLASSES

with warnings.catch_warnings():  # the parser behind `re`; deprecated as a public name only
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse

Syntax = Literal["basic", "extended", "fixed", "perl"]


class UnsupportedPattern(ValueError):
    """A pattern the translator does not model (or that the real tool rejects)."""


_INTERVAL_ERE = lazy_compile(r"\{(\d+)(,(\d*))?\}")
_INTERVAL_BRE = lazy_compile(r"\\\{(\d+)(,(\d*))?\\\}")
_SPECIAL_ESCAPES = {
    "w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b",
    "<": r"\b(?=\w)", ">": r"\b(?<=\w)", "`": r"\A", "'": r"\Z",
}
_MAX_REPEAT = 255  # RE_DUP_MAX in glibc is 0x7fff; keep Python's compile cheap


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


_CLASSES: dict[str, str] = {name: "".join(_class_char(c) for c in members)
                            for name, members in C_LOCALE_CLASSES.items()}


def _bracket(p: str, i: int) -> tuple[str, int]:
    """Translate the bracket expression whose body starts at ``p[i]`` (after ``[``)."""
    n = len(p)
    negate = i < n and p[i] == "^"
    if negate:
        i += 1
    items: list[tuple[str, str]] = []  # ("char", c) or ("class", python text)
    first = True
    while True:
        if i >= n:
            raise UnsupportedPattern("unmatched [")
        c = p[i]
        if c == "]" and not first:
            i += 1
            break
        if c == "[" and i + 1 < n and p[i + 1] in ":=.":
            kind = p[i + 1]
            end = p.find(kind + "]", i + 2)
            if end < 0:
                raise UnsupportedPattern("unterminated [: :] [= =] or [. .]")
            name = p[i + 2:end]
            i = end + 2
            if kind == ":":
                if name not in _CLASSES:
                    raise UnsupportedPattern(f"unknown class [:{name}:]")
                items.append(("class", _CLASSES[name]))
            else:
                if len(name) != 1:
                    raise UnsupportedPattern("multi-character collating element")
                items.append(("char", name))
        else:
            items.append(("char", c))
            i += 1
        first = False
    out: list[str] = []
    k = 0
    while k < len(items):
        kind, value = items[k]
        if (kind == "char" and k + 2 < len(items) and items[k + 1] == ("char", "-")
                and items[k + 2][0] == "char"):
            lo, hi = value, items[k + 2][1]
            if ord(lo) > ord(hi):
                raise UnsupportedPattern("invalid range end")
            out.append(f"{_class_char(lo)}-{_class_char(hi)}")
            k += 3
            continue
        out.append(value if kind == "class" else _class_char(value))
        k += 1
    return "[" + ("^" if negate else "") + "".join(out) + "]", i


class _Emitter:
    """Output tokens with enough structure to apply a quantifier to the last atom."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.atom: int | None = None  # index in ``out`` where the last atom starts
        self.quantified = False
        self.groups: list[int] = []
        self.closed_groups = 0

    def atom_text(self, text: str) -> None:
        self.atom = len(self.out)
        self.quantified = False
        self.out.append(text)

    def anchor(self, text: str) -> None:
        self.atom = None
        self.out.append(text)

    def open_group(self) -> None:
        self.groups.append(len(self.out))
        self.atom = None
        self.out.append("(")

    def close_group(self) -> None:
        if not self.groups:
            raise UnsupportedPattern("unmatched )")
        start = self.groups.pop()
        self.out.append(")")
        self.closed_groups += 1
        self.atom = start
        self.quantified = False

    def alternate(self) -> None:
        self.atom = None
        self.out.append("|")

    def quantify(self, q: str) -> None:
        if self.atom is None:
            raise UnsupportedPattern("quantifier without an atom")
        if self.quantified:
            # ERE `a+*` is (a+)*; Python rejects a repeated repeat: group what came before.
            body = "".join(self.out[self.atom:])
            del self.out[self.atom:]
            self.out.append("(?:" + body + ")")
        self.out.append(q)
        self.quantified = True

    def text(self) -> str:
        if self.groups:
            raise UnsupportedPattern("unmatched (")
        return "".join(self.out)


def _interval(m: re.Match[str]) -> str:
    lo = int(m.group(1))
    hi = m.group(3)
    if lo > _MAX_REPEAT or (hi and int(hi) > _MAX_REPEAT):
        raise UnsupportedPattern("repeat count too large")
    if hi is not None and hi != "" and int(hi) < lo:
        raise UnsupportedPattern("invalid interval")
    if m.group(2) is None:
        return "{" + str(lo) + "}"
    return "{" + str(lo) + "," + (hi or "") + "}"


def _backref(em: _Emitter, digit: str) -> None:
    if int(digit) > em.closed_groups:
        raise UnsupportedPattern("back reference to a group not closed yet")
    em.atom_text("\\" + digit)


def _bre(p: str) -> str:
    em = _Emitter()
    n = len(p)
    i = 0
    at_start = True  # start of the RE, after \( or \|: `*` is literal, `^` an anchor
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise UnsupportedPattern("trailing backslash")
            d = p[i + 1]
            if d == "{":
                m = _INTERVAL_BRE.match(p, i)
                if m is None or at_start:
                    raise UnsupportedPattern("invalid \\{ \\}")
                em.quantify(_interval(m))
                i = m.end()
                at_start = False
                continue
            i += 2
            if d == "(":
                em.open_group()
                at_start = True
            elif d == ")":
                em.close_group()
                at_start = False
            elif d == "|":
                em.alternate()
                at_start = True
            elif d in "+?":
                if at_start:
                    raise UnsupportedPattern("leading \\+ or \\?")
                em.quantify(d)
            elif d in "123456789":
                _backref(em, d)
                at_start = False
            elif d == "B":
                raise UnsupportedPattern("\\B differs from Python's at the line's edges")
            elif d in _SPECIAL_ESCAPES:
                em.anchor(_SPECIAL_ESCAPES[d]) if d in "b<>`'" else em.atom_text(
                    _SPECIAL_ESCAPES[d])
                at_start = False
            else:
                em.atom_text(re.escape(d))
                at_start = False
            continue
        if c == "[":
            text, i = _bracket(p, i + 1)
            em.atom_text(text)
            at_start = False
            continue
        i += 1
        if c == "*":
            if at_start:
                em.atom_text(r"\*")
                at_start = False
            else:
                em.quantify("*")
            continue
        if c == "^":
            if at_start and em.out[-1:] != ["^"]:
                em.anchor("^")  # still at the start: `^*` is a literal star
            else:
                em.atom_text(r"\^")
                at_start = False
            continue
        if c == "$":
            if i == n or p.startswith("\\)", i) or p.startswith("\\|", i):
                em.anchor(r"\Z")
            elif i < n and p[i] in "|)":
                # GNU grep reads `$|*` and `$)*` as matching every line: not modelled.
                raise UnsupportedPattern("$ before | or ) in a basic regex")
            else:
                em.atom_text(r"\$")
            at_start = False
            continue
        em.atom_text("." if c == "." else re.escape(c))
        at_start = False
    return em.text()


def _ere(p: str) -> str:
    em = _Emitter()
    n = len(p)
    i = 0
    at_start = True
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise UnsupportedPattern("trailing backslash")
            d = p[i + 1]
            i += 2
            if d in "123456789":
                _backref(em, d)
            elif d == "B":
                raise UnsupportedPattern("\\B differs from Python's at the line's edges")
            elif d in _SPECIAL_ESCAPES:
                em.anchor(_SPECIAL_ESCAPES[d]) if d in "b<>`'" else em.atom_text(
                    _SPECIAL_ESCAPES[d])
            else:
                em.atom_text(re.escape(d))
            at_start = False
            continue
        if c == "[":
            text, i = _bracket(p, i + 1)
            em.atom_text(text)
            at_start = False
            continue
        if c == "{":
            m = _INTERVAL_ERE.match(p, i)
            if m is None or at_start or em.atom is None:
                raise UnsupportedPattern("{ that is not an interval")
            em.quantify(_interval(m))
            i = m.end()
            continue
        i += 1
        if c in "*+?":
            if at_start or em.atom is None:
                raise UnsupportedPattern("quantifier without an atom")
            em.quantify(c)
        elif c == "(":
            em.open_group()
            at_start = True
            continue
        elif c == ")":
            em.close_group()
        elif c == "|":
            em.alternate()
            at_start = True
            continue
        elif c == "^":
            em.anchor("^")
            continue
        elif c == "$":
            em.anchor(r"\Z")
        else:
            em.atom_text("." if c == "." else re.escape(c))
        at_start = False
    return em.text()


def translate(pattern: str, syntax: Syntax = "basic", *, ignore_case: bool = False,
              word: bool = False, line: bool = False) -> re.Pattern[str]:
    """A Python regex matching the same lines as ``grep`` (or ``pgrep`` for "extended").

    A newline in ``pattern`` separates alternatives, as in grep. Raises ``UnsupportedPattern``
    for what is not modelled (and for patterns the real tools reject).
    """
    parts: list[str] = []
    pieces = pattern.split("\n")
    for piece in pieces:
        if syntax == "fixed":
            body = re.escape(piece)
        elif syntax == "perl":
            body = piece
        elif syntax == "extended":
            body = _ere(piece)
        else:
            body = _bre(piece)
        if len(pieces) > 1 and re.search(r"\\[1-9]", body):
            raise UnsupportedPattern("back references with several patterns")
        if word:
            body = r"(?<![0-9A-Za-z_])(?:" + body + r")(?![0-9A-Za-z_])"
        if line:
            body = r"^(?:" + body + r")\Z"
        parts.append(body)
    text = parts[0] if len(parts) == 1 else "|".join("(?:" + x + ")" for x in parts)
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    try:
        with warnings.catch_warnings():
            # `[[` in a bracket expression: Python warns that it may one day mean a nested set.
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(text, flags)
    except (re.error, OverflowError, RecursionError) as exc:
        raise UnsupportedPattern(str(exc)) from exc


# Python's `re` backtracks: a repeated group that can match the same text in more than one way
# (`(a|a)*`, `(a+)+`) takes time doubling with each character of a line it fails on, inside one
# C call nothing can interrupt. Such a pattern is tried only on lines this short (at most some
# hundred thousand steps); on a longer line whether it matches is not known.
BACKTRACKING_LINE_MAX = 16
_REPEATS = frozenset({sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT})


@lru_cache(maxsize=256)
def _backtracks(pattern: str, flags: int) -> str | None:
    try:
        tree = sre_parse.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return "a structure Python's `re` cannot take apart"
    return _risk(tree, repeated=False)


def _risk(tree: Any, *, repeated: bool) -> str | None:
    """What in ``tree`` (inside a repetition when ``repeated``) makes matching it take time
    exponential in the line's length: a back-reference, or a repetition or an alternation
    inside a repetition; None when nothing does."""
    for op, av in tree:
        if op in (sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS):
            return "a back-reference"  # matching them is not linear in any engine
        if op in _REPEATS:
            high, body = av[1], av[2]
            many = high is sre_constants.MAXREPEAT or high > 1
            inner = [(body, repeated or many)]
            if repeated and many:
                return "a repetition inside a repetition"
        elif op == sre_constants.BRANCH:
            if repeated:
                return "an alternation inside a repetition"
            inner = [(branch, False) for branch in av[1]]
        elif op == sre_constants.SUBPATTERN:
            inner = [(av[-1], repeated)]
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            inner = [(av[1], repeated)]
        else:
            continue
        for sub, r in inner:
            found = _risk(sub, repeated=r)
            if found is not None:
                return found
    return None


def may_backtrack(regex: re.Pattern[str]) -> bool:
    """Whether matching ``regex`` may take time exponential in the length of the line."""
    return _backtracks(regex.pattern, regex.flags) is not None


def too_costly(regex: re.Pattern[str], line: str) -> str | None:
    """Why ``regex`` is not tried on ``line`` (it may backtrack exponentially and the line is
    longer than BACKTRACKING_LINE_MAX), said for a message; None when it is tried. The line's
    own length is for the caller to say (it knows what the line is)."""
    if len(line) <= BACKTRACKING_LINE_MAX:
        return None
    risk = _backtracks(regex.pattern, regex.flags)
    if risk is None:
        return None
    return (f"it has {risk}, on which Python's backtracking `re` can take time exponential in "
            f"the length of the line, so the matcher tries it only on lines of at most "
            f"{BACKTRACKING_LINE_MAX} characters")


def can_match_quickly(regex: re.Pattern[str], line: str) -> bool:
    """Whether matching ``regex`` on ``line`` is bounded: the pattern does not backtrack
    exponentially, or the line is short enough for it to be cheap anyway."""
    return too_costly(regex, line) is None
