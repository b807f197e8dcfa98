"""Where a shell layer signals processes it chose by pattern: ``pkill``, ``pgrep | xargs
kill``, ``ps | grep | ... | xargs kill``, ``kill $(pgrep ...)``, kill loops."""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers.effective import Effective
from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import Compound, Node, Pipeline, Script, SimpleCommand
from quotecheck.records import Record
from quotecheck.rules.api import CheckContext
from quotecheck.rules.runtime.selectors import Selector, selector_from_stages, selector_start
from quotecheck.rules.runtime.slots import commands_in, local_chain, views_by_command
from quotecheck.rules.runtime.toolcalls import HARMLESS_SIGNALS, parse_kill


def _kill_in(eff: Effective) -> str | None:
    """The signal when ``eff`` is a kill command (None if it is not, or sends signal 0)."""
    if eff.name == "kill":
        parsed = parse_kill(eff.values, eff.start)
        if parsed is None:
            return None
        return parsed[0]
    return None


class KillSite(Record):
    """A command that kills the processes a selector picked."""

    layer: Layer
    selector: Selector
    killer: CommandView  # pkill, the xargs/kill stage, or the kill taking $(...)
    item: Node  # the node executed as one step (the pipeline, the kill command, the loop)
    signal: str
    how: str  # "pkill", "xargs kill", "kill $(...)", "while read ... kill"
    replaceable: bool  # a lone external command the shell may exec in place


def _stages(node: Node) -> list[Node]:
    return list(node.commands) if isinstance(node, Pipeline) else [node]


def loop_kill(node: Node, views: dict[int, CommandView]) -> tuple[CommandView, str] | None:
    """A ``while read ...; do kill ...; done`` (or for) loop body's kill command."""
    if not isinstance(node, Compound) or node.kind not in ("while", "until", "for"):
        return None
    for cmd in commands_in(node):
        view = views.get(id(cmd))
        if view is None:
            continue
        eff = view.effective
        if eff is None:
            continue
        sig = _kill_in(eff)
        if sig is not None:
            return view, sig
    return None


def kill_sites(ctx: CheckContext, layer: Layer) -> Iterator[KillSite]:
    """Every place in a shell layer where processes chosen by pattern get a signal."""
    script = layer.script
    if script is None:
        return
    views = views_by_command(layer)
    scripts: list[Script] = [script]
    seen_scripts: set[int] = {id(script)}
    for v in layer.commands:
        s = v.context.script
        if id(s) not in seen_scripts:
            seen_scripts.add(id(s))
            scripts.append(s)
    # Variables assigned from a selector: PIDS=$(pgrep -f x)
    assigned: dict[str, Selector] = {}
    done_views: set[int] = set()
    for view in layer.commands:
        if id(view) in done_views:
            continue
        cmd = view.command
        for a in cmd.assignments:
            for inner in view.context.script.substitutions_in(a.value.span):
                found = _substitution_selector(inner, views)
                if found is not None:
                    assigned[a.name] = found
        eff = view.effective
        if eff is None:
            continue
        chain = local_chain(ctx, view)
        pipeline = next((n for n in reversed(chain[:-1]) if isinstance(n, Pipeline)), None)
        # pkill / pgrep | xargs kill / ps | grep | xargs kill: decided at the first stage.
        if eff.name == "pkill" and not eff.via_xargs:
            sel = selector_start(view)
            call = sel.pgrep if sel is not None else None
            if sel is not None and call is not None and call.signal not in HARMLESS_SIGNALS:
                item = pipeline if pipeline is not None else view.command
                replaceable = pipeline is None and not cmd.redirects
                yield KillSite(layer, sel, view, item, call.signal, "pkill", replaceable)
            continue
        if pipeline is not None and pipeline.commands and pipeline.commands[0] is cmd:
            found_stage = selector_from_stages(pipeline.commands, views, stop_at_kill=True)
            if found_stage is None:
                continue
            sel, k = found_stage
            if k >= len(pipeline.commands):
                continue
            sink = pipeline.commands[k]
            sink_view = views.get(id(sink)) if isinstance(sink, SimpleCommand) else None
            if sink_view is not None:
                sink_eff = sink_view.effective
                if sink_eff is not None and sink_eff.via_xargs:
                    sig = _kill_in(sink_eff)
                    if sig is not None and sig not in HARMLESS_SIGNALS:
                        yield KillSite(layer, sel, sink_view, pipeline, sig,
                                       "xargs " + " ".join(sink_eff.argv), False)
                continue
            loop = loop_kill(sink, views)
            if loop is not None and loop[1] not in HARMLESS_SIGNALS:
                yield KillSite(layer, sel, loop[0], pipeline, loop[1],
                               f"{getattr(sink, 'kind', 'while')} read ... kill", False)
            continue
        # kill $(pgrep ...), kill `ps | grep | awk`, kill $PIDS
        sig = _kill_in(eff)
        if sig is None or sig in HARMLESS_SIGNALS or eff.via_xargs:
            continue
        for w in cmd.words:
            for inner in view.context.script.substitutions_in(w.span):
                sel2 = _substitution_selector(inner, views)
                if sel2 is not None:
                    item = pipeline if pipeline is not None else view.command
                    yield KillSite(layer, sel2, view, item, sig, "kill $(...)",
                                   pipeline is None and not cmd.redirects
                                   and eff.name == "kill" and "/" in eff.values[eff.start])
            for part in w.parts:
                if part.kind == "parameter" and part.name in assigned:
                    item = pipeline if pipeline is not None else view.command
                    yield KillSite(layer, assigned[part.name], view, item, sig,
                                   f"kill ${part.name}", False)
        # for pid in $(pgrep ...); do kill $pid; done
        loop_node = next((n for n in reversed(chain[:-1])
                          if isinstance(n, Compound) and n.kind == "for"), None)
        if loop_node is not None:
            for w in loop_node.words:
                for inner in view.context.script.substitutions_in(w.span):
                    sel3 = _substitution_selector(inner, views)
                    if sel3 is not None:
                        yield KillSite(layer, sel3, view, loop_node, sig, "for ... kill", False)


def _substitution_selector(inner: Script, views: dict[int, CommandView]) -> Selector | None:
    if len(inner.body) != 1:
        return None
    stages = _stages(inner.body[0])
    found = selector_from_stages(stages, views, stop_at_kill=False)
    if found is None:
        return None
    sel, k = found
    if k < len(stages):
        sel.uncertain = True
    return sel
