"""QC301 host-key-checking-off: `StrictHostKeyChecking=no`, `UserKnownHostsFile=/dev/null`.

Found wherever the setting is written: an ssh/scp/sftp `-o` option, an `rsync -e "ssh -o ..."`
or `GIT_SSH_COMMAND=...` string, an `echo`/heredoc writing an ssh_config file. Each place in
the input is reported once, from the innermost layer that holds it. Information where the text
scopes it: a config block for some hosts only (`Host node*`, `Match ...`), or a command whose
destination is this machine (`localhost`, `127.0.0.1`), or an ssh that only probes the login,
or a script that CI runs and that sets its machine up as an ssh server for the job (a throw-away
test guest).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from quotecheck.diagnostics import Edit, Fix
from quotecheck.layers.handoff_types import SshHandoff
from quotecheck.layers.model import Layer
from quotecheck.layers.ssh_settings import config_value
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Compound, Script, SimpleCommand, iter_nodes
from quotecheck.parsing.words import Word
from quotecheck.programs import (
    LAST_ARGUMENT_WRITERS,
    SSH_HOST_KEY_MAKERS,
    SSH_SERVER_FILES,
    basename,
)
from quotecheck.records import replace
from quotecheck.rules._ci_script import ci_runs
from quotecheck.rules._login_probe import LOGIN_PROBE
from quotecheck.rules._portability import all_scripts, inherited, is_script_file, words_of
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

# ssh_config syntax: keyword, then whitespace and/or one `=`; keywords are case-insensitive;
# yes/no values too (`StrictHostKeyChecking off` is a synonym of `no`).
_STRICT = lazy_compile(
    r"StrictHostKeyChecking(?:[ \t]*=[ \t]*|[ \t]+)\"?(no|off)\b", re.I)
_KNOWN = lazy_compile(
    r"(?<![A-Za-z])UserKnownHostsFile(?:[ \t]*=[ \t]*|[ \t]+)\"?(/dev/null)\b", re.I)


def check(ctx: CheckContext) -> Iterator[Finding]:
    reported: set[int] = set()
    # Innermost layers first: the same characters reach several layers (`sh -c "ssh -o ..."`).
    for layer in sorted(ctx.layers, key=lambda x: -x.id):
        if layer.kind != "shell" or layer.script is None:
            continue
        ssh_of: dict[int, Layer] | None = None  # the ssh each command of the layer opens
        for script in all_scripts(layer.script):
            if not _may_hold_setting(script.text):
                continue
            for node in iter_nodes(script.body):
                words: list[Word] = []
                if isinstance(node, SimpleCommand):
                    # Quoted heredocs too: `cat <<'EOF' >> ~/.ssh/config` writes the setting.
                    words = [*words_of(node), *(
                        r.heredoc.body for r in node.redirects
                        if r.heredoc is not None and r.heredoc.spec.quoted)]
                elif isinstance(node, Compound):
                    words = list(node.words)
                lowered = None
                if isinstance(node, SimpleCommand):
                    if any(_LOOPBACK.fullmatch(w.value) for w in node.words[1:]):
                        lowered = _LOOPBACK_NOTE
                    else:
                        if ssh_of is None:
                            ssh_of = {id(c.opened_by.command): c for c in ctx.layers
                                      if c.kind == "ssh" and c.parent == layer.id
                                      and c.opened_by is not None}
                        child = ssh_of.get(id(node))
                        probe = None if child is None else _probe(child)
                        lowered = None if probe is None else _PROBE_NOTE.format(probe)
                if lowered is None and words:
                    lowered = _ci_guest(ctx)
                for word in words:
                    yield from _scan(ctx, layer, script, word, reported, lowered)
    yield from _host_argv(ctx, reported)


# The settings this rule reads, lower-cased: a text naming neither has nothing to scan.
SETTING_NAMES = ("stricthostkeychecking", "userknownhostsfile")


def _may_hold_setting(text: str) -> bool:
    """A script whose text names neither setting has nothing to scan (a literal part is cut
    from its script's text)."""
    low = text.lower()
    return any(name in low for name in SETTING_NAMES)


# A destination on this machine (`localhost`, `user@127.0.0.1`, `[::1]`): no one in between.
_LOOPBACK = lazy_compile(r"(?:[^@\s]+@)?(?:localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)")
# An ssh_config block header: the settings after it hold only for the hosts it names.
_BLOCK = lazy_compile(r"(?im)^[ \t]*(Host|Match)[ \t=]+(.+?)[ \t]*$")


def _scope(text: str, at: int) -> str | None:
    """The `Host` patterns or `Match` criteria of the ssh_config block holding ``at`` of a
    config text, when they are narrower than every host (`Host *`, `Match all`)."""
    block = None
    for m in _BLOCK.finditer(text, 0, at):
        block = m
    if block is None:
        return None
    keyword, what = block.group(1), block.group(2)
    patterns = what.split()
    if keyword.lower() == "host" and (not patterns or "*" in patterns):
        return None
    if keyword.lower() == "match" and what.strip().lower() == "all":
        return None
    return f"{keyword} {what}"


# A session that only tells whether the login works (``_login_probe.LOGIN_PROBE``): nothing
# is sent or run in it that an impostor could take, and no password can be typed into it.
_CARRIES_DATA = frozenset({"-A", "-L", "-R", "-D", "-W", "-X", "-Y", "-M", "-S"})
_LOOPBACK_NOTE = "the host is this machine (loopback): no one sits in between"
_PROBE_NOTE = ("the session only probes the login (`{}`) and no password can be typed into "
               "it: an impostor gets nothing")


def _probe(child: Layer) -> str | None:
    """The remote command of the ssh layer ``child`` when it only probes the login: a command
    like `exit 0` or `true`, no forwarding, and password prompts off (`BatchMode=yes` or
    `PasswordAuthentication=no`)."""
    handoff = child.handoff
    if not isinstance(handoff, SshHandoff) or handoff.no_command or not handoff.command \
            or child.sends is None or not LOGIN_PROBE.fullmatch(child.sends):
        return None
    configs = [o.value for o in handoff.parsed if o.name == "-o" and o.value is not None]
    if any(o.name in _CARRIES_DATA for o in handoff.parsed) or \
            (config_value(configs, "ForwardAgent") or "no").lower() != "no":
        return None
    if (config_value(configs, "BatchMode") or "").lower() == "yes" or \
            (config_value(configs, "PasswordAuthentication") or "").lower() == "no":
        return child.sends.strip()
    return None


def _ci_guest(ctx: CheckContext) -> str | None:
    """The note for a script that CI runs and that makes its machine an ssh server for the job
    (it writes sshd_config or authorized_keys, or makes the host keys): a throw-away test
    guest, whose keys and whose peers' keys are new on every run. Read once per input."""
    return ctx.memo.get_or_compute("qc301-ci-guest", ctx.trace, lambda: _find_ci_guest(ctx))


def _find_ci_guest(ctx: CheckContext) -> str | None:
    if not is_script_file(ctx):
        return None
    why = ci_runs(ctx)[0]
    if why is None:
        return None
    serves = _serves_ssh(ctx)
    if serves is None:
        return None
    return (f"CI runs this script ({why.split(':', 1)[0]}) and it sets its machine up as an "
            f"ssh server for the job, {serves}: a throw-away test guest, whose host keys and "
            "its peers' are new on every run, so there is no known key to check")


def _serves_ssh(ctx: CheckContext) -> str | None:
    """What a local command of the script does that makes this machine an ssh server: writes
    sshd's configuration or authorized_keys, or makes the host keys (`ssh-keygen -A`)."""
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.where != "local" or layer.script is None:
            continue
        for view in layer.commands:
            command = view.command
            words = [w.value for w in command.words]
            for r in command.redirects:
                if r.op in (">", ">>", ">|") and r.target is not None and \
                        basename(r.target.value) in SSH_SERVER_FILES:
                    return f"it writes `{r.target.value}`"
            if not words:
                continue
            program = basename(words[0])
            if len(words) > 1 and (program, words[1]) in SSH_HOST_KEY_MAKERS:
                return f"`{program} {words[1]}` makes its host keys"
            if program in LAST_ARGUMENT_WRITERS and len(words) > 1 and \
                    basename(words[-1]) in SSH_SERVER_FILES:
                return f"`{program}` writes `{words[-1]}`"
    return None


def _scan(ctx: CheckContext, layer: Layer, script: Script, word: Word,
          reported: set[int], lowered: str | None = None) -> Iterator[Finding]:
    for part in word.parts:
        if part.kind != "literal":
            continue
        for pattern, what in ((_STRICT, "strict"), (_KNOWN, "known")):
            for m in pattern.finditer(part.value):
                offsets = part.offsets[m.start():m.end()]
                if not offsets or inherited(layer, script, offsets[0]):
                    continue
                start = script.origin[offsets[0]]
                end = script.origin[offsets[-1]]
                if start is None or end is None or start in reported:
                    continue
                reported.add(start)
                finding = _finding(ctx, layer, script, part.offsets, m, what, (start, end + 1))
                scope = _scope(part.value, m.start())
                if scope is not None:
                    # (the text limits it to the hosts it names: a cluster's own nodes, say)
                    finding = replace(finding, severity="info", message=finding.message.noted(
                        f"it holds only for the hosts of `{one_line_escaped(scope, 40)}`"))
                elif lowered is not None:
                    finding = replace(finding, severity="info", message=finding.message.noted(
                        lowered))
                yield finding


_CHECKING_OFF = Template(
    "checking-off",
    "`{setting}` turns off ssh's host authentication",
    "ssh accepts whatever key the host presents, a changed key included, so anyone "
    "who can intercept the connection (DNS, ARP, a rebuilt host at the same address) "
    "gets the session, the commands and any password or forwarded agent. Use "
    "`StrictHostKeyChecking=accept-new`: new hosts are still added without a prompt, "
    "but a known host whose key changed is refused.")
_KNOWN_HOSTS_DISCARDED = Template(
    "known-hosts-discarded",
    "`{setting}` makes ssh forget every host key it learns",
    "each connection meets the host for the first time, so no changed key is ever "
    "detected (with `StrictHostKeyChecking=accept-new` or `no` any key is accepted, "
    "without them ssh prompts or fails). Keep the default known_hosts file, or point "
    "it at a file the script keeps (`UserKnownHostsFile=~/.ssh/known_hosts_deploy`), "
    "ideally filled from a trusted source with `ssh-keyscan` checked against "
    "published fingerprints.")


def _finding(ctx: CheckContext, layer: Layer, script: Script, offsets: Sequence[int],
             m: re.Match[str], what: str, span: tuple[int, int]) -> Finding:
    v0 = script.origin[offsets[m.start(1)]]
    v1 = script.origin[offsets[m.end(1) - 1]]
    return _setting_finding(ctx, layer, m, what, span, v0, v1)


def _setting_finding(ctx: CheckContext, layer: Layer, m: re.Match[str], what: str,
                     span: tuple[int, int], v0: int | None, v1: int | None) -> Finding:
    """The finding for setting ``m``, whose value (`no`, `/dev/null`) stands at ``v0..v1`` of
    the source when known."""
    setting = m.group(0)
    fixes: tuple[Fix, ...] = ()
    if what == "strict":
        message = (_CHECKING_OFF(setting=setting))
        if v0 is not None and v1 is not None and ctx.source[v0:v1 + 1] == m.group(1):
            fixes = (Fix("use StrictHostKeyChecking=accept-new",
                         (Edit((v0, v1 + 1), "accept-new"),), "unsafe"),)
    else:
        message = (_KNOWN_HOSTS_DISCARDED(setting=setting))
    return Finding(span, message, layer, fixes=fixes)


def _host_argv(ctx: CheckContext, reported: set[int]) -> Iterator[Finding]:
    """The settings in an argv a host file runs without a shell (`subprocess.run(["ssh", "-o",
    "StrictHostKeyChecking=no", ...])`), where no shell layer holds them."""
    for layer in ctx.layers:
        if layer.kind != "exec" or layer.parent is None or \
                ctx.layers[layer.parent].kind != "host":
            continue
        loopback = any(_LOOPBACK.fullmatch(a.value) for a in layer.argv[1:] if not a.dynamic)
        for arg in layer.argv:
            for pattern, what in ((_STRICT, "strict"), (_KNOWN, "known")):
                for m in pattern.finditer(arg.value):
                    if any(a < m.end() and m.start() < b for a, b in arg.dynamic_ranges) or \
                            len(arg.offsets) < m.end():
                        continue
                    start, end = arg.offsets[m.start()], arg.offsets[m.end() - 1]
                    if start is None or end is None or start in reported:
                        continue
                    reported.add(start)
                    finding = _setting_finding(ctx, layer, m, what, (start, end + 1),
                                               arg.offsets[m.start(1)], arg.offsets[m.end(1) - 1])
                    if loopback:
                        finding = replace(finding, severity="info", message=finding.message.noted(
                            _LOOPBACK_NOTE))
                    yield finding


RULE = Rule("QC301", "host-key-checking-off",
            "ssh host key checking is turned off (StrictHostKeyChecking=no, "
            "UserKnownHostsFile=/dev/null)", "warning", check, fix="unsafe",
            trigger=Trigger(text=SETTING_NAMES))
