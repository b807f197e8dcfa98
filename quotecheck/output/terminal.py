"""Text from the input, made safe to print and measured in terminal columns.

Anything quotecheck prints may quote the input: a source line, a value in a message, a file
name, an ssh destination. Printed raw, an escape sequence in a comment retitles the terminal or
hides text, and a line that starts with ``::`` is a workflow command to a GitHub Actions runner.
Every text format passes such text through :func:`printable` (the JSON formats write the same
characters, :data:`ESCAPED_RANGES`, as JSON escapes), and the text formats measure it with
:func:`width` so that a caret stays under the characters it points at.
"""

from __future__ import annotations

import unicodedata

from quotecheck.lazy_regex import lazy_compile

# What is never written raw, as inclusive ranges of code points: the C0 controls, DEL and the
# C1 controls; characters that change how a terminal or an editor shows the rest of the line
# without being shown themselves (the Unicode bidirectional controls of "Trojan Source", the
# line and paragraph separators, zero-width and byte-order marks); lone surrogates (from
# undecodable file names). The text formats write them as visible escapes, the JSON formats
# as \uXXXX escapes (output/json_text.py).
ESCAPED_RANGES: tuple[tuple[int, int], ...] = (
    (0x00, 0x1f), (0x7f, 0x9f), (0x061c, 0x061c), (0x200b, 0x200b), (0x200e, 0x200f),
    (0x2028, 0x202e), (0x2066, 0x2069), (0xd800, 0xdfff), (0xfeff, 0xfeff))


def char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regular expression character class of ``ranges`` of code points."""
    return "[" + "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges) + "]"


_ESCAPED = lazy_compile(char_class(ESCAPED_RANGES))
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\x1b": "\\e"}
TAB_STOP = 8


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def needs_escape(ch: str) -> bool:
    return _ESCAPED.match(ch) is not None


def printable(text: str, *, keep_tabs: bool = False) -> str:
    """``text`` with every control character, escape sequence introducer and invisible
    direction mark written as a visible escape (``\\e``, ``\\n``, ``\\x07``, ``\\u202e``)."""
    if _ESCAPED.search(text) is None:
        return text
    return _ESCAPED.sub(lambda m: m[0] if keep_tabs and m[0] == "\t" else _escape(m[0]), text)


def char_width(ch: str) -> int:
    """Terminal columns of one printable character: 2 for East Asian wide and full-width
    characters (CJK, most emoji), 0 for combining marks and zero-width joiners, else 1."""
    if ord(ch) < 0x300:
        return 1
    if unicodedata.combining(ch) or ch in "\u200d\u20e3\ufe0e\ufe0f":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def expand_tabs(text: str, start_column: int = 0) -> str:
    """Tabs replaced by spaces up to the next stop of :data:`TAB_STOP` columns."""
    if "\t" not in text:
        return text
    out: list[str] = []
    column = start_column
    for ch in text:
        if ch == "\t":
            pad = TAB_STOP - column % TAB_STOP
            out.append(" " * pad)
            column += pad
        else:
            out.append(ch)
            column += char_width(ch)
    return "".join(out)


def width(text: str) -> int:
    """Columns ``text`` takes on a terminal (no tabs or controls: pass it through
    :func:`printable` or :func:`expand_tabs` first)."""
    if text.isascii():
        return len(text)
    return sum(char_width(ch) for ch in text)


def ci_safe(line: str) -> str:
    """A line that a CI log reader cannot take for a command: GitHub Actions runs lines that
    start with ``::`` (after blanks) and ``##[...]`` markers anywhere."""
    stripped = line.lstrip()
    if stripped.startswith("::"):
        cut = len(line) - len(stripped)
        line = f"{line[:cut]}:\\:{stripped[2:]}"
    if "##[" in line:
        line = line.replace("##[", "#\\#[")
    return line
