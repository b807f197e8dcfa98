"""QC211 status-of-ssh-ambiguous: a script decides what happened from ssh's exit status alone.

ssh's status is the remote command's status, except 255, which ssh uses for its own failures
(cannot connect, authentication refused, connection lost) and which it also returns when the
remote shell dies from a signal; a remote `exit 255` looks the same. So `if ssh h cmd`, `ssh h
cmd || echo "unreachable"`, `until ssh h cmd; do sleep 5; done` and `[ $? -eq 255 ]` after ssh
cannot tell "not done" from "done, then killed" or "never connected" (verified: a remote shell
killed by SIGTERM gives 255, exactly like a closed port).

Not reported: an ssh whose remote command is one informational command that cannot fail in
a way that matters (`true`, `:`, `exit 0`, `echo ...`, `uptime`, `hostname`, `uname`, `id`,
`date`), or only commands that cannot fail at all (``_login_probe.cannot_fail``: `echo` of
any text, also text the local shell fills in, `printf` of a text format, `true`, `:`, `exit
0`, with no redirection and no command substitution): that is how to test a connection, and
any failure is ssh's own; ssh without a remote
command; ssh in the background; `ssh h cmd || true` (the status is dropped: nothing is
decided on it); a decision whose failure branch treats both kinds of failure alike
(`_failures_alike`), and `ssh h cmd && next` whose remote command is no yes/no answer: any
failure skips the next step alike. Information only: a failure branch that only reports and
ends the script (``_reports_and_exits``): a remote "no" and 255 end the run alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.diagnostics import Related
from quotecheck.layers.model import CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Compound, Node, Pipeline, SimpleCommand
from quotecheck.programs import basename
from quotecheck.rules._login_probe import PROBE_COMMANDS, cannot_fail, text_format
from quotecheck.rules._portability import (
    SshCall,
    connects,
    remote_command,
    ssh_calls,
)
from quotecheck.rules._text import one_line_marked
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

# Remote commands that cannot fail in a way that matters: any failure is ssh's own. Those that
# cannot fail at all (``_login_probe``), and informational ones with nothing to get wrong.
PROBES = PROBE_COMMANDS | {"printf", "uptime", "hostname", "uname", "whoami", "id", "date",
                           "pwd", "nproc", "w", "who"}
_SIMPLE = lazy_compile(r"[\w ./:=%+,@-]*")


def _probe_only(call: SshCall) -> bool:
    """The remote command is one informational command (`true`, `exit 0`, `uptime`...)."""
    sends = remote_command(call).strip()
    words = sends.split()
    if not words or basename(words[0]) not in PROBES:
        return False
    if words[0] == "exit" and words[1:] not in ([], ["0"]):
        return False
    if words[0] == "printf" and not (len(words) > 1 and text_format(words[1])):
        return False  # `printf %d abc` fails
    if any(c in sends for c in "<>"):
        return False  # a redirection can fail
    return bool(_SIMPLE.fullmatch(sends)) or (words[0] in ("echo", "printf") and not any(
        c in sends for c in ";&|\n`$("))


# Remote commands whose nonzero status is an answer (`test -f`, `grep -q`, `pgrep`), not a
# failure: 255 read as "no" is the mistake. Their last step decides what the status means.
STATUS_ANSWERS = frozenset({"test", "[", "[[", "grep", "egrep", "fgrep", "pgrep", "pidof",
                            "diff", "cmp", "which", "type", "command", "getent", "ls", "stat",
                            "id"})
# Words of a message that put the failure down to one cause (the connection), as whole words:
# `networks`, `connectors` are things a step makes or handles (`could not create networks,
# volumes and containers`), not the connection.
_NAMES_A_CAUSE = lazy_compile(r"unreach|\b(?:dis)?connect(?:ed|ing|ion|ivity)?\b|\bnetwork\b|"
                              r"offline|\bdown\b|time[sd]? ?out|\bhost\b|\bping", re.IGNORECASE)
_REPORTS = frozenset({"echo", "printf", "logger", "exit", "return", "false", "log", "die",
                      "fail", "error", "err", "fatal"})


# A script's own helper that reports (`_err`, `log_error`, `die_with`, `fatal`).
_REPORTER_NAME = lazy_compile(r"(?i)^_*(?:\w*_)?(?:err|error|fail|die|fatal|abort|warn|log)"
                              r"(?:_\w*)?$")


def _reports(name: str) -> bool:
    return name in _REPORTS or bool(_REPORTER_NAME.match(name))


def _failure_branch(how: str, node: Node | None, view: CommandView,
                    negated: bool) -> Node | None:
    """The branch the script takes when the ssh fails: an `if`'s then-branch (negated) or its
    else-branch, or what follows `||` (`&&` after a `!`)."""
    if how == "if" and isinstance(node, Compound):
        wanted = "body" if negated else "else"
        return next((p for r, p in node.parts if r == wanted), None)
    if isinstance(node, CommandList) and (how == "||") != negated:
        index = next((k for k, c in enumerate(node.items)
                      if c is view.command or _contains(c, view.command)), None)
        if index is not None and index + 1 < len(node.items):
            return node.items[index + 1]
    return None


def _reports_and_exits(how: str, node: Node | None, view: CommandView, negated: bool) -> bool:
    """The branch taken on failure only reports and then ends the script (`>&2 echo "cannot
    find rsync"; exit 1`): the run ends the same way whether the remote command failed or ssh
    did (255); only the message may name the wrong cause."""
    branch = _failure_branch(how, node, view, negated)
    steps = list(_steps(branch)) if branch is not None else []
    if not steps or not all(isinstance(s, SimpleCommand) and s.words and
                            _reports(basename(s.words[0].value)) for s in steps):
        return False
    last = steps[-1]
    return isinstance(last, SimpleCommand) and last.words[0].value == "exit"


def _failures_alike(call: SshCall, how: str, node: Node | None, view: CommandView,
                    negated: bool) -> bool:
    """Both kinds of failure end in the same place: the remote command's status is no
    answer, and the branch taken on failure only reports a failure or stops, naming no cause
    (`if ! ssh h 'systemctl restart app'; then echo "restart failed"; exit 1; fi`)."""
    words = remote_command(call).replace(";", " ; ").replace("&&", " ; ").split()
    last = words[len(words) - 1 - words[::-1].index(";") + 1:] if ";" in words else words
    if last and basename(last[0]) == "sudo":
        last = last[1:]
    if not last or basename(last[0]) in STATUS_ANSWERS or (
            last[0] == "systemctl" and len(last) > 1 and last[1].startswith("is-")) or (
            last[0] == "kill" and "-0" in last):
        return False
    branch: Node | None = None
    if how == "&&" and not negated:
        return True  # `ssh h 'restart app' && echo restarted`: any failure skips it alike
    if how == "if" and isinstance(node, Compound):
        roles = [r for r, _ in node.parts]
        if negated:
            branch = next((p for r, p in node.parts if r == "body"), None)
        elif "else" in roles:
            branch = next(p for r, p in node.parts if r == "else")
        else:
            return True  # `if ssh ...; then ...; fi`: any failure leads past it alike
    elif isinstance(node, CommandList) and (how == "||") != negated:  # (`! ssh ... && x`)
        index = next((k for k, c in enumerate(node.items)
                      if c is view.command or _contains(c, view.command)), None)
        if index is not None and index + 1 < len(node.items):
            branch = node.items[index + 1]
    if branch is None:
        return False
    steps = list(_steps(branch))
    if not steps:
        return False
    for step in steps:
        if not isinstance(step, SimpleCommand) or not step.words or \
                not _reports(basename(step.words[0].value)):
            return False
        if _NAMES_A_CAUSE.search(" ".join(w.raw for w in step.words)):
            return False
    return True


def _steps(node: Node) -> Iterator[Node]:
    """The commands of a branch, through lists and `{ ...; }` groups."""
    if isinstance(node, CommandList):
        for item in node.items:
            yield from _steps(item)
    elif isinstance(node, Compound) and node.kind == "group":
        for _, part in node.parts:
            yield from _steps(part)
    else:
        yield node


def _does_nothing(node: Node) -> bool:
    """`true` or `:` alone: a `||` branch that only drops the status."""
    return isinstance(node, SimpleCommand) and not node.redirects and len(node.words) == 1 \
        and node.words[0].value in ("true", ":")


def _tested(view: CommandView) -> tuple[str, Node | None, bool] | None:
    """How the command's status is tested: (`if`/`while`/`until`/`&&`/`||`/`!`, the node,
    whether a `!` inverted it on the way)."""
    chain = (*view.context.ancestors, view.command)
    negated = False
    # Walking out, stop at the first construct that consumes the status.
    for i in range(len(chain) - 2, -1, -1):
        node, below = chain[i], chain[i + 1]
        if isinstance(node, Pipeline):
            if node.commands and node.commands[-1] is not below:
                return None  # the pipeline's status is its last command's
            negated ^= node.negated
        elif isinstance(node, CommandList):
            index = next((k for k, c in enumerate(node.items) if c is below), None)
            if index is None:
                continue
            after = node.ops[index] if index < len(node.ops) else None
            if after == "||" and _does_nothing(node.items[index + 1]):
                return None  # `ssh h cmd || true`: the status is dropped, nothing is decided
            if after in ("&&", "||"):
                return after, node, negated
            if index != len(node.items) - 1 or after == "&":
                return None  # a later command's status wins, or it runs in the background
        elif isinstance(node, Compound):
            role = next((r for r, p in node.parts if p is below), None)
            if role == "condition" and node.kind in ("if", "while", "until"):
                return node.kind, node, negated
            if node.kind in ("group", "subshell"):
                continue  # `{ ...; }` and `( ... )` have their last command's status
            return None
        elif isinstance(node, SimpleCommand):
            return None  # inside `$( )`: handled by the caller
    return ("!", None, True) if negated else None


def _next_views(layer: Layer, view: CommandView, n: int,
                cache: dict[int, dict[int, int]]) -> list[CommandView]:
    """The ``n`` commands after ``view`` in its layer (not counting its own `$( )`)."""
    where = cache.get(layer.id)
    if where is None:
        where = cache[layer.id] = {id(v): i for i, v in enumerate(layer.commands)}
    at = where.get(id(view))
    if at is None:
        return []
    out: list[CommandView] = []
    for v in layer.commands[at + 1:]:
        if v.context.in_substitution and any(a is view.command for a in v.context.ancestors):
            continue
        out.append(v)
        if len(out) == n:
            break
    return out


def _reads_status(view: CommandView) -> bool:
    words = [*view.command.words, *(a.value for a in view.command.assignments)]
    return any(p.kind == "special" and p.name == "?" for w in words for p in w.parts)


def _mentions_255(view: CommandView) -> bool:
    return any(a.value == "255" for a in view.argv) or any(
        "255" in w.raw for w in view.command.words)


def _retry(how: str, node: Node | None, view: CommandView, negated: bool) -> bool:
    if how == "until":
        return not negated
    if how == "while":
        return negated
    if how == "&&" and isinstance(node, CommandList):
        index = next((k for k, c in enumerate(node.items)
                      if c is view.command or _contains(c, view.command)), None)
        if index is not None and index + 1 < len(node.items):
            nxt = node.items[index + 1]
            return isinstance(nxt, SimpleCommand) and bool(nxt.words) and nxt.words[
                0].value == "break"
    return False


def _contains(node: Node, target: Node) -> bool:
    if node is target:
        return True
    if isinstance(node, Pipeline):
        return any(_contains(c, target) for c in node.commands)
    if isinstance(node, CommandList):
        return any(_contains(c, target) for c in node.items)
    if isinstance(node, Compound):
        return any(_contains(p, target) for _, p in node.parts)
    return False


def _outer_command(layer: Layer, view: CommandView,
                   cache: dict[int, dict[int, CommandView]]) -> CommandView | None:
    """For an ssh inside `x=$(ssh ...)`: the assignment command, when it has no words."""
    if not view.context.in_substitution:
        return None
    outer = next((a for a in reversed(view.context.ancestors) if isinstance(a, SimpleCommand)),
                 None)
    if outer is None or outer.words:
        return None
    views = cache.get(layer.id)
    if views is None:
        views = cache[layer.id] = {id(v.command): v for v in layer.commands}
    return views.get(id(outer))


def check(ctx: CheckContext) -> Iterator[Finding]:
    positions: dict[int, dict[int, int]] = {}
    commands: dict[int, dict[int, CommandView]] = {}
    for call in ssh_calls(ctx):
        if (not connects(call) or call.handoff.no_command or call.view.context.background
                or call.handoff.background):
            continue
        if call.remote is None or _probe_only(call) or cannot_fail(
                call.remote.script, call.remote.dynamic_ranges):
            continue  # a login probe: a nonzero status is ssh's own
        view = call.view
        holder = _outer_command(call.shell, view, commands) or view
        tested = _tested(holder)
        if tested is not None:
            how, node, negated = tested
            retry = _retry(how, node, holder, negated)
            if not retry and _failures_alike(call, how, node, holder, negated):
                continue
            finding = _finding(ctx, call, how, retry, None)
            if not retry and _reports_and_exits(how, node, holder, negated):
                finding = Finding(finding.span, finding.message.noted(
                    "the branch taken on failure only reports and ends the script, so a "
                    "remote failure and ssh's own failure end the run alike; only the "
                    "message may name the wrong cause"), finding.layer, finding.related,
                    severity="info")
            yield finding
            continue
        if view.context.in_substitution and holder is view:
            continue
        following = _next_views(call.shell, holder, 2, positions)
        if following and _reads_status(following[0]):
            check_255 = next((v for v in following if _mentions_255(v)), None)
            yield _finding(ctx, call, "$?", check_255 is not None,
                           check_255.source_span if check_255 is not None else
                           following[0].source_span)


# Each message's text: what decides on the status, then what 255 means, then what to do.
_MEANING = (", but ssh's exit status is the remote command's status, except that 255 means "
            "three things")
_THREE = ("ssh could not connect or log in, the connection broke, or the remote shell was "
          "killed by a signal (a remote `exit 255` too)")
_ADVICE = (". Let the remote side say what happened (end the remote script with `echo "
           '"rc=$?"` or print a marker after the step, and check the output), check '
           "reachability separately (`ssh -o BatchMode=yes host true`), and treat 255 as "
           'unknown rather than as "nothing happened".')
_BRANCH = Template(
    "branch-on-status",
    "ssh's exit status decides here, but 255 is also a broken connection or a killed remote "
    "shell",
    _THREE + ': a failure branch cannot tell "not done" from "never reached the host" or '
    '"done, then killed"' + _ADVICE,
    lead="the `{how}` here decides on ssh's exit status alone (`{sends}`)" + _MEANING)
_STATUS_READ = Template(
    "status-read",
    "ssh's exit status decides here, but 255 is also a broken connection or a killed remote "
    "shell",
    _THREE + _ADVICE,
    lead="the script decides on `$?` after this ssh (`{sends}`)" + _MEANING)
_RETRY_ON_255 = Template(
    "retry-on-255",
    "a retry on ssh's status 255 can run remote steps twice: 255 is also a killed remote shell",
    _THREE + "; a retry on 255 can run the remote steps a second time after they already "
    "(partly) ran" + _ADVICE,
    lead="the script tests `$?` for 255 after this ssh to tell a connection problem from a "
    "remote failure of `{sends}`" + _MEANING)
_RETRY_LOOP = Template(
    "retry-loop",
    "this retry loop can run remote steps twice: ssh's failure may come after they ran",
    _THREE + ": the remote steps may already have run (partly) when ssh reports failure, and "
    "they run again" + _ADVICE,
    lead="this retry loop runs `{sends}` again whenever ssh fails" + _MEANING)


def _finding(ctx: CheckContext, call: SshCall, how: str, retry: bool,
             status_span: tuple[int, int] | None) -> Finding:
    sends = one_line_marked(remote_command(call), 40)
    if how == "$?":
        message = _RETRY_ON_255(sends=sends) if retry else _STATUS_READ(sends=sends)
    elif retry:
        message = _RETRY_LOOP(sends=sends)
    else:
        message = _BRANCH(how=how, sends=sends)
    related: tuple[Related, ...] = ()
    if status_span is not None:
        related = (Related(status_span, "ssh's status is tested here"),)
    return Finding(call.span(), message, call.ssh, related)


RULE = Rule("QC211", "status-of-ssh-ambiguous",
            "A decision on ssh's exit status alone, while 255 is also a killed remote shell",
            "warning", check,
            trigger=HANDOFFS)
