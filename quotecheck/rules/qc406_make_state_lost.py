"""QC406 make-state-lost: a recipe line that only changes its shell's state (`cd build`,
`export PATH=...`), followed by lines that expect it.

make starts a new shell for each line of a recipe (unless `.ONESHELL:`), and a shell's working
directory, variables and options end with it. `cd build` on one line and `cmake ..` on the
next runs cmake where make started, and `export X=1` reaches no later line: nothing says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from quotecheck.layers.model import Layer
from quotecheck.rules._host_layers import shells_starting_in
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

# Builtins whose whole effect is the state of the shell that runs them.
STATE_BUILTINS = frozenset({"cd", "pushd", "popd", "export", "unset", "source", ".", "set",
                            "shopt", "ulimit", "umask", "alias", "unalias", "declare",
                            "typeset", "readonly", "local", "hash", "trap"})

_LOST = Template(
    "state-ends-with-the-line",
    "`{shown}` changes only the shell of this recipe line, which exits at its end",
    "make runs each recipe line in a shell of its own, so the next line ({next}) starts "
    "again where make started{what}. Put the lines in one shell: `{joined}` (or end this "
    "line with `; \\` to continue it), or add `.ONESHELL:` to the Makefile.")


def _state_only(layer: Layer) -> str | None:
    """The text of a line whose every command only changes the shell's state, else None."""
    if not layer.commands or layer.text is None:
        return None
    for view in layer.commands:
        if view.context.in_substitution:
            continue
        if not view.argv:
            if view.command.assignments:
                continue  # `X=1` alone: a shell variable
            return None
        if view.argv[0].dynamic or view.argv[0].value not in STATE_BUILTINS:
            return None
    return layer.text.strip()


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "make":
        return
    by_launch: list[tuple[int | None, Layer]] = []
    for launch in host.launches:
        layer = next((x for x in shells_starting_in(ctx, launch.span) if x.parent == 0), None)
        if layer is not None:
            by_launch.append((launch.group, layer))
    for (group, layer), (next_group, next_layer) in pairwise(by_launch):
        if group is None or group != next_group or layer.source_span is None:
            continue
        shown = _state_only(layer)
        if shown is None:
            continue
        following = (next_layer.text or "").strip().splitlines()[0][:40]
        first = layer.commands[0].argv[0].value if layer.commands[0].argv else ""
        what = {"cd": ", in make's working directory", "pushd": ", in make's working directory",
                "export": ", without the variable", "source": ", without what the file sets",
                ".": ", without what the file sets"}.get(first, "")
        yield Finding(layer.source_span,
                      _LOST(shown=shown[:60], next=f"`{following}`", what=what,
                            joined=f"{shown[:40]} && {following}"),
                      layer)


RULE = Rule("QC406", "make-state-lost",
            "A recipe line only changes its own shell's state (`cd`, `export`): the next line "
            "does not get it", "warning", check, tags=("host",),
            trigger=Trigger(formats=frozenset({"make"})))
