"""File descriptors of a shell and its commands: where a background job's output goes.

A background job (``&``) of a non-interactive shell reads /dev/null; sshd keeps a session open
until the job's stdout and stderr are closed. stdin does not matter (verified with OpenSSH 9.2:
a job holding the channel's stdin as fd 0 does not delay ssh).
"""

from __future__ import annotations

from collections.abc import Sequence

from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import Compound, Redirect
from quotecheck.rules.api import CheckContext
from quotecheck.rules.runtime.processes import opening_view
from quotecheck.rules.runtime.script_index import layer_position, script_index
from quotecheck.rules.runtime.slots import local_chain
from quotecheck.rules.runtime.ssh import ssh_tty

FdTable = dict[int, str]  # fd -> "channel", "tty", "file", "pipe", "closed", "local"


def apply_redirects(fds: FdTable, redirects: Sequence[Redirect]) -> FdTable:
    out = dict(fds)
    for r in redirects:
        op = r.op
        if op in ("&>", "&>>") or (op == ">&" and r.fd is None and r.dup_fd is None
                                    and r.target is not None):
            out[1] = out[2] = "file"
            continue
        if op in (">", ">>", ">|", "<>"):
            out[r.fd if r.fd is not None else (0 if op == "<>" else 1)] = "file"
        elif op in ("<", "<<", "<<-", "<<<"):
            out[r.fd if r.fd is not None else 0] = "file"
        elif op in (">&", "<&"):
            fd = r.fd if r.fd is not None else (1 if op == ">&" else 0)
            if r.dup_fd is not None:
                out[fd] = out.get(r.dup_fd, "closed")
            elif r.target is not None and r.target.value == "-":
                out[fd] = "closed"
            elif r.target is not None and r.target.value.endswith("-"):
                src = r.target.value[:-1]
                out[fd] = out.get(int(src), "closed") if src.isdigit() else "file"
            else:
                out[fd] = "file"
    return out


def base_fds(ctx: CheckContext, layer: Layer, tty: bool = False) -> FdTable:
    """stdout/stderr of a shell layer when it starts: the ssh channel for a remote shell."""
    trace = ctx.trace
    if layer.parent is None:
        return {0: "local", 1: "local", 2: "local"}
    parent = trace.layers[layer.parent]
    if parent.kind == "ssh":
        kind = "tty" if tty else "channel"
        return {0: kind, 1: kind, 2: kind}
    opened = opening_view(trace, layer)
    if opened is None:
        return {0: "local", 1: "local", 2: "local"}
    shell, view = opened
    fds = fds_before(ctx, shell, view)
    return fds_of_command(ctx, fds, view)


def fds_before(ctx: CheckContext, layer: Layer, view: CommandView) -> FdTable:
    """The shell's fds at ``view``: its start, then every earlier ``exec >file``."""
    fds = base_fds(ctx, layer, ssh_tty(ctx.trace, layer))
    if layer.script is None:
        return fds
    pos = layer_position(layer, view.context.script, view.command.span[0])
    for v in script_index(ctx, layer, layer.script).named("exec", pos):
        if (v.values == ["exec"] and not v.context.in_pipeline
                and not any(isinstance(n, Compound) and n.kind == "subshell"
                            for n in v.context.ancestors)):
            fds = apply_redirects(fds, v.command.redirects)
    return fds


def fds_of_command(ctx: CheckContext, fds: FdTable, view: CommandView) -> FdTable:
    """Apply enclosing compound redirects, the pipe, then the command's own redirects."""
    out = dict(fds)
    for node in local_chain(ctx, view)[:-1]:
        if isinstance(node, Compound):
            out = apply_redirects(out, node.redirects)
    where = view.context
    if where.in_pipeline:
        out[0] = "pipe"
        if not where.pipeline_last:
            out[1] = "pipe"
    return apply_redirects(out, view.command.redirects)
