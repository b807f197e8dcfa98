"""What one part of a word gives when the variables it reads are known, and what a whole word
becomes: a value (for an assignment, no splitting) or its fields (a command's argument).

Only what is certain is computed: an unquoted value that would glob, an expansion with an
operator not modelled here, a tilde or a brace expansion give no exact value (their kind may
still be known: a substring of a plain word is a plain word).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import product

from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import MAX_VALUE_CHARS
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import NUMBER_SPECIALS, NUMBER_VARIABLES
from quotecheck.records import FrozenRecord
from quotecheck.values.knowledge import (
    MAX_ALTERNATIVES,
    SAFE_KINDS,
    Alternative,
    Element,
    Kind,
    Knowledge,
    Offsets,
    is_plain,
)

Lookup = Callable[[str], Knowledge]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# `${X}`, `${X[sub]}`, `${#X}`, `${#X[@]}`, `${!X[@]}`, then an operator and its word.
_BRACED = lazy_compile(rf"\$\{{(?P<pre>[#!]?)(?P<name>{_NAME}|[0-9]+|[@*#?$!-])"
                     r"(?:\[(?P<sub>[^\]]*)\])?(?P<rest>.*)\}$", re.S)
_DEFAULT_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")
_SIMPLE = lazy_compile(rf"\$(?P<name>{_NAME}|[0-9]|[@*#?$!-])$")
_IFS = " \t\n"
# Operators whose result is a piece of the value: a substring of a plain word stays plain.
_SUBSTRING_OPS = lazy_compile(r"(%%?|##?|:[0-9 +-]|\^\^?|,,?)")


class Val(FrozenRecord):
    """A part's value: its alternatives (each a tuple of elements), or only its kind.

    ``fields`` says how the elements are used: ``scalar`` (one element), ``at`` (one field
    each: `${a[@]}`), ``star`` (joined with a space when quoted: `${a[*]}`)."""

    __slots__ = ("alts", "fields", "kind", "sources")
    kind: Kind
    alts: tuple[Alternative, ...] | None
    fields: str
    sources: tuple[Knowledge, ...]  # the variables read, for messages

    def __init__(self, kind: Kind, alts: tuple[Alternative, ...] | None = None,
                 fields: str = "scalar", sources: tuple[Knowledge, ...] = ()) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "alts", alts)
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "sources", sources)


def _literal(text: str, offsets: Offsets) -> Val:
    return Val("exact", (((text, offsets),),))


def _offsets_of(part: Part) -> Offsets:
    return tuple(part.offsets)


def _safe_kind(k: Knowledge) -> Kind:
    if k.kind in SAFE_KINDS:
        return k.kind
    return "word" if k.safe else "unknown"


def _known_number(name: str, k: Knowledge) -> bool:
    return k.kind == "environment" and (name in NUMBER_VARIABLES or name in NUMBER_SPECIALS)


def part_value(part: Part, lookup: Lookup,
               output_kind: Callable[[Part], Kind] | None = None) -> Val:
    """The value of one part of a word (quote removal done, no splitting yet)."""
    if part.kind == "literal":
        return _literal(part.value, _offsets_of(part))
    if part.kind == "arithmetic":
        return Val("number")
    if part.kind in ("command", "backtick"):
        return Val(output_kind(part) if output_kind is not None else "unknown")
    if part.kind in ("parameter", "special"):
        return _parameter(part, lookup)
    return Val("unknown")  # tilde, glob, brace, process substitution


def _parameter(part: Part, lookup: Lookup) -> Val:
    text = part.value
    m = _SIMPLE.match(text)
    if m:
        name, pre, sub, op = m.group("name"), "", None, ""
    else:
        m = _BRACED.match(text)
        if m is None:
            return Val("unknown")
        name, pre, sub, rest = m.group("name"), m.group("pre"), m.group("sub"), m.group("rest")
        op = next((o for o in _DEFAULT_OPS if rest.startswith(o)), rest)
    if name in NUMBER_SPECIALS and not pre and sub is None and not op:
        return Val("number")
    if not re.fullmatch(_NAME, name):
        return Val("unknown")  # positional parameters, `$@`, `$-`, `$_`
    k = lookup(name)
    if pre == "#":
        return Val("number", sources=(k,))
    if pre == "!":
        if sub in ("@", "*") and not op:
            # Indices of an array; keys of an associative array are any text.
            return Val("number" if k.kind == "exact" else "unknown", sources=(k,))
        return Val("unknown", sources=(k,))
    if _known_number(name, k):
        base = Val("number", sources=(k,))
    elif k.kind == "exact" and k.alts is not None:
        base = _select(k, sub)
    else:
        base = Val(k.kind if k.kind != "environment" else "unknown", None,
                   "at" if sub in ("@", "*") else "scalar", (k,))
        if k.safe:
            base = Val(_safe_kind(k), None, base.fields, (k,))
    if not op:
        return base
    if op in (":-", "-", ":=", "=", ":+", "+"):
        return _default(part, name, k, base, op, lookup)
    if _SUBSTRING_OPS.match(op) and (base.kind in SAFE_KINDS or (
            base.alts is not None and all(is_plain(e[0]) for a in base.alts for e in a))):
        # A piece (or the case-changed text) of a plain word is a plain word.
        return Val("number" if base.kind == "number" and op[0] == ":" else "word",
                   None, base.fields, (k,))
    if op.startswith("@") and op[1:] in ("Q", "K"):
        return Val("quoted", None, base.fields, (k,))
    return Val("unknown", None, base.fields, (k,))


def _select(k: Knowledge, sub: str | None) -> Val:
    assert k.alts is not None
    if sub is None or sub in ("0", ""):
        alts = tuple(dict.fromkeys(alt[:1] if alt else (("", ()),) for alt in k.alts))
        return Val("exact", alts, "scalar", (k,))
    if sub in ("@", "*"):
        return Val("exact", k.alts, "at" if sub == "@" else "star", (k,))
    if sub.isdigit():
        i = int(sub)
        alts = tuple(dict.fromkeys((alt[i],) if i < len(alt) else (("", ()),) for alt in k.alts))
        return Val("exact", alts, "scalar", (k,))
    return Val("word" if k.safe else "unknown", None, "scalar", (k,))


def _default(part: Part, name: str, k: Knowledge, base: Val, op: str, lookup: Lookup) -> Val:
    """`${X:-word}` and its kin, when the word is a literal or one `$NAME`."""
    start = part.value.find(op, 2 + len(name)) + len(op)
    arg = part.value[start:-1]
    offs = _offsets_of(part)
    arg_offs: Offsets = offs[start:-1] if len(offs) == len(part.value) else (None,) * len(arg)
    word = _default_word(arg, arg_offs, lookup)
    colon = op.startswith(":")
    if k.kind == "exact" and k.alts is not None:
        values = [alt[0][0] if alt else "" for alt in k.alts]
        empty = [v == "" for v in values]
        if op.endswith("+"):
            if all(empty) and colon:
                return _literal("", ())
            if not any(empty):
                return word
            return _join_kinds(word, Val("exact", ((("", ()),),)))
        if colon and all(empty):
            return word
        if not colon or not any(empty):
            return base
        return _either(base, word)
    # Not known: the value or the word.
    return _either(base, word)


def _default_word(arg: str, offs: Offsets, lookup: Lookup) -> Val:
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'" and not any(
            c in arg[1:-1] for c in "\"'\\$`"):
        return _literal(arg[1:-1], offs[1:-1])
    if not any(c in arg for c in "\"'\\$`"):
        return _literal(arg, offs)
    m = re.fullmatch(rf"\$(?:({_NAME})|\{{({_NAME})\}})", arg)
    if m:
        name = m.group(1) or m.group(2)
        k = lookup(name)
        if k.kind == "exact" and k.alts is not None:
            return _select(k, None)
        return Val(_safe_kind(k), None, "scalar", (k,))
    return Val("unknown")


def _either(a: Val, b: Val) -> Val:
    if a.alts is not None and b.alts is not None:
        alts = tuple(dict.fromkeys((*a.alts, *b.alts)))
        if len(alts) <= MAX_ALTERNATIVES:
            return Val("exact", alts, a.fields, (*a.sources, *b.sources))
    return _join_kinds(a, b)


def _join_kinds(a: Val, b: Val) -> Val:
    def safe(v: Val) -> bool:
        return v.kind in SAFE_KINDS or (v.alts is not None and all(
            is_plain(e[0]) for alt in v.alts for e in alt))
    kind: Kind = "word" if safe(a) and safe(b) else "unknown"
    return Val(kind, None, a.fields, (*a.sources, *b.sources))


# -- whole words -------------------------------------------------------------------------------

def _within_budget(vals: Sequence[Val], combinations: int) -> bool:
    """Whether every combination of ``vals``' alternatives, put together, stays within
    MAX_VALUE_CHARS (a bound from the longest alternative of each, without building any)."""
    longest = sum(max((sum(len(e[0]) + 1 for e in alt) for alt in v.alts or ()), default=0)
                  for v in vals)
    return longest * combinations <= MAX_VALUE_CHARS


def _joined(alt: Alternative) -> Element:
    text = " ".join(e[0] for e in alt)
    offs: list[int | None] = []
    for i, e in enumerate(alt):
        if i:
            offs.append(None)
        offs.extend(e[1])
    return text, tuple(offs)


def assigned_value(word: Word, lookup: Lookup,
                   output_kind: Callable[[Part], Kind] | None = None,
                   over_budget: Callable[[], None] | None = None) -> Val:
    """The value ``name=word`` gives: the parts' values joined, nothing split or globbed.
    ``over_budget`` is called when the value is known but longer than MAX_VALUE_CHARS (then
    it is given as unknown)."""
    vals = [part_value(p, lookup, output_kind) for p in word.parts]
    sources = tuple(k for v in vals for k in v.sources)
    if all(v.alts is not None for v in vals):
        choices = [[_joined(alt) for alt in v.alts or ()] for v in vals]
        total = 1
        for c in choices:
            total *= max(len(c), 1)
        within = _within_budget(vals, total)
        if not within and total <= MAX_ALTERNATIVES and over_budget is not None:
            over_budget()
        if total <= MAX_ALTERNATIVES and within:
            alts: list[Alternative] = []
            for combo in product(*choices):
                text = "".join(e[0] for e in combo)
                offs = tuple(o for e in combo for o in e[1])
                alts.append(((text, offs),))
            return Val("exact", tuple(dict.fromkeys(alts)), "scalar", sources)
    if len(vals) == 1 and vals[0].kind in SAFE_KINDS:
        return Val(vals[0].kind, None, "scalar", sources)
    if all(v.kind in SAFE_KINDS or (v.alts is not None and all(
            is_plain(e[0]) for a in v.alts for e in a)) for v in vals):
        return Val("word", None, "scalar", sources)
    return Val("unknown", None, "scalar", sources)


class Field(FrozenRecord):
    """One field a word expands to, and where each of its characters was written."""

    __slots__ = ("offsets", "text")
    text: str
    offsets: Offsets

    def __init__(self, text: str, offsets: Offsets) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "offsets", offsets)


def word_fields(parts: Sequence[Part], vals: Sequence[Val], ifs_default: bool,
                limit: int = MAX_ALTERNATIVES) -> list[list[Field]] | None:
    """The fields of a word for each combination of its parts' alternatives, or None when a
    part is not known exactly or the result would be globbed."""
    if any(v.alts is None for v in vals):
        return None
    total = 1
    for v in vals:
        total *= max(len(v.alts or ()), 1)
    if total > limit or not _within_budget(vals, total):
        return None
    out: list[list[Field]] = []
    for combo in product(*[v.alts or () for v in vals]):
        fields = _fields(parts, vals, combo, ifs_default)
        if fields is None:
            return None
        out.append(fields)
    return out


def _fields(parts: Sequence[Part], vals: Sequence[Val], combo: Sequence[Alternative],
            ifs_default: bool) -> list[Field] | None:
    fields: list[Field] = []
    text: list[str] = []
    offs: list[int | None] = []
    have = False

    def push() -> None:
        nonlocal have
        if have:
            fields.append(Field("".join(text), tuple(offs)))
        text.clear()
        offs.clear()
        have = False

    for part, val, alt in zip(parts, vals, combo, strict=True):
        quoted = part.quoting != "none"
        if part.kind == "literal":
            text.append(part.value)
            offs.extend(_offsets_of(part))
            have = have or quoted or bool(part.value)
            continue
        if quoted:
            if val.fields == "at":
                for i, (t, o) in enumerate(alt):
                    if i:
                        push()
                    text.append(t)
                    offs.extend(o)
                    have = True
            else:
                t, o = _joined(alt) if val.fields == "star" else (alt[0] if alt else ("", ()))
                text.append(t)
                offs.extend(o)
                have = True
            continue
        if not ifs_default:
            return None
        elements = alt if val.fields != "scalar" else alt[:1]
        for i, (t, o) in enumerate(elements):
            if i:
                push()
            if any(c in t for c in "*?["):
                return None  # pathname expansion: depends on the files there
            for c, at in zip(t, o if len(o) == len(t) else (None,) * len(t), strict=True):
                if c in _IFS:
                    push()
                else:
                    text.append(c)
                    offs.append(at)
                    have = True
    push()
    return fields
