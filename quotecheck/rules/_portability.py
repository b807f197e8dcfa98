"""Shared helpers for the operations rules (QC207-QC211, QC301, QC302).

- which dialect really runs a shell layer (the ``#!`` line of a script file decides its root
  layer; the trace does not read it);
- bash-only constructs of a layer's text, each with the input span it came from and what dash
  does with it (facts verified with dash 0.5.12 in ``tests/rules/test_qc207.py``);
- every ssh command of a trace with its parsed options (``SshCall``);
- small tree helpers: every script of a layer, the role of a command inside a loop, words and
  spans mapped back to the input.

Pure functions over the trace: nothing here runs a program.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Node,
    Pipeline,
    Redirect,
    Script,
    SimpleCommand,
    iter_nodes,
)
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import POSIX_SHELLS, Dialect, basename
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules._text import one_line_marked
from quotecheck.rules.api import CheckContext

Span = tuple[int, int]

# -- text helpers ------------------------------------------------------------------------------


def line_of(source: str, offset: int) -> int:
    """1-based line of ``offset`` in ``source``."""
    return source.count("\n", 0, max(0, min(offset, len(source)))) + 1


def script_span(script: Script, start: int, end: int) -> Span | None:
    """Input span of ``[start, end)`` of ``script.text`` (None when generated text)."""
    return script.origin.span(start, max(end, start + 1))


def exact_source_span(ctx: CheckContext, script: Script, start: int, end: int) -> Span | None:
    """The input span holding exactly ``script.text[start:end]``, or None (escaped, joined...).

    Used for fixes: an edit is only offered where the layer's text is the input's text.
    """
    span = script_span(script, start, end)
    if span is None:
        return None
    if ctx.source[span[0]:span[1]] != script.text[start:end]:
        return None
    return span


# -- dialects ----------------------------------------------------------------------------------

_SHEBANG = lazy_compile(r"#![ \t]*(\S+)(?:[ \t]+(.*))?")


def shebang_shell(source: str) -> str | None:
    """The shell named by the script's ``#!`` line: ``sh`` for ``#!/bin/sh -e`` and for
    ``#!/usr/bin/env sh``; None without one."""
    if not source.startswith("#!"):
        return None
    m = _SHEBANG.match(source.split("\n", 1)[0])
    if m is None:
        return None
    program = basename(m.group(1))
    rest = (m.group(2) or "").split()
    if program == "env":
        words = [w for w in rest if not w.startswith("-") and "=" not in w]
        program = basename(words[0]) if words else ""
    elif program == "busybox" and rest:
        program = rest[0]
    return program or None


class LayerShell(FrozenRecord):
    """Which shell runs a shell layer, as far as the trace tells."""

    dialect: Dialect
    who: str  # for messages: "`sh -c`", "this script (`#!/bin/sh`)", "the login shell of h"
    remote: bool  # an ssh remote login shell (where --remote-shell applies)
    remedy: str = "run this text with `bash` instead of `sh`"


def layer_shell(ctx: CheckContext, layer: Layer) -> LayerShell:
    dialect: Dialect = layer.dialect or "unknown"
    parent = ctx.parent(layer)
    if layer.parent is None:
        # The trace takes the root dialect from the options only; the `#!` line decides
        # which shell runs a script file.
        bang = shebang_shell(ctx.source)
        if bang in POSIX_SHELLS:
            first = ctx.source.split("\n", 1)[0].strip()
            return LayerShell("sh", f"this script's shell (`{first}`)", False,
                              "make the first line `#!/bin/bash`")
        if dialect == "sh":
            return LayerShell("sh", "the local shell (`--shell sh`)", False,
                              "run the script with bash")
        return LayerShell(dialect, "the local shell", False)
    remote = parent is not None and parent.kind == "ssh"
    if remote:
        dest = layer.where.removeprefix("remote:")
        return LayerShell(dialect, f"the login shell of `{dest}`", True)
    program = basename(layer.process[0]) if layer.process else "sh"
    opener = ""
    if layer.opened_by is not None and layer.opened_by.argv:
        opener = basename(layer.opened_by.argv[0].value)
    by = f" (started by `{opener}`)" if opener and opener != program else ""
    if parent is not None and parent.kind == "join":
        return LayerShell(dialect, f"`{parent.via}` (it runs the command with `sh -c`)", False)
    if program.startswith("<"):
        return LayerShell(dialect, f"the target user's login shell{by}", False)
    if layer.stdin_script:
        return LayerShell(dialect, f"`{program}` reading its script from stdin{by}", False)
    return LayerShell(dialect, f"`{program} -c`{by}", False)


# -- scripts and nodes -------------------------------------------------------------------------


def all_scripts(script: Script | None) -> list[Script]:
    """``script`` and every ``$( )``/backtick/``<( )`` script nested in it, each once."""
    if script is None:
        return []
    out: list[Script] = []
    seen: set[int] = set()
    tables: set[int] = set()  # the scripts of one text share one table: read each once
    todo = [script]
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        out.append(s)
        if id(s.substitutions) not in tables:
            tables.add(id(s.substitutions))
            todo.extend(s.substitutions.values())
    return out


def inherited(layer: Layer, script: Script, offset: int) -> bool:
    """True when the character at ``offset`` of ``script.text`` is filled in by an outer layer
    at run time (so what looks like an expansion here is not this layer's)."""
    if not layer.dynamic_ranges or script.text is not layer.text:
        return False
    return layer.in_dynamic_range(offset)


def words_of(node: SimpleCommand) -> list[Word]:
    """Every word of a simple command a shell expands: argv, assignment values, redirection
    targets, heredoc bodies (expanded only with an unquoted delimiter)."""
    out = [*node.words, *(a.value for a in node.assignments)]
    out.extend(r.target for r in node.redirects if r.target is not None)
    out.extend(r.heredoc.body for r in node.redirects
               if r.heredoc is not None and not r.heredoc.spec.quoted)
    return out


def loop_role(ancestors: tuple[Node, ...], node: Node) -> list[tuple[Compound, str]]:
    """The loops around ``node`` (innermost first) with the role ``node`` has in each:
    ``condition`` or ``body``."""
    chain = (*ancestors, node)
    out: list[tuple[Compound, str]] = []
    for i in range(len(chain) - 2, -1, -1):
        c = chain[i]
        if isinstance(c, Compound) and c.kind in ("while", "until", "for", "select"):
            below = chain[i + 1]
            role = next((r for r, p in c.parts if p is below), "body")
            out.append((c, role))
    return out


def reads_stdin(cmd: SimpleCommand) -> bool:
    """``read`` (or ``mapfile``/``readarray``) reading fd 0: no ``-u N`` and no own ``<``."""
    if not cmd.words or cmd.words[0].dynamic:
        return False
    if cmd.words[0].value not in ("read", "mapfile", "readarray"):
        return False
    for w in cmd.words[1:]:
        if w.value.startswith("-u") and not w.dynamic:
            return False
    return not any(stdin_redirect(r) for r in cmd.redirects)


def stdin_redirect(r: Redirect) -> bool:
    """Does the redirection replace standard input?"""
    if r.fd not in (None, 0):
        return False
    return r.op in ("<", "<<", "<<-", "<<<", "<&", "<>")


def commands_in(node: Node) -> Iterator[SimpleCommand]:
    for n in iter_nodes([node]):
        if isinstance(n, SimpleCommand):
            yield n


def pipeline_position(ancestors: tuple[Node, ...], node: Node) -> list[tuple[Pipeline, int]]:
    """The pipelines around ``node`` with the index of the element ``node`` is in."""
    chain = (*ancestors, node)
    out: list[tuple[Pipeline, int]] = []
    for i in range(len(chain) - 1):
        p = chain[i]
        if isinstance(p, Pipeline) and len(p.commands) > 1:
            below = chain[i + 1]
            index = next((k for k, c in enumerate(p.commands) if c is below), 0)
            out.append((p, index))
    return out


# -- ssh commands --------------------------------------------------------------------------------


class SshCall(Record):
    """One ssh command as written in a shell layer."""

    shell: Layer  # the shell layer whose script holds the command
    view: CommandView  # that command (may be a wrapper: `timeout 5 ssh ...`)
    ssh: Layer  # the ssh layer the trace opened
    argv: list[Arg]  # ssh's own argv, `ssh` first
    handoff: ho.SshHandoff
    wrappers: list[str]  # exec wrappers around it, outermost first

    @property
    def word(self) -> Arg:
        return self.argv[0]

    def span(self) -> Span:
        """The `ssh` word in the input (the command when the word has no position)."""
        return self.word.source_span or self.view.source_span or (0, 0)

    def config(self, name: str) -> str | None:
        return self.handoff.config(name)

    def option(self, letter: str) -> bool:
        return any(opt.name == letter for opt in self.handoff.parsed)

    remote: Layer | None  # the remote shell layer, when ssh runs a command

    def __init__(self, shell: Layer, view: CommandView, ssh: Layer, argv: list[Arg],
                 handoff: ho.SshHandoff, wrappers: list[str] | None = None,
                 remote: Layer | None = None) -> None:
        self.shell = shell
        self.view = view
        self.ssh = ssh
        self.argv = argv
        self.handoff = handoff
        self.wrappers = [] if wrappers is None else wrappers
        self.remote = remote


def ssh_calls(ctx: CheckContext, hosts: bool = False) -> list[SshCall]:
    """Every ssh command of the trace whose argv quotecheck could classify; with ``hosts``
    also those a host file runs as an argv, with no shell (`subprocess.run(["ssh", ...])`),
    whose ``shell`` is then the host file's layer."""
    out: list[SshCall] = []
    layers = ctx.layers
    shells_under: dict[int, Layer] = {}
    for x in layers:
        if x.kind == "shell" and x.parent is not None:
            shells_under.setdefault(x.parent, x)
    for layer in layers:
        if layer.kind != "ssh" or layer.opened_by is None or layer.parent is None:
            continue
        view = layer.opened_by
        parent = layers[layer.parent]
        wrappers: list[str] = []
        argv = layer.handoff_argv  # what ``layer.handoff``'s indices are into
        if parent.kind == "exec":
            p: Layer | None = parent
            while p is not None and p.kind == "exec":
                wrappers.insert(0, p.via or "")
                p = layers[p.parent] if p.parent is not None else None
            shell = p
        else:
            shell = parent
        if shell is None or shell.kind not in (("shell", "host") if hosts else ("shell",)) \
                or not argv:
            continue
        found = layer.handoff
        if not isinstance(found, ho.SshHandoff):
            continue
        out.append(SshCall(shell, view, layer, list(argv), found, wrappers,
                           shells_under.get(layer.id)))
    return out


def options_word_as_destination(call: SshCall) -> bool:
    """`ssh $SSH_OPTS host cmd` / `ssh "${opts[@]}" host cmd`: the trace took the options word
    for the destination (it may expand to several words), so the real destination is the
    first command word."""
    h = call.handoff
    dest = call.argv[h.destination] if h.destination is not None and h.destination < len(
        call.argv) else None
    if dest is None or dest.word is None:
        return False
    return any(p.name in ("@", "*") or (p.name and _OPTIONS_NAME.search(p.name) and (
        p.quoting == "none" or "[@]" in p.value)) for p in dest.word.parts)


def remote_command(call: SshCall) -> str:
    """The string ssh sends, corrected for an options word taken as the destination."""
    if options_word_as_destination(call) and call.handoff.command:
        return " ".join(call.argv[i].value for i in call.handoff.command[1:]
                        if i < len(call.argv))
    return call.ssh.sends or ""


def options_unknown(call: SshCall) -> bool:
    """A run-time word sits where ssh reads options (`ssh $SSH_OPTS host`): the options are
    not known. A dynamic destination or command does not count."""
    h = call.handoff
    if h.destination is None:
        return h.uncertain
    # The value of an option that cannot set others (`-i ~/.ssh/id`, `-p "$PORT"`) is known
    # to be that value; `-o` and `-F` values can set anything.
    values = {o.value_index for o in h.parsed if o.value_index is not None
              and o.name not in ("-o", "-F")}
    if any(a.dynamic and i not in values
           for i, a in enumerate(call.argv[1:h.destination], start=1)):
        return True
    return options_word_as_destination(call)


_OPTIONS_NAME = lazy_compile(r"OPT|ARG|FLAG|PARAM", re.I)


def connects(call: SshCall) -> bool:
    """False for ssh invocations that never open a connection (-G, -V, -Q, -O ctl_cmd)."""
    return not any(call.option(x) for x in ("-G", "-V", "-Q", "-O"))


def is_script_file(ctx: CheckContext) -> bool:
    """The input is a script file (given by path, or starting with a ``#!`` line), not one
    command typed at a prompt."""
    return bool(ctx.script_path) or ctx.source.startswith("#!")


# -- bash-only constructs ------------------------------------------------------------------------


class Bashism(FrozenRecord):
    span: Span  # in the input
    construct: str  # how it is written, for the message
    effect: str  # what dash does with it
    instead: str  # the POSIX way
    minor: bool = False  # runs, but prints something else (one severity level lower)
    fix: tuple[Span, str] | None = None  # a safe replacement, when one exists
    kind: str = ""  # for a `${...}` expansion: `substring`, `pattern`, `case`, `indirect`...
    # Harm only for some values the text does not show: why (the finding is then information).
    only_if: str = ""


BASH_ONLY_BUILTINS: dict[str, str] = {
    "declare": "`typeset`-style declarations do not exist: plain `name=value`",
    "typeset": "plain `name=value`",
    "mapfile": "a `while IFS= read -r line` loop",
    "readarray": "a `while IFS= read -r line` loop",
    "shopt": "nothing: shopt options do not exist in sh",
    "pushd": "`cd` (save the old directory in a variable)",
    "popd": "`cd \"$old\"`",
    "let": "`x=$((expression))`",
    "disown": "`nohup` or `setsid` when starting the job",
}

BASH_VARIABLES = frozenset({
    "RANDOM", "EUID", "UID", "HOSTNAME", "BASH_SOURCE", "BASH_REMATCH", "PIPESTATUS",
    "FUNCNAME", "BASHPID", "SECONDS", "SRANDOM", "EPOCHSECONDS", "EPOCHREALTIME", "BASH_ARGV",
    "BASH_LINENO", "GROUPS", "HOSTTYPE", "OSTYPE", "MACHTYPE", "DIRSTACK", "COPROC",
})

_READ_BASH_OPTIONS = set("adeinNstu")
_POSIX_PARAM_OP = lazy_compile(r"(:?[-=?+]|##?|%%?)")
_PARAM_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-9-]")
_BRACE = lazy_compile(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}")
_DASH_EFFECT_FATAL = "dash stops the whole script with `Bad substitution`"


def _param_bashism(value: str) -> tuple[str, str, str] | None:
    """(effect, instead, kind) when a ``${...}`` expansion is bash-only."""
    if not (value.startswith("${") and value.endswith("}")) or len(value) < 4:
        return None
    inner = value[2:-1]
    if inner.startswith("!") and len(inner) > 1:
        return (_DASH_EFFECT_FATAL + " (indirect expansion `${!name}`)",
                "`eval \"value=\\${$name}\"` after checking the name", "indirect")
    length = inner.startswith("#") and len(inner) > 1
    body = inner[1:] if length else inner
    m = _PARAM_NAME.match(body)
    if m is None:
        return None
    rest = body[m.end():]
    if rest.startswith("["):
        return (_DASH_EFFECT_FATAL + " (sh has no arrays)",
                "positional parameters (`set -- a b c; \"$1\"`) or separate variables", "array")
    if length or not rest:
        return None
    if _POSIX_PARAM_OP.match(rest):
        return None
    if rest.startswith(":"):
        return (_DASH_EFFECT_FATAL + " (substring expansion)",
                "`cut -c`, `expr substr`, or `${x#prefix}`/`${x%suffix}`", "substring")
    if rest.startswith("/"):
        return (_DASH_EFFECT_FATAL + " (pattern substitution)",
                "`printf '%s' \"$x\" | sed 's/a/b/g'`", "pattern")
    if rest[0] in "^,":
        return (_DASH_EFFECT_FATAL + " (case conversion)", "`tr '[:lower:]' '[:upper:]'`",
                "case")
    if rest.startswith("@"):
        return (_DASH_EFFECT_FATAL + " (`@` transformation)", "quoting by hand", "transform")
    return None


class _Finder:
    def __init__(self, ctx: CheckContext, layer: Layer) -> None:
        self.ctx = ctx
        self.layer = layer
        self.found: list[Bashism] = []
        self.seen: set[tuple[int, str]] = set()
        self._sets: dict[str, list[tuple[int, Span | None, Span]]] | None = None
        self._functions_found: list[Span] | None = None

    @property
    def _functions(self) -> list[Span]:
        """The input spans of the script's function definitions."""
        if self._functions_found is None:
            script = self.layer.script
            self._functions_found = [] if script is None else [
                span for node in iter_nodes(script.body)
                if isinstance(node, Compound) and node.kind == "function"
                and (span := script_span(script, *node.span)) is not None]
        return self._functions_found

    def add(self, script: Script, start: int, end: int, construct: str, effect: str,
            instead: str, *, minor: bool = False, replacement: str | None = None,
            kind: str = "", only_if: str = "") -> None:
        if inherited(self.layer, script, start):
            return
        span = script_span(script, start, end)
        if span is None:
            return
        key = (span[0], construct)
        if key in self.seen:
            return
        self.seen.add(key)
        fix = None
        if replacement is not None:
            exact = exact_source_span(self.ctx, script, start, end)
            if exact is not None:
                fix = (exact, replacement)
        self.found.append(Bashism(span, construct, effect, instead, minor, fix, kind, only_if))

    def run(self) -> list[Bashism]:
        for script in all_scripts(self.layer.script):
            for node in iter_nodes(script.body):
                if isinstance(node, SimpleCommand):
                    self.simple(script, node)
                elif isinstance(node, Compound):
                    self.compound(script, node)
                elif isinstance(node, Pipeline):
                    self.pipeline(script, node)
        self.found.sort(key=lambda b: b.span)
        return self.found

    # -- nodes --

    def simple(self, script: Script, node: SimpleCommand) -> None:
        for a in node.assignments:
            raw = a.value.raw
            if raw.startswith("("):
                self.add(script, a.span[0], a.span[1], f"{a.name}=(...)",
                         "dash stops with `Syntax error: \"(\" unexpected` (sh has no arrays)",
                         "positional parameters (`set -- a b c`) or a space-separated string")
                continue
            if a.append:
                self.add(script, a.span[0], a.span[1], f"{a.name}+=",
                         f"dash looks for a command named `{a.name}+=...` (`not found`)",
                         f"`{a.name}=\"${{{a.name}}}...\"`")
        for r in node.redirects:
            self.redirect(script, r)
        for w in words_of(node):
            self.word(script, w)
        if not node.words or node.words[0].dynamic:
            return
        name_word = node.words[0]
        name = name_word.value
        args = node.words[1:]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\[[^\]]*\]=.*", name, re.S):
            self.add(script, *name_word.span, name.split("=", 1)[0] + "=",
                     "dash looks for a command of that name (`not found`): sh has no arrays",
                     "separate variables or positional parameters")
            return
        if name == "source":
            path = args[0].value if args and not args[0].dynamic else ""
            safe = len(args) == 1 and "/" in path
            self.add(script, *name_word.span, "source",
                     "dash has no `source`: `source: not found`, and the script goes on "
                     "without what the file sets up", "`.` (the POSIX spelling)",
                     replacement="." if safe else None)
        elif name in BASH_ONLY_BUILTINS:
            self.add(script, *name_word.span, name,
                     f"dash has no `{name}`: `{name}: not found` (status 127) and the script "
                     "goes on", BASH_ONLY_BUILTINS[name])
        elif name in ("[", "test"):
            operands = args[:-1] if name == "[" and args and args[-1].value == "]" else args
            # Each word taken for one argument, as a quoted expansion is.
            at = binary_operator_positions([w.value for w in operands])
            for i, w in enumerate(operands):
                if w.value == "==" and not w.dynamic and i in at:
                    self.add(script, *w.span, f"==` in `{name}",
                             f"dash's `{name}` rejects it (`unexpected operator`, status 2), "
                             "which an `if` reads as false", "`=`", replacement="=")
        elif name == "echo" and args and not args[0].dynamic and re.fullmatch(
                r"-[neE]*[eE][neE]*", args[0].value):
            self.add(script, *args[0].span, f"echo {args[0].value}",
                     f"dash's echo has no options but `-n`: it prints `{args[0].value}` "
                     "followed by the text (and always interprets backslash escapes)",
                     "`printf '%b\\n' \"...\"` or `printf 'a\\tb\\n'`", minor=True)
        elif name == "set":
            self.set_options(script, args)
        elif name == "read":
            for w in args:
                v = w.value
                if w.dynamic or not v.startswith("-") or v == "-":
                    break
                bad = sorted(set(v[1:]) & _READ_BASH_OPTIONS)
                if bad:
                    self.add(script, *w.span, f"read {v}",
                             f"dash's read knows only `-r` and `-p`: `Illegal option -{bad[0]}`"
                             " (status 2), nothing is read and the script goes on with the "
                             "variables as they were", "`read -r` (and `stty -echo` for -s)")
                    break
        elif name == "trap":
            for w in args[1:]:
                if w.value in ("ERR", "DEBUG", "RETURN") and not w.dynamic:
                    self.add(script, *w.span, f"trap ... {w.value}",
                             f"dash has no `{w.value}` trap (`bad trap`): the handler never "
                             "runs", "`set -e` and an `EXIT` trap")
        elif name == "printf" and args and args[0].value == "-v":
            self.add(script, *args[0].span, "printf -v",
                     "dash's printf has no `-v` (`Illegal option -v`)", "`var=$(printf ...)`")
        elif name == "kill" and args and not args[0].dynamic and re.fullmatch(
                r"-SIG[A-Z0-9+-]+", args[0].value):
            self.add(script, *args[0].span, f"kill {args[0].value}",
                     f"dash's kill rejects `{args[0].value}` (`Illegal option -S`) and kills "
                     "nothing, while the script goes on",
                     f"`kill -{args[0].value[4:]}` or `kill -s {args[0].value[4:]}`",
                     replacement=f"-{args[0].value[4:]}")
        elif name == "export" and args and args[0].value == "-f":
            self.add(script, *args[0].span, "export -f",
                     "dash cannot export functions (`Illegal option -f`)",
                     "a script file the child runs")
        elif name == "wait" and args and args[0].value == "-n":
            self.add(script, *args[0].span, "wait -n",
                     "dash's wait has no `-n` (`Illegal option -n`)", "`wait PID`")

    def set_options(self, script: Script, args: list[Word]) -> None:
        expect_name = False
        for w in args:
            v = w.value
            if w.dynamic:
                expect_name = False
                continue
            if expect_name and v == "pipefail":
                self.add(script, *w.span, "set -o pipefail",
                         "dash 0.5.12 (Debian 12) rejects it (`set: Illegal option -o "
                         "pipefail`) and, `set` being a special builtin, stops the script",
                         "check each step's status (or run the script with bash)")
            expect_name = len(v) > 1 and v[0] in "-+" and v[-1] == "o"

    def compound(self, script: Script, node: Compound) -> None:
        text = script.text
        start = node.span[0]
        if node.kind == "cond":
            self.add(script, start, start + 2, "[[ ... ]]",
                     "dash looks for a command named `[[` (`[[: not found`, status 127): an "
                     "`if [[ ... ]]` takes the else branch, `[[ ... ]] && x` never runs x",
                     "`[ ... ]` with quoted operands (`[ \"$a\" = b ]`)")
        elif node.kind == "function" and text.startswith("function", start) and (
                text[start + 8:start + 9].isspace()):
            self.add(script, start, start + 8, "function",
                     "dash stops with a syntax error (`\"}\" unexpected`)", "`name() { ...; }`")
        elif node.kind == "arith":
            self.add(script, start, start + 2, "(( ... ))",
                     "dash reads `((` as two nested subshells running a command: "
                     "`((i++))` is `i++: not found`, `((n > 3))` writes to a file named 3",
                     "`[ \"$n\" -gt 3 ]`, `i=$((i + 1))`")
        elif node.kind == "for" and node.name is not None and node.name.startswith("(("):
            self.add(script, start, start + 3, "for ((...))",
                     "dash stops with a syntax error", "`i=0; while [ \"$i\" -lt N ]; do ...; "
                     "i=$((i + 1)); done`")
        elif node.kind == "select":
            self.add(script, start, start + 6, "select",
                     "dash stops with a syntax error", "a `case` on a `read` answer")
        for w in node.words:
            self.word(script, w)
        for r in node.redirects:
            self.redirect(script, r)

    def pipeline(self, script: Script, node: Pipeline) -> None:
        for i, op in enumerate(node.operators):
            if op != "|&" or i + 1 >= len(node.commands):
                continue
            lo, hi = _node_span(node.commands[i])[1], _node_span(node.commands[i + 1])[0]
            at = script.text.find("|&", lo, max(hi, lo))
            if at >= 0:
                self.add(script, at, at + 2, "|&",
                         "dash stops with `Syntax error: \"&\" unexpected`", "`2>&1 |`",
                         replacement="2>&1 |")

    def redirect(self, script: Script, r: Redirect) -> None:
        start, end = r.span
        if r.op in ("&>", "&>>"):
            target = r.target.raw if r.target is not None else "file"
            plain = ">>" if r.op == "&>>" else ">"
            self.add(script, start, end, r.op,
                     f"dash reads `cmd {r.op} {target}` as `cmd &` (run in the background) "
                     f"then an empty `{plain} {target}`: the output is not redirected and "
                     "the script does not wait",
                     f"`{plain} {target} 2>&1`", replacement=f"{plain} {target} 2>&1"
                     if r.target is not None and not r.target.dynamic else None)
        elif r.op == "<<<":
            self.add(script, start, end, "<<<",
                     "dash stops with `Syntax error: redirection unexpected`",
                     "`printf '%s\\n' \"$x\" | cmd` or a heredoc")
        elif r.op == ">&" and r.target is not None and r.dup_fd is None and not (
                r.target.value.isdigit() or r.target.value == "-"):
            # `>&$fd`: both shells duplicate the descriptor when the value is digits (the
            # usual use); they part only on a file name, which the text does not show.
            raw = r.target.raw
            if r.target.dynamic:
                self.add(script, start, end, f">& {raw}",
                         f"dash takes `{raw}` as a descriptor number: if it holds a file name, "
                         "dash stops with `Syntax error: Bad fd number` where bash writes both "
                         "outputs to that file", f"`> {raw} 2>&1` for a file",
                         only_if="both shells copy the descriptor when the value is a number, "
                         "the usual use")
            else:
                self.add(script, start, end, f">& {raw}",
                         "dash stops with `Syntax error: Bad fd number`", f"`> {raw} 2>&1`")

    def word(self, script: Script, w: Word) -> None:
        parts = w.parts
        # `$'...'`/`$"..."` in an inner layer's text are QC108's (bash quoting sent to sh);
        # here only in a layer that is not handed text by another: a `#!/bin/sh` script.
        quoting = self.layer.parent is None
        for i, p in enumerate(parts):
            if quoting:
                self._quoting(script, parts, i)
            if p.kind == "brace" or (p.kind == "literal" and p.quoting == "none"
                                     and _BRACE.search(p.value)):
                self._brace(script, p)
            elif p.kind == "process":
                self.add(script, p.span[0], p.span[1], "<(...)",
                         "dash stops with `Syntax error: \"(\" unexpected`",
                         "a temporary file or a pipe")
            elif p.kind in ("parameter", "special"):
                self._parameter(script, p)

    def _quoting(self, script: Script, parts: tuple[Part, ...], i: int) -> None:
        p = parts[i]
        if p.quoting == "ansi_c":
            self.add(script, p.span[0], p.span[1], "$'...'",
                     "dash keeps the `$` and reads the rest as an ordinary single-quoted "
                     "string: escapes like `\\n` are not decoded",
                     "`printf` to build the value, or a literal newline inside quotes")
        elif p.quoting == "locale":
            self.add(script, p.span[0], p.span[1], '$"..."',
                     "dash keeps the `$` in front of the string", "plain `\"...\"`")
        elif (p.kind == "literal" and p.quoting == "none" and p.value.endswith("$")
              and i + 1 < len(parts) and parts[i + 1].quoting in ("single", "double")
              and parts[i + 1].span[0] == p.span[1]):
            # Parsed as POSIX sh: `$'...'` came out as a literal `$` and a quoted string.
            kind = "$'...'" if parts[i + 1].quoting == "single" else '$"..."'
            self.add(script, p.span[1] - 1, parts[i + 1].span[1], kind,
                     "dash keeps the `$` and reads the rest as an ordinary quoted string",
                     "`printf` to build the value")

    def _brace(self, script: Script, p: Part) -> None:
        m = _BRACE.search(p.value) if p.kind == "literal" else None
        if p.kind == "literal":
            if m is None:
                return
            start, end = p.offsets[m.start()], p.offsets[m.end() - 1] + 1
            text = m.group(0)
        else:
            start, end, text = p.span[0], p.span[1], p.value
        self.add(script, start, end, text,
                 f"dash does no brace expansion: the word stays `{one_line_marked(text, 30)}`",
                 "the words written out (`a b`), or a `for` loop")

    def _parameter(self, script: Script, p: Part) -> None:
        found = _param_bashism(p.value)
        if found is not None:
            self.add(script, p.span[0], p.span[1], p.value, found[0], found[1], kind=found[2])
            return
        if p.name in BASH_VARIABLES and not self._own_variable(script, p):
            self.add(script, p.span[0], p.span[1], f"${p.name}",
                     f"dash does not set `{p.name}`: it expands to nothing",
                     _BASH_VARIABLE_INSTEAD.get(p.name, "a command that computes the value"),
                     minor=True, only_if=self._still_unique(script, p))

    def _still_unique(self, script: Script, p: Part) -> str:
        """For `$RANDOM` in a word that also holds `$$` (`/tmp/x$RANDOM-$$`): why the empty
        value dash gives does no harm there, else ''."""
        if p.name != "RANDOM":
            return ""
        for node in iter_nodes(script.body):
            if not isinstance(node, SimpleCommand):
                continue
            for w in (*node.words, *(a.value for a in node.assignments)):
                if w.span[0] <= p.span[0] < w.span[1]:
                    if any(q.kind == "special" and q.name == "$" for q in w.parts):
                        return ("the word also holds `$$`, the shell's process id, which "
                                "keeps the name unique among running processes")
                    return ""
        return ""


    def _own_variable(self, script: Script, p: Part) -> bool:
        """Does the script set this bash variable itself where the expansion reads it? In
        dash it is then an ordinary variable: set at the top level before the expansion (or
        anywhere at the top level, for an expansion in a function, which runs later), in the
        same function before it, in another function (a library's `get_hostname` setting
        `HOSTNAME` for the functions that read it), or by the statement whose test reads it
        (`[ -z "$UID" ] && UID=$(id -u)`)."""
        if self._sets is None:
            self._sets = _variables_set(self.layer.script)
        at = script_span(script, p.span[0], p.span[1])
        if at is None or p.name is None:
            return False
        pos = at[0]
        for start, function, statement in self._sets.get(p.name, ()):
            if statement[0] <= pos < statement[1] and start > pos:
                return True  # the statement that tests it sets it
            inside = next((f for f in self._functions if f[0] <= pos < f[1]), None)
            if function is None and (start < pos or inside is not None):
                return True
            if function is not None and function == inside and start < pos:
                return True
            if function is not None and inside is not None and function != inside:
                return True  # another of its functions sets it, for this one to read
        return False


_SET_NAME = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)(=|\Z)")


def _variables_set(script: Script | None) -> dict[str, list[tuple[int, Span | None, Span]]]:
    """For each variable the script assigns (`x=`, `export x=`, `read x`, `for x in`): the
    input offset of each assignment, the span of the function it is in (None: the top level)
    and the span of the top-level statement (or the function's statement) holding it."""
    out: dict[str, list[tuple[int, Span | None, Span]]] = {}
    if script is None:
        return out

    def visit(nodes: list[Node], function: Span | None, statement: Span | None) -> None:
        for node in nodes:
            here = statement if statement is not None else script_span(script, *node.span)
            if here is None:
                continue
            if isinstance(node, SimpleCommand):
                names: list[tuple[str, int]] = [(a.name, a.span[0]) for a in node.assignments]
                words = node.words
                if words and not words[0].dynamic and words[0].value in (
                        "read", "export", "readonly", "local", "typeset", "declare"):
                    for w in words[1:]:
                        m = _SET_NAME.match(w.raw)
                        if m is not None and (m.group(2) or words[0].value == "read"):
                            names.append((m.group(1), w.span[0]))
                for name, offset in names:
                    at = script_span(script, offset, offset + 1)
                    if at is not None:
                        out.setdefault(name, []).append((at[0], function, here))
            elif isinstance(node, Pipeline):
                visit(node.commands, function, here)
            elif isinstance(node, CommandList):
                visit(node.items, function, here)
            elif isinstance(node, Compound):
                if node.kind == "function":
                    span = script_span(script, *node.span)
                    body: list[Node] = [x for _, x in node.parts]
                    while len(body) == 1 and isinstance(body[0], Compound) and \
                            body[0].kind == "group":
                        body = [x for _, x in body[0].parts]
                    if len(body) == 1 and isinstance(body[0], CommandList):
                        # each and-or list of the body is a statement
                        items, ops = body[0].items, body[0].ops
                        chain = 0
                        for i, item in enumerate(items):
                            if i + 1 == len(items) or i >= len(ops) or ops[i] not in ("&&", "||"):
                                first, last = items[chain].span[0], item.span[1]
                                visit(items[chain:i + 1], span, script_span(script, first, last))
                                chain = i + 1
                    else:
                        visit(body, span, None)
                    continue
                if node.kind == "for" and node.name and not node.name.startswith("(("):
                    out.setdefault(node.name, []).append((here[0], function, here))
                visit([x for _, x in node.parts], function, here)

    visit(script.body, None, None)
    return out


_BASH_VARIABLE_INSTEAD = {
    "EUID": "`$(id -u)`", "UID": "`$(id -ru)`", "HOSTNAME": "`$(hostname)`",
    "RANDOM": "`$(od -An -N2 -tu2 /dev/urandom)`", "SECONDS": "`$(date +%s)` differences",
}


def _node_span(node: Node) -> Span:
    return node.span


def bashisms(ctx: CheckContext, layer: Layer) -> list[Bashism]:
    """Bash-only constructs in a shell layer's own text (not in text outer layers fill in)."""
    if layer.kind != "shell" or layer.script is None:
        return []
    return _Finder(ctx, layer).run()


# -- secrets ---------------------------------------------------------------------------------


def mask(value: str) -> str:
    """Show the shape of a secret, not the secret: `hu****` (dynamic values as written)."""
    if not value:
        return "''"
    keep = 2 if len(value) > 6 else 0
    return value[:keep] + "****"


__all__ = [
    "Bashism",
    "LayerShell",
    "SshCall",
    "all_scripts",
    "bashisms",
    "commands_in",
    "connects",
    "exact_source_span",
    "inherited",
    "is_script_file",
    "layer_shell",
    "line_of",
    "loop_role",
    "mask",
    "options_unknown",
    "options_word_as_destination",
    "pipeline_position",
    "reads_stdin",
    "remote_command",
    "script_span",
    "shebang_shell",
    "ssh_calls",
    "stdin_redirect",
    "words_of",
]


# test(1)'s binary operators, `==` among them (bash's; dash rejects it), and its unary ones.
_TEST_BINARY = frozenset({"=", "!=", "==", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt",
                          "-ot", "-ef", "<", ">"})
_TEST_UNARY = frozenset(f"-{c}" for c in "bcdefghknprsStuwxzGLOo")


def binary_operator_positions(args: list[str]) -> set[int]:
    """The indexes of ``args`` (test's arguments, without ``[``'s closing ``]``) that test reads
    as a binary operator; any other word, ``==`` too, is an operand (``[ "$op" = "==" ]``).

    POSIX decides by the number of arguments up to four; past that it follows the grammar of
    ``!``, ``(...)``, ``-a`` and ``-o`` the way bash and dash parse it, greedily.
    """
    n = len(args)
    if n < 3:
        return set()
    if n == 3:
        if args[1] in _TEST_BINARY:
            return {1}
        return set()  # `! a b` (negated two-argument test) or `( a )`: no binary operator
    if n == 4 and args[0] == "!":
        return {i + 1 for i in binary_operator_positions(args[1:])}
    found: set[int] = set()
    i = 0

    def primary() -> None:
        nonlocal i
        while i < n and args[i] == "!":
            i += 1
        if i >= n:
            return
        if i + 2 < n and args[i + 1] in _TEST_BINARY:
            found.add(i + 1)
            i += 3
        elif args[i] == "(":
            i += 1
            expression()
            if i < n and args[i] == ")":
                i += 1
        elif args[i] in _TEST_UNARY and i + 1 < n:
            i += 2
        else:
            i += 1

    def expression() -> None:
        nonlocal i
        primary()
        while i < n and args[i] in ("-a", "-o"):
            i += 1
            primary()

    expression()
    return found
