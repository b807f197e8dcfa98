"""QC404 shell-stays-pid-1: a shell-form CMD or ENTRYPOINT keeps the shell as the container's
PID 1, and `docker stop` never reaches the program.

Docker runs the shell form as ``/bin/sh -c TEXT``. dash (Debian's and Ubuntu's ``/bin/sh``)
runs even a single command as its child and waits for it (verified with dash 0.5.12:
tests/rules/test_qc404.py); bash (5.2, verified there too) replaces itself with the last
simple command of the text, but not with a pipeline, a compound command or a background
job. The shell is then PID 1 of the container, and the kernel delivers no signal to PID 1 for
which it has set no handler: the SIGTERM of ``docker stop`` is dropped, Docker waits its
timeout (10 s) and kills the container with SIGKILL. The program never shuts down
cleanly: a trainer writes no checkpoint, a server drops its connections.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix
from quotecheck.hosts.dockerfile import BUSYBOX_IMAGES
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Script, SimpleCommand
from quotecheck.programs import POSIX_SHELLS, basename
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_FROM = lazy_compile(r"^[ \t]*FROM[ \t]+(?:--\S+[ \t]+)*(\S+)", 0)

_STAYS = Template(
    "shell-stays-pid-1",
    "{instruction} in shell form keeps `{shell} -c` as PID 1: `docker stop` never reaches "
    "`{program}`",
    "the shell runs `{program}` as its child{why}, and as PID 1 it has no handler for "
    "SIGTERM, so the kernel drops the signal: `docker stop` waits its timeout and kills the "
    "container with SIGKILL, and `{program}` never shuts down cleanly (no checkpoint, no "
    "flush){image}. Start it with `exec` (`{instruction} exec {text}`) or use the exec "
    "form (`{instruction} [\"{program}\", ...]`).")


def _bash_replaces_itself(script: Script) -> bool:
    """bash execs the last command of `-c TEXT` when it is a simple command ending the text
    (`cd /srv && ./server` too), not a pipeline, a compound command or a background job."""
    if len(script.body) != 1:
        return False
    node = script.body[0]
    if isinstance(node, SimpleCommand):
        return True
    return isinstance(node, CommandList) and bool(node.items) and \
        isinstance(node.items[-1], SimpleCommand) and \
        (node.ops[len(node.items) - 1] if len(node.ops) >= len(node.items) else None) != "&"


def _image(source: str, at: int) -> str | None:
    """The base image of the stage that holds offset ``at``."""
    found = None
    for m in _FROM.finditer(source, 0, at):
        found = m.group(1)
    return found


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "dockerfile":
        return
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.parent != 0 or layer.via not in ("CMD", "ENTRYPOINT"):
            continue
        script = layer.script
        if script is None or not layer.commands or not layer.process or layer.text is None:
            continue
        shell = basename(layer.process[0])
        single = len(script.body) == 1 and isinstance(script.body[0], SimpleCommand)
        first = layer.commands[0]
        if first.argv and first.argv[0].value == "exec" and single:
            continue
        if shell == "bash" and _bash_replaces_itself(script):
            continue
        if shell not in POSIX_SHELLS and shell != "bash":
            continue  # another shell, or a program: what it does as PID 1 is its own
        span = layer.source_span
        if span is None:
            continue
        image = _image(ctx.trace.source, span[0]) or ""
        if BUSYBOX_IMAGES.search(image):
            continue  # busybox's ash replaces itself with the last command of `sh -c`
        program = first.argv[0].value if first.argv else "the program"
        why = (" and waits for it" if shell != "bash" else
               " (bash replaces itself only with the last simple command of its text, not "
               "with a pipeline, a compound command or a background job)")
        known = layer.dialect != "unknown"
        note = "" if known else (
            f" (if the shell of `{image[:60]}` is dash: the image may set a SHELL of its own "
            "or bring another /bin/sh, which the Dockerfile does not show)")
        fixes: tuple[Fix, ...] = ()
        if single and layer.origin is not None:
            at = layer.origin[0]
            if at is not None:
                fixes = (Fix("Start the program with `exec`", (Edit((at, at), "exec "),),
                             "safe"),)
        text = layer.text.strip().splitlines()[0][:60] if layer.text.strip() else ""
        yield Finding(span, _STAYS(instruction=layer.via, shell=layer.process[0],
                                   program=basename(program), why=why, image=note,
                                   text=text),
                      layer, (), fixes, "warning" if known else "info")


RULE = Rule("QC404", "shell-stays-pid-1",
            "A shell-form CMD or ENTRYPOINT keeps the shell as PID 1: `docker stop` never "
            "reaches the program", "warning", check, fix="safe", tags=("host",),
            trigger=Trigger(formats=frozenset({"dockerfile"})))
