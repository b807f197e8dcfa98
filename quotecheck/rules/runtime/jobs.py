"""Background jobs: the and-or lists a shell layer runs with ``&``."""

from __future__ import annotations

from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import CommandList, Node, Script
from quotecheck.records import Record
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext
from quotecheck.rules.runtime.script_index import script_index
from quotecheck.rules.runtime.slots import item_index, local_chain


class Job(Record):
    """A background job: the and-or list run with ``&`` and its simple commands."""

    layer: Layer
    node: Node  # the first item of the and-or list
    last: Node  # its last item (the same node for a single command or pipeline)
    views: list[CommandView]
    script: Script | None

    def __init__(
        self,
        layer: Layer,
        node: Node,
        last: Node,
        views: list[CommandView] | None = None,
        script: Script | None = None,
    ) -> None:
        self.layer = layer
        self.node = node
        self.last = last
        self.views = [] if views is None else views
        self.script = script

    @property
    def span(self) -> tuple[int, int]:
        return self.node.span[0], self.last.span[1]

    def text(self, limit: int = 50) -> str:
        if self.script is None:
            return ""
        a, b = self.span
        return one_line_escaped(" ".join(self.script.text[a:b].split()), limit)

    def source_span(self) -> tuple[int, int] | None:
        if self.script is None:
            return None
        a, b = self.span
        return self.script.origin.span(a, max(b, a + 1))


def background_jobs(ctx: CheckContext, layer: Layer) -> list[Job]:
    jobs: dict[int, Job] = {}
    order: list[int] = []
    for view in layer.commands:
        if not view.context.background or view.context.in_substitution:
            continue
        found = job_node(ctx, view)
        if found is None:
            continue
        first, last = found
        key = id(first)
        if key not in jobs:
            jobs[key] = Job(layer, first, last, [], view.context.script)
            order.append(key)
        jobs[key].views.append(view)
    return [jobs[k] for k in order]


def job_node(ctx: CheckContext, view: CommandView) -> tuple[Node, Node] | None:
    """The and-or list followed by ``&`` that contains the command: its first and last item."""
    chain = local_chain(ctx, view)
    for k in range(len(chain) - 2, -1, -1):
        parent = chain[k]
        if isinstance(parent, CommandList):
            try:
                idx = item_index(parent.items, chain[k + 1])
            except ValueError:
                return None
            j = idx
            while j < len(parent.ops) and parent.ops[j] in ("&&", "||"):
                j += 1
            if j < len(parent.ops) and parent.ops[j] == "&":
                lo = idx
                while lo > 0 and parent.ops[lo - 1] in ("&&", "||"):
                    lo -= 1
                return parent.items[lo], parent.items[j]
    return None


def waits_after(ctx: CheckContext, layer: Layer, job: Job) -> bool:
    """A ``wait`` after the job in the same script (the session is meant to last)."""
    if job.script is None:
        return False
    return script_index(ctx, layer, job.script).any_named_after("wait", job.span[1])
