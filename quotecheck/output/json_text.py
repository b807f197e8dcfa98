"""JSON as every JSON format writes it: what :mod:`json` writes, with the characters that the
text formats escape (:data:`~quotecheck.output.terminal.ESCAPED_RANGES`: direction marks,
invisible characters, DEL and C1 controls, lone surrogates) as ``\\uXXXX`` escapes too.

A JSON reader decodes the escapes back, so every string is the same; a consumer that shows a
string as it comes (an editor's problem list, a code scanning page, a log) shows no raw mark.
"""

from __future__ import annotations

import json
import re
from typing import Any

from quotecheck.lazy_regex import lazy_compile
from quotecheck.output.terminal import ESCAPED_RANGES, char_class

# json writes a C0 control in a string as an escape itself, and the line breaks that indent
# adds are C0 too: that range is left out. Outside its strings JSON text is ASCII, so each of
# the others is in a string and can be replaced in the serialised text.
_LEFT_RAW = lazy_compile(char_class(tuple((max(a, 0x20), b) for a, b in ESCAPED_RANGES
                                          if b >= 0x20)))


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def dumps(value: Any, *, indent: int | None = None, ensure_ascii: bool = False) -> str:
    """``json.dumps(value)`` with none of the escaped characters raw."""
    return _LEFT_RAW.sub(_escape, json.dumps(value, ensure_ascii=ensure_ascii, indent=indent))
