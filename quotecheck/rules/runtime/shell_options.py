"""Which shell options (``set -e``, ``set -o pipefail``) hold at a command."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from quotecheck.layers.model import Layer
from quotecheck.parsing.tree import Script
from quotecheck.rules.api import CheckContext
from quotecheck.rules.runtime.script_index import layer_position


def set_flags(values: Sequence[str]) -> dict[str, bool]:
    """What ``set ...`` turns on or off: ``{"errexit": True, "pipefail": False}``."""
    out: dict[str, bool] = {}
    letters = {"e": "errexit", "u": "nounset", "x": "xtrace"}
    i = 1
    while i < len(values):
        w = values[i]
        if w == "--" or not w or w[0] not in "-+" or len(w) < 2:
            break
        on = w[0] == "-"
        for ch in w[1:]:
            if ch == "o":
                if i + 1 < len(values):
                    out[values[i + 1]] = on
                    i += 1
            elif ch in letters:
                out[letters[ch]] = on
        i += 1
    return out


def shell_flags(layer: Layer) -> dict[str, bool]:
    """Options the layer's shell was started with (``bash -e -c``, a shebang's ``-e``)."""
    out: dict[str, bool] = {}
    proc = list(layer.process or [])
    if layer.parent is None and layer.text is not None and layer.text.startswith("#!"):
        first = layer.text.split("\n", 1)[0]
        proc = ["sh", *[p for p in first[2:].split()[1:] if p != "-S"]]
    words: list[str] = ["set"]
    i = 1
    while i < len(proc):
        w = proc[i]
        if w in ("-o", "+o") and i + 1 < len(proc):
            words += [w, proc[i + 1]]
            i += 2
            continue
        if w.startswith("--") and w != "--" and i + 1 < len(proc):
            i += 1  # bash's long options (`--noprofile --norc -eo pipefail`, GitHub's bash)
            continue
        if len(w) < 2 or w == "--" or w[0] not in "-+" or w.startswith("--"):
            break
        words.append(w[0] + w[1:].replace("c", "").replace("s", "").replace("i", "")
                     .replace("l", ""))
        if "c" in w[1:]:
            break
        i += 1
    out.update(set_flags([x for x in words if x not in ("-", "+")]))
    return out


def _set_points(ctx: CheckContext, layer: Layer) -> tuple[list[int], list[dict[str, bool]]]:
    def make() -> tuple[list[int], list[dict[str, bool]]]:
        points: list[tuple[int, dict[str, bool]]] = []
        for v in layer.commands:
            if not v.argv or v.values[0] != "set" or v.context.in_substitution:
                continue
            flags = set_flags(v.values)
            if flags:
                pos = layer_position(layer, v.context.script, v.command.span[0])
                points.append((pos, flags))
        points.sort(key=lambda p: p[0])
        return [p for p, _ in points], [f for _, f in points]
    return ctx.memo.get_or_compute("set_points", layer, make)


def option_in_effect(ctx: CheckContext, layer: Layer, offset: int, script: Script,
                     name: str) -> bool:
    """Whether ``set -e`` (name ``errexit``) or ``set -o pipefail`` holds at ``offset``.

    Looks at the shell's own flags and the ``set`` commands of the layer before ``offset``
    (a position in ``script``: the layer's text or a script nested in it).
    """
    state = shell_flags(layer).get(name, False)
    positions, flags = _set_points(ctx, layer)
    upto = bisect_left(positions, layer_position(layer, script, offset))
    for k in range(upto - 1, -1, -1):
        if name in flags[k]:
            return flags[k][name]
    return state


def option_turned_off(ctx: CheckContext, layer: Layer, offset: int, script: Script,
                      name: str) -> bool:
    """A ``set +e`` (``set +o NAME``) of the layer before ``offset`` is the last word on the
    option there: the script says itself that it goes on after a failure."""
    positions, flags = _set_points(ctx, layer)
    upto = bisect_left(positions, layer_position(layer, script, offset))
    for k in range(upto - 1, -1, -1):
        if name in flags[k]:
            return not flags[k][name]
    return False
