"""YAML scalars with their characters placed in the file: the layer below a YAML host file.

PyYAML (``yaml.compose``) gives each scalar its value, its style and where it starts and ends
in the text; this module says where each character of the value came from. A literal block
(``|``) and a plain or quoted scalar on one line are placed exactly (escapes at their
backslash); for anything else (a folded block, a multi-line flow scalar) each character is
matched, in order, to the next equal character of the source, and where none is found it
stands at the last one placed. The value is always PyYAML's own.
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

        return list(yaml.compose_all(source, Loader=yaml.SafeLoader))
    except Exception as exc:  # a YAML error of any kind (and RecursionError on deep nesting)
        mark = getattr(exc, "problem_mark", None)
        at = min(getattr(mark, "index", 0) or 0, len(source))
        return HostFile(format, (), (Problem(
            "QC002", at, min(at + 1, len(source)),
            f"the YAML does not parse ({str(exc).splitlines()[0][:120]}): its commands are "
            "not analysed"),))


def scalar_text(source: str, node: Any) -> HostText:
    """``node`` (a yaml ScalarNode) as a HostText placed in ``source``."""
    value: str = node.value
    start: int = node.start_mark.index
    end: int = node.end_mark.index
    style = node.style
    placed: list[int | None] | None = None
    if style == "|":
        placed = _literal_block(source, start, end, value)
    elif style is None and "\n" not in source[start:end]:
        if source[start:end] == value:
            placed = list(range(start, end))
    elif style == "'" and "\n" not in source[start:end]:
        placed = _single_quoted(source, start + 1, end - 1, value)
    if placed is None or len(placed) != len(value):
        placed = _aligned(source, start, end, value)
    return HostText(value, placed)


def _literal_block(source: str, start: int, end: int, value: str) -> list[int | None] | None:
    nl = source.find("\n", start, end)
    if nl < 0:
        return None
    at = nl + 1
    lines: list[tuple[int, str]] = []
    while at < end:
        stop = source.find("\n", at, end)
        stop = end if stop < 0 else stop
        lines.append((at, source[at:stop]))
        at = stop + 1
    indent = None
    for _, text in lines:
        if text.strip():
            indent = len(text) - len(text.lstrip(" "))
            break
    if indent is None:
        return None
    placed: list[int | None] = []
    for line_start, text in lines:
        body = text[indent:] if len(text) >= indent else ""
        placed.extend(range(line_start + indent, line_start + indent + len(body)))
        placed.append(line_start + len(text))  # its newline
    # chomping: the value decides how many final newlines remain
    return placed[:len(value)] if len(placed) >= len(value) else None


def _single_quoted(source: str, a: int, b: int, value: str) -> list[int | None] | None:
    placed: list[int | None] = []
    i = a
    while i < b:
        placed.append(i)
        i += 2 if source.startswith("''", i) else 1
    return placed


def _aligned(source: str, start: int, end: int, value: str) -> list[int | None]:
    placed: list[int | None] = []
    at = start
    last = start
    for ch in value:
        found = source.find(ch, at, end)
        if found < 0 or (ch in " \n" and found - at > 2):
            placed.append(last)  # a folded line break, an escape: where the last one stood
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
