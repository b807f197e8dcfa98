"""QC209 ssh-eats-stdin: ssh reads a standard input that something else was going to read.

ssh copies its standard input to the remote command until end of file, whether or not the
remote command reads it. Two cases where that input belongs to someone else:

- ssh inside a loop that reads its input line by line (`while read h; do ssh "$h" ...; done <
  hosts`, `cmd | while read ...`): the first ssh swallows the remaining lines and the loop
  stops after one round;
- ssh inside a script that a shell reads from its standard input (`ssh host bash -s <<'EOF'`,
  `ssh host <<'EOF'`, `curl ... | bash`): bash reads such a script one byte at a time, so the
  ssh receives the rest of the script, which never runs (dash reads ahead in blocks, so with
  it only a long script loses its tail).

Not reported: `ssh -n`, `ssh -f`, an ssh whose own stdin is redirected (`< /dev/null`, a
heredoc, a here-string, `<&3`) or comes from a pipe (`echo x | ssh ...`), a loop reading from
another descriptor (`read -u 3`, `read <&3`), and an input redirected around the ssh
(`{ ssh ...; } < /dev/null`).
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix, Related, Severity
from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Node,
    Pipeline,
    Script,
    SimpleCommand,
)
from quotecheck.programs import basename
from quotecheck.records import FrozenRecord
from quotecheck.rules._portability import (
    SshCall,
    connects,
    reads_stdin,
    script_span,
    ssh_calls,
    stdin_redirect,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

LOOPS = ("while", "until", "for", "select")


class Reader(FrozenRecord):
    """Who else reads the standard input the ssh inherits."""

    kind: str  # "loop" or "script"
    layer: Layer
    loop: Compound | None = None
    script: Script | None = None
    read: SimpleCommand | None = None  # the loop's `read`


def loop_reader(loop: Compound) -> SimpleCommand | None:
    """The `read` that makes ``loop`` consume its standard input, if any."""
    todo: list[Node] = [p for _, p in loop.parts]
    while todo:
        node = todo.pop(0)
        if isinstance(node, SimpleCommand):
            if reads_stdin(node):
                return node
        elif isinstance(node, Pipeline):
            todo.extend(node.commands[:1])  # later elements read the pipe
        elif isinstance(node, Compound):
            if any(stdin_redirect(r) for r in node.redirects):
                continue
            todo.extend(p for _, p in node.parts)
        elif isinstance(node, CommandList):
            todo.extend(node.items)
    return None


def _climb(view: CommandView) -> tuple[str, Compound | None, SimpleCommand | None]:
    """Walk out from a command: ("safe"|"loop"|"top", loop, read)."""
    if any(stdin_redirect(r) for r in view.command.redirects):
        return "safe", None, None
    chain = (*view.context.ancestors, view.command)
    for i in range(len(chain) - 2, -1, -1):
        node, below = chain[i], chain[i + 1]
        if isinstance(node, Pipeline):
            index = next((k for k, c in enumerate(node.commands) if c is below), 0)
            if index > 0:
                return "safe", None, None
        elif isinstance(node, Compound):
            role = next((r for r, p in node.parts if p is below), "body")
            if node.kind in LOOPS and role == "body":
                read = loop_reader(node)
                if read is not None:
                    return "loop", node, read
            if any(stdin_redirect(r) for r in node.redirects):
                return "safe", None, None
        elif isinstance(node, SimpleCommand) and node is not view.command:
            # A `$( )` inside this command: its stdin is the command's (before redirects).
            continue
    return "top", None, None


def find_reader(ctx: CheckContext, call: SshCall) -> Reader | None:
    layer: Layer = call.shell
    view: CommandView = call.view
    for _ in range(len(ctx.layers) + 1):
        outcome, loop, read = _climb(view)
        if outcome == "safe":
            return None
        if outcome == "loop":
            return Reader("loop", layer, loop, view.context.script, read)
        # The top of this layer: its stdin is what the layer's shell got.
        if layer.stdin_script:
            return Reader("script", layer)
        parent = ctx.parent(layer)
        if parent is None or parent.kind == "ssh" or layer.opened_by is None:
            return None
        opener = layer.opened_by
        outer = parent
        while outer.kind != "shell" and outer.parent is not None:
            outer = ctx.layers[outer.parent]
        if outer.kind != "shell":
            return None
        layer, view = outer, opener
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    for call in ssh_calls(ctx):
        if call.handoff.stdin_null or not connects(call):
            continue
        reader = find_reader(ctx, call)
        if reader is None:
            continue
        yield _finding(ctx, call, reader)


_LOOP_INPUT_SWALLOWED = Template(
    "loop-input-swallowed",
    "`ssh` inside this `{loop}` loop reads the loop's standard input{source}",
    "ssh sends all of its stdin to the remote command, so the first ssh swallows the "
    "lines the loop's `read` was going to get, and the loop ends after one round "
    "without any error. Give ssh `-n` (stdin from /dev/null) or `< /dev/null`, or "
    "let the loop read another descriptor (`while read -r h <&3; do ...; done 3< "
    "file`).")

_READS_SCRIPT_STDIN = Template(
    "reads-script-stdin",
    "`ssh` reads the standard input of {name}, which is reading this very script from its "
    "standard input",
    "{loss}. Give this ssh `-n` (stdin from /dev/null) or `< /dev/null`.")


def _finding(ctx: CheckContext, call: SshCall, reader: Reader) -> Finding:
    related: list[Related] = []
    severity: Severity = "error"
    if reader.kind == "loop":
        assert reader.loop is not None and reader.script is not None
        loop = reader.loop
        source = _loop_input(reader)
        message = (_LOOP_INPUT_SWALLOWED(loop=loop.kind, source=source))
        if reader.read is not None:
            span = script_span(reader.script, *reader.read.span)
            if span is not None:
                related.append(Related(span, "the loop reads its standard input here"))
    else:
        shell = reader.layer
        program = basename(shell.process[0]).lstrip("-") if shell.process else ""
        name = "the login shell" if not program or program.startswith("<") else f"`{program}`"
        is_bash = shell.dialect == "bash"
        if not is_bash:
            severity = "warning"
        message = _READS_SCRIPT_STDIN(
            name=name,
            loss=("bash reads such a script one byte at a time, so ssh receives the rest "
                  "of the script and those lines never run"
                  if is_bash else
                  "bash reads such a script one byte at a time, so ssh would receive the "
                  "rest of the script and those lines would never run (dash reads ahead "
                  "in blocks, so with it only a long script loses its tail)"))
        if shell.source_span is not None:
            related.append(Related((shell.source_span[0], shell.source_span[0] + 1),
                                   f"the script {name} reads on standard input"))
    fixes: tuple[Fix, ...] = ()
    span = call.word.source_span
    through = call.ssh.through is not None and call.ssh.source_span is not None
    if span is not None and ctx.source[span[0]:span[1]] == call.word.value and not through:
        # (not in a function the script calls: its other callers may feed it input)
        fixes = (Fix("add `-n`", (Edit((span[1], span[1]), " -n"),), "unsafe"),)
    # An ssh in a function called from the loop: said at the call, which is in the loop.
    where = call.ssh.source_span if through and call.ssh.source_span else call.span()
    return Finding(where, message, call.ssh, tuple(related), fixes, severity)


def _loop_input(reader: Reader) -> str:
    loop = reader.loop
    assert loop is not None
    for r in loop.redirects:
        if stdin_redirect(r) and r.target is not None:
            return f" (`{r.op} {r.target.raw}`)"
        if stdin_redirect(r) and r.heredoc is not None:
            return " (a heredoc)"
    return ""


RULE = Rule("QC209", "ssh-eats-stdin",
            "ssh inside a `while read` loop (or a script read from stdin) swallows its input",
            "error", check, fix="unsafe",
            trigger=HANDOFFS)
