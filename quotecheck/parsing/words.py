"""Word segmentation: what one shell word becomes after quote removal, and where it came from.

A word is split into parts, each with its quoting (unquoted, single, double, ``$'...'``,
``$"..."``, a backslash escape, a heredoc body) and kind (a literal, or one of the expansions). A
literal part's ``value`` is exactly what the shell keeps after quote removal; an expansion keeps
its text as written, since its value is only known at run time. Every value character carries its
offset in the text the word was cut from, which is how findings deep inside nested layers point
back at the right column.

The extents of quotes and expansions come from the scanner (``Scan.ends``), so the two modules
always agree on where a construct ends.

What bash decides on the whole word is decided here on the whole word too: whether brackets are
a pattern (`[a"b"]` is), whether braces expand (`{a,"b c"}` does, `{1..a}` does not), and how the
bytes of ``$'\\xc3'$'\\xa9'`` decode. Values are ``str``; bytes that are not UTF-8 are lone
surrogates (``surrogateescape``, the way the tests decode what a shell prints).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, Literal

from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.scanner import (
    SPECIAL_PARAMETERS,
    Scan,
    skip_line_continuations,
)
from quotecheck.programs import Dialect
from quotecheck.records import FrozenRecord
from quotecheck.sourcemap import compact_offsets

PartKind = Literal[
    "literal", "parameter", "special", "command", "backtick", "arithmetic", "tilde", "glob",
    "brace", "process",
]
Quoting = Literal["none", "single", "double", "ansi_c", "locale", "escape", "heredoc"]

EXPANSION_KINDS = frozenset(
    {"parameter", "special", "command", "backtick", "arithmetic", "process"}
)


class Part(FrozenRecord):
    """A piece of a word. ``offsets[i]`` is where ``value[i]`` stands in the layer's text."""

    __slots__ = ("kind", "name", "offsets", "quoting", "span", "value")
    kind: PartKind
    quoting: Quoting
    span: tuple[int, int]
    value: str
    offsets: Sequence[int]  # a range when consecutive (sourcemap.compact_offsets)
    name: str | None  # the parameter's name, for parameter and special parts

    def __init__(
        self,
        kind: PartKind,
        quoting: Quoting,
        span: tuple[int, int],
        value: str,
        offsets: Sequence[int],
        name: str | None = None,
    ) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "quoting", quoting)
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "offsets",
                           offsets if type(offsets) is range else compact_offsets(offsets))
        object.__setattr__(self, "name", name)

    @property
    def dynamic(self) -> bool:
        return self.kind != "literal"


class Word(FrozenRecord):
    """One shell word, cut from its layer's text at ``span``."""

    __slots__ = ("_dynamic", "_value", "parts", "raw", "span")
    span: tuple[int, int]
    raw: str
    parts: tuple[Part, ...]
    # Worked out once from the parts (asked of every word many times); not fields.
    _dynamic: ClassVar[bool]
    _value: ClassVar[str]

    def __init__(self, span: tuple[int, int], raw: str, parts: tuple[Part, ...]) -> None:
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "parts", parts)
        if len(parts) == 1:  # most words: no generator, no join
            only = parts[0]
            object.__setattr__(self, "_dynamic", only.dynamic)
            object.__setattr__(self, "_value", only.value)
        else:
            object.__setattr__(self, "_dynamic", any(p.dynamic for p in parts))
            object.__setattr__(self, "_value", "".join([p.value for p in parts]))

    @property
    def dynamic(self) -> bool:
        """True when the word's value depends on the run-time environment."""
        return self._dynamic

    @property
    def value(self) -> str:
        """The word after quote removal; expansions stay as written."""
        return self._value

    @property
    def offsets(self) -> tuple[int, ...]:
        out: list[int] = []
        for p in self.parts:
            out.extend(p.offsets)
        return tuple(out)

    @property
    def quoted(self) -> bool:
        return any(p.quoting != "none" for p in self.parts)

    def expansions(self) -> list[Part]:
        return [p for p in self.parts if p.kind in EXPANSION_KINDS]

    @property
    def literal_value(self) -> str | None:
        """The value if the word is fully static, else None."""
        return None if self.dynamic else self.value


_ANSI_SIMPLE = {
    "a": 0x07, "b": 0x08, "e": 0x1B, "E": 0x1B, "f": 0x0C, "n": 0x0A, "r": 0x0D,
    "t": 0x09, "v": 0x0B, "\\": 0x5C, "'": 0x27, '"': 0x22, "?": 0x3F,
}
_OCTAL = lazy_compile(r"[0-7]{1,3}")
_HEX2 = lazy_compile(r"[0-9A-Fa-f]{1,2}")
_HEX_ANY = lazy_compile(r"[0-9A-Fa-f]*")
_HEX4 = lazy_compile(r"[0-9A-Fa-f]{1,4}")
_HEX8 = lazy_compile(r"[0-9A-Fa-f]{1,8}")
_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A tilde-prefix the shell may expand: `~`, `~user`, and in bash `~+`, `~-`, `~+N`, `~-N`, `~N`.
_TILDE_BASH = lazy_compile(r"~(?:\+[0-9]*|[A-Za-z0-9._-]*)")
_TILDE_SH = lazy_compile(r"~[A-Za-z0-9._-]*")
# An argument that looks like an assignment: bash (not in POSIX mode) tilde-expands its value.
_ASSIGNMENT_WORD = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]'\"\\$`]*\])?\+?=")
# A word of these characters only is its own value: no quotes, escapes, expansions, tildes,
# globs or braces (segment() takes a short cut for it).
_PLAIN_WORD = lazy_compile(r"[A-Za-z0-9_./:=,+%@-]+")
# Bytes that cannot be decoded come back as lone surrogates U+DC80..U+DCFF (surrogateescape),
# the way the tests decode what a shell prints.
_ESCAPED_BYTE = lazy_compile("[\udc80-\udcff]")


def _utf8_bash(v: int) -> bytes:
    """bash's ``u32toutf8``: UTF-8 with no range checks, up to 6 bytes, nothing past 2**31."""
    if v < 0x80:
        return bytes([v])
    for limit, lead, n in ((0x800, 0xC0, 2), (0x10000, 0xE0, 3), (0x200000, 0xF0, 4),
                           (0x4000000, 0xF8, 5), (0x80000000, 0xFC, 6)):
        if v < limit:
            tail = [0x80 | ((v >> (6 * k)) & 0x3F) for k in range(n - 2, -1, -1)]
            return bytes([lead | (v >> (6 * (n - 1))), *tail])
    return b""


def _decode_bytes(chunks: list[tuple[bytes, int]]) -> tuple[str, list[int]]:
    """Decode ``(bytes, offset)`` chunks as UTF-8 (surrogateescape); byte k of a chunk stands
    at offset + k. A character's offset is the offset of its first byte."""
    data = bytearray()
    where: list[int] = []
    for chunk, off in chunks:
        data += chunk
        where.extend(off + k for k in range(len(chunk)))
    value = data.decode("utf-8", "surrogateescape")
    offs: list[int] = []
    at = 0
    for ch in value:
        offs.append(where[at])
        at += len(ch.encode("utf-8", "surrogateescape"))
    return value, offs


def _char_bytes(c: str) -> bytes:
    return c.encode("utf-8", "surrogateescape")


def decode_ansi_c(body: str, base: int) -> tuple[str, list[int]]:
    r"""Decode the inside of ``$'...'`` as bash 5.2 does (``ansicstr``); ``base`` is the body's
    offset.

    bash works on bytes: ``\xHH`` and ``\ooo`` give one byte (not a code point), ``\uHHHH``
    and ``\UHHHHHHHH`` above 0x7f give the UTF-8 bytes of the value, and a NUL byte ends the
    string (the rest of this quote is dropped). Bytes that are not UTF-8 come back as lone
    surrogates (surrogateescape). A decoded character's offset is the escape's backslash (a
    further undecodable byte of the same escape points at the escape's next characters);
    a character copied as is points at itself.
    """
    chunks: list[tuple[bytes, int]] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        start = base + i
        if c != "\\" or i + 1 >= n:
            chunks.append((_char_bytes(c), start))
            i += 1
            continue
        e = body[i + 1]
        out: bytes | None = None
        if e in _ANSI_SIMPLE:
            out, i = bytes([_ANSI_SIMPLE[e]]), i + 2
        elif e in "01234567":
            m = _OCTAL.match(body, i + 1)
            assert m
            out, i = bytes([int(m.group(), 8) & 0xFF]), m.end()
        elif e == "x" and body[i + 2:i + 3] == "{":
            # `\x{HHH...}`: any number of hex digits, the closing brace optional.
            m = _HEX_ANY.match(body, i + 3)
            assert m
            out = bytes([int(m.group() or "0", 16) & 0xFF])
            i = m.end() + (1 if body[m.end():m.end() + 1] == "}" else 0)
        elif e in "xuU":
            m = {"x": _HEX2, "u": _HEX4, "U": _HEX8}[e].match(body, i + 2)
            if m:
                v = int(m.group(), 16)
                out = bytes([v]) if e == "x" else _utf8_bash(v)
                i = m.end()
        elif e == "c" and i + 2 < n:
            # Control character: the first byte of the next character & 0x1f, `?` gives DEL.
            # `\c\\` takes both backslashes (POSIX).
            raw = _char_bytes(body[i + 2])
            ctrl = 0x7F if raw == b"?" else raw[0] & 0x1F
            if not ctrl:
                break  # `\c@`, `\c ` are NUL: the string ends
            chunks.append((bytes([ctrl]), start))
            if len(raw) > 1:
                chunks.append((raw[1:], base + i + 2))
            i += 4 if body[i + 2:i + 4] == "\\\\" else 3
            continue
        if out is None:
            # Unknown escape: the backslash stays, the next character is read normally.
            chunks.append((b"\\", start))
            i += 1
            continue
        if b"\0" in out:
            chunks.append((out[:out.index(b"\0")], start))
            break  # bash's result is a C string: a NUL ends it
        chunks.append((out, start))
    return _decode_bytes(chunks)


def _merge_escaped_bytes(parts: list[Part]) -> list[Part]:
    r"""Join undecodable bytes of adjacent parts into the characters they form together.

    ``$'\xc3'$'\xa9'`` is ``é``: bash assembles the word's bytes, so two lone bytes from
    different parts can make one UTF-8 character.
    """
    if not any(_ESCAPED_BYTE.search(p.value) for p in parts):
        return parts
    flat = [(ch, k, off) for k, p in enumerate(parts)
            for ch, off in zip(p.value, p.offsets, strict=True)]
    keep: list[tuple[str, int, int]] = []
    i = 0
    while i < len(flat):
        j = i
        while j < len(flat) and _ESCAPED_BYTE.fullmatch(flat[j][0]):
            j += 1
        if j - i < 2:
            keep.append(flat[i])
            i = max(j, i + 1)
            continue
        data = _char_bytes("".join(ch for ch, _, _ in flat[i:j]))
        value = data.decode("utf-8", "surrogateescape")
        at = i
        for ch in value:
            keep.append((ch, flat[at][1], flat[at][2]))
            at += len(_char_bytes(ch))
        i = j
    by_part: list[list[tuple[str, int]]] = [[] for _ in parts]
    for ch, owner, off in keep:
        by_part[owner].append((ch, off))
    out: list[Part] = []
    for p, mine in zip(parts, by_part, strict=True):
        value = "".join(ch for ch, _ in mine)
        if value == p.value:
            out.append(p)
        else:
            out.append(Part(p.kind, p.quoting, p.span, value, tuple(o for _, o in mine),
                            p.name))
    return out


class _Segmenter:
    def __init__(self, scan: Scan, dialect: Dialect) -> None:
        self.scan = scan
        self.text = scan.text
        self.dialect = dialect
        self.parts: list[Part] = []
        # Built once per scan: rebuilding a map of every nested script for every word made
        # segmenting a text quadratic in its number of substitutions.
        self.nested = scan.nested_starts()
        self.word_start = 0
        self.word_end = 0
        # Where tilde expansion also happens after `=` and `:` (an assignment's value).
        self.tilde_value_at: int | None = None
        self.tilde_prefix = _TILDE_SH if dialect == "sh" else _TILDE_BASH

    def begin(self, start: int, end: int, assignment_value_at: int | None) -> None:
        # Line continuations vanish before the word is read: `\<newline>~` starts with `~`.
        self.word_start = min(skip_line_continuations(self.text, start), end)
        self.word_end = end
        self.tilde_value_at = assignment_value_at
        if assignment_value_at is None and self.dialect != "sh":
            # bash tilde-expands `a=~/x` even as a plain argument (not in POSIX mode).
            m = _ASSIGNMENT_WORD.match(self.text, start, end)
            if m:
                self.tilde_value_at = m.end()

    def _literal(self, quoting: Quoting, span: tuple[int, int], chars: list[str],
                 offs: list[int]) -> None:
        self.parts.append(Part("literal", quoting, span, "".join(chars), offs))

    def _expansion(self, start: int, end: int, quoting: Quoting) -> None:
        text = self.text
        raw = text[start:end]
        offs = range(start, end)
        kind: PartKind
        name: str | None = None
        value = raw
        # Line continuations inside do not count (`$\<newline>(id)` is a command substitution);
        # the part's value stays as written.
        raw = raw.replace("\\\n", "")
        if raw.startswith("$((") or raw.startswith("$["):
            kind = "arithmetic"
        elif raw.startswith("$("):
            kind = "command"
        elif raw.startswith("`"):
            kind = "backtick"
        elif raw.startswith(("<(", ">(")):
            kind = "process"
        elif raw.startswith("${"):
            inner = raw[2:-1]
            # `${#}` and `${!}` are the special parameters # and !; `${#x}`/`${!x}` are the
            # length/indirection of x; `${10}` is positional parameter 10 (all its digits).
            body = inner[1:] if inner[:1] in "#!" and len(inner) > 1 else inner
            m = _NAME.match(body)
            digits = re.match(r"[0-9]+", body)
            if m:
                name = m.group()
                kind = "parameter"
            elif digits:
                name = digits.group()
                kind = "special"
            else:
                name = body[:1] or None
                kind = "special"
        elif len(raw) == 2 and raw[1] in SPECIAL_PARAMETERS:
            kind = "special"
            name = raw[1]
        else:
            kind = "parameter"
            name = raw[1:]
        self.parts.append(Part(kind, quoting, (start, end), value, offs, name))

    def _dollar_end(self, i: int) -> int:
        return self.scan.ends.get(i, i + 1)

    # -- contexts ---------------------------------------------------------------------------

    def unquoted(self, start: int, end: int) -> None:
        text = self.text
        i = start
        run_chars: list[str] = []
        run_offs: list[int] = []

        def flush(at: int) -> None:
            if run_chars:
                self._unquoted_run(at, run_chars, run_offs)
                run_chars.clear()
                run_offs.clear()

        while i < end:
            c = text[i]
            if c == "\\" and i + 1 < end and text[i + 1] == "\n":
                # A line continuation is nothing and does not end the run (`~\<newline>/` is `~/`).
                i += 2
                continue
            if c == "\\":
                flush(i)
                if i + 1 < end:
                    self._literal("escape", (i, i + 2), [text[i + 1]], [i + 1])
                    i += 2
                else:
                    # A trailing lone backslash is kept literally.
                    self._literal("none", (i, i + 1), ["\\"], [i])
                    i += 1
                continue
            if c == "'":
                flush(i)
                close = self.scan.ends.get(i, end)
                close = min(close, end)
                body_end = close - 1 if close > i + 1 and text[close - 1] == "'" else close
                self._literal("single", (i, close), list(text[i + 1:body_end]),
                              list(range(i + 1, body_end)))
                i = close
                continue
            if c == '"':
                flush(i)
                close = min(self.scan.ends.get(i, end), end)
                self.double(i + 1, close - 1 if text[close - 1:close] == '"' and close > i + 1
                            else close, "double", (i, close))
                i = close
                continue
            q = skip_line_continuations(text, i + 1) if c == "$" else i + 1
            if c == "$" and q < end and text[q] == "'" and self.dialect != "sh":
                flush(i)
                close = min(self.scan.ends.get(i, end), end)
                body_end = close - 1 if text[close - 1:close] == "'" and close > q + 1 else close
                value, offs = decode_ansi_c(text[q + 1:body_end], q + 1)
                self.parts.append(
                    Part("literal", "ansi_c", (i, close), value, offs)
                )
                i = close
                continue
            if c == "$" and q < end and text[q] == '"' and self.dialect != "sh":
                flush(i)
                close = min(self.scan.ends.get(i, end), end)
                self.double(q + 1, close - 1 if text[close - 1:close] == '"' and close > q + 1
                            else close, "locale", (i, close))
                i = close
                continue
            if c == "$":
                stop = min(self._dollar_end(i), end)
                if stop == i + 1:
                    run_chars.append("$")
                    run_offs.append(i)
                    i += 1
                    continue
                flush(i)
                self._expansion(i, stop, "none")
                i = stop
                continue
            if c == "`" or (c in "<>" and i + 1 < end and text[i + 1] == "("
                            and i in self.nested):
                flush(i)
                stop = min(self.scan.ends.get(i, end), end)
                self._expansion(i, stop, "none")
                i = stop
                continue
            if c == "(" and i in self.scan.ends:
                # An array assignment's value list: kept as written, its value is structural.
                flush(i)
                stop = min(self.scan.ends[i], end)
                self.parts.append(
                    Part("literal", "none", (i, stop), text[i:stop], range(i, stop))
                )
                i = stop
                continue
            run_chars.append(c)
            run_offs.append(i)
            i += 1
        flush(end)

    def _unquoted_run(self, run_end: int, chars: list[str], offs: list[int]) -> None:
        """Split an unquoted literal run into literal and tilde parts.

        Globs and brace expansions can span quoted parts (`[a"b"]`, `{a,'b c'}`), so they are
        found on the whole word afterwards (``glob_regions``, ``brace_region``).
        """
        s = "".join(chars)
        pieces: list[tuple[PartKind, int, int]] = []  # (kind, index in s, end index in s)
        i = 0
        lit_from = 0
        n = len(s)
        value_at = self.tilde_value_at
        while i < n:
            at = offs[i]
            tilde_ok = at == self.word_start or (
                value_at is not None and (at == value_at or (i > 0 and s[i - 1] == ":"))
            )
            if s[i] == "~" and tilde_ok:
                m = self.tilde_prefix.match(s, i)
                assert m
                stop = m.end()
                # The tilde-prefix runs to the first unquoted `/` (`:` too in an assignment) or
                # the end of the word; any quoting before that prevents the expansion (`~''`,
                # `~\x`, and in bash even `~:'x'`).
                ends = "/" if value_at is None else "/:"
                k = i
                while k < n and s[k] not in ends:
                    k += 1
                quote_free = k < n or run_end == self.word_end
                # The user name ends there; bash also ends it at `:` and `=~` (`~:x`, `~=~`).
                named = stop == n or s[stop] in ends or (
                    self.dialect != "sh" and (s[stop] == ":" or s.startswith("=~", stop))
                )
                if quote_free and named:
                    pieces.append(("literal", lit_from, i))
                    pieces.append(("tilde", i, stop))
                    i = lit_from = stop
                    continue
            i += 1
        pieces.append(("literal", lit_from, n))
        for kind, a, b in pieces:
            if a >= b:
                continue
            span = (offs[a], offs[b - 1] + 1)
            self.parts.append(Part(kind, "none", span, s[a:b], offs[a:b]))

    # -- word-level expansions ----------------------------------------------------------------

    def glob_regions(self) -> list[tuple[PartKind, int, int]]:
        """Pathname patterns, as bash's ``unquoted_glob_pattern_p`` finds them.

        An unquoted `*` or `?`, or an unquoted `[` closed by a later unquoted `]` with no
        unquoted `/` between them; quoted characters inside the brackets still belong to the
        pattern (`[a"b"]` matches a or b).
        """
        regions: list[tuple[PartKind, int, int]] = []
        open_at: int | None = None
        for p in self.parts:
            if p.kind != "literal" or p.quoting != "none":
                continue
            for ch, off in zip(p.value, p.offsets, strict=True):
                if ch in "*?":
                    regions.append(("glob", off, off + 1))
                elif ch == "[":
                    open_at = off if open_at is None else open_at
                elif ch == "]" and open_at is not None:
                    regions.append(("glob", open_at, off + 1))
                    open_at = None
                elif ch == "/":
                    open_at = None
        return regions

    def _skip(self, i: int, end: int) -> int:
        """Past a quoted string or expansion starting at ``i`` (brace expansion ignores them)."""
        text = self.text
        c = text[i]
        nxt = text[_past_continuations(text, i + 1, end)] if i + 1 < end else ""
        if c == "\\":
            return i + 2
        if c in "'\"`" or (c == "$" and nxt in "'\"({") or (c in "<>" and nxt == "("):
            return max(min(self.scan.ends.get(i, i + 1), end), i + 1)
        return i + 1

    def _gobble(self, i: int, end: int, satisfy: str, base: int) -> int:
        """bash's ``brace_gobbler``: the index of ``satisfy`` at brace level 0, or -1.

        Looking for `}`, it only counts if an unquoted `,` or `..` came first at level 0.
        """
        text = self.text
        level = 0
        commas = 0 if satisfy == "}" else 1
        while i < end:
            c = text[i]
            nxt = text[_past_continuations(text, i + 1, end)] if i + 1 < end else ""
            if c == "\\" or c in "'\"`" or (c in "$<>" and i + 1 < end and (
                    nxt == "(" or (c == "$" and nxt in "'\"{"))):
                i = self._skip(i, end)
                continue
            if c == satisfy and level == 0 and commas > 0:
                # `{` with blanks or a `}` right after it (`{}` for find) is not an opening.
                if c == "{" and (i == base or text[i - 1] in " \t\n") and (
                    i + 1 >= end or text[i + 1] in " \t\n}"
                ):
                    i += 1
                    continue
                return i
            if c == "{":
                level += 1
            elif c == "}" and level:
                level -= 1
            elif satisfy == "}" and level == 0 and (
                c == "," or (text.startswith("..", i) and text[i + 2:i + 3] != "}")
            ):
                commas += 1
            i += 1
        return -1

    def brace_region(self, start: int, end: int) -> tuple[int, int] | None:
        """The first brace expression bash's ``brace_expand`` really expands, if any."""
        text = self.text
        word = text[start:end]
        if "}" not in word or ("," not in word and ".." not in word):
            return None
        base = start
        tries = 0
        while base < end:
            i = base
            while True:
                i = self._gobble(i, end, "{", base)
                if i < 0:
                    return None
                tries += 1
                if tries > _BRACE_TRIES:
                    # Each try scans the rest of the word: on a word made of hundreds of `{`
                    # give up (quadratic, like bash) and call the rest a brace expansion.
                    return (i, end)
                close = self._gobble(i + 1, end, "}", base)
                if close >= 0:
                    break
                i += 1
            amble = text[i + 1:close]
            # Line continuations are gone before braces are expanded: `{1..\<newline>3}`.
            if _has_unescaped_comma(amble) or _brace_sequence(amble.replace("\\\n", "")):
                return (i, close + 1)
            base = close + 1  # `{x}` stays as written; braces after it may still expand
        return None

    def double(self, start: int, end: int, quoting: Quoting, span: tuple[int, int]) -> None:
        """The inside of double quotes (``start``..``end``); ``span`` includes the quotes."""
        text = self.text
        chars: list[str] = []
        offs: list[int] = []
        seg_start = span[0]
        emitted = False

        def flush(at: int, force: bool = False) -> None:
            nonlocal seg_start, emitted
            if chars or force:
                self._literal(quoting, (seg_start, at), chars[:], offs[:])
                chars.clear()
                offs.clear()
                emitted = True
            seg_start = at

        i = start
        while i < end:
            c = text[i]
            if c == "\\" and i + 1 < end:
                e = text[i + 1]
                if e == "\n":
                    i += 2
                    continue
                if e in '$`"\\':
                    chars.append(e)
                    offs.append(i + 1)
                    i += 2
                    continue
                chars.append("\\")
                offs.append(i)
                i += 1
                continue
            if c == "$":
                stop = min(self._dollar_end(i), end)
                if stop == i + 1:
                    chars.append("$")
                    offs.append(i)
                    i += 1
                    continue
                flush(i)
                self._expansion(i, stop, quoting)
                emitted = True
                i = seg_start = stop
                continue
            if c == "`":
                flush(i)
                stop = min(self.scan.ends.get(i, end), end)
                self._expansion(i, stop, quoting)
                emitted = True
                i = seg_start = stop
                continue
            chars.append(c)
            offs.append(i)
            i += 1
        # `""` is an empty argument, not nothing: keep an empty literal part.
        flush(span[1], force=not emitted)

    def heredoc_body(self, start: int, end: int) -> None:
        """An unquoted heredoc body: like double quotes, but `"` is an ordinary character."""
        text = self.text
        chars: list[str] = []
        offs: list[int] = []
        seg_start = start

        def flush(at: int) -> None:
            nonlocal seg_start
            if chars:
                self._literal("heredoc", (seg_start, at), chars[:], offs[:])
                chars.clear()
                offs.clear()
            seg_start = at

        i = start
        while i < end:
            c = text[i]
            if c == "\\" and i + 1 < end and text[i + 1] in "$`\\\n":
                if text[i + 1] != "\n":
                    chars.append(text[i + 1])
                    offs.append(i + 1)
                i += 2
                continue
            if c == "$":
                stop = min(self._dollar_end(i), end)
                if stop > i + 1:
                    flush(i)
                    self._expansion(i, stop, "heredoc")
                    i = seg_start = stop
                    continue
            if c == "`":
                flush(i)
                stop = min(self.scan.ends.get(i, end), end)
                self._expansion(i, stop, "heredoc")
                i = seg_start = stop
                continue
            chars.append(c)
            offs.append(i)
            i += 1
        flush(end)


def segment(
    scan: Scan,
    start: int,
    end: int,
    dialect: Dialect | None = None,
    *,
    assignment_value_at: int | None = None,
) -> Word:
    """Segment the word ``scan.text[start:end]``.

    ``assignment_value_at`` is the offset where an assignment's value begins: tilde expansion
    then also happens after ``=`` and ``:``, and no globbing or brace expansion applies.
    """
    if _PLAIN_WORD.fullmatch(scan.text, start, end):
        # Most words: one unquoted literal with nothing to expand, remove or match.
        raw = scan.text[start:end]
        span = (start, end)
        return Word(span, raw, (Part("literal", "none", span, raw, range(start, end)),))
    seg = _Segmenter(scan, dialect or scan.dialect)
    seg.begin(start, end, assignment_value_at)
    seg.unquoted(start, end)
    parts = seg.parts
    if assignment_value_at is None:
        regions = seg.glob_regions()
        if seg.dialect != "sh":
            brace = seg.brace_region(start, end)
            if brace is not None:
                regions.append(("brace", *brace))
        parts = _mark_regions(parts, regions)
    merged = tuple(_merge_escaped_bytes(parts))
    span, raw = (start, end), scan.text[start:end]
    if len(merged) == 1:  # most words: share the part's span and value (a trace holds them all)
        only = merged[0]
        span = only.span if only.span == span else span
        raw = only.value if only.value == raw else raw
    return Word(span, raw, merged)


def _mark_regions(parts: list[Part], regions: list[tuple[PartKind, int, int]]) -> list[Part]:
    """Split literal parts so the characters inside a glob or brace region get its kind."""
    if not regions:
        return parts
    kinds: dict[int, PartKind] = {}
    for kind, lo, hi in regions:
        for off in range(lo, hi):
            kinds.setdefault(off, kind)

    out: list[Part] = []
    for p in parts:
        if p.kind != "literal" or not p.value:
            out.append(p)
            continue
        groups: list[tuple[PartKind, list[int]]] = []
        for idx, off in enumerate(p.offsets):
            kind = kinds.get(off, "literal")
            if groups and groups[-1][0] == kind:
                groups[-1][1].append(idx)
            else:
                groups.append((kind, [idx]))
        if len(groups) == 1 and groups[0][0] == "literal":
            out.append(p)
            continue
        for g, (kind, idxs) in enumerate(groups):
            lo = p.span[0] if g == 0 else p.offsets[idxs[0]]
            hi = p.span[1] if g == len(groups) - 1 else p.offsets[groups[g + 1][1][0]]
            out.append(Part(kind, p.quoting, (lo, hi), "".join(p.value[x] for x in idxs),
                            tuple(p.offsets[x] for x in idxs)))
    return out


def _has_unescaped_comma(amble: str) -> bool:
    # bash looks for the comma skipping backslash escapes only (not quotes).
    k = 0
    while k < len(amble):
        if amble[k] == "\\":
            k += 2
            continue
        if amble[k] == ",":
            return True
        k += 1
    return False


_INT64_MIN, _INT64_MAX, _INT_MAX = -(2**63), 2**63 - 1, 2**31 - 1
_BRACE_TRIES = 64
_LEGAL_NUMBER = lazy_compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t]*")
_SEQ_INT_END = lazy_compile(r"[+-]?[0-9]+")
_SEQ_INCR = lazy_compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")


def _past_continuations(text: str, i: int, end: int) -> int:
    """``i``, or past the line continuations there: `$\\<newline>'x'` is `$'x'` to bash."""
    while text.startswith("\\\n", i) and i + 2 < end:
        i += 2
    return min(i, end - 1)


def _brace_sequence(amble: str) -> bool:
    """Whether ``{amble}`` is a sequence bash expands (``expand_seqterm`` and ``mkseq``)."""
    k = amble.find("..")
    if k < 0:
        return False
    lhs, rhs = amble[:k], amble[k + 2:]
    if not lhs or not rhs:
        return False
    lhs_int = _LEGAL_NUMBER.fullmatch(lhs)
    lhs_char = len(lhs) == 1 and lhs.isascii() and lhs.isalpha()
    rest: str
    m = _SEQ_INT_END.match(rhs)
    if m and (rhs[0].isdigit() or rhs[1:2].isdigit()):
        rhs_int, rest = True, rhs[m.end():]
        end_v = int(m.group())
    elif rhs[0].isascii() and rhs[0].isalpha() and rhs[1:2] in ("", "."):
        rhs_int, rest = False, rhs[1:]
        end_v = ord(rhs[0])
    else:
        return False
    incr = 1
    if rest.startswith("..") and len(rest) > 2:
        m = _SEQ_INCR.fullmatch(rest[2:])
        if not m:
            return False
        incr = int(m.group())
        rest = ""
    if rest or not (lhs_int if rhs_int else lhs_char):
        return False
    start_v = int(lhs) if rhs_int else ord(lhs)
    if any(not _INT64_MIN <= v <= _INT64_MAX for v in (start_v, end_v, incr)):
        return False
    # mkseq gives up (and the braces stay) when the sequence would be too long.
    incr = incr or 1
    if start_v < end_v and incr == _INT64_MIN:
        return False
    if not _INT64_MIN + 3 <= end_v - start_v <= _INT64_MAX - 2:
        return False
    return abs(end_v - start_v) // abs(incr) <= _INT_MAX - 3


def heredoc_body(scan: Scan, start: int, end: int, quoted: bool, strip_tabs: bool) -> Word:
    """The text a heredoc delivers on stdin, as a word (expansions marked when unquoted)."""
    text = scan.text
    if quoted:
        chars: list[str] = []
        offs: list[int] = []
        for i in range(start, end):
            chars.append(text[i])
            offs.append(i)
        parts: tuple[Part, ...] = (
            Part("literal", "heredoc", (start, end), "".join(chars), offs),
        )
    else:
        seg = _Segmenter(scan, scan.dialect)
        seg.heredoc_body(start, end)
        parts = tuple(seg.parts)
    if strip_tabs:
        parts = tuple(_strip_leading_tabs(parts))
    return Word((start, end), text[start:end], parts)


def _strip_leading_tabs(parts: tuple[Part, ...]) -> list[Part]:
    """``<<-``: drop tab characters at the start of every body line (literal text only)."""
    out: list[Part] = []
    at_line_start = True
    for p in parts:
        if p.kind != "literal":
            out.append(p)
            at_line_start = False
            continue
        chars: list[str] = []
        offs: list[int] = []
        for ch, off in zip(p.value, p.offsets, strict=True):
            if ch == "\t" and at_line_start:
                continue
            at_line_start = ch == "\n"
            chars.append(ch)
            offs.append(off)
        out.append(Part(p.kind, p.quoting, p.span, "".join(chars), offs, p.name))
    return out


def backtick_script(text: str, inner: tuple[int, int]) -> tuple[str, list[int]]:
    """The script inside backticks after the shell's backslash processing, with offsets.

    Inside backquotes a backslash keeps its literal meaning except before ``$``, `` ` `` and
    ``\\`` (POSIX 2.6.3), where it is removed before the contents are parsed.
    """
    out: list[str] = []
    offs: list[int] = []
    i, end = inner
    while i < end:
        c = text[i]
        if c == "\\" and i + 1 < end and text[i + 1] in "$`\\":
            out.append(text[i + 1])
            offs.append(i + 1)
            i += 2
            continue
        out.append(c)
        offs.append(i)
        i += 1
    return "".join(out), offs
