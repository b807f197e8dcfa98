"""QC207 bashism-in-sh: bash-only syntax in a layer that runs under POSIX sh (or may).

Error where the layer is sh for sure (`sh -c`, `dash -c`, `watch`, a `#!/bin/sh` script, the
``--shell sh``/``--remote-shell dash`` choice); a warning where the shell is not known (an ssh
remote command runs in the user's login shell, ``su -c`` in the target user's); nothing under
bash, ksh or zsh. What dash does with each construct is verified in the tests. Not reported:
what a branch only bash runs holds (``if [ -n "$BASH_VERSION" ]``, a function that returns
first when it is not bash; see ``_bash_guards``), unless dash rejects it while parsing; nor
what busybox's ash accepts in a script a Dockerfile of the repository copies into an Alpine,
busybox or Wolfi image (``_script_image``). Lower than an error where dash's failure leaves
the script on its path (``_dash_outcome``): a test bash finds false on Linux too, a `source`
whose file nothing after it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from quotecheck.diagnostics import Edit, Fix, Severity
from quotecheck.layers.model import Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import SimpleCommand, iter_nodes
from quotecheck.programs import DECLARATION_BUILTINS, LOGIN_SHELL_SETTERS
from quotecheck.records import replace
from quotecheck.rules._bash_guards import eval_guards, guarded_spans, within
from quotecheck.rules._ci_runner import bash_runs
from quotecheck.rules._dash_outcome import (
    TERMINAL_ECHO_NOTE,
    WITHOUT_BASH_NOTE,
    harmless,
    red_hat_functions,
    terminal_echo,
    without_bash,
)
from quotecheck.rules._portability import (
    Bashism,
    LayerShell,
    Span,
    bashisms,
    layer_shell,
    script_span,
)
from quotecheck.rules._probes import probed
from quotecheck.rules._script_image import busybox_image, dockerfile_copies, red_hat_image
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_T = TypeVar("_T")
_ORDER: dict[Severity, int] = {"hint": 0, "info": 1, "warning": 2, "error": 3}
_LOWER: dict[Severity, Severity] = {"error": "warning", "warning": "info", "info": "hint",
                                    "hint": "hint"}


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        shell = layer_shell(ctx, layer)
        if shell.dialect not in ("sh", "unknown"):
            continue
        if shell.dialect == "unknown" and _login_shell_given(ctx, layer) in _BASH_NAMES:
            continue  # the script made the target user's login shell bash itself
        found = bashisms(ctx, layer)
        if not found:
            continue
        guarded = guarded_spans(layer)
        by_eval = eval_guards(ctx.trace, layer)
        platform = _red_hat_family(layer)
        copies = _image(ctx, layer, shell, "qc207-dockerfile-copies", dockerfile_copies)
        image = busybox_image(copies) if copies else None
        red_hat = red_hat_image(copies) if copies and image is None else None
        init = red_hat_functions(layer) if shell.dialect == "sh" and layer.parent is None \
            else None
        ci = _image(ctx, layer, shell, "qc207-ci-bash", bash_runs) \
            if layer.parent is None else None
        no_bash = without_bash(layer) if shell.dialect == "sh" and layer.parent is None else None
        stop = _dash_stops(ctx, layer, found, by_eval) \
            if shell.dialect == "sh" and layer.parent is None and image is None else None
        for b in found:
            if within(b.span, by_eval) or (within(b.span, guarded)
                                           and not _parse_time(b, ctx.source)):
                continue  # only bash runs it (see _bash_guards)
            if image is not None and busybox_accepts(b):
                continue  # the repository's Dockerfile runs it with busybox's ash, which does
            if shell.dialect == "sh" and probed(ctx, layer, b, _parse_time(b, ctx.source), found):
                continue  # a probe of the shell, or used only after one (see _probes)
            finding = _finding(layer, shell, b)
            outcome = harmless(layer, b)
            now: Severity = finding.severity if finding.severity is not None else "error"
            if outcome is not None and _ORDER[outcome[0]] < _ORDER[now]:
                # (dash's failure leaves the script on the path it takes anyway)
                finding = replace(finding, severity=outcome[0],
                                  message=finding.message.noted(outcome[1]))
            elif (no_bash is not None and within(b.span, [no_bash]) and now == "error"
                  and busybox_accepts(b) and not _parse_time(b, ctx.source)):
                # (only where there is no bash: not where sh is dash)
                finding = replace(finding, severity="warning",
                                  message=finding.message.noted(WITHOUT_BASH_NOTE))
            if b.construct.startswith("echo -") and _ORDER[finding.severity or "error"] > \
                    _ORDER["info"] and terminal_echo(layer, b):
                # (a stray `-e` in a message nothing reads)
                finding = replace(finding, severity="info",
                                  message=finding.message.noted(TERMINAL_ECHO_NOTE))
            if stop is not None and b.span[0] >= stop[1] and \
                    _ORDER[finding.severity or "error"] > _ORDER["info"]:
                # (like a later syntax error: dash never gets this far)
                finding = replace(finding, severity="info", message=finding.message.noted(
                    f"dash stops with a syntax error at line {stop[0]}, before it gets here"))
            if ci is not None:
                # (the repository's CI runs the file with bash: its `#!` line is not used)
                finding = replace(finding, severity="info", message=finding.message.noted(
                    f"`{ci}` runs this script with bash by name, so its `#!` line is not used "
                    "there and this works; it fails where the script is run by its own name"))
            elif red_hat is not None and b.construct not in ("<(...)", ">(...)"):
                # (the repository's Dockerfile runs it in an image whose sh is bash; bash as
                # sh before 5.1 has no process substitution)
                finding = replace(finding, severity="info", message=finding.message.noted(
                    f"`{red_hat[1]}` copies the script into `{red_hat[0]}`, a Red Hat family "
                    "image, where /bin/sh is bash and this works; it fails where sh is dash"))
            elif init is not None and b.span[0] >= init[0]:
                # (it runs only where Red Hat's init functions exist; there sh is bash)
                finding = replace(finding, severity="info", message=finding.message.noted(
                    f"it runs only after `. {init[1]}`, Red Hat's init script library: where "
                    "that file is missing dash stops there (`.: cannot open`), and where it "
                    "exists, a Red Hat family system, /bin/sh is bash and this works"))
            elif platform is not None and shell.dialect == "sh":
                # (the text says where it runs: there sh is bash, and this works)
                finding = replace(finding, severity="info", message=finding.message.noted(
                    f"the script installs with `{platform}`, a Red Hat family system, where "
                    "/bin/sh is bash and this works; it fails where sh is dash"))
            yield finding


def _dash_stops(ctx: CheckContext, layer: Layer, found: list[Bashism],
                by_eval: list[Span]) -> tuple[int, int] | None:
    """(line, offset) of a script file's first construct dash rejects while parsing, and the
    input offset where the top-level command holding it ends: dash runs the commands before
    it, stops there with a syntax error (status 2), and never reads what follows."""
    script = layer.script
    first = next((b for b in found if _parse_time(b, ctx.source)
                  and not within(b.span, by_eval)), None)
    if script is None or first is None:
        return None
    for node in script.body:
        span = script_span(script, node.span[0], node.span[1])
        if span is not None and span[0] <= first.span[0] < span[1]:
            return ctx.source.count("\n", 0, first.span[0]) + 1, span[1]
    return None


def _image(ctx: CheckContext, layer: Layer, shell: LayerShell, key: str,
           find: Callable[[str | None], _T | None]) -> _T | None:
    if shell.dialect != "sh" or shell.remote or layer.where != "local":
        return None
    path = ctx.script_path
    if not path:
        return None
    return ctx.memo.get_or_compute(key, ctx.trace, lambda: find(path))


# What busybox's ash (1.27 and later, as Alpine and Wolfi build it: CONFIG_SH_IS_ASH,
# CONFIG_ASH_BASH_COMPAT, CONFIG_ASH_TEST, CONFIG_FEATURE_SH_MATH, CONFIG_FEATURE_FANCY_ECHO)
# accepts of what this rule reports, from shell/ash.c: the `[[` and `source` builtins
# (BASH_TEST2, BASH_SOURCE), the `function` keyword (BASH_FUNCTION), `&>file` and `>&file`
# (BASH_REDIR_OUTPUT), `$'...'` (BASH_DOLLAR_SQUOTE), `${x:1:2}` and `${x/a/b}` (BASH_SUBSTR,
# BASH_PATTERN_SUBST), `set -o pipefail` (BASH_PIPEFAIL), `let` (FEATURE_SH_MATH), `read -t -n
# -s -u` (readcmd's `p:u:rt:n:s`); test's `==` (coreutils/test.c), echo's `-e`, and a `SIG`
# prefix in kill's signal names (libbb/u_signal_names.c, get_signum). Not: arrays, `${!x}`,
# `${x^^}`, `{a,b}`, `x+=`, `|&`, `<<<`, `((...))`, `for ((...))`, `select`, `declare`,
# `shopt`, `pushd`, `mapfile`, `printf -v`, `read -a`.
_BUSYBOX_CONSTRUCTS = frozenset({"source", "[[ ... ]]", "function", "&>", "$'...'",
                                 "==` in `[", "==` in `test", "set -o pipefail", "let"})
_BUSYBOX_READ = frozenset("rtnsu")


def busybox_accepts(b: Bashism) -> bool:
    """Does busybox's ash (as Alpine and Wolfi build it) run ``b`` the way bash does?"""
    c = b.construct
    if c in _BUSYBOX_CONSTRUCTS or b.kind in ("substring", "pattern"):
        return True
    if c.startswith((">& ", "echo -", "kill -SIG")):
        return True
    if c.startswith("read -"):
        return set(c[len("read -"):]) <= _BUSYBOX_READ
    return False


def _red_hat_family(layer: Layer) -> str | None:
    """The package manager of a Red Hat family system (`yum`, `dnf`) the layer's script runs,
    when it runs none of another family (`apt-get`, `apk`...): its `sh` is bash there."""
    names = {v.effective.name for v in layer.commands if v.effective is not None}
    if names & _OTHER_PACKAGE_MANAGERS:
        return None
    return next((n for n in ("dnf", "yum", "microdnf") if n in names), None)


_OTHER_PACKAGE_MANAGERS = frozenset({"apt", "apt-get", "aptitude", "dpkg", "apk", "pacman",
                                     "zypper", "emerge", "brew", "pkg"})


# What dash rejects while it parses, before anything runs: a branch that does not run still
# breaks the script (verified in the tests).
_PARSE_TIME = ("function", "for ((...))", "select", "|&", "<<<", "<(...)", ">(...)")


_DECLARES_ARRAY = lazy_compile(r"[^\n;&|]*?[A-Za-z0-9_]=\(")


def _parse_time(b: Bashism, source: str) -> bool:
    if b.construct in _PARSE_TIME or "=(" in b.construct:
        return True
    # `local a=(1 2)`, `declare -a a=(...)`: reported as the builtin, rejected as the array.
    return b.construct in DECLARATION_BUILTINS and bool(
        _DECLARES_ARRAY.match(source, b.span[1]))


_BASH_SYNTAX_IN_SH = Template(
    "bash-syntax-in-sh",
    "`{construct}` is bash syntax, but {who} is {what}",
    "{effect}. Use {instead}, or {remedy}.")
_BASH_SYNTAX_SHELL_UNKNOWN = Template(
    "bash-syntax-shell-unknown",
    "`{construct}` is bash syntax, and {who} is not known (it is whatever the "
    "account's shell is)",
    "if it is dash or another POSIX sh, {effect}. Use {instead}, or {how}.")


_BASH_SYNTAX_IMAGE_SHELL = Template(
    "bash-syntax-image-shell",
    "`{construct}` is bash syntax, and the shell of the base image is not known here",
    "the image may set a SHELL of its own, and its /bin/sh may be dash, busybox's ash or "
    "bash; if it is dash or another POSIX sh, {effect}. Use {instead}, or name the shell: "
    "`SHELL [\"/bin/bash\", \"-c\"]` before the instruction.")
_DOCKER_INSTRUCTIONS = frozenset({"RUN", "CMD", "ENTRYPOINT", "HEALTHCHECK CMD"})


def _image_shell(layer: Layer) -> bool:
    """The shell form of a Dockerfile instruction on an image whose shell is not known."""
    return layer.parent == 0 and layer.via in _DOCKER_INSTRUCTIONS


_BASH_NAMES = frozenset({"bash"})


def _login_shell_given(ctx: CheckContext, layer: Layer) -> str | None:
    """For the login shell of the user a `su USER -c`/`sudo -iu USER` layer runs as: the shell
    the script that runs it gives USER first (`useradd -m -s /bin/bash USER`, `usermod -s`,
    `chsh -s`), by its name (`bash`), else None."""
    user = getattr(layer.handoff, "runs_as", None)
    if not user or not layer.process or not layer.process[0].startswith("<") or \
            layer.opened_by is None:
        return None  # (the trace names a passwd login shell `<login-shell>`)
    outer = ctx.parent(layer)
    while outer is not None and outer.kind != "shell":
        outer = ctx.parent(outer)
    if outer is None or outer.script is None:
        return None
    opened_at = layer.opened_by.command.span[0]
    for node in iter_nodes(outer.script.body):
        if not isinstance(node, SimpleCommand) or node.span[0] >= opened_at or \
                not node.words:
            continue
        options = LOGIN_SHELL_SETTERS.get(node.words[0].value.rsplit("/", 1)[-1])
        values = [w.value for w in node.words[1:]]
        if options is None or not values or values[-1] != user:
            continue
        for i, v in enumerate(values[:-1]):
            name, eq, attached = v.partition("=")
            if v in options and i + 1 < len(values) - 1:
                return values[i + 1].rsplit("/", 1)[-1]
            if eq and name in options and name.startswith("--"):
                return attached.rsplit("/", 1)[-1]
    return None


def _finding(layer: Layer, shell: LayerShell, b: Bashism) -> Finding:
    if shell.dialect == "sh":
        severity: Severity = "error"
        program = layer.process[0].rsplit("/", 1)[-1].lstrip("-") if layer.process else ""
        what = "dash" if program == "dash" else "a POSIX sh (dash on Debian and Ubuntu)"
        message = (_BASH_SYNTAX_IN_SH(construct=b.construct, who=shell.who, what=what,
                                    effect=b.effect, instead=b.instead, remedy=shell.remedy))
    elif _image_shell(layer):
        # (a Docker image's shell: the image decides, and the Dockerfile does not show it)
        severity = "info"
        message = _BASH_SYNTAX_IMAGE_SHELL(construct=b.construct, effect=b.effect,
                                           instead=b.instead)
    else:
        severity = "warning"
        if shell.remote:
            how = ("send the script to bash explicitly (`ssh host bash -s <<'EOF'` ... `EOF`, "
                   "or `ssh host \"bash -c '...'\"`), or, if that login shell is bash, say so "
                   "with `--remote-shell bash` (or `# quotecheck: remote-shell=bash`)")
        else:
            how = "start bash explicitly (`bash -c '...'`)"
        message = (_BASH_SYNTAX_SHELL_UNKNOWN(construct=b.construct, who=shell.who,
                                               effect=b.effect, instead=b.instead, how=how))
    if b.minor:
        severity = _LOWER[severity]
    if b.only_if:
        severity = "info"
        message = message.noted(b.only_if)
    fixes: tuple[Fix, ...] = ()
    if b.fix is not None:
        span, text = b.fix
        fixes = (Fix(f"replace with `{text}`", (Edit(span, text),), "safe"),)
    return Finding(b.span, message, layer, fixes=fixes, severity=severity)


RULE = Rule("QC207", "bashism-in-sh",
            "Bash-only syntax in a layer that runs (or may run) under POSIX sh", "error", check,
            fix="safe",
            trigger=Trigger(handoffs=True, dialects=frozenset({"sh", "unknown"})))
