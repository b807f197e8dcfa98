"""The project's own syntax tree for one shell script.

bashlex's nodes are converted into these as soon as a parse succeeds, so nothing past
``parsing/`` depends on bashlex's shapes or its bugs. Spans are offsets into ``Script.text``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from quotecheck.parsing.scanner import HeredocSpec, Problem
from quotecheck.parsing.words import Word
from quotecheck.programs import Dialect
from quotecheck.records import FrozenRecord, Record
from quotecheck.sourcemap import SourceMap

Span = tuple[int, int]


class Heredoc(FrozenRecord):
    __slots__ = ("body", "spec")
    spec: HeredocSpec
    body: Word  # what the command reads on stdin (expansions marked when the delimiter is bare)

    def __init__(self, spec: HeredocSpec, body: Word) -> None:
        object.__setattr__(self, "spec", spec)
        object.__setattr__(self, "body", body)


class Redirect(FrozenRecord):
    __slots__ = ("dup_fd", "fd", "heredoc", "op", "span", "target")
    span: Span
    op: str  # '>', '>>', '<', '<<', '<<-', '<<<', '>&', '<&', '&>', '&>>', '>|', '<>'
    fd: int | None
    target: Word | None  # None for heredocs and for `n>&m` with a number
    dup_fd: int | None  # the m of `n>&m`
    heredoc: Heredoc | None

    def __init__(self, span: Span, op: str, fd: int | None, target: Word | None,
                 dup_fd: int | None = None, heredoc: Heredoc | None = None) -> None:
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "fd", fd)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "dup_fd", dup_fd)
        object.__setattr__(self, "heredoc", heredoc)


class Assignment(FrozenRecord):
    __slots__ = ("append", "name", "span", "subscript", "value")
    span: Span
    name: str  # the variable: `a` for `a[i+1]=x` too
    value: Word
    append: bool
    subscript: Word | None  # `i+1` of `a[i+1]=x` (an array-element assignment)

    def __init__(self, span: Span, name: str, value: Word, append: bool = False,
                 subscript: Word | None = None) -> None:
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "append", append)
        object.__setattr__(self, "subscript", subscript)


class SimpleCommand(Record):
    __slots__ = ("assignments", "redirects", "span", "words")
    span: Span
    assignments: list[Assignment]
    words: list[Word]
    redirects: list[Redirect]

    def __init__(self, span: Span, assignments: list[Assignment], words: list[Word],
                 redirects: list[Redirect]) -> None:
        self.span = span
        self.assignments = assignments
        self.words = words
        self.redirects = redirects

    @property
    def name(self) -> str | None:
        return self.words[0].value if self.words else None


class Pipeline(Record):
    __slots__ = ("commands", "negated", "operators", "span")
    span: Span
    commands: list[Node]
    negated: bool
    operators: list[str]  # '|' or '|&' between commands

    def __init__(self, span: Span, commands: list[Node], negated: bool = False,
                 operators: list[str] | None = None) -> None:
        self.span = span
        self.commands = commands
        self.negated = negated
        self.operators = [] if operators is None else operators


class CommandList(Record):
    """Commands joined by ``;``, newline, ``&``, ``&&``, ``||``: ``ops[i]`` follows ``items[i]``."""

    __slots__ = ("items", "ops", "span")
    span: Span
    items: list[Node]
    ops: list[str | None]

    def __init__(self, span: Span, items: list[Node], ops: list[str | None]) -> None:
        self.span = span
        self.items = items
        self.ops = ops


class Compound(Record):
    """``{ }``, ``( )``, if, for, while, until, case, select, function, ``(( ))``, ``[[ ]]``.

    ``parts`` holds the sub-lists in textual order with their role: ``condition`` (if/elif/while/
    until tests), ``body`` (what runs), ``else``, ``pattern`` (a case clause body).
    """

    __slots__ = ("kind", "name", "parts", "redirects", "span", "words")
    kind: str
    span: Span
    parts: list[tuple[str, Node]]
    words: list[Word]  # for-list, case subject, patterns, [[ ]] words
    redirects: list[Redirect]
    name: str | None  # a function's name

    def __init__(self, kind: str, span: Span, parts: list[tuple[str, Node]],
                 words: list[Word] | None = None, redirects: list[Redirect] | None = None,
                 name: str | None = None) -> None:
        self.kind = kind
        self.span = span
        self.parts = parts
        self.words = [] if words is None else words
        self.redirects = [] if redirects is None else redirects
        self.name = name


Node = SimpleCommand | Pipeline | CommandList | Compound


class SubstitutionMap(dict[int, "Script"]):
    """The nested scripts of one text by the offset of their construct: a dict that also keeps
    its keys sorted (built once, again only after a change), so finding those inside a word is
    a binary search instead of a sort of every key for every word."""

    _sorted: list[int] | None = None

    def sorted_keys(self) -> list[int]:
        keys = self._sorted
        if keys is None:
            keys = self._sorted = sorted(self)
        return keys

    def __setitem__(self, key: int, value: Script) -> None:
        if key not in self:
            self._sorted = None
        super().__setitem__(key, value)

    def __delitem__(self, key: int) -> None:
        self._sorted = None
        super().__delitem__(key)

    def pop(self, *args: Any) -> Any:
        self._sorted = None
        return super().pop(*args)

    def popitem(self) -> tuple[int, Script]:
        self._sorted = None
        return super().popitem()

    def clear(self) -> None:
        self._sorted = None
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._sorted = None
        super().update(*args, **kwargs)

    def setdefault(self, key: int, default: Any = None) -> Any:
        self._sorted = None
        return super().setdefault(key, default)

    def __ior__(self, other: Any) -> SubstitutionMap:  # type: ignore[override,misc]
        self._sorted = None
        super().update(other)
        return self


class Script(Record):
    """One parsed text: a layer's whole text, or a ``$( )``/backtick script inside it."""

    text: str
    origin: SourceMap  # offsets in ``text`` -> offsets in the original source
    dialect: Dialect
    span: Span
    body: list[Node]
    problems: list[Problem]
    comments: list[Span]
    # Scripts nested in this text's words, by the offset of their `$(`/backtick/`<(`; shared by
    # every script cut from the same text.
    substitutions: dict[int, Script]
    anchor: Span | None  # for a nested script: its `$( ... )` span in the parent's text

    def __init__(self, text: str, origin: SourceMap, dialect: Dialect, span: Span,
                 body: list[Node], problems: list[Problem] | None = None,
                 comments: list[Span] | None = None,
                 substitutions: dict[int, Script] | None = None,
                 anchor: Span | None = None) -> None:
        self.text = text
        self.origin = origin
        self.dialect = dialect
        self.span = span
        self.body = body
        self.problems = [] if problems is None else problems
        self.comments = [] if comments is None else comments
        self.substitutions = SubstitutionMap() if substitutions is None else substitutions
        self.anchor = anchor

    def substitutions_in(self, span: Span) -> list[Script]:
        """The outermost nested scripts whose construct starts inside ``span``."""
        subs = self.substitutions
        keys = subs.sorted_keys() if isinstance(subs, SubstitutionMap) else sorted(subs)
        found: list[Script] = []
        at = bisect_left(keys, span[0])
        while at < len(keys) and keys[at] < span[1]:
            inner = subs[keys[at]]
            found.append(inner)
            # Skip what is nested inside this one: binary search past its end.
            end_taken = inner.anchor[1] if inner.anchor else keys[at] + 1
            at = bisect_left(keys, max(end_taken, keys[at] + 1), at + 1)
        return found

    @property
    def complete(self) -> bool:
        return not self.problems


class Context(FrozenRecord):
    """Where a simple command sits: what a rule needs to judge it."""

    __slots__ = (
        "ancestors",
        "background",
        "conditional",
        "guarded",
        "in_pipeline",
        "in_substitution",
        "pipeline_last",
        "script",
    )
    script: Script
    ancestors: tuple[Node, ...]
    background: bool  # ends with `&` (itself or an enclosing list item)
    conditional: bool  # its status is tested: if/while condition, left of && / ||, `!`
    guarded: bool  # it runs only if an earlier command succeeded/failed (right of && / ||)
    in_pipeline: bool
    pipeline_last: bool
    in_substitution: bool  # inside $( ), backticks or <( )

    def __init__(self, script: Script, ancestors: tuple[Node, ...], background: bool,
                 conditional: bool, guarded: bool, in_pipeline: bool, pipeline_last: bool,
                 in_substitution: bool) -> None:
        object.__setattr__(self, "script", script)
        object.__setattr__(self, "ancestors", ancestors)
        object.__setattr__(self, "background", background)
        object.__setattr__(self, "conditional", conditional)
        object.__setattr__(self, "guarded", guarded)
        object.__setattr__(self, "in_pipeline", in_pipeline)
        object.__setattr__(self, "pipeline_last", pipeline_last)
        object.__setattr__(self, "in_substitution", in_substitution)


def walk(script: Script) -> Iterator[tuple[SimpleCommand, Context]]:
    """Every simple command of ``script`` in textual order, nested substitutions included."""
    found: list[tuple[SimpleCommand, Context]] = []
    _collect(script, script.body, (), False, False, False, False, False, False, found)
    # Backtick scripts have texts of their own: order by position in the original input.
    found.sort(key=lambda item: (item[1].script.origin[item[0].span[0]] or 0, item[0].span[0]))
    return iter(found)


def _collect(script: Script, nodes: list[Node], ancestors: tuple[Node, ...], background: bool,
             conditional: bool, guarded: bool, in_pipe: bool, last: bool, in_subst: bool,
             out: list[tuple[SimpleCommand, Context]]) -> None:
    for node in nodes:
        _collect_node(script, node, ancestors, background, conditional, guarded, in_pipe, last,
                      in_subst, out)


def _collect_node(script: Script, node: Node, ancestors: tuple[Node, ...], background: bool,
                  conditional: bool, guarded: bool, in_pipe: bool, last: bool, in_subst: bool,
                  out: list[tuple[SimpleCommand, Context]]) -> None:
    chain = (*ancestors, node)
    if isinstance(node, SimpleCommand):
        out.append((node, Context(script, ancestors, background, conditional, guarded, in_pipe,
                                  last, in_subst)))
        words = [*node.words, *(a.value for a in node.assignments),
                 *(a.subscript for a in node.assignments if a.subscript is not None),
                 *(r.target for r in node.redirects if r.target is not None),
                 *(r.heredoc.body for r in node.redirects if r.heredoc is not None)]
        _collect_substitutions(script, words, chain, background, out)
    elif isinstance(node, Pipeline):
        n = len(node.commands)
        for i, cmd in enumerate(node.commands):
            _collect_node(script, cmd, chain, background, conditional or node.negated, guarded,
                          n > 1, i == n - 1, in_subst, out)
    elif isinstance(node, CommandList):
        # An item is backgrounded when the next `&` follows it or a && / || chain it is in.
        for i, item in enumerate(node.items):
            op_after = node.ops[i] if i < len(node.ops) else None
            j = i
            while j < len(node.ops) and node.ops[j] in ("&&", "||"):
                j += 1
            bg = background or (j < len(node.ops) and node.ops[j] == "&")
            op_before = node.ops[i - 1] if i > 0 else None
            _collect_node(script, item, chain, bg,
                          conditional or op_after in ("&&", "||"),
                          guarded or op_before in ("&&", "||"),
                          in_pipe, last, in_subst, out)
    elif isinstance(node, Compound):
        _collect_substitutions(script, node.words, chain, background, out)
        for role, part in node.parts:
            _collect_node(script, part, chain, background, conditional or role == "condition",
                          guarded or (role in ("body", "else", "pattern")
                                      and node.kind in ("if", "while", "until", "case")),
                          in_pipe, last, in_subst, out)
        words = [r.target for r in node.redirects if r.target is not None]
        _collect_substitutions(script, words, chain, background, out)


def _collect_substitutions(script: Script, words: list[Word], chain: tuple[Node, ...],
                           background: bool, out: list[tuple[SimpleCommand, Context]]) -> None:
    # Every word, not only those with an expansion part: array values (`a=($(cmd))`) and
    # `(( $(cmd) ))` are literal parts with substitutions inside (found in O(log n) a word).
    for word in words:
        for inner in script.substitutions_in(word.span):
            _collect(inner, inner.body, chain, background, False, False, False, False, True, out)


def iter_nodes(nodes: list[Node]) -> Iterator[Node]:
    """Every node below ``nodes``, depth first (not entering substitutions)."""
    for node in nodes:
        yield node
        if isinstance(node, Pipeline):
            yield from iter_nodes(node.commands)
        elif isinstance(node, CommandList):
            yield from iter_nodes(node.items)
        elif isinstance(node, Compound):
            yield from iter_nodes([p for _, p in node.parts])
