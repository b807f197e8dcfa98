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
    """How the ssh that opened the layer ``ssh`` reads its argv (indices into
    ``ssh.handoff_argv``): the trace's own reading, whatever wrappers it went through."""
    h = ssh.handoff
    return h if isinstance(h, ho.SshHandoff) else None


def ssh_tty(trace: Trace, layer: Layer) -> bool:
    ssh = ssh_layer_above(trace, layer)
    if ssh is None:
        return False
    h = ssh_handoff(ssh)
    return h is not None and h.tty > 0
