"""QC203 ssh-waits-for-background: a background job keeps the ssh session open.

sshd ends a session only when the remote command has exited *and* its stdout and stderr pipes
are closed. A job started with ``&`` (``nohup``, ``setsid`` or not) inherits both, so ssh does
not return until the job exits; if the connection is cut instead, the job's next write fails.
Verified against OpenSSH 9.2 with bash and dash as login shells: ``cmd > log 2>&1 &`` returns
at once; ``cmd &``, ``cmd > log &``, ``cmd 2>&1 > log &`` and ``setsid cmd &`` wait for ``cmd``.
stdin does not matter: a background job of a non-interactive shell reads /dev/null, and even a
job that holds the channel's stdin does not delay the end of the session.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers.model import Layer
from quotecheck.parsing.tree import CommandList, Compound, Pipeline, SimpleCommand
from quotecheck.programs import ASH_FAMILY, HANGUP_DETACHERS, SHELL_DIALECTS
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.fds import FdTable, apply_redirects, fds_before, fds_of_command
from quotecheck.rules.runtime.jobs import Job, background_jobs, waits_after
from quotecheck.rules.runtime.processes import shell_program
from quotecheck.rules.runtime.ssh import ssh_handoff, ssh_layer_above
from quotecheck.rules.triggers import HANDOFFS

_QUICK = frozenset({"echo", "printf", "true", ":", "false", "cd", "export", "umask", "ulimit",
                    "set", "test", "[", "source", ".", "pushd", "unset", "local"})


def _open_fds(fds: FdTable) -> list[int]:
    return [fd for fd in (1, 2) if fds.get(fd) == "channel"]


def check(ctx: CheckContext) -> Iterator[Finding]:
    trace = ctx.trace
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        ssh = ssh_layer_above(trace, layer)
        if ssh is None:
            continue
        h = ssh_handoff(ssh)
        if h is not None and (h.tty > 0 or h.no_command or h.subsystem or h.background):
            # With a pty the session does not wait (QC204 covers what happens); with -f ssh
            # itself goes to the background, so nothing waits for it.
            continue
        for job in background_jobs(ctx, layer):
            finding = _job_finding(ctx, layer, ssh, job)
            if finding is not None:
                yield finding


def _single_process(job: Job) -> bool:
    """The job is one process (or a pipeline of them) that the shell forks directly."""
    if job.node is not job.last:
        return False
    node = job.node
    if isinstance(node, SimpleCommand):
        return True
    if isinstance(node, Pipeline):
        return all(isinstance(c, SimpleCommand) for c in node.commands)
    if isinstance(node, Compound) and node.kind == "subshell" and len(node.parts) == 1:
        part = node.parts[0][1]
        return isinstance(part, SimpleCommand) or (
            isinstance(part, CommandList) and len(part.items) == 1
            and isinstance(part.items[0], SimpleCommand))
    return False


def _holder_fds(job: Job, base: FdTable, dash: bool) -> FdTable | None:
    """fds of the subshell that runs a compound job while it waits, if one stays around.

    Verified with OpenSSH 9.2: bash keeps a subshell for `a && b &`, `{ ...; } &`,
    `( a; b ) &`, `if ...; fi &` until the last command ends (redirections on the whole job
    apply to it); dash execs the last command, except a redirected group after `&&`, whose
    redirection makes it keep a saved copy of the channel.
    """
    if _single_process(job):
        return None
    last = job.last
    if isinstance(last, SimpleCommand) and last.words and last.words[0].value == "exec":
        return None  # the subshell becomes the last command (its own fds are checked)
    node = job.node
    if job.node is job.last and isinstance(node, Compound):
        return None if dash else apply_redirects(base, node.redirects)
    if dash:
        if isinstance(last, Compound) and last.redirects:
            return base
        return None
    return base


_SSH_WAITS_FOR_JOB = Template(
    "ssh-waits-for-job",
    "`{text} &` runs in the background as a subshell of the shell on {dest}",
    "{cond}that subshell waits for `{prog}` with the ssh channel still as its stdout "
    "and stderr ({how}), so sshd keeps the session open and ssh does not return "
    "until `{prog}` exits. Redirect the whole job (`{{ ...; }} > /path/to/log 2>&1 "
    "&`), or start its last command with `exec` (`cd dir && exec nohup cmd > log "
    "2>&1 &`).",
    ";")
_RUNS_BACKGROUND_SHELL_BUT = Template(
    "runs-background-shell-but",
    "`{text} &` runs in the background of the shell on {dest}, but its {which} still "
    "{value} to the ssh channel{extra}",
    "sshd keeps the session open until every process holding them has closed them, "
    "so ssh does not return until `{prog}` exits (and if the connection is cut "
    "first, the job's next write to it fails).{alone} Redirect both to a file: `... "
    "> /path/to/log 2>&1 &` (stdin needs nothing: a background job of a "
    "non-interactive shell already reads /dev/null). If waiting is intended, end the "
    "script with `wait`.")


def _job_finding(ctx: CheckContext, layer: Layer, ssh: Layer, job: Job) -> Finding | None:
    if job.script is None or not job.views or waits_after(ctx, layer, job):
        return None
    effs = [(v, v.effective) for v in job.views]
    lasting = [(v, e) for v, e in effs if e is None or e.name not in _QUICK]
    if not lasting:
        return None
    base = fds_before(ctx, layer, job.views[0])
    dest = ssh.destination or "the host"
    text = job.text(50)
    _, prog_eff = lasting[-1]
    prog = prog_eff.name if prog_eff is not None and prog_eff.name else "the job"
    span = job.source_span() or job.views[0].source_span or (0, 0)
    shell = shell_program(layer)
    dash = shell in ASH_FAMILY
    known_bash = (SHELL_DIALECTS.get(shell) in ("bash", "zsh")
                  or layer.dialect in ("bash", "zsh"))
    held_bash = _holder_fds(job, base, False)
    held_dash = _holder_fds(job, base, True)
    in_bash = held_bash is not None and bool(_open_fds(held_bash))
    in_dash = held_dash is not None and bool(_open_fds(held_dash))
    if (dash and in_dash) or (not dash and in_bash):
        cond = "" if (known_bash or dash or in_dash) else (
            "if the shell is bash (dash runs the last command in place and is not affected), ")
        how = ("dash keeps a copy of them while a redirected group runs" if dash else
               "redirections on a command inside apply only to that command")
        msg = (_SSH_WAITS_FOR_JOB(text=text, dest=dest, cond=cond, prog=prog, how=how))
        return Finding(span, msg, layer)
    for view, eff in lasting:
        fds = fds_of_command(ctx, base, view)
        open_fds = _open_fds(fds)
        if not open_fds:
            continue
        prog = eff.name if eff is not None and eff.name else (view.values[0] if view.argv
                                                              else "the job")
        which = {(1, 2): "stdout and stderr", (1,): "stdout", (2,): "stderr"}[tuple(open_fds)]
        extra = ""
        redirs = list(view.command.redirects)
        dup_first = next((k for k, r in enumerate(redirs) if r.fd == 2 and r.dup_fd == 1), None)
        file_later = any(r.op in (">", ">>") and r.fd in (None, 1)
                         for r in redirs[(dup_first or 0):]) if dup_first is not None else False
        if open_fds == [2] and dup_first is not None and file_later:
            extra = (" (`2>&1` comes before `>`, so stderr was copied from stdout while that "
                     "was still the channel)")
        wrappers = set(eff.wrappers) if eff is not None else set()
        alone = ""
        used = sorted(wrappers & HANGUP_DETACHERS)
        if used:
            verb = "does" if len(used) == 1 else "do"
            alone = f" `{'` and `'.join(used)}` {verb} not change where the output goes here."
        msg = (_RUNS_BACKGROUND_SHELL_BUT(text=text, dest=dest, which=which,
                                          value='go' if len(open_fds) > 1 else 'goes',
                                          extra=extra, prog=prog, alone=alone))
        return Finding(span, msg, layer)
    return None


RULE = Rule("QC203", "ssh-waits-for-background",
            "A background job keeps the ssh session open through its stdout or stderr",
            "warning", check,
            trigger=HANDOFFS)
