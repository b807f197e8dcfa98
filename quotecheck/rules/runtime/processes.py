"""Which processes are running the script when a kill runs: the shells alive on the same
machine, and whether a shell replaces itself with its last command.

bash runs the last simple command of a ``-c`` string with ``exec`` (the shell is replaced):
after ``;``, a newline, or in a lone ``&&``/``||`` list, but not when the command has a
redirection, sits in ``{ }``, a pipeline or after ``&``, when a trap is set, or when anything
but one newline, ``;`` or a comment follows it. Script files never do this; dash never does
(verified with bash 5.2.15 and dash 0.5.12: tests/rules/test_runtime_processes.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import CommandView, Layer, Trace
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Node
from quotecheck.programs import EXEC_LAST_COMMAND, FORK_LAST_COMMAND, PROCESS_BOUNDARIES
from quotecheck.records import FrozenRecord

Alive = Literal["yes", "depends"]
_TAIL_OK = lazy_compile(r"[ \t]*;?[ \t]*(#[^\n]*)?\n?")


class Candidate(FrozenRecord):
    layer: Layer
    argv: tuple[str, ...]
    alive: Alive
    note: str  # why "depends", or ""


def is_dash_c(layer: Layer) -> bool:
    """The layer's shell got its script as a ``-c`` argument."""
    proc = layer.process or []
    for w in proc[1:]:
        if w == "-c" or (w.startswith("-") and not w.startswith("--") and "c" in w[1:]
                         and "o" not in w[1:]):
            return True
        if not w.startswith(("-", "+")):
            return False
    return False


def shell_program(layer: Layer) -> str:
    """The shell's program name (``bash``, ``sh``...); ``login shell`` when it is not known."""
    proc = layer.process or []
    if not proc:
        return ""
    name = ho.basename(proc[0]).lstrip("-")
    return "login shell" if name.startswith("<") else name


def exec_in_place(layer: Layer, view: CommandView, node: Node | None = None) -> str:
    """Whether the shell replaces itself with the command (``yes``/``no``/``depends``).

    bash (and zsh) exec the last simple command of a ``-c`` string; dash never does.
    """
    if not is_dash_c(layer) or layer.script is None:
        return "no"
    cmd = view.command
    if cmd.redirects or view.context.in_substitution or view.context.background:
        return "no"
    if node is not None and node is not cmd:
        return "no"
    if view.context.script is not layer.script:
        return "no"
    body = layer.script.body
    if not body:
        return "no"
    last = body[-1]
    if last is cmd:
        pass
    elif isinstance(last, CommandList) and last.items and last.items[-1] is cmd:
        seps = [op or "\n" for op in last.ops[: len(last.items) - 1]]
        trailing = last.ops[len(last.items) - 1] if len(last.ops) >= len(last.items) else None
        if trailing not in (None, ";", "\n"):
            return "no"
        if seps and seps[-1] not in (";", "\n") and not all(op in ("&&", "||") for op in seps):
            return "no"
    else:
        return "no"
    text = layer.script.text
    if not _TAIL_OK.fullmatch(text, last.span[1]):
        return "no"
    for v in layer.commands:
        if v.argv and v.values[0] == "trap":
            return "no"
    prog = shell_program(layer)
    if prog in FORK_LAST_COMMAND:
        return "no"
    if prog in EXEC_LAST_COMMAND or (layer.dialect in ("bash", "zsh") and prog not in ("sh",)):
        return "yes"
    return "depends"


def opening_view(trace: Trace, child: Layer) -> tuple[Layer, CommandView] | None:
    """The shell layer above ``child`` and the command of it that opened ``child``."""
    view = child.opened_by
    p = child.parent
    while p is not None:
        parent = trace.layers[p]
        if parent.kind == "shell":
            return (parent, view) if view is not None else None
        p = parent.parent
    return None


def running_processes(trace: Trace, layer: Layer, site_view: CommandView,
                      replaceable: bool, item: Node) -> list[Candidate]:
    """The shells on the same machine whose processes are alive when the kill runs."""
    out: list[Candidate] = []
    seen: set[tuple[str, ...]] = set()
    if layer.process and not layer.stdin_script:
        verdict = exec_in_place(layer, site_view, item) if replaceable else "no"
        if verdict != "yes":
            note = ""
            if verdict == "depends":
                note = (f"unless the shell ({shell_program(layer) or 'the login shell'}) execs "
                        "the command in place: bash and zsh do for the last command of a -c "
                        "string, dash never does")
            out.append(Candidate(layer, tuple(layer.process),
                                 "depends" if verdict == "depends" else "yes", note))
            seen.add(tuple(layer.process))
    current = layer
    while current.parent is not None:
        # Stop at a machine or namespace boundary between this layer and the next shell up.
        p = trace.layers[current.parent]
        crossed = False
        while p.kind != "shell":
            if p.kind == "ssh" or (p.kind == "exec" and p.via in PROCESS_BOUNDARIES):
                crossed = True
                break
            if p.parent is None:
                break
            p = trace.layers[p.parent]
        if crossed or p.kind != "shell":
            break
        opened = opening_view(trace, current)
        if opened is None:
            break
        parent, view = opened
        if parent.process and not parent.stdin_script:
            verdict = exec_in_place(parent, view)
            if verdict != "yes" and tuple(parent.process) not in seen:
                seen.add(tuple(parent.process))
                note = "" if verdict == "no" else (
                    "unless that shell execs the command in place (bash and zsh do for the "
                    "last command of a -c string)")
                out.append(Candidate(parent, tuple(parent.process),
                                     "depends" if verdict == "depends" else "yes", note))
        current = parent
    return out


def map_match(ctx_layer: Layer, argv: Sequence[str], start: int,
              end: int) -> tuple[int, int] | None:
    """Layer-text positions of a match in the rendered command line ``argv`` (if inside the
    script text the layer reads)."""
    if start < 0 or ctx_layer.text is None:
        return None
    at = 0
    for word in argv:
        if at <= start < at + len(word) + 1:
            if word.endswith(ctx_layer.text) and ctx_layer.text:
                shift = len(word) - len(ctx_layer.text)
                a = start - at - shift
                b = min(end - at - shift, len(ctx_layer.text))
                if a >= 0:
                    return a, max(b, a + 1)
            return None
        at += len(word) + 1
    return None


def blocked_ranges(layer: Layer, argv: Sequence[str]) -> list[tuple[int, int]]:
    """Parts of the rendered command line that are only known at run time."""
    if not layer.dynamic_ranges or layer.text is None:
        return []
    at = 0
    for word in argv:
        if word.endswith(layer.text) and layer.text:
            shift = at + len(word) - len(layer.text)
            return [(a + shift, b + shift) for a, b in layer.dynamic_ranges]
        at += len(word) + 1
    return []
