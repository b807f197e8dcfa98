"""Where a POSIX sh script runs only under bash: the branches it guards with a test of bash.

Scripts written for sh keep bash-only code behind a test that only bash passes:

- ``if [ -n "$BASH_VERSION" ]; then ...; fi`` (also ``[ "$BASH" ]``, ``test -n "${BASH-}"``),
  the ``else`` of ``if [ -z "$BASH_VERSION" ]``, ``[ -n "$BASH_VERSION" ] && cmd``;
- an early way out: ``if [ -z "$BASH_VERSION" ]; then return; fi`` (or ``exit``, or
  ``[ -z "$BASH_VERSION" ] && return``, ``[ -n "$BASH_VERSION" ] || return``) in a function's
  body or at the top level guards the rest of that body or script.

Under dash such a branch never runs; what it holds matters only if dash must parse it, which it
does for the whole script before running it, so only the constructs dash rejects while parsing
(``a=(...)``, ``function f {``, ``<<<``, ``<(...)``) still break the script there. Text that
``eval`` runs is parsed when eval runs: in a guarded branch none of it matters.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers.model import Layer, Trace
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Compound, Node, Pipeline, Script, SimpleCommand

Span = tuple[int, int]

# `$BASH_VERSION`, `"${BASH-}"`, `${BASH_VERSION:+set}`: set (non-empty) only in bash.
_VAR = r'\$\{?BASH(?:_VERSION)?(?::?-|:?\+[A-Za-z]+)?\}?'
_BASH = rf'"?{_VAR}"?'
_X_BASH = rf'"x{_VAR}"'  # `"x$BASH_VERSION" != "x"`
_OPEN = r"^\s*(?:\[\[?|test)\s+"
_CLOSE = r"\s*(?:\]\]?)?\s*;?\s*$"
# A test that only bash passes, and one that only a shell other than bash passes.
_IS_BASH = lazy_compile(rf'{_OPEN}(?:(?:-n\s+)?{_BASH}|{_X_BASH}\s*!=\s*"?x"?){_CLOSE}')
_NOT_BASH = lazy_compile(rf'{_OPEN}(?:-z\s+{_BASH}|{_X_BASH}\s*=\s*"?x"?){_CLOSE}')
_WAY_OUT = frozenset({"return", "exit"})


def _text(script: Script, node: Node) -> str:
    return script.text[node.span[0]:node.span[1]]


def _test_of(script: Script, node: Node) -> str | None:
    """``bash`` / ``not bash`` when ``node`` is a test of the shell, else None."""
    if isinstance(node, CommandList) and len(node.items) == 1:
        node = node.items[0]
    if not isinstance(node, (SimpleCommand, Compound)):
        return None
    text = _text(script, node)
    if _IS_BASH.match(text):
        return "bash"
    if _NOT_BASH.match(text):
        return "not bash"
    return None


def _leaves(node: Node) -> bool:
    """``node`` is `return`/`exit`/`exec cmd` (or a list or `{ }` group ending in one):
    ``exec bash "$0" "$@"`` starts the script again under bash."""
    if isinstance(node, CommandList):
        return bool(node.items) and _leaves(node.items[-1])
    if isinstance(node, Compound) and node.kind == "group":
        return any(_leaves(p) for r, p in node.parts if r == "body")
    if isinstance(node, SimpleCommand) and node.words:
        name = node.words[0].value
        return name in _WAY_OUT or (name == "exec" and len(node.words) > 1)
    return False


def _guarded_in(script: Script, node: Node) -> Iterator[Span]:
    """Spans of ``script`` text (its own offsets) that only bash runs."""
    if isinstance(node, Compound):
        if node.kind == "if":
            conditions = [p for r, p in node.parts if r == "condition"]
            for k, (role, part) in enumerate(node.parts):
                before = node.parts[k - 1][1] if k else None
                then = role == "body" and before is not None and \
                    _test_of(script, before) == "bash"
                otherwise = role == "else" and len(conditions) == 1 and \
                    _test_of(script, conditions[0]) == "not bash"
                if then or otherwise:
                    yield part.span
        for _, part in node.parts:
            yield from _guarded_in(script, part)
    elif isinstance(node, CommandList):
        yield from _guarded_list(script, node)
    elif isinstance(node, Pipeline):
        for c in node.commands:
            yield from _guarded_in(script, c)


def _guarded_list(script: Script, node: CommandList) -> Iterator[Span]:
    yield from _guarded_items(script, node.items, [o or "\n" for o in node.ops], node.span[1])


def _guarded_items(script: Script, items: list[Node], ops: list[str],
                   end: int) -> Iterator[Span]:
    """Guards in a list of commands run one after another, ``end`` where the list ends."""
    for k, item in enumerate(items):
        op = ops[k] if k < len(ops) else "\n"
        test = _test_of(script, item)
        if test is not None and k + 1 < len(items):
            nxt = items[k + 1]
            if op == "&&" and test == "bash":
                yield nxt.span  # `[ -n "$BASH_VERSION" ] && cmd`
            elif (op, test) in (("&&", "not bash"), ("||", "bash")) and _leaves(nxt):
                yield (nxt.span[1], end)  # `[ -z "$BASH_VERSION" ] && return`: the rest
        if isinstance(item, Compound) and item.kind == "if" and len(item.parts) == 2:
            (_, cond), (role, body) = item.parts
            if role == "body" and _test_of(script, cond) == "not bash" and _leaves(body):
                yield (item.span[1], end)  # `if [ -z "$BASH_VERSION" ]; then return; fi`
        yield from _guarded_in(script, item)


def guarded_spans(layer: Layer) -> list[Span]:
    """Input spans of ``layer`` that only bash runs (see the module's docstring)."""
    if layer.script is None or not layer.script.body:
        return []
    script = layer.script
    items: list[Node] = []
    ops: list[str] = []
    for node in script.body:  # the top level is one list: a guard there guards the rest
        if isinstance(node, CommandList):
            items.extend(node.items)
            ops.extend(o or "\n" for o in node.ops)
        else:
            items.append(node)
            ops.append("\n")
    out: list[Span] = []
    for s, e in _guarded_items(script, items, ops, script.body[-1].span[1]):
        src = script.origin.span(s, max(e, s + 1))
        if src is not None:
            out.append(src)
    return out


def eval_guards(trace: Trace, layer: Layer) -> list[Span]:
    """Guarded input spans of the shells that run ``layer``'s text with eval (the same shell),
    outward: eval parses its text only when it runs, so a guarded eval guards all of it."""
    out: list[Span] = []
    current = layer
    while current.parent is not None:
        join = trace.layers[current.parent]
        if join.kind != "join" or join.via != "eval" or join.parent is None:
            break
        outer = trace.layers[join.parent]
        if outer.kind != "shell":
            break
        out.extend(guarded_spans(outer))
        current = outer
    return out


def within(span: Span, spans: list[Span]) -> bool:
    return any(s <= span[0] and span[1] <= e for s, e in spans)
