"""The ssh session a layer runs in, and how it was opened."""

from __future__ import annotations

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Layer, Trace


def ssh_layer_above(trace: Trace, layer: Layer) -> Layer | None:
    """The nearest ssh layer above ``layer`` (the session it runs in), if any."""
    p = layer.parent
    while p is not None:
        x = trace.layers[p]
        if x.kind == "ssh":
            return x
        p = x.parent
    return None


def ssh_handoff(ssh: Layer) -> ho.SshHandoff | None:
    """The ssh that the command opening ``ssh`` runs (past its wrappers), indices into that
    command's argv."""
    view = ssh.opened_by
    eff = view.effective if view is not None else None
    h = eff.handoff if eff is not None else None
    return h if isinstance(h, ho.SshHandoff) else None


def ssh_tty(trace: Trace, layer: Layer) -> bool:
    ssh = ssh_layer_above(trace, layer)
    if ssh is None:
        return False
    h = ssh_handoff(ssh)
    return h is not None and h.tty > 0
