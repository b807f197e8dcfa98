"""QC111 redirect-in-wrong-layer: a redirection or a builtin works in the outer layer although
the command meant it for the inner one.

- `sudo echo 1 > /proc/sys/vm/drop_caches`: the calling shell opens the file, as you, before
  sudo starts; only `echo` is privileged.
- `ssh h cmd > /srv/app/out.log`: the local shell opens the file on this machine; reported when
  the path (or its directory) also appears in the remote command, or, as a hint, for other
  absolute paths.
- `ssh h cd /srv && make`: the remote shell only changes directory and exits; `make` runs here.
- `sudo -i` / `su -` / `ssh h` with no command in a script: an interactive shell starts and the
  next lines are not sent to it; they run after it exits, in the outer shell.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from quotecheck.diagnostics import Related, Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import Compound, Pipeline, Redirect, Script, SimpleCommand, iter_nodes
from quotecheck.programs import CONTAINER_RUNNERS, USER_SWITCHERS
from quotecheck.rules._handoffs import (
    code,
    descendants,
    script_span,
    sh_quote,
    where_label,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

_OUTPUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_PRIVILEGED_PATHS = ("/proc/", "/sys/", "/etc/", "/root/", "/boot/", "/usr/", "/lib/",
                     "/lib64/", "/bin/", "/sbin/", "/opt/", "/var/", "/srv/", "/dev/")
_FREE_PATHS = ("/tmp/", "/var/tmp/", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty",
               "/dev/fd/", "/dev/shm/", "/proc/self/", "/dev/zero", "/run/user/")
_SECRET_INPUTS = ("/root/", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/proc/kcore")
# Directories too common to show that a local path was meant remotely.
_COMMON_DIRS = frozenset({"/var/log", "/var/lib", "/var/tmp", "/var/cache", "/usr/local",
                          "/usr/share", "/usr/lib", "/etc/default", "/home", "/root", "/opt",
                          "/srv", "/tmp", "/var", "/usr", "/etc", "/mnt", "/media"})
_STATE_BUILTINS = frozenset({"cd", "export", "source", ".", "set", "ulimit", "umask", "alias",
                             "unset", "pushd", "popd", "shopt", "unalias", "readonly",
                             "declare", "typeset", "trap", "newgrp"})


def _privileged_path(path: str, op: str) -> bool:
    if path.startswith(_FREE_PATHS) or not path.startswith("/"):
        return False
    if op == "<":
        return path.startswith(_SECRET_INPUTS)
    return path.startswith(_PRIVILEGED_PATHS) or path in ("/etc", "/root")


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer, view in ctx.commands():
        hs = view.handoffs
        if not hs:
            continue
        yield from _privileged_redirects(ctx, layer, view, hs)
        yield from _remote_redirects(ctx, layer, view, hs)
        yield from _state_only_remote(ctx, layer, view, hs)
        yield from _session_then_commands(ctx, layer, view, hs)


def _redirect_text(view: CommandView, r: Redirect) -> str:
    text = view.context.script.text
    return text[r.span[0]:r.span[1]]


def _target(r: Redirect) -> str | None:
    if r.target is None or r.heredoc is not None:
        return None
    return r.target.value


def _wrapper_of(h: ho.Handoff) -> str | None:
    if isinstance(h, ho.ExecHandoff) and h.wrapper in USER_SWITCHERS:
        return h.wrapper
    if isinstance(h, ho.ShellHandoff) and h.wrapper in USER_SWITCHERS:
        return h.wrapper
    return None


# -- sudo cmd > /root-only/path -----------------------------------------------------------------


_OPENED_AS_YOU = Template(
    "opened-as-you",
    "{code} is opened by {who}, running as you, before {wrapper} starts",
    "only {command} runs as {runs_as}. `{target}` is normally {direction} only by "
    "root, so the shell fails with `Permission denied` and the command never runs. "
    "Instead, {instead}.")


def _privileged_redirects(ctx: CheckContext, layer: Layer, view: CommandView,
                          hs: list[ho.Handoff]) -> Iterator[Finding]:
    first = next((h for h in hs if _wrapper_of(h)), None)
    if first is None:
        return
    wrapper = _wrapper_of(first) or "sudo"
    runs_as = getattr(first, "runs_as", None) or "root"
    values = view.values
    inner_start = _inner_start(first)
    inner = _raw_words(view, inner_start, len(values)) if inner_start is not None else ""
    head = _raw_words(view, 0, inner_start) if inner_start is not None else wrapper
    shell_after = any(isinstance(h, ho.ShellHandoff) and h.mode == "c" for h in hs)
    for r in view.command.redirects:
        target = _target(r)
        if target is None or (r.target is not None and r.target.dynamic):
            continue
        if r.op not in _OUTPUT_OPS and r.op != "<":
            continue
        if r.op in _OUTPUT_OPS and r.fd == 0:
            continue
        if not _privileged_path(target, r.op):
            continue
        written = _redirect_text(view, r)
        span = script_span(view, *r.span) or view.source_span or (0, 0)
        who = where_label(layer)
        if shell_after:
            instead = (f"put the redirection inside the script the privileged shell runs "
                       f"(`{head} sh -c '... {written}'`)")
        elif r.op == "<":
            instead = (f"let a privileged shell open it: "
                       f"{code(f'{head} sh -c {sh_quote(inner + chr(32) + written)}', 160)}")
        else:
            tee = "tee -a" if r.op in (">>", "&>>") else "tee"
            instead = (f"write {code(f'{inner} | {head} {tee} {target} > /dev/null', 160)}, or "
                       f"let a privileged shell open it: "
                       f"{code(f'{head} sh -c {sh_quote(inner + chr(32) + written)}', 160)}")
        direction = "read" if r.op == "<" else "written"
        yield Finding(
            span,
            _OPENED_AS_YOU(code=code(written), who=who, wrapper=wrapper,
                                   command=code(inner or wrapper), runs_as=runs_as, target=target,
                                   direction=direction, instead=instead),
            layer,
        )


def _raw_words(view: CommandView, start: int, end: int) -> str:
    """The words as written (falling back to POSIX quoting of their values)."""
    out: list[str] = []
    for a in view.argv[start:end]:
        out.append(a.word.raw if a.word is not None else sh_quote(a.value))
    return " ".join(out)


def _inner_start(h: ho.Handoff) -> int | None:
    if isinstance(h, ho.ExecHandoff):
        return h.words[0] if h.words else None
    if isinstance(h, ho.ShellHandoff):
        if h.script is not None:
            return h.script
        if h.script_words:
            return h.script_words[0]
    return None


# -- ssh h cmd > path-meant-remotely ------------------------------------------------------------


_REDIRECT_STAYS_LOCAL = Template(
    "redirect-stays-local",
    "{code} is a redirection of the local command",
    "{where_label} opens `{target}` on this machine and the output from {dest} is "
    "written there, not on {dest}; {evidence}. To write the file on {dest}, put the "
    "redirection inside the remote command: {inside}.")


def _remote_redirects(ctx: CheckContext, layer: Layer, view: CommandView,
                      hs: list[ho.Handoff]) -> Iterator[Finding]:
    sent = _sent_text(view, hs)
    if sent is None:
        return
    remote, dest, head, hint_ok, key = sent
    for r in view.command.redirects:
        target = _target(r)
        if target is None or r.op not in _OUTPUT_OPS or r.fd == 0:
            continue
        if target.startswith(_FREE_PATHS) or target in ("/dev/null",):
            continue
        evidence = _evidence(target, remote)
        if evidence is None and key is not None and target.startswith("/") and \
                "$" not in target:
            evidence = _used_there(ctx, layer, view, key, target, dest)
        severity: Severity = "warning"
        if evidence is None:
            if not hint_ok or not target.startswith("/"):
                continue
            severity = "hint"
            evidence = "make sure this machine is where it should be written"
        written = _redirect_text(view, r)
        span = script_span(view, *r.span) or view.source_span or (0, 0)
        # (a container runs an argv: the text needs a shell there)
        shell = "" if hint_ok else "sh -c "
        inside = code(f"{head} {shell}{sh_quote(remote + ' ' + written)}", 160)
        yield Finding(
            span,
            _REDIRECT_STAYS_LOCAL(code=code(written), where_label=where_label(layer),
                                       target=target, dest=dest, evidence=evidence, inside=inside),
            layer,
            severity=severity,
        )


def _sent_text(view: CommandView, hs: list[ho.Handoff]
               ) -> tuple[str, str, str, bool, tuple[str, str] | None] | None:
    """What the command sends to another machine or a container: (the text, how messages name
    the other side, the words before the text, whether a bare absolute path deserves a hint,
    a key naming the other side when it is written as a constant)."""
    values = view.values
    for h in hs:
        if isinstance(h, ho.SshHandoff) and h.command and not h.no_command:
            dest = values[h.destination] if h.destination is not None else "the host"
            return (h.sends(values), dest, " ".join(values[: h.command[0]]), True,
                    _key(view, "ssh", h.destination))
        if isinstance(h, ho.ExecHandoff) and h.wrapper in CONTAINER_RUNNERS and h.words:
            return (" ".join(values[i] for i in h.words), "the container",
                    " ".join(values[: h.words[0]]), False, _key(view, h.wrapper, h.target))
    return None


def _key(view: CommandView, kind: str, index: int | None) -> tuple[str, str] | None:
    """The other side as written (`web1`, `"$container"`): the same word on another command
    names the same host or container."""
    if index is None or not 0 <= index < len(view.argv):
        return None
    arg = view.argv[index]
    return (kind, arg.word.raw if arg.word is not None else arg.value)


def _used_there(ctx: CheckContext, layer: Layer, view: CommandView, key: tuple[str, str],
                target: str, dest: str) -> str | None:
    """Evidence from another command of the script that sends text to the same side and names
    the path or its directory there (`docker exec c mkdir -p /data` before `docker exec c
    echo x > /data/f`)."""
    for other, sent in ctx.memo.get_or_compute("qc111-sent", layer, lambda: [
            (v, t) for v in layer.commands if v.handoffs
            for t in [_sent_text(v, list(v.handoffs))] if t is not None]):
        if other is view or sent[4] != key:
            continue
        parent = posixpath.dirname(target.rstrip("/"))
        names = [target] + ([parent] if parent not in _COMMON_DIRS and parent != "/" else [])
        if any(re.search(r"(?<![\w/.-])" + re.escape(n) + r"(?![\w.-])", sent[0])
               for n in names):
            line = ctx.source.count("\n", 0, (other.source_span or (0, 0))[0]) + 1
            return f"the script uses that path on {dest} too (line {line})"
    return None


def _evidence(target: str, remote: str) -> str | None:
    if len(target) > 1 and re.search(r"(?<![\w/.-])" + re.escape(target) + r"(?![\w/.-])",
                                      remote):
        return f"the same path `{target}` appears in the remote command"
    parent = posixpath.dirname(target.rstrip("/"))
    if parent.count("/") >= 2 and parent not in _COMMON_DIRS and re.search(
            r"(?<![\w/.-])" + re.escape(parent) + r"(?![\w.-])", remote):
        return f"its directory `{parent}` appears in the remote command"
    if target.startswith(("/proc/", "/sys/")):
        return "a kernel setting file here is rarely what a remote command means"
    return None


# -- ssh h cd /srv && make ----------------------------------------------------------------------


def _next_command(layer: Layer, view: CommandView) -> CommandView | None:
    end = (view.source_span or (0, 0))[1]
    for other in layer.commands:
        if other is view or other.context.in_substitution or other.source_span is None:
            continue
        if other.source_span[0] >= end and other.values and \
                not _other_branch(view.context.script, view.command, other.command):
            return other
    return None


def _other_branch(script: Script, first: SimpleCommand, later: SimpleCommand) -> bool:
    """Is ``later`` in a later branch of an `if` or `case` whose earlier branch holds
    ``first`` (`then A; else B`: B never runs after A)? Text order is not run order there."""
    a, b = first.span[0], later.span[0]
    for node in iter_nodes(script.body):
        if not (isinstance(node, Compound) and node.kind in ("if", "case")
                and node.span[0] <= a and b < node.span[1]):
            continue
        roles = [(role, part.span) for role, part in node.parts]
        where_a = next((i for i, (_, sp) in enumerate(roles) if sp[0] <= a < sp[1]), None)
        where_b = next((i for i, (_, sp) in enumerate(roles) if sp[0] <= b < sp[1]), None)
        if where_a is not None and where_b is not None and where_b > where_a and \
                roles[where_a][0] != "condition":
            return True
    return False


def _line_col(ctx: CheckContext, offset: int) -> str:
    line = ctx.source.count("\n", 0, offset) + 1
    return f"line {line}"


_STATE_NOT_KEPT = Template(
    "state-not-kept",
    "the remote shell on {host} only runs {code} and exits, so its effect is lost at "
    "once",
    "the next command, {next} ({line_col}), {where}. Put everything in one remote "
    "command: {together}.",
    ";")


def _state_only_remote(ctx: CheckContext, layer: Layer, view: CommandView,
                       hs: list[ho.Handoff]) -> Iterator[Finding]:
    if not any(isinstance(h, ho.SshHandoff) and h.command for h in hs):
        return
    for inner in descendants(ctx, view):
        if inner.kind != "shell" or not inner.where.startswith("remote:"):
            continue
        cmds = [v for v in inner.commands if not v.context.in_substitution]
        if not cmds:
            continue
        if not all((not v.values and v.command.assignments)
                   or (v.values and v.values[0] in _STATE_BUILTINS) for v in cmds):
            continue
        following = _next_command(layer, view)
        if following is None:
            return
        last = cmds[-1]
        shown = " ".join(last.values) if last.values else "the assignments"
        span = last.source_span or view.source_span or (0, 0)
        next_span = following.source_span or (0, 0)
        host = inner.where.partition(":")[2]
        then = " ".join(sh_quote(v) for v in following.values)
        if any(isinstance(h, ho.SshHandoff) for h in following.handoffs):
            where = "starts a fresh remote shell, which does not keep that state"
            combined = shown + " && ..."
        else:
            where = f"runs on this machine, not on {host}"
            combined = shown + " && " + " ".join(following.values)
        yield Finding(
            span,
            _STATE_NOT_KEPT(host=host, code=code(shown), next=code(then),
                                    line_col=_line_col(ctx, next_span[0]), where=where,
                                    together=code(f'ssh {host} ' + sh_quote(combined), 160)),
            inner,
            related=(Related(next_span, f"does not run in that remote shell on {host}"),),
        )
        return


# -- sudo -i / su - / ssh h in a script, then more commands -------------------------------------


def _has_stdin(view: CommandView) -> bool:
    for r in view.command.redirects:
        if r.op in ("<", "<<", "<<-", "<<<", "<>") and r.fd in (None, 0):
            return True
    parent = view.context.ancestors[-1] if view.context.ancestors else None
    return isinstance(parent, Pipeline) and bool(parent.commands) and \
        parent.commands[0] is not view.command


_INTERACTIVE_SESSION = Template(
    "interactive-session",
    "{code} starts {what} and waits for it to end",
    "the commands after it in this script are not typed into it: {next} "
    "({line_col}) runs only after that shell exits, in {where_label}. Give the "
    "commands to the inner shell instead: {instead}.",
    ";")


def _session_then_commands(ctx: CheckContext, layer: Layer, view: CommandView,
                           hs: list[ho.Handoff]) -> Iterator[Finding]:
    last = hs[-1]
    what: str | None = None
    shown = " ".join(sh_quote(v) for v in view.values)
    if isinstance(last, ho.SshHandoff):
        if (not last.command and not last.no_command and not last.background
                and not last.stdin_null and not last.spread):
            dest = last.argv[last.destination] if last.destination is not None else "the host"
            what = f"an interactive login shell on {dest}"
            instead = (f"as its remote command (`{shown} '...; ...'`), or on its standard "
                       f"input (`{shown} bash -s <<'EOF'` ... `EOF`)")
    elif (isinstance(last, ho.ShellHandoff) and last.mode == "stdin" and not last.args
          and (last.wrapper in ("sudo", "su") or any(_wrapper_of(h) for h in hs))):
        what = f"an interactive shell as {last.runs_as or 'root'}"
        user = last.runs_as or "root"
        sudo = "sudo" if user == "root" else f"sudo -u {user}"
        instead = (f"as a command string (`{sudo} sh -c '...; ...'`), or on the standard "
                   f"input of a shell (`{sudo} bash -s <<'EOF'` ... `EOF`)")
    if what is None or _has_stdin(view) or view.context.background:
        return
    following = _next_command(layer, view)
    if following is None:
        return
    span = view.source_span or (0, 0)
    next_span = following.source_span or (0, 0)
    yield Finding(
        span,
        _INTERACTIVE_SESSION(code=code(shown), what=what, next=code(' '.join(following.values)),
                          line_col=_line_col(ctx, next_span[0]), where_label=where_label(layer),
                          instead=instead),
        layer,
        related=(Related(next_span, "runs in the outer shell, after the session ends"),),
    )


RULE = Rule("QC111", "redirect-in-wrong-layer",
            "A redirection or state change applies to the outer layer, not the inner one",
            "warning", check,
            trigger=HANDOFFS)
