"""QC404 shell-stays-pid-1: a shell-form CMD or ENTRYPOINT keeps the shell as the container's
PID 1, and `docker stop` never reaches the program.

Docker runs the shell form as ``/bin/sh -c TEXT``. dash as Debian and Ubuntu build it (their
``/bin/sh``) runs even a single command as its child and waits for it (verified with Debian's
dash 0.5.12: tests/rules/test_qc404.py; Debian turns off upstream dash's exec of the last
command of ``-c``); bash (5.2, verified there too) replaces itself with the last simple
command of the text, but not with a pipeline, a compound command or a background job.
busybox's ash does what bash does since busybox 1.28 (Alpine 3.8), and ran every command as a
child before (busybox's history: "ash: [SHELL] Optimize dash -c "command" to avoid a fork",
first in 1_28_0), so an Alpine image of a release before 3.8 keeps the shell too. The shell is
then PID 1 of the container, and the kernel delivers no signal to PID 1 for which it has set
no handler: the SIGTERM of ``docker stop`` is dropped, Docker waits its timeout (10 s) and
kills the container with SIGKILL. The program never shuts down cleanly: a trainer writes no
checkpoint, a server drops its connections.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix
from quotecheck.hosts.dockerfile import BUSYBOX_IMAGES, stage_images
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Script, SimpleCommand
from quotecheck.programs import POSIX_SHELLS, basename
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

# An Alpine release before 3.8 named in the image (`alpine:3.4`, `python:3.6-alpine3.7`):
# busybox before 1.28, whose ash ran even the last command of `sh -c` as its child.
_OLD_ALPINE = lazy_compile(r"(?:(?:^|/)alpine:|-alpine)3\.[0-7](?:\.[0-9]+)?(?:@|\Z)")
# The official images, whose Alpine variants bring busybox's /bin/sh and no SHELL of their own
_OFFICIAL_ALPINE = lazy_compile(
    r"(?:docker\.io/)?(?:library/)?(?:alpine|python|node|ruby|golang|perl|php|nginx|httpd|"
    r"postgres|redis|mysql|openjdk|rust|memcached|haproxy|traefik)[:@]")

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


def _image(ctx: CheckContext, at: int) -> str | None:
    """The base image of the stage that holds offset ``at`` (an earlier stage's followed)."""
    stages = ctx.memo.get_or_compute("dockerfile-stages", ctx.trace,
                                     lambda: stage_images(ctx.trace.source))
    k = bisect_right([start for start, _ in stages], at) - 1
    return stages[k][1] if k >= 0 else None


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
        image = _image(ctx, span[0]) or ""
        old_ash = bool(_OLD_ALPINE.search(image))
        if BUSYBOX_IMAGES.search(image) and not old_ash:
            continue  # busybox's ash (1.28 on) replaces itself with the last command of -c
        program = first.argv[0].value if first.argv else "the program"
        why = (" and waits for it" if shell != "bash" else
               " (bash replaces itself only with the last simple command of its text, not "
               "with a pipeline, a compound command or a background job)")
        if old_ash:
            why += (" (busybox's ash before 1.28, the /bin/sh of Alpine before 3.8, replaces "
                    "itself with no command of `sh -c`)")
            known = bool(_OFFICIAL_ALPINE.match(image))
            note = "" if known else (
                f" (if `{image[:60]}` is the Alpine its name says: the image may set a SHELL of "
                "its own or bring another /bin/sh, which the Dockerfile does not show)")
        else:
            known = layer.dialect != "unknown"
            note = "" if known else (
                f" (if the shell of `{image[:60]}` is dash: the image may set a SHELL of its "
                "own or bring another /bin/sh, which the Dockerfile does not show)")
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
