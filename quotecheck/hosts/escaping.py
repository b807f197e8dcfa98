"""A fix of shell text, written into a host file: the host's own escaping put in.

A rule's edit replaces characters of a layer's text, placed in the host file by the layer's
source map. In a host file those characters sit inside the host's own syntax: a Python string
literal (where `"` and `\\` need a backslash), a make recipe (where `$` is `$$`), a crontab
command (where `%` is `\\%`). An edit is written only where it stays inside one such piece of
text and its replacement can be spelled there; anything else (an edit reaching across a Python
list's items, into a make reference, a systemd line's own quoting) is not offered.
"""

from __future__ import annotations

import io
import tokenize
from bisect import bisect_right
from functools import lru_cache

from quotecheck.diagnostics import Edit
from quotecheck.hosts.model import HostFile


def host_edit(host: HostFile, source: str, edit: Edit) -> Edit | None:
    """``edit`` with its text spelled for the host file, or None where it cannot be."""
    format = host.format
    a, b = edit.span
    if "\n" in edit.text or "\n" in source[a:b]:
        return None
    if format == "python":
        return _python(source, edit)
    if format == "make":
        if not _whole_dollar_pairs(source, a, b) or any(
                (r.span[0] < b and a < r.span[1]) or r.span[0] < a < r.span[1]
                for r in host.references):
            return None  # it would cut into a make reference
        return Edit(edit.span, edit.text.replace("$", "$$"))
    if format == "crontab":
        if "%" in source[a:b]:
            return None
        return Edit(edit.span, edit.text.replace("%", "\\%"))
    if format == "dockerfile":
        return edit
    return None  # systemd: its own quoting and specifiers, not written here


def _whole_dollar_pairs(source: str, a: int, b: int) -> bool:
    """Every `$` in ``source[a:b]`` is one of a `$$` pair that lies wholly inside."""
    i = a
    while i < b:
        if source[i] == "$":
            if i + 1 >= b or source[i + 1] != "$":
                return False
            i += 2
            continue
        i += 1
    # (and the span does not start in the middle of a pair)
    return not (a > 0 and source[a - 1] == "$" and _odd_dollars_before(source, a))


def _odd_dollars_before(source: str, at: int) -> bool:
    n = 0
    while at - n - 1 >= 0 and source[at - n - 1] == "$":
        n += 1
    return n % 2 == 1


@lru_cache(maxsize=8)
def _strings(source: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, spelling) of every string literal token of a Python source."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out: list[tuple[int, int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.STRING:
                start = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                out.append((start, end, tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return ()
    return tuple(out)


def _python(source: str, edit: Edit) -> Edit | None:
    a, b = edit.span
    strings = _strings(source)
    k = bisect_right([s for s, _, _ in strings], a) - 1
    if k < 0:
        return None
    start, end, spelled = strings[k]
    prefix = ""
    while prefix.__len__() < len(spelled) and spelled[len(prefix)].isalpha():
        prefix += spelled[len(prefix)]
    rest = spelled[len(prefix):]
    quote = rest[:3] if rest[:3] in ('"""', "'''") else rest[:1]
    body_start, body_end = start + len(prefix) + len(quote), end - len(quote)
    if not (body_start <= a <= b <= body_end):
        return None
    if _odd_backslashes_before(source, a, body_start):
        return None  # it would split an escape sequence
    flags = prefix.lower()
    text = edit.text
    if "r" in flags:
        if "\\" in text or quote[0] in text:
            return None
    else:
        text = text.replace("\\", "\\\\").replace(quote[0], "\\" + quote[0])
    if "f" in flags:
        text = text.replace("{", "{{").replace("}", "}}")
    return Edit(edit.span, text)


def _odd_backslashes_before(source: str, at: int, floor: int) -> bool:
    n = 0
    while at - n - 1 >= floor and source[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1
