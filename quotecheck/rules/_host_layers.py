"""Where a host file's layers come from: which shell layers read a given place of the file
(shared by the host rules QC406 and QC408 and QC103's judgement of host values, in time that
does not grow with the square of the file: a Makefile of 20,000 recipe lines has 20,000 shell
layers), and which launch of the file starts a layer."""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from quotecheck.layers.model import CommandView, Layer
from quotecheck.rules.api import CheckContext

if TYPE_CHECKING:  # (a shell script's check imports no host module)
    from quotecheck.hosts.model import Launch


class _Index:
    def __init__(self, shells: list[Layer]) -> None:
        spans = sorted((x.source_span[0], x.source_span[1], x.id) for x in shells
                       if x.source_span is not None)
        self.starts = [s for s, _, _ in spans]
        self.spans = spans
        # the largest end among the spans up to each one, to stop looking back early
        self.reach: list[int] = []
        furthest = -1
        for _, end, _ in spans:
            furthest = max(furthest, end)
            self.reach.append(furthest)


def _index(ctx: CheckContext) -> _Index:
    def make() -> _Index:
        return _Index([x for x in ctx.layers if x.kind == "shell"])
    return ctx.memo.get_or_compute("host-shell-index", ctx.trace, make)


def shells_over(ctx: CheckContext, offset: int) -> list[Layer]:
    """The shell layers whose source span holds ``offset`` of the file, outermost first."""
    index = _index(ctx)
    k = bisect_right(index.starts, offset) - 1
    found: list[Layer] = []
    while k >= 0 and index.reach[k] > offset:
        start, end, layer_id = index.spans[k]
        if start <= offset < end:
            found.append(ctx.layers[layer_id])
        k -= 1
    found.sort(key=lambda x: len(x.chain(ctx.layers)))
    return found


def shells_starting_in(ctx: CheckContext, span: tuple[int, int]) -> list[Layer]:
    """The shell layers whose source span starts inside ``span``."""
    index = _index(ctx)
    a = bisect_right(index.starts, span[0] - 1)
    b = bisect_right(index.starts, span[1] - 1)
    return [ctx.layers[layer_id] for _, _, layer_id in index.spans[a:b]]


def launched(ctx: CheckContext, view: CommandView) -> Layer | None:
    """The exec layer a host file's argv launch ``view`` opens (where its uncertainty, such as
    an image's ENTRYPOINT the file does not show, is kept), or None."""
    return next((x for x in ctx.layers if x.opened_by is view and x.kind == "exec"), None)


def launch_of(ctx: CheckContext, layer: Layer) -> Launch | None:
    """The host file's launch that starts ``layer`` (or the layer above it that the host
    starts), or None outside a host file."""
    host = ctx.trace.host
    while layer.parent is not None and ctx.layers[layer.parent].kind != "host":
        layer = ctx.layers[layer.parent]
    if host is None or layer.parent is None or layer.source_span is None:
        return None
    at = layer.source_span[0]
    return next((x for x in host.launches if x.api == layer.via and x.span[0] <= at <= x.span[1]),
                None)
