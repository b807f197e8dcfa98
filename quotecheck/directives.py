"""Directives: the ``# quotecheck: disable=QC101``, ``shell=`` and ``remote-shell=`` comments
of an input, read from its text, scoped to the commands they cover, and the findings they
suppress. ``checker.check_source`` applies them after the rules have run.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from quotecheck.diagnostics import Diagnostic
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.shell_directive import directive_shell
from quotecheck.parsing.tree import CommandList, Node, Script
from quotecheck.programs import SHELL_OPTION_VALUES, shell_dialect
from quotecheck.records import Record
from quotecheck.rules import notes
from quotecheck.rules.api import not_analysed
from quotecheck.rules.registry import NAMES

_DIRECTIVE = lazy_compile(r"#\s*quotecheck\s*:\s*(?P<body>.*)$")
# `# quotecheck disable=QC101`: meant as a directive, but without its colon.
_COLONLESS = lazy_compile(r"#\s*quotecheck\s+(?:disable|enable|shell|remote-shell)\b|"
                        r"#\s*quotecheck\s*[-\w]*=")
_CODE = lazy_compile(r"QC\d{3}")


class Directive(Record):
    span: tuple[int, int]
    disabled: set[str]
    remote_shell: str | None
    shell: str | None  # the local shell that reads this file
    scope: tuple[int, int] | None  # the input span it applies to (None: whole file)
    line: bool  # at the end of a command's line: it applies to that line

    def __init__(self, span: tuple[int, int], disabled: set[str] | None = None,
                 remote_shell: str | None = None, shell: str | None = None,
                 scope: tuple[int, int] | None = None, line: bool = False) -> None:
        self.span = span
        self.disabled = set() if disabled is None else disabled
        self.remote_shell = remote_shell
        self.shell = shell
        self.scope = scope
        self.line = line


def _comment_start(line: str) -> int | None:
    """Where the comment of one line starts (a `#` at the start of a word, outside quotes),
    or None. Read line by line: a quote opened on an earlier line is not seen, and a `#` in
    such a string could be taken for a directive only if it spells one out."""
    quote = ""
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if quote == "'":
            if c == "'":
                quote = ""
        elif c == "\\":
            i += 1
        elif quote == '"':
            if c == '"':
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t;&|()"):
            return i
        i += 1
    return None


def read_directives(source: str) -> tuple[list[Directive], list[Diagnostic]]:
    """``# quotecheck: disable=QC101,expands-too-early``, ``# quotecheck: remote-shell=bash``
    and ``# quotecheck: shell=zsh`` comments, on a line of their own or at the end of a
    command's line (``cmd  # quotecheck: disable=QC101``: that line only).

    Unknown codes and malformed directives (``# quotecheck disable=...`` without the colon)
    are reported (QC002: the directive is skipped).
    """
    directives: list[Directive] = []
    problems: list[Diagnostic] = []
    known = NAMES
    names = {name: code for code, name in known.items()}
    offset = 0
    for line in source.splitlines(keepends=True):
        if "quotecheck" in line:
            body_line = line.rstrip("\r\n")
            at = _comment_start(body_line)
            if at is not None:
                comment = body_line[at:]
                m = _DIRECTIVE.match(comment)
                own_line = not body_line[:at].strip()
                span = (offset + at, offset + len(body_line))
                if m:
                    d, errors = _parse_directive(m.group("body"), span, known, names)
                    problems.extend(errors)
                    if d is not None:
                        if not own_line:
                            d.scope = (offset, offset + len(body_line))
                            d.line = True
                        directives.append(d)
                elif _COLONLESS.match(comment):
                    problems.append(not_analysed(
                        notes.COLONLESS_DIRECTIVE(directive=printable_head(comment)), span))
        offset += len(line)
    return directives, problems


def named_dialect(directives: list[Directive], source: str) -> str | None:
    """The dialect the input's own directive names: its first ``# quotecheck: shell=``, else
    ShellCheck's ``# shellcheck shell=``; None when there is none or it names a shell
    quotecheck does not read."""
    shells = [d.shell for d in directives if d.shell]
    dialect = shell_dialect(shells[0] if shells else directive_shell(source))
    return None if dialect == "unknown" else str(dialect)


def printable_head(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _parse_directive(body: str, span: tuple[int, int], known: dict[str, str],
                     names: dict[str, str]) -> tuple[Directive | None, list[Diagnostic]]:
    errors: list[Diagnostic] = []
    d = Directive(span)
    items = [item for item in re.split(r"\s+", body.strip()) if item]
    if not items:
        items = [""]
    for item in items:
        key, eq, value = item.partition("=")
        if key == "disable" and eq:
            for given in filter(None, (c.strip() for c in value.split(","))):
                code = names.get(given.lower(), given.upper())
                if not _CODE.fullmatch(code) or code not in known:
                    errors.append(not_analysed(notes.UNKNOWN_CODE(code=given), span))
                else:
                    d.disabled.add(code)
        elif key in ("remote-shell", "shell") and eq:
            if value in SHELL_OPTION_VALUES:
                if key == "shell":
                    d.shell = value
                else:
                    d.remote_shell = value
            else:
                errors.append(not_analysed(
                    notes.UNKNOWN_SHELL(shell=value, shells=", ".join(SHELL_OPTION_VALUES)), span))
        else:
            errors.append(not_analysed(
                notes.MALFORMED_DIRECTIVE(directive=printable_head(body.strip())), span))
    if not d.disabled and d.remote_shell is None and d.shell is None:
        return None, errors
    return d, errors


def _top_items(nodes: list[Node]) -> list[Node]:
    items: list[Node] = []
    for node in nodes:
        if isinstance(node, CommandList):
            items.extend(_top_items(node.items))
        else:
            items.append(node)
    return items


def top_command_spans(script: Script) -> list[tuple[int, int]]:
    """The spans of the script's top-level commands, sorted, as input offsets: what a
    directive before a command covers."""
    # Node spans are offsets into the root layer's text, directive spans into the source: the
    # same unless the source has CRLF line endings (trace.without_crlf), so map the nodes'.
    return sorted(script.origin.span(*n.span) or n.span for n in _top_items(script.body))


def scope_directives(directives: list[Directive], script: Script) -> None:
    """A directive covers the command after it, or the whole file before the first command."""
    spans = top_command_spans(script)
    starts = [a for a, _ in spans]
    for d in directives:
        if d.line:
            continue
        if not spans or d.span[1] <= starts[0]:
            d.scope = None
            continue
        # The first command after the directive (a binary search: a scan per directive would
        # make the whole quadratic).
        k = bisect_left(starts, d.span[1])
        d.scope = spans[k] if k < len(spans) else (d.span[1], d.span[1])


class Suppressions:
    """``suppressed`` for many diagnostics: a file of a directive before every command made
    checking every diagnostic against every directive quadratic."""

    def __init__(self, directives: list[Directive]) -> None:
        self.everywhere: set[str] = set()
        scopes: dict[str, dict[tuple[int, int], None]] = {}
        lines: dict[str, dict[tuple[int, int], None]] = {}
        for directive in directives:
            for code in directive.disabled:
                if directive.line and directive.scope is not None:
                    lines.setdefault(code, {})[directive.scope] = None
                elif directive.scope is None:
                    self.everywhere.add(code)
                else:
                    scopes.setdefault(code, {})[directive.scope] = None
        # Scopes are top-level commands (or empty spans after the last one): they do not overlap,
        # so only the last scope starting at or before an offset can hold it.
        self.scopes = {code: sorted(found) for code, found in scopes.items()}
        self.starts = {code: [a for a, _ in found] for code, found in self.scopes.items()}
        # Lines of end-of-line directives: they do not overlap either.
        self.lines = {code: sorted(found) for code, found in lines.items()}
        self.line_starts = {code: [a for a, _ in found] for code, found in self.lines.items()}

    def suppressed(self, d: Diagnostic) -> bool:
        if d.code in self.everywhere:
            return True
        lines = self.lines.get(d.code)
        if lines:
            k = bisect_right(self.line_starts[d.code], d.span[0]) - 1
            if k >= 0 and lines[k][0] <= d.span[0] <= lines[k][1]:
                return True
        scopes = self.scopes.get(d.code)
        if not scopes:
            return False
        k = bisect_right(self.starts[d.code], d.span[0]) - 1
        while k >= 0:
            a, b = scopes[k]
            if a <= d.span[0] < max(b, a + 1):
                return True
            if b > a:  # an empty scope (a point) may sit right after a non-empty one
                return False
            k -= 1
        return False
