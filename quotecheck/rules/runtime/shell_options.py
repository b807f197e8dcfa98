"""Which shell options (``set -e``, ``set -o pipefail``) hold at a command."""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Sequence

from quotecheck.layers.model import Layer
from quotecheck.layers.sourced import SourcedFiles
from quotecheck.limits import Limits
from quotecheck.parsing.tree import Compound, Script, walk
from quotecheck.programs import SCRIPT_SOURCERS
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


def top_level_flags(script: Script) -> dict[str, bool]:
    """What the ``set`` commands at the top level of ``script`` leave on or off when it has run
    through: those that always run where the script is sourced (not in a function, a
    subshell, a loop or branch, a condition, a pipeline or a substitution, nor after `&&`/`||`).
    A later one overrides an earlier one."""
    out: dict[str, bool] = {}
    for command, context in walk(script):
        if context.in_substitution or context.in_pipeline or context.background or \
                context.conditional or context.guarded or \
                any(isinstance(a, Compound) for a in context.ancestors):
            continue
        words = command.words
        if not words or words[0].dynamic or words[0].value != "set" or \
                any(w.dynamic for w in words):
            continue
        out.update(set_flags([w.value for w in words]))
    return out


def _sourced_points(ctx: CheckContext, layer: Layer) -> tuple[list[int], list[dict[str, bool]]]:
    """The `source F` / `. F` commands of the script (the outermost layer, whose file is known)
    whose file can be read as ``layers.sourced`` finds it: the options its top level sets hold
    from there on, as if its ``set`` commands were written in place of the `source`."""
    def make() -> tuple[list[int], list[dict[str, bool]]]:
        path = layer.process[1] if layer.parent is None and layer.process and \
            len(layer.process) > 1 else None
        if not path or layer.script is None:
            return [], []
        limits = Limits()
        files = SourcedFiles(os.path.dirname(os.path.abspath(path)),
                             "sh" if layer.dialect == "sh" else "bash", limits,
                             time.monotonic() + limits.parse_time)
        points: list[tuple[int, dict[str, bool]]] = []
        for v in layer.commands:
            if len(v.argv) < 2 or v.values[0] not in SCRIPT_SOURCERS or \
                    v.context.in_substitution or v.context.script is not layer.script:
                continue
            word = v.command.words[1] if len(v.command.words) > 1 else None
            found = files.resolve(word) if word is not None else None
            if found is None or found.script.problems:
                continue
            flags = top_level_flags(found.script)
            if flags:
                points.append((layer_position(layer, v.context.script, v.command.span[0]),
                               flags))
        points.sort(key=lambda p: p[0])
        return [p for p, _ in points], [f for _, f in points]
    return ctx.memo.get_or_compute("sourced_set_points", layer, make)


def sourced_option_sources(ctx: CheckContext, layer: Layer, name: str) -> list[int]:
    """Where the script sources a file (see ``_sourced_points``) whose top level turns ``name``
    on: positions in the layer's text."""
    positions, flags = _sourced_points(ctx, layer)
    return [p for p, f in zip(positions, flags, strict=True) if f.get(name)]


def option_in_effect(ctx: CheckContext, layer: Layer, offset: int, script: Script,
                     name: str, *, sourced: bool = False) -> bool:
    """Whether ``set -e`` (name ``errexit``) or ``set -o pipefail`` holds at ``offset``.

    Looks at the shell's own flags and the ``set`` commands of the layer before ``offset``
    (a position in ``script``: the layer's text or a script nested in it); with ``sourced``,
    also at the files the script sources before it that can be read (``_sourced_points``).
    """
    state = shell_flags(layer).get(name, False)
    at = layer_position(layer, script, offset)
    points = [_set_points(ctx, layer)]
    if sourced:
        points.append(_sourced_points(ctx, layer))
    best: tuple[int, bool] | None = None
    for positions, flags in points:
        upto = bisect_left(positions, at)
        for k in range(upto - 1, -1, -1):
            if name in flags[k]:
                if best is None or positions[k] > best[0]:
                    best = (positions[k], flags[k][name])
                break
    return state if best is None else best[1]


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
