"""What is known about one variable at one point of a script: its possible values or its kind.

A value is kept as its elements (a scalar has one, an array any number), each element with the
offsets its characters were written at (``None`` where a character has no single origin). A
variable the script never sets is ``environment``; one it sets to something only known at run
time is ``unknown``; between the two and an exact value sit the kinds of value that cannot
carry code although their text is not known (a number, one plain word, shell-quoted output, a
value the script validated).
"""

from __future__ import annotations

from typing import Literal

from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import MAX_VALUE_CHARS
from quotecheck.records import FrozenRecord

Kind = Literal["exact", "number", "word", "quoted", "validated", "unknown", "environment"]

# Kinds whose value cannot hold a blank or a shell metacharacter.
SAFE_KINDS: frozenset[str] = frozenset({"number", "word", "quoted", "validated"})

# Characters that no shell reads as anything but themselves, unquoted, anywhere in a word (a
# leading `~` or `#`, `=` before a command name, and `{`, `[`, `*`, `?` are left out).
PLAIN = lazy_compile(r"[A-Za-z0-9_./:,+%@-]*")

# The note of a value that `read`, `mapfile` or `getopts` took from input: data, not a setting.
READ_NOTE = "read"

# How many alternatives a variable keeps before only its kind is kept.
MAX_ALTERNATIVES = 16
# MAX_VALUE_CHARS (quotecheck.limits, with the other limits): how many characters, all
# alternatives and elements together (an element counts one more), a known value may hold;
# past it the value is known only at run time, and QC002 says so (``budget_note``).

Offsets = tuple[int | None, ...]
Element = tuple[str, Offsets]
Alternative = tuple[Element, ...]
Place = tuple[str, int]  # a line of a file the script sources: its name, the 1-based line


def value_size(alts: tuple[Alternative, ...]) -> int:
    """The characters of a value, all alternatives and elements, each element one more."""
    return sum(len(e[0]) + 1 for alt in alts for e in alt)


def budget_note(name: str) -> str:
    """QC002's note for a value the analysis stopped building (MAX_VALUE_CHARS)."""
    return (f"the value of `{name}` would be longer than {MAX_VALUE_CHARS // 1024} KiB: it is "
            "taken as known only at run time (the value-size budget)")


def is_plain(text: str) -> bool:
    return PLAIN.fullmatch(text) is not None


class Knowledge(FrozenRecord):
    """What a read of ``name`` gives. ``alts`` holds the possible values (exact kind only)."""

    __slots__ = ("alts", "kind", "lines", "name", "note", "offsets", "sourced")
    name: str
    kind: Kind
    alts: tuple[Alternative, ...] | None
    # Where it was set, offsets into the script's text (for a file the script sources: the
    # offset of the `source` command).
    offsets: tuple[int, ...]
    lines: tuple[int, ...]  # the places in the script itself, as 1-based lines
    note: str  # a word on the kind: the regex it was checked with, the quoting function...
    sourced: tuple[Place, ...]  # the places in files the script sources: (file, line)

    def __init__(self, name: str, kind: Kind, alts: tuple[Alternative, ...] | None = None,
                 offsets: tuple[int, ...] = (), lines: tuple[int, ...] = (),
                 note: str = "", sourced: tuple[Place, ...] = ()) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "alts", alts)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "lines", lines)
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "sourced", sourced)

    # -- what a read gives -------------------------------------------------------------------

    @property
    def exact(self) -> tuple[str, ...] | None:
        """The possible values of ``$name`` (an array's first element), or None."""
        if self.alts is None:
            return None
        return tuple(dict.fromkeys(alt[0][0] if alt else "" for alt in self.alts))

    @property
    def arrays(self) -> tuple[tuple[str, ...], ...] | None:
        """The possible element lists of ``${name[@]}``, or None."""
        if self.alts is None:
            return None
        return tuple(dict.fromkeys(tuple(e[0] for e in alt) for alt in self.alts))

    @property
    def set_at(self) -> tuple[int, ...]:
        """The lines of the script itself it was set on."""
        return self.lines

    @property
    def only_sourced(self) -> bool:
        """Every place it was set on lies in a file the script sources."""
        return bool(self.sourced) and not self.lines

    @property
    def local(self) -> bool:
        """The script itself gives it a value (maybe only on some paths)."""
        return self.kind != "environment"

    @property
    def safe(self) -> bool:
        """Nothing in the value can be read as code or split: every element a plain word."""
        if self.kind in SAFE_KINDS:
            return True
        if self.alts is None:
            return False
        return all(is_plain(e[0]) for alt in self.alts for e in alt)

    @property
    def unsafe_value(self) -> str | None:
        """A possible value holding a blank or a metacharacter (the first one), if known."""
        if self.alts is None:
            return None
        for alt in self.alts:
            for text, _ in alt:
                if not is_plain(text):
                    return text
        return None

    # -- words --------------------------------------------------------------------------------

    @property
    def from_input(self) -> bool:
        """Read from input (`read`, `mapfile`): data whatever the script meant."""
        return self.kind == "unknown" and self.note == READ_NOTE

    def describe(self, shown: str | None = None) -> str:
        """A clause for a message: "`$APP` is `shopfront` (line 3)"."""
        what = shown or f"${self.name}"
        where = _places(self.lines, self.sourced)
        if self.kind == "exact" and self.alts is not None:
            values = [_show_alt(alt) for alt in self.alts[:4]]
            more = " or another" if len(self.alts) > 4 else ""
            at = f" ({where})" if where else ""
            if len(values) == 1:
                return f"`{what}` is {values[0]}{at}"
            return f"`{what}` is one of {', '.join(values)}{more}{at}"
        at = f" ({where})" if where else ""
        of = f"the output of `{_clip(self.note)}`, " if self.note.startswith(("$(", "`")) else ""
        if self.kind == "number":
            return f"`{what}` is {of}a number{at}"
        if self.kind == "word":
            return f"`{what}` is {of}one plain word{at}"
        if self.kind == "quoted":
            by = f" by `{_clip(self.note)}`" if self.note else ""
            return f"`{what}` is shell-quoted{by}{at}"
        if self.kind == "validated":
            return f"`{what}` is checked to match `{self.note}`{at}"
        if self.kind == "unknown":
            if self.note == READ_NOTE and where:
                return f"`{what}` is read from input on {where}"
            return f"`{what}` is set on {where} to a value not known before run time" if where \
                else f"`{what}` is not known before run time"
        return (f"`{what}` is not set by the script: it comes from the environment, not known "
                "before run time")


def _clip(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= 40 else one[:37] + "..."


def _lines(lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    shown = sorted(set(lines))
    if len(shown) == 1:
        return f"line {shown[0]}"
    head = ", ".join(str(n) for n in shown[:4])
    return f"lines {head}" + (", ..." if len(shown) > 4 else "")


def _places(lines: tuple[int, ...], sourced: tuple[Place, ...]) -> str:
    """"line 5", "config.sh line 3", "line 5, config.sh lines 3, 4"."""
    out = [_lines(lines)] if lines else []
    files: dict[str, list[int]] = {}
    for file, line in sourced:
        files.setdefault(file, []).append(line)
    out.extend(f"{file} {_lines(tuple(ns))}" for file, ns in files.items())
    return ", ".join(out)


def _show(text: str) -> str:
    out = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    out = "".join(c if c.isprintable() else f"\\x{ord(c) & 0xff:02x}" for c in out)
    if len(out) > 40:
        out = out[:37] + "..."
    return f"`{out}`" if "`" not in out else repr(out)


def _show_alt(alt: Alternative) -> str:
    if len(alt) == 1:
        return _show(alt[0][0])
    if not alt:
        return "empty"
    return "(" + " ".join(_show(e[0]) for e in alt[:6]) + (" ..." if len(alt) > 6 else "") + ")"


# -- combining ---------------------------------------------------------------------------------

def merge(a: Knowledge, b: Knowledge) -> Knowledge:
    """What is known when either ``a`` or ``b`` holds (after a branch)."""
    if a is b or a == b:
        return a
    offsets = tuple(dict.fromkeys((*a.offsets, *b.offsets)))
    lines = tuple(dict.fromkeys((*a.lines, *b.lines)))
    sourced = tuple(dict.fromkeys((*a.sourced, *b.sourced)))
    if a.kind == "exact" and b.kind == "exact" and a.alts is not None and b.alts is not None:
        alts = tuple(dict.fromkeys((*a.alts, *b.alts)))
        if len(alts) <= MAX_ALTERNATIVES:
            return Knowledge(a.name, "exact", alts, offsets, lines, sourced=sourced)
    if a.safe and b.safe:
        kind: Kind = "number" if a.kind == b.kind == "number" else "word"
        if a.kind == b.kind and a.kind in SAFE_KINDS:
            return Knowledge(a.name, a.kind, None, offsets, lines,
                             a.note if a.note == b.note else "", sourced)
        return Knowledge(a.name, kind, None, offsets, lines, sourced=sourced)
    if a.kind == b.kind == "environment" or {a.kind, b.kind} == {"environment", "validated"}:
        # A check is not an assignment: on some path the value is still the environment's.
        return a if a.kind == "environment" else b
    return Knowledge(a.name, "unknown", None, offsets, lines, sourced=sourced)
