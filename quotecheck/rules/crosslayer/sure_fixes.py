"""When the escape fix (`$x` -> `\\$x`) of a cross-layer finding is sure not to break the script.

The fix moves an expansion from the outer shell to the inner one. That is only what the author
meant when the outer value is not one the script gives itself: escaping `$DATA_DIR` that the
script set two lines above, `$1` of a heredoc whose shell gets no arguments, or a `$$` the
script also uses locally (a unique name shared by both sides) empties or changes a value the
author set, and the script carries on with the wrong one. The same when the author escaped
other `$` of the same text (`\\$ID` next to `$REGION_NAME`: the unescaped ones are meant
local), and for a variable handed to a shell on the same machine that does not set it itself
(`timeout 60 bash <<EOF ... $VIRT_DRIVER`): unless exported, the inner shell has it empty.
Such findings keep their message and lose their fix.
"""

from __future__ import annotations

from quotecheck.layers.model import Layer
from quotecheck.programs import TASK_VARIABLES
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import ARITH_NAMES, Expansion, expansions_of
from quotecheck.rules.crosslayer.inner_shells import (
    ENVIRONMENT_NAMES,
    environment_differs,
    has_own_arguments,
)


def escape_is_sure(an: Analysis, exp: Expansion, inner: Layer | None) -> bool:
    """Whether escaping ``exp`` keeps every value the outer script sets (``inner``: the layer
    the finding is about)."""
    sets = an.assigned(exp.layer)
    name = exp.name
    # The inner shell the text is handed to (not the program text of this layer's command).
    shell = inner if inner is not None and inner is not exp.layer and inner.kind == "shell" \
        else None
    if exp.pclass == "named" and name is not None and shell is not None and name not in sets \
            and name in an.assigned(shell):
        return True  # only the inner script sets it: the inner value is the one meant
    if "\\$" in exp.word.raw:
        return False  # the author escaped what the inner layer is to expand, not this
    kind = exp.part.kind
    if kind == "arithmetic":
        return not any(n in sets for n in ARITH_NAMES.findall(exp.text[3:-2]))
    if name is None or kind not in ("parameter", "special"):
        return True
    pclass = exp.pclass
    if pclass == "named":
        if any(not a.handover for a in sets.get(name, [])):
            return False
        # Not exported, a shell on this machine has it empty; a task variable is set by each
        # task for itself.
        return shell is None or name in ENVIRONMENT_NAMES or name in TASK_VARIABLES or \
            environment_differs(an.trace, exp.layer, shell)
    if pclass == "positional":
        # An inner shell with no arguments of its own has an empty `$1`: the fix empties it.
        return inner is None or inner.kind != "shell" or has_own_arguments(inner)
    if name == "$":
        return not _uses_pid_elsewhere(exp)
    return True


def _uses_pid_elsewhere(exp: Expansion) -> bool:
    """The outer layer expands `$$` somewhere else too: the value is shared on purpose."""
    for view in exp.layer.commands:
        for other in expansions_of(exp.layer, view, ()):
            if other.name == "$" and other.sources != exp.sources:
                return True
    return False
