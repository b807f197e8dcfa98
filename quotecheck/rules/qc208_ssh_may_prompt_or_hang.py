"""QC208 ssh-may-prompt-or-hang: ssh in unattended code without BatchMode/ConnectTimeout.

"Unattended" means: the input is a script file (checked with a path, or it starts with `#!`),
or the ssh command runs in the background (`&`: a background job that reads the terminal is
stopped by SIGTTIN), or it runs on a remote machine (inside another ssh's remote command). A
command typed at a prompt is left alone: its user sees a prompt and can answer or press Ctrl-C.
In the background, on a remote machine, in a script that CI runs (it lies in a CI folder,
reads a variable CI sets, or its comments say so) or cron runs (it lies in a cron folder, or
its comments give its crontab line or say that cron runs it), or in a host file whose commands
have no terminal (a workflow, a crontab, a unit, a Dockerfile, a container's command, an
Ansible task) nobody can answer (a warning); so too where the ssh itself says so with
`BatchMode=yes` and only the timeout is missing. Any other script in the foreground may be run
by hand at a terminal as well as from cron or CI (info).

Not reported: ssh wrapped in `timeout` (the wait is bounded), an ssh that never connects
(`-G`, `-V`, `-Q`, `-O`), options that quotecheck cannot read (a `$SSH_OPTS` word among them)
and `-F FILE` (the file chosen may set both).
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix, Severity
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import CRON_FOLDERS
from quotecheck.rules._ci_script import ci_runs
from quotecheck.rules._portability import (
    SshCall,
    connects,
    is_script_file,
    options_unknown,
    ssh_calls,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

DEFAULT_TIMEOUT = 10
_IN_A_SCRIPT = "it is in a script"


def batch_mode(call: SshCall) -> bool:
    value = call.config("BatchMode")
    return value is not None and value.lower() in ("yes", "true")


def connect_timeout(call: SshCall) -> bool:
    value = call.config("ConnectTimeout")
    return value is not None and value.lower() not in ("", "0", "none")


# Host files whose commands run with no terminal: what starts them, for the message.
_UNATTENDED_HOSTS = {"github-actions": "a GitHub Actions job", "crontab": "a cron job",
                     "systemd": "a systemd service", "dockerfile": "a container or its build",
                     "kubernetes": "a container", "compose": "a container",
                     "ansible": "an Ansible task"}


def _no_terminal(ctx: CheckContext, call: SshCall) -> bool:
    """The ssh runs with no terminal at all, so a question cannot be asked: a host file of
    that kind, a cron job, or the far side of an ssh that asked for no pty. (A CI folder may
    still give a pty: Buildkite does; a background job has the terminal it was started from.)"""
    root = ctx.trace.root
    if root.kind == "host" and root.format in _UNATTENDED_HOSTS:
        return True  # (all of them run their commands with no terminal)
    if is_script_file(ctx) and (_cron(ctx) is not None or ci_runs(ctx)[1]):
        return True
    layer = call.shell
    while layer.parent is not None:
        layer = ctx.trace.layers[layer.parent]
        if layer.kind == "ssh":
            return not any(k in ("-t", "-tt") for k in (layer.options or {}))
    return False


def unattended(ctx: CheckContext, call: SshCall) -> str | None:
    """Why nobody can answer a prompt of this ssh, or None when someone can."""
    if call.view.context.background:
        return "it runs in the background"
    root = ctx.trace.root
    if root.kind == "host" and root.format in _UNATTENDED_HOSTS:
        return f"it runs in {_UNATTENDED_HOSTS[root.format]}, with no terminal"
    if call.shell.where != "local":
        return f"it runs on `{call.shell.where.removeprefix('remote:')}`, with no terminal"
    if batch_mode(call):
        # (only the timeout is missing: the author has said nobody answers this ssh)
        return "its `BatchMode=yes` says that nobody is there to answer"
    if is_script_file(ctx):
        # The same for every ssh of the input: read once.
        return ci_runs(ctx)[0] or _cron(ctx) or _IN_A_SCRIPT
    return None


# A comment that gives the script's crontab line (`# */5 * * * * /opt/bin/sync.sh`) or says
# that cron runs it (`# run from cron`, `# cron job`, `# add to crontab`).
_CRON_COMMENT = lazy_compile(
    r"(?im)^\s*#.*?(?:(?:^|\s)(?:[0-9*/,-]+\s+){4}[0-9*/,-]+\s+\S"
    r"|\b(?:crontab|cron\s*job|(?:from|by|via|in|with)\s+cron)\b)")


def _cron(ctx: CheckContext) -> str | None:
    """Why cron runs the script (read once per input), or None."""
    return ctx.memo.get_or_compute("qc208-cron", ctx.trace, lambda: _from_cron(ctx))


def _from_cron(ctx: CheckContext) -> str | None:
    """Why the script is run by cron: it lies in a cron folder, or its comments say so."""
    path = ctx.script_path
    folder = next((part for part in path.split("/")[:-1] if part in CRON_FOLDERS), None)
    if folder is not None:
        return f"it is in `{folder}/`: cron runs it, no terminal"
    if _CRON_COMMENT.search(ctx.source):
        return "its comments say that cron runs it: no terminal"
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    for call in ssh_calls(ctx, hosts=True):
        if not connects(call) or options_unknown(call) or "timeout" in call.wrappers:
            continue
        if call.option("-F"):
            continue
        why = unattended(ctx, call)
        if why is None:
            continue
        missing: list[str] = []
        # (with no terminal at all ssh cannot ask: a prompt fails at once, nothing waits)
        if not batch_mode(call) and not _no_terminal(ctx, call):
            missing.append("BatchMode=yes")
        if not connect_timeout(call):
            missing.append("ConnectTimeout")
        if not missing:
            continue
        yield _finding(ctx, call, why, missing)


_MAY_PROMPT_OR_HANG = Template(
    "may-prompt-or-hang",
    "ssh without {missing} ({why})",
    "{risks}. Add `{options}` so that it fails at once with status 255 instead of "
    "hanging (and consider `-o ServerAliveInterval=15` against a connection that "
    "dies later).")


def _finding(ctx: CheckContext, call: SshCall, why: str, missing: list[str]) -> Finding:
    dest = call.ssh.destination or "the host"
    risks: list[str] = []
    if "BatchMode=yes" in missing:
        risks.append("a password, passphrase or host-key question waits for an answer that "
                     "never comes (and with no terminal at all ssh fails only after trying "
                     "each authentication method)")
    if "ConnectTimeout" in missing:
        risks.append(f"if `{dest}` is down or a firewall drops the packets, the TCP connect "
                     "alone takes about two minutes per address before ssh gives up (Linux "
                     "retries the SYN 6 times by default), and a host that accepts the "
                     "connection but never completes the handshake holds ssh for good "
                     "(ConnectTimeout bounds the handshake too)")
    add = []
    if "BatchMode=yes" in missing:
        add.append("-o BatchMode=yes")
    if "ConnectTimeout" in missing:
        add.append(f"-o ConnectTimeout={DEFAULT_TIMEOUT}")
    options = " ".join(add)
    shown = " and ".join(f"`{m}`" for m in missing)
    message = (_MAY_PROMPT_OR_HANG(missing=shown, why=why, risks='; '.join(risks), options=options))
    fixes: tuple[Fix, ...] = ()
    span = call.word.source_span
    # (in a host file's argv the word is a string of its language: no shell words to add)
    if span is not None and ctx.source[span[0]:span[1]] == call.word.value and \
            call.shell.kind == "shell":
        fixes = (Fix(f"add `{options}`", (Edit((span[1], span[1]), " " + options),),
                     "unsafe"),)
    # Sure: in the background or on another machine nobody can answer. A script may just as
    # well be started by hand at a terminal (precision corpus: 38 of 44 such findings were
    # cluster start/stop and training launchers a person runs): info.
    severity: Severity | None = "info" if why == _IN_A_SCRIPT else None
    return Finding(call.span(), message, call.ssh, fixes=fixes, severity=severity)


RULE = Rule("QC208", "ssh-may-prompt-or-hang",
            "ssh in a script without BatchMode=yes or ConnectTimeout may wait forever",
            "warning", check, fix="unsafe",
            trigger=HANDOFFS)
