"""Which text of a shell layer never runs: what follows the script's first top-level `exit`,
or `exec` of a program (the shell ends there, or becomes that program). A finding there
describes nothing that happens, so the checker drops it.

Only a command that always runs counts: not one after `&&` or `||`, in the background, inside
a function, a branch, a loop or a subshell. A shell reads a script a command at a time, so what
follows such an `exit` is not even parsed when the script runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from quotecheck.layers.model import Layer
from quotecheck.parsing.tree import CommandList, Node, SimpleCommand


def _ends_the_script(node: Node) -> bool:
    if not isinstance(node, SimpleCommand) or not node.words:
        return False
    name = node.words[0].value
    if name == "exit":
        return True
    # `exec prog ...` replaces the shell; `exec >log 2>&1` only redirects it
    return name == "exec" and len(node.words) > 1


def dead_spans(layers: Sequence[Layer]) -> list[tuple[int, int]]:
    """The spans of the input that no shell runs: from the command after a top-level `exit`
    (or `exec PROGRAM`) to the end of its script, for each shell layer that has one."""
    out: list[tuple[int, int]] = []
    for layer in layers:
        script = layer.script
        if layer.kind != "shell" or script is None or layer.origin is None:
            continue
        items: list[Node] = []
        ops: list[str] = []
        for node in script.body:
            if isinstance(node, CommandList):
                items.extend(node.items)
                ops.extend((node.ops[k] if k < len(node.ops) else None) or "\n"
                           for k in range(len(node.items)))
            else:
                items.append(node)
                ops.append("\n")
        text_end = len(layer.text or "")
        for k, item in enumerate(items):
            before = ops[k - 1] if k else "\n"
            if before in ("&&", "||") or ops[k] in ("&&", "||", "&"):
                continue
            if _ends_the_script(item):
                # (to the end of the text: what follows may not even parse, an archive say)
                span = layer.origin.span(item.span[1], text_end) \
                    if item.span[1] < text_end else None
                if span is not None:
                    out.append(span)
                break
    return out
