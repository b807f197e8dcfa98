"""QC204 tty-kills-background: ``ssh -t`` and a background job in the remote script.

With a pseudo-terminal the remote shell is the session leader of that terminal. When it exits
right after starting ``cmd &``, the terminal hangs up and the job, which is in the terminal's
foreground process group (a non-interactive shell has no job control), gets SIGHUP. ``nohup``
ignores SIGHUP only once it runs, which can be too late (0 of 5 jobs survived in the project's
test with OpenSSH 9.2). ``setsid`` puts the job in a session of its own, out of reach of the
hangup.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Related
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Layer
from quotecheck.layers.ssh import asks_for_tty
from quotecheck.programs import HANGUP_DETACHERS, SIGHUP_RESETTERS
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.jobs import Job, background_jobs, waits_after
from quotecheck.rules.runtime.script_index import script_index
from quotecheck.rules.runtime.ssh import ssh_handoff, ssh_layer_above
from quotecheck.rules.runtime.toolcalls import signal_name
from quotecheck.rules.triggers import HANDOFFS


def _tty_word(ssh: Layer, h: ho.SshHandoff) -> tuple[tuple[int, int], str] | None:
    argv = ssh.handoff_argv  # what ``h``'s indices are into
    for opt in h.parsed:
        index: int | None = None
        if opt.name == "-t":
            index = opt.index
        elif opt.name == "-o" and opt.value is not None and asks_for_tty(opt.value):
            index = opt.value_index
        if index is not None and index < len(argv):
            span = argv[index].source_span
            if span is not None:
                return span, argv[index].value
    return None


def _ignores_hup(ctx: CheckContext, layer: Layer, before: int, job: Job) -> bool:
    if job.script is None:
        return False
    for v in script_index(ctx, layer, job.script).named("trap", before):
        if len(v.values) >= 3 and v.values[1] == "" and any(
                signal_name(x) == "HUP" for x in v.values[2:]):
            return True
    return False


_TRIVIAL = frozenset({"echo", "printf", "true", ":", "exit", "return"})


def _busy_after(ctx: CheckContext, layer: Layer, job: Job) -> bool:
    """Commands other than messages run after the job (the shell does not exit at once)."""
    if job.script is None:
        return False
    for v in script_index(ctx, layer, job.script).after(job.span[1]):
        if v.argv and v.values[0] not in _TRIVIAL:
            return True
    return False


_TTY_HANGUP_KILLS_JOB = Template(
    "tty-hangup-kills-job",
    "`{text} &` is started in the background of a remote shell that runs on a "
    "pseudo-terminal (`{flag}`)",
    "when the shell exits, the terminal hangs up and SIGHUP kills the job, "
    "silently.{nohup} Drop `{flag}` (and redirect the job's stdout and stderr so ssh "
    "does not wait for it), or make the shell ignore SIGHUP before it starts the "
    "job: `trap '' HUP; nohup ... > log 2>&1 &` (the ignored signal is inherited "
    "when the job is forked, so there is no race), or `wait` for it. (`-t` allocates "
    "a terminal when ssh's own stdin is one; `-tt` always does.)")


def check(ctx: CheckContext) -> Iterator[Finding]:
    trace = ctx.trace
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        ssh = ssh_layer_above(trace, layer)
        if ssh is None:
            continue
        h = ssh_handoff(ssh)
        if h is None or h.tty == 0 or h.no_command:
            continue
        for job in background_jobs(ctx, layer):
            if job.script is None or not job.views or waits_after(ctx, layer, job):
                continue
            first = job.views[0].effective
            # node (and the programs that run on it) sets SIGHUP back to its default when it
            # starts: an ignored SIGHUP (nohup, `trap '' HUP`) does not outlive that.
            resets = first is not None and first.name in SIGHUP_RESETTERS
            if _ignores_hup(ctx, layer, job.span[0], job) and not resets:
                continue
            used_by_job = {*first.wrappers, first.name} if first is not None else set()
            detached = bool(HANGUP_DETACHERS & used_by_job)
            if resets:
                detached = "setsid" in used_by_job
            if detached and _busy_after(ctx, layer, job):
                continue  # nohup/setsid had time to run before the shell exits
            text = job.text(50)
            word = _tty_word(ssh, h)
            related: tuple[Related, ...] = ()
            flag = "-tt" if h.tty == 2 else "-t"
            if word is not None:
                related = (Related(word[0], f"`{word[1]}` asks for a pseudo-terminal"),)
                flag = word[1]
            nohup = ""
            if resets and first is not None:
                saved = sorted(used_by_job & {"nohup"})
                nohup = (f" `{first.name}` runs on node, which sets SIGHUP back to its default "
                         "action when it starts, so " + (
                             "`nohup` (or `trap '' HUP`) cannot keep it alive"
                             if saved or _ignores_hup(ctx, layer, job.span[0], job)
                             else "ignoring SIGHUP cannot keep it alive") +
                         "; start it with `setsid` (`setsid nohup ... &`), which takes it out "
                         "of the terminal's session.")
            elif detached:
                used = sorted(HANGUP_DETACHERS & {*first.wrappers, first.name}) \
                    if first is not None else []
                verb = "does" if len(used) == 1 else "do"
                nohup = (f" `{'` and `'.join(used)}` {verb} not save it here: the shell exits "
                         "right after starting it, and the hangup comes before nohup ignores "
                         "SIGHUP or setsid leaves the terminal's session (a race that the job "
                         "lost in every test).")
            msg = (_TTY_HANGUP_KILLS_JOB(text=text, flag=flag, nohup=nohup))
            span = job.source_span() or job.views[0].source_span or (0, 0)
            yield Finding(span, msg, layer, related)


RULE = Rule("QC204", "tty-kills-background",
            "`ssh -t` with a background job: the terminal hangup kills the job",
            "warning", check,
            trigger=HANDOFFS)
