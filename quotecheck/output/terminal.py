"""Text from the input, made safe to print and measured in terminal columns.

Anything quotecheck prints may quote the input: a source line, a value in a message, a file
name, an ssh destination. Printed raw, an escape sequence in a comment retitles the terminal or
hides text, and a line that starts with ``::`` is a workflow command to a GitHub Actions runner.
Every output format passes such text through :func:`printable`, and the text formats measure it
with :func:`width` so that a caret stays under the characters it points at.
"""

from __future__ import annotations

import unicodedata

# Characters that change how a terminal shows the rest of the line without being shown
# themselves: the Unicode bidirectional controls ("Trojan Source") and a few invisible ones.
_INVISIBLE = frozenset(
    "\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\x1b": "\\e"}
TAB_STOP = 8


def _escape(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def needs_escape(ch: str) -> bool:
    code = ord(ch)
    return (code < 0x20 or 0x7f <= code < 0xa0 or ch in _INVISIBLE
            or 0xd800 <= code < 0xe000)  # lone surrogates (from undecodable file names)


def printable(text: str, *, keep_tabs: bool = False) -> str:
    """``text`` with every control character, escape sequence introducer and invisible
    direction mark written as a visible escape (``\\e``, ``\\n``, ``\\x07``, ``\\u202e``)."""
    if text.isprintable() and not any(ch in _INVISIBLE for ch in text):
        return text
    return "".join(_escape(ch) if needs_escape(ch) and not (keep_tabs and ch == "\t") else ch
                   for ch in text)


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
