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
    if "\\$" in exp.word.raw:
        return False  # the author escaped what the inner layer is to expand
    sets = an.assigned(exp.layer)
    kind = exp.part.kind
    if kind == "arithmetic":
        return not any(n in sets for n in ARITH_NAMES.findall(exp.text[3:-2]))
    name = exp.name
    if name is None or kind not in ("parameter", "special"):
        return True
    pclass = exp.pclass
    if pclass == "named":
        if any(not a.handover for a in sets.get(name, [])):
            return False
        if inner is not None and inner.kind == "shell" and name not in ENVIRONMENT_NAMES \
                and not environment_differs(an.trace, exp.layer, inner):
            return name in an.assigned(inner)
        return True
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
