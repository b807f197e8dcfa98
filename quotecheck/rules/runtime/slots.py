"""Where a command sits in its script: the list (sequence, and-or list) it is an item of."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import CommandList, Compound, Node, Pipeline, Script, SimpleCommand
from quotecheck.records import Record
from quotecheck.rules.api import CheckContext


class Slot(Record):
    """Where a node sits in the list of commands it is executed with."""

    script: Script
    items: list[Node]
    ops: list[str]  # ops[i] follows items[i]: ';', '\n', '&', '&&', '||'
    index: int
    top: bool  # the list is the script's top level

    @property
    def item(self) -> Node:
        return self.items[self.index]

    def group(self, index: int | None = None) -> tuple[int, int]:
        """The and-or list (items joined by && / ||) around ``index``: [first, last]."""
        k = self.index if index is None else index
        lo = k
        while lo > 0 and self.ops[lo - 1] in ("&&", "||"):
            lo -= 1
        hi = k
        while hi < len(self.items) - 1 and self.ops[hi] in ("&&", "||"):
            hi += 1
        return lo, hi


def item_index(items: Sequence[Node], target: Node) -> int:
    for i, x in enumerate(items):
        if x is target:
            return i
    raise ValueError("node not in list")


def flatten_body(body: Sequence[Node]) -> tuple[list[Node], list[str]]:
    items: list[Node] = []
    ops: list[str] = []
    for node in body:
        if isinstance(node, CommandList):
            for k, item in enumerate(node.items):
                items.append(item)
                op = node.ops[k] if k < len(node.ops) else None
                ops.append(op if op is not None else "\n")
        else:
            items.append(node)
            ops.append("\n")
    return items, ops


def _body_ids(ctx: CheckContext, script: Script) -> frozenset[int]:
    return ctx.memo.get_or_compute("body_ids", script,
                                   lambda: frozenset(id(b) for b in script.body))


def flat_body(ctx: CheckContext, script: Script) -> tuple[list[Node], list[str], dict[int, int]]:
    """``flatten_body`` of a script, with the index of each item, computed once."""
    def make() -> tuple[list[Node], list[str], dict[int, int]]:
        items, ops = flatten_body(script.body)
        return items, ops, {id(n): i for i, n in enumerate(items)}
    return ctx.memo.get_or_compute("flat_body", script, make)


def local_chain(ctx: CheckContext, view: CommandView) -> tuple[Node, ...]:
    """The nodes from the top of the command's own script down to the command."""
    chain: tuple[Node, ...] = (*view.context.ancestors, view.command)
    body = _body_ids(ctx, view.context.script)
    for k, node in enumerate(chain):
        if id(node) in body:
            return chain[k:]
    return (view.command,)


def slot_of(ctx: CheckContext, view: CommandView, node: Node | None = None) -> Slot | None:
    """The list the command (or its enclosing ``node``) is an item of."""
    script = view.context.script
    chain = local_chain(ctx, view)
    if node is not None:
        for k, n in enumerate(chain):
            if n is node:
                chain = chain[: k + 1]
                break
    for k in range(len(chain) - 2, -1, -1):
        parent = chain[k]
        if isinstance(parent, CommandList):
            if k == 0:
                break
            try:
                idx = item_index(parent.items, chain[k + 1])
            except ValueError:
                return None
            ops = [op if op is not None else "\n" for op in parent.ops]
            ops += ["\n"] * (len(parent.items) - len(ops))
            return Slot(script, list(parent.items), ops, idx, False)
        if isinstance(parent, Compound):
            return Slot(script, [chain[k + 1]], ["\n"], 0, False)
    items, ops, where = flat_body(ctx, script)
    target = chain[1] if len(chain) > 1 and isinstance(chain[0], CommandList) else chain[0]
    top_idx = where.get(id(target))
    if top_idx is None:
        return None
    return Slot(script, items, ops, top_idx, True)


def commands_in(node: Node) -> Iterator[SimpleCommand]:
    """Simple commands of ``node`` (not entering substitutions)."""
    if isinstance(node, SimpleCommand):
        yield node
    elif isinstance(node, Pipeline):
        for c in node.commands:
            yield from commands_in(c)
    elif isinstance(node, CommandList):
        for c in node.items:
            yield from commands_in(c)
    elif isinstance(node, Compound):
        for _, part in node.parts:
            yield from commands_in(part)


def views_by_command(layer: Layer) -> dict[int, CommandView]:
    return {id(v.command): v for v in layer.commands}
