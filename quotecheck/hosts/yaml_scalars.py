"""YAML scalars with their characters placed in the file: the layer below a YAML host file.

PyYAML (``yaml.compose``) gives each scalar its value, its style and where it starts and ends
in the text; this module says where each character of the value came from, reading the text
again by YAML's rules for each style: line folding, blank lines, `''` in single quotes, the
escapes of double quotes (placed at their backslash), block indentation and chomping. The
value is always PyYAML's own: where this reading gives another (an explicit block indentation,
a form not handled), each character is matched to the next equal one of the source instead.
"""

from __future__ import annotations

from typing import Any

from quotecheck.hosts.model import HostFile, HostText
from quotecheck.parsing.scanner import Problem


def compose_documents(source: str, format: str) -> list[Any] | HostFile:
    """The node trees of the YAML documents of ``source``, or, where the YAML does not parse,
    a HostFile of ``format`` that says where and reads nothing."""
    try:
        import yaml  # type: ignore[import-untyped]  # (PyYAML: only for YAML host files)

        # libyaml's parser where PyYAML has it: the same nodes and marks (a plain scalar's
        # style is '' there, None in Python), seven times faster on a 1,000-line workflow
        loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
        documents = list(yaml.compose_all(source, Loader=loader))
        if loader is not yaml.SafeLoader:
            for node in scalar_nodes(documents):
                if node.style == "":
                    node.style = None
        return documents
    except Exception as exc:  # a YAML error of any kind (and RecursionError on deep nesting)
        mark = getattr(exc, "problem_mark", None)
        at = min(getattr(mark, "index", 0) or 0, len(source))
        return HostFile(format, (), (Problem(
            "QC002", at, min(at + 1, len(source)),
            f"the YAML does not parse ({str(exc).splitlines()[0][:120]}): its commands are "
            "not analysed"),))


def scalar_text(source: str, node: Any) -> HostText:
    """``node`` (a yaml ScalarNode) as a HostText placed in ``source``."""
    tokens = scalar_tokens(source, node)
    if tokens is not None:
        return HostText(node.value, [t[1] for t in tokens])
    return HostText(node.value, _aligned(source, node.start_mark.index, node.end_mark.index,
                                         node.value))


# A character of a scalar's value: the character, and the span of the file it is read from
# (an escape `\"` for `"`, a folded line break (with the blanks around it) for a space).
Token = tuple[str, int, int]

# YAML 1.1's one-character escapes in a double-quoted scalar (as PyYAML reads them).
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n",
            "v": "\v", "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/",
            "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}


def scalar_tokens(source: str, node: Any) -> list[Token] | None:
    """Each character of the scalar ``node``'s value with the span of ``source`` it is read
    from, following YAML's folding, escapes and chomping; None where the reading here does not
    give PyYAML's own value (which is then the one trusted)."""
    start: int = node.start_mark.index
    end: int = node.end_mark.index
    style = node.style
    tokens: list[Token] | None
    if style in ("|", ">"):
        tokens = None
        for indent in _block_indents(source, start):
            tokens = _block(source, start, end, folded=style == ">", indent=indent)
            if tokens is not None and "".join(t[0] for t in tokens) == node.value:
                break
    elif style in ("'", '"'):
        if end - start < 2 or source[start] != style or source[end - 1] != style:
            return None
        tokens = _flow(source, start + 1, end - 1, style)
    else:
        tokens = _flow(source, start, end, "")
    if tokens is None or "".join(t[0] for t in tokens) != node.value:
        return None
    return tokens


def _line_break(source: str, i: int) -> tuple[str, int] | None:
    """The value of a line break at ``i`` and its length (a CRLF is one `\\n`)."""
    if source.startswith("\r\n", i):
        return "\n", 2
    c = source[i] if i < len(source) else ""
    if c and c in "\r\n\x85":
        return "\n", 1
    if c and c in "\u2028\u2029":
        return c, 1
    return None


def _empty_lines(source: str, i: int, end: int, out: list[Token]) -> int:
    """After a line break of a flow scalar: the blank lines that follow, each kept as a line
    break; returns where the next line's text starts."""
    while True:
        j = i
        while j < end and source[j] in " \t":
            j += 1
        found = _line_break(source, j) if j < end else None
        if found is None:
            return j
        out.append((found[0], j, j + found[1]))
        i = j + found[1]


def _flow(source: str, a: int, b: int, quote: str) -> list[Token] | None:
    """The characters of a plain (``quote`` empty) or quoted scalar written in ``[a, b)``."""
    out: list[Token] = []
    i = a
    while i < b:
        c = source[i]
        if quote == "'" and source.startswith("''", i):
            out.append(("'", i, i + 2))
            i += 2
        elif quote == '"' and c == "\\":
            if i + 1 >= b:
                return None
            after = source[i + 1]
            if after in _ESCAPES:
                out.append((_ESCAPES[after], i, i + 2))
                i += 2
            elif after in _HEX_DIGITS:
                digits = source[i + 2:i + 2 + _HEX_DIGITS[after]]
                try:
                    out.append((chr(int(digits, 16)), i, i + 2 + len(digits)))
                except ValueError:
                    return None
                i += 2 + len(digits)
            else:
                found = _line_break(source, i + 1)
                if found is None:
                    return None
                # an escaped line break: no space, the next line's indentation dropped
                i = _empty_lines(source, i + 1 + found[1], b, out)
        elif c in " \t":
            j = i
            while j < b and source[j] in " \t":
                j += 1
            if j < b and _line_break(source, j) is not None:
                i = j  # blanks at the end of a line are not part of the value
            else:
                out.extend((source[k], k, k + 1) for k in range(i, j))
                i = j
        elif (found := _line_break(source, i)) is not None:
            breaks: list[Token] = []
            j = _empty_lines(source, i + found[1], b, breaks)
            if found[0] != "\n":
                out.append((found[0], i, i + found[1]))
            elif not breaks:
                out.append((" ", i, j))  # folded: one line break reads as a space
            out.extend(breaks)
            i = j
        else:
            out.append((c, i, i + 1))
            i += 1
    return out


def _block_indents(source: str, start: int) -> list[int | None]:
    """The indentations a block scalar whose indicator is at ``start`` may have: found from
    its first line (None), or with an explicit indentation indicator, that many columns more
    than the collection holding it, which starts at the line's indentation or after one of
    its `- ` sequence entries."""
    i = start + 1
    while i < len(source) and source[i] in "+-" and not source[i + 1:i + 2].isdigit():
        i += 1
    digit = source[i:i + 1]
    if not digit.isdigit() or digit == "0":
        return [None]
    line_start = source.rfind("\n", 0, start) + 1
    col = line_start
    while col < start and source[col] == " ":
        col += 1
    bases = [col - line_start]
    while source.startswith("-", col) and source[col + 1:col + 2] in (" ", "\t"):
        col += 1
        while col < start and source[col] in " \t":
            col += 1
        bases.append(col - line_start)
    return [base + int(digit) for base in bases]


def _block(source: str, start: int, end: int, *, folded: bool,
           indent: int | None = None) -> list[Token] | None:
    """The characters of a literal (`|`) or folded (`>`) block scalar whose indicator is at
    ``start``, indented by ``indent`` columns (None: as its first line that is not blank)."""
    i = start + 1
    chomping = ""
    while i < end and source[i] in "+-0123456789":
        if not source[i].isdigit():
            chomping = source[i]
        i += 1
    while i < end and _line_break(source, i) is None:
        i += 1  # blanks and a comment after the indicator
    if i >= end:
        return None
    lines: list[tuple[int, int, tuple[str, int] | None]] = []  # (start, text end, break)
    i += _line_break(source, i)[1]  # type: ignore[index]
    while i < end:
        j = i
        while j < len(source) and _line_break(source, j) is None:
            j += 1
        lines.append((i, j, _line_break(source, j)))
        i = j + (lines[-1][2] or ("", 1))[1]
    if indent is None:
        indent = 0
        for line_start, text_end, _ in lines:
            text = source[line_start:text_end]
            if text.strip(" "):
                indent = max(indent, len(text) - len(text.lstrip(" ")))
                break
            indent = max(indent, len(text))
    if indent == 0:
        return None

    def is_blank(k: int) -> bool:
        s, e, _ = lines[k]
        return e - s <= indent and not source[s:e].strip(" ")

    def line_end(k: int) -> Token | None:
        _, e, brk = lines[k]
        return None if brk is None else (brk[0], e, e + brk[1])

    out: list[Token] = []
    k = 0
    blanks: list[Token] = []
    while k < len(lines) and is_blank(k):
        blanks.extend(t for t in [line_end(k)] if t is not None)
        k += 1
    last_break: Token | None = None
    while k < len(lines):
        s, e, _ = lines[k]
        if e - s < indent or source[s:s + indent].strip(" "):
            break  # less indented: the scalar has ended
        out.extend(blanks)
        body = s + indent
        normal = body < e and source[body] not in " \t"
        out.extend((source[p], p, p + 1) for p in range(body, e))
        last_break = line_end(k)
        k += 1
        blanks = []
        while k < len(lines) and is_blank(k):
            blanks.extend(t for t in [line_end(k)] if t is not None)
            k += 1
        if k >= len(lines) or last_break is None:
            break
        s2, e2, _ = lines[k]
        if e2 - s2 < indent or source[s2:s2 + indent].strip(" "):
            break
        if folded and last_break[0] == "\n" and normal and source[s2 + indent] not in " \t":
            if not blanks:
                out.append((" ", last_break[1], last_break[2]))
        else:
            out.append(last_break)
    if chomping != "-" and last_break is not None:
        out.append(last_break)
    if chomping == "+":
        out.extend(blanks)
    return out


def _aligned(source: str, start: int, end: int, value: str) -> list[int | None]:
    """Where the exact reading fails: each character on the next equal one of the source, or
    where none is near, on the last one placed."""
    placed: list[int | None] = []
    at = start
    last = start
    for ch in value:
        found = source.find(ch, at, end)
        if found < 0 or (ch in " \n" and found - at > 2):
            placed.append(last)
            continue
        placed.append(found)
        last = found
        at = found + 1
    return placed


def mapping_value(node: Any, key: str) -> Any:
    """The value node of ``key`` in a mapping node, or None (for any other node too)."""
    value = getattr(node, "value", None)
    if not isinstance(value, list):
        return None
    for pair in value:
        if isinstance(pair, tuple) and getattr(pair[0], "value", None) == key:
            return pair[1]
    return None


def sequence_items(node: Any) -> list[Any]:
    """The item nodes of a sequence node, or [] (for any other node too)."""
    value = getattr(node, "value", None)
    return [x for x in value if not isinstance(x, tuple)] if isinstance(value, list) else []


def scalar_nodes(documents: list[Any]) -> list[Any]:
    """Every scalar node of ``documents``, in the order they are written (an alias's target
    once)."""
    out: list[Any] = []
    seen: set[int] = set()
    stack = list(reversed(documents))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        value = getattr(node, "value", None)
        if isinstance(value, str):
            out.append(node)
        elif isinstance(value, list):
            for item in reversed(value):
                if isinstance(item, tuple):
                    stack.extend(reversed(item))
                else:
                    stack.append(item)
    return out
