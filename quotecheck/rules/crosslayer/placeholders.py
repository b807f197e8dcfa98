"""`{}` of `find -exec` and the `-I` placeholder of `xargs` pasted into an inner shell's
script (QC103, whatever the quoting around it)."""

from __future__ import annotations

from quotecheck.diagnostics import Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import CommandView, Layer
from quotecheck.layers.stdin_readers import reads_stdin
from quotecheck.parsing.tree import Pipeline, SimpleCommand
from quotecheck.programs import FILE_NAME_LISTERS, LINE_FILTERS, NETWORK_READERS, basename
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Result
from quotecheck.rules.crosslayer.inner_shells import describe, program_of
from quotecheck.rules.crosslayer.text import line_around

QUOTED_KINDS = frozenset({"single", "double", "ansi_c", "locale", "escape", "heredoc"})


def _placeholder(layer: Layer) -> str | None:
    if layer.via == "find":
        return "{}"
    if layer.via != "xargs":
        return None
    h = layer.handoff
    if isinstance(h, ho.ExecHandoff) and h.wrapper == "xargs":
        return h.placeholder
    return None


def _input_program(view: CommandView | None) -> str | None:
    """The program whose output `xargs` reads through a pipe (`virsh list | xargs ...`), past
    line filters (`| grep | awk`), or None when it reads something else or it is not known."""
    if view is None or not view.context.in_pipeline:
        return None
    chain = (*view.context.ancestors, view.command)
    for k in range(len(chain) - 2, -1, -1):
        pipe = chain[k]
        if not isinstance(pipe, Pipeline):
            continue
        at = next((i for i, c in enumerate(pipe.commands) if c is chain[k + 1]), None)
        if at is None:
            return None
        for node in reversed(pipe.commands[:at]):
            if not isinstance(node, SimpleCommand) or node.name is None:
                return None  # `{ echo a; echo b; } | xargs`: not one program's output
            name = basename(node.name)
            if name not in LINE_FILTERS:
                return name
            if not reads_stdin(name, [w.value for w in node.words[1:]]):
                return None  # `grep -h x list.txt | xargs`: lines of a file, not known
        return None
    return None


def _reads_the_scripts_input(view: CommandView | None) -> bool:
    """`xargs` reads the standard input of the script itself: no pipe, no `<` of its own."""
    if view is None or view.context.in_pipeline or view.context.in_substitution:
        return False
    return not any(r.op in ("<", "<<", "<<<", "<<-", "<>") and r.fd in (None, 0)
                   for r in view.command.redirects)


_PLACEHOLDER_PASTED = Template(
    "placeholder-pasted",
    "{via} pastes each input name in place of `{ph}` inside the script that {inner} "
    "parses (`{snippet}`)",
    "a file name such as `x;reboot` or `$(rm -rf ~).txt` runs as code.{quoted} Pass "
    "the name as an argument instead: {use}.")


def placeholder_results(ctx: CheckContext, an: Analysis, layer: Layer) -> list[Result]:
    trace = ctx.trace
    ph = _placeholder(layer)
    if not ph:
        return []
    out: list[Result] = []
    source = _input_program(layer.opened_by) if layer.via == "xargs" else None
    shells = [x for x in an.subtree([layer.id]) if x.kind == "shell"]
    for arg in layer.argv:
        if ph not in arg.value:
            continue
        at = arg.value.find(ph)
        while at >= 0:
            srcs = tuple(o for o in arg.offsets[at:at + len(ph)] if o is not None)
            at = arg.value.find(ph, at + len(ph))
            if len(srcs) != len(ph):
                continue
            for shell in shells:
                cmap = an.chars(shell)
                infos = [cmap.get(s) for s in srcs]
                if not any(infos):
                    continue
                quoting = next((i.quoting for i in infos if i is not None), "none")
                snippet = line_around(shell, srcs)
                prog = program_of(shell)
                inner = describe(trace, shell)
                quoted = (" The quotes around it do not help: a name holding a quote of the "
                          "same kind ends them, and inside double quotes `$(...)` still runs."
                          if quoting in QUOTED_KINDS else "")
                tail = "sh {} +" if layer.via == "find" else f"sh {ph}"
                if layer.via == "find":
                    use = (f"`find ... -exec {prog} -c '... \"$1\" ...' sh {{}} \\;` (or "
                           f"`-exec {prog} -c 'for f; do ... \"$f\"; done' {tail}`)")
                else:
                    use = f"`xargs -I{ph} {prog} -c '... \"$1\" ...' {tail}`"
                msg = (_PLACEHOLDER_PASTED(via=layer.via, ph=ph, inner=inner, snippet=snippet,
                                               quoted=quoted, use=use))
                severity: Severity = "error"
                if layer.via == "xargs" and source is None and _reads_the_scripts_input(
                        layer.opened_by):
                    # The lines of the script's own standard input: whoever runs it types or
                    # pipes them, data as much as `read` gives (a warning, as QC103 for it).
                    severity = "warning"
                    msg = msg.extended(" (xargs reads the script's own standard input.)")
                elif source is not None and source not in FILE_NAME_LISTERS | NETWORK_READERS:
                    # Names a program printed (`virsh list --uuid`, `docker ps -q`): mostly
                    # identifiers (precision corpus: all such findings noise). Info.
                    severity = "info"
                    msg = msg.extended(f" (Each input line is the output of `{source}`, not a "
                                       "file name; whether it can hold shell syntax depends "
                                       "on that program.)")
                out.append(Result("QC103", Finding(
                    (min(srcs), max(srcs) + 1), msg, shell, (), (), severity)))
                break
    return out
