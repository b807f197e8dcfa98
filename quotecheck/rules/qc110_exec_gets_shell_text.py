"""QC110 exec-gets-shell-text: an exec-style wrapper gets shell text or a builtin as its program.

`timeout`, `sudo`, `env`, `nohup`, `nice`, `setsid`, `xargs`, `find -exec`, `docker exec`,
`kubectl exec --`, `srun`... call execve() on the words they were given: no shell reads them.
`timeout 5 "cd d && x"` looks for a program whose name is the whole string and fails with 127
(verified: `timeout: failed to run command 'cd d && x': No such file or directory`); a shell
builtin (`cd`, `source`, `export`...) is not a program at all, or, where a stub exists, changes
the state of a process that exits at once. `sudo -s`/`sudo -i` with one word of shell text
fail the same way: sudo escapes the word for the shell it starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import IN_PLACE_BUILTINS
from quotecheck.rules._handoffs import arg_span, code, descendants, sh_quote
from quotecheck.rules._host_layers import launched as _launched
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

# Builtins that only make sense inside a shell: no program by that name exists on most systems,
# and where one does (a POSIX stub such as /usr/bin/cd) it affects only itself.
BUILTINS = frozenset({
    "cd", "source", ".", "export", "alias", "unalias", "unset", "set", "shift", "exit",
    "return", "eval", "readonly", "declare", "typeset", "local", "let", "shopt", "ulimit",
    "umask", "trap", "wait", "jobs", "fg", "bg", "disown", "pushd", "popd", "dirs", "hash",
    "history", "builtin", "caller", "enable", "mapfile", "readarray", "read", "getopts",
    "exec", "break", "continue", "[[", "((", "function", "select",
})
# Wrappers that are shell builtins themselves: `command cd` and `builtin cd` work (`exec cd`
# does not: exec needs a program).
_SHELL_WRAPPERS = IN_PLACE_BUILTINS - {"exec"}
_SYNTAX = lazy_compile(r"[;&|<>()`'\"\n]|\$[({A-Za-z_0-9@*#?!$-]|^\s*[A-Za-z_][A-Za-z0-9_]*=")
_PATH_LIKE = lazy_compile(r"(?:/|\./|\.\./|~/)[^;&|<>()`'\"$\n]*")


def _static(arg: Arg) -> str:
    """The characters of the word known before run time."""
    if not arg.dynamic_ranges:
        return arg.value
    keep = [True] * len(arg.value)
    for a, b in arg.dynamic_ranges:
        for i in range(max(a, 0), min(b, len(keep))):
            keep[i] = False
    return "".join(c if k else " " for c, k in zip(arg.value, keep, strict=True))


def _problem(arg: Arg) -> str | None:
    """Why this program word is not a program name, or None."""
    value = arg.value
    if not arg.dynamic and value in BUILTINS:
        return "builtin"
    if arg.word is not None and any(p.kind == "glob" and p.quoting == "none"
                                    for p in arg.word.parts):
        return None  # `sudo ./installer-*.sh`: the outer shell expands the pattern first
    text = _static(arg) if arg.dynamic else value
    if arg.dynamic:
        # Only the written part is known: a word such as "cd $dir && make" still shows syntax.
        written = "".join(text.split())
        if not written:
            return None
        if _SYNTAX.search(text.replace("$", "")) or (
                re.search(r"\S\s+\S", text.strip()) and not text.strip().startswith("/")):
            return "syntax"
        return None
    if _PATH_LIKE.fullmatch(value):
        return None  # "/opt/My App/bin/run": a path with spaces is a valid program name
    if re.search(r"\s", value) or _SYNTAX.search(value):
        return "syntax"
    return None


def _program(h: ho.ExecHandoff) -> int | None:
    if h.prefix or not h.words:
        return None
    return h.words[0]


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from _host_programs(ctx)
    for layer, view in ctx.commands():
        for h in view.handoffs:
            if isinstance(h, ho.ShellHandoff) and h.script_words:
                finding = _sudo_shell_word(ctx, layer, view, h)
                if finding is not None:
                    yield finding
                continue
            if not isinstance(h, ho.ExecHandoff) or h.wrapper in _SHELL_WRAPPERS:
                continue
            index = _program(h)
            if index is None or not 0 <= index < len(view.argv):
                continue
            arg = view.argv[index]
            if h.placeholder and h.placeholder in arg.value:
                continue
            kind = _problem(arg)
            if kind is None and not arg.dynamic and arg.value in _STUBBED:
                yield _stubbed(ctx, layer, view, h, index, arg)
                continue
            if kind is None:
                continue
            if kind == "builtin" and h.wrapper == "time" and view.values[0] == "time" \
                    and layer.dialect != "sh":
                continue  # bash's `time` keyword times builtins too
            yield _finding(ctx, layer, view, h, index, arg, kind)


# Builtins that some systems also ship as programs that work: RHEL's bash package and macOS
# have /usr/bin/command, a script that runs the builtin; Debian, Ubuntu and Alpine have none.
_STUBBED = frozenset({"command"})
_RUNS_BUILTIN_AS_PROGRAM = Template(
    "runs-builtin-as-program",
    "{wrapper} runs {code} with execve(), but {code} is a shell builtin",
    "Debian, Ubuntu and Alpine have no program by that name, so {wrapper2} fails with status "
    "127 and {rest} never runs; only systems that ship a stub script for it (RHEL, macOS) run "
    "it. {instead}.")


def _stubbed(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.ExecHandoff,
             index: int, arg: Arg) -> Finding:
    wrapper = h.wrapper if not h.action else f"{h.wrapper} {h.action}"
    after = view.values[index + 1] if index + 1 < len(view.values) else ""
    if after and not after.startswith("-"):
        rest = code(after)
        instead = (f"{h.wrapper} already runs a program without a shell: drop {code(arg.value)}, "
                   + code(" ".join(_raw(view, i) for i in range(len(view.argv)) if i != index),
                          120))
    else:  # `command -v x`: the builtin's own work, which needs a shell
        rest = "the command"
        words = [_raw(view, i) for i in range(index, len(view.argv))]
        shell = " ".join([*(_raw(view, i) for i in range(index)), "sh", "-c",
                          sh_quote(" ".join(words))])
        instead = f"Give it to a shell: {code(shell, 120)}"
    target = next((x for x in descendants(ctx, view) if x.kind == "exec"), layer)
    return Finding(arg_span(ctx, layer, view, arg),
                   _RUNS_BUILTIN_AS_PROGRAM(wrapper=wrapper, code=code(arg.value),
                                            wrapper2=h.wrapper, rest=rest,
                                            instead=instead),
                   target, severity="warning")


_YAML_HOSTS = frozenset({"compose", "kubernetes", "ansible", "github-actions"})


def _host_programs(ctx: CheckContext) -> Iterator[Finding]:
    """A host file's argv launch whose program is shell text (`subprocess.run("df -h")`
    without shell=True): the host is the exec-style wrapper."""
    root = ctx.trace.root
    if root.kind != "host":
        return
    for view in root.commands:
        arg = view.argv[0]
        if arg.source_span is None:
            continue
        # (a part known only at run time is one value: a placeholder, not a blank)
        chars = list(arg.value)
        for a, b in arg.dynamic_ranges:
            chars[a:b] = "x" * (b - a)
        written = "".join(chars)
        if not (re.search(r"\s", written) and not _PATH_LIKE.fullmatch(written)) and \
                not _SYNTAX.search(written.replace("$", "")):
            continue
        api = next((x.via for x in ctx.layers if x.opened_by is view and x.via), "the call")
        if not arg.dynamic and not _SYNTAX.search(arg.value):
            words = ", ".join(f'"{w}"' for w in arg.value.split())
            suggestion = (f"give each word an item of its own: `[{words}, ...]`"
                          if root.format in _YAML_HOSTS else
                          f"give the words as a list: `{api}([{words}])`")
        else:
            suggestion = ("give the text to a shell with `shell=True` (each value passed "
                          "through `shlex.quote`), or the words as a list")
        layer = _launched(ctx, view) or root
        # Where the program is a guess (an image's ENTRYPOINT may take these words as its
        # arguments), the claim is the guess itself: information (a warning, lowered once).
        yield Finding(arg.source_span,
                      _RUNS_ARGUMENT_AS_PROGRAM(wrapper=api, code=code(arg.value),
                                                suggestion=suggestion),
                      layer, severity="warning" if layer.uncertain else None)


def _raw(view: CommandView, i: int) -> str:
    arg = view.argv[i]
    return arg.word.raw if arg.word is not None else sh_quote(arg.value)


def _as_script(arg: Arg) -> tuple[str, list[str]]:
    """The word as an `sh -c` script with its run-time parts passed as "$1", "$2"..."""
    if not arg.dynamic or arg.word is None:
        return sh_quote(arg.value), []
    script: list[str] = []
    args: list[str] = []
    for p in arg.word.parts:
        if p.dynamic:
            args.append(f'"{p.value}"')
            script.append(f'"${len(args)}"')
        else:
            script.append(p.value)
    text = "".join(script)
    return "'" + text.replace("'", "'\\''") + "'", ["sh", *args]


def _suggestion(view: CommandView, index: int, arg: Arg, kind: str,
                h: ho.ExecHandoff) -> str:
    before = [_raw(view, i) for i in range(index)]
    after = [_raw(view, i) for i in range(index + 1, len(view.argv))]
    if kind == "builtin":
        inner = " ".join(view.values[i] for i in h.words if i < len(view.values))
        end = h.words[-1] + 1 if h.words else index + 1
        rest = [_raw(view, i) for i in range(end, len(view.argv))]
        shell = code(" ".join([*before, "sh", "-c", sh_quote(inner + " && ..."), *rest]), 160)
        return f"give the whole sequence to one shell: {shell}"
    if not arg.dynamic and not _SYNTAX.search(arg.value):
        split = code(" ".join([*before, *arg.value.split(), *after]), 160)
        return f"write the words separately: {split}"
    script, extra = _as_script(arg)
    if after and not extra:
        extra = ["sh"]
    shell = code(" ".join([*before, "sh", "-c", script, *extra, *after]), 160)
    return f"give the text to a shell: {shell}"


_RUNS_EXECVE_BUT_SHELL = Template(
    "runs-execve-but-shell",
    "{wrapper} runs {code} with execve(), but {code} is a shell builtin",
    "there is no program by that name on most systems ({wrapper2} fails with "
    "`{name}: No such file or directory`, status 127), and where a stub exists it "
    "only changes its own process, which exits at once. To run {code2}, {instead}.")
_RUNS_ARGUMENT_AS_PROGRAM = Template(
    "runs-argument-as-program",
    "{wrapper} runs its argument as a program, not as shell text",
    "it looks for a program named {code} (spaces and operators included) and fails "
    "with status 127 (`No such file or directory`). Instead, {suggestion}.")


def _finding(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.ExecHandoff,
             index: int, arg: Arg, kind: str) -> Finding:
    wrapper = h.wrapper if not h.action else f"{h.wrapper} {h.action}"
    values = view.values
    inner_words = [values[i] for i in h.words if i < len(values)]
    target = layer
    for x in descendants(ctx, view):
        if x.kind == "exec":
            target = x
            break
    span = arg_span(ctx, layer, view, arg)
    if kind == "builtin":
        name = arg.value
        shown = " ".join(inner_words)
        if name in (".", "source") and h.wrapper == "env":
            file = sh_quote(inner_words[1]) if len(inner_words) > 1 else "FILE"
            instead = (f"set the variables in this shell and source the file here "
                       f"(`export X=...; . {file}`)")
        else:
            instead = (f"do it in this shell before the wrapper "
                       f"(`{name} ... && {h.wrapper} ...`), or, if it must happen on the other "
                       f"side, {_suggestion(view, index, arg, kind, h)}")
        return Finding(
            span,
            _RUNS_EXECVE_BUT_SHELL(wrapper=wrapper, code=code(name), wrapper2=h.wrapper,
                                   name=name, code2=code(shown), instead=instead),
            target,
        )
    return Finding(
        span,
        _RUNS_ARGUMENT_AS_PROGRAM(wrapper=wrapper, code=code(arg.value),
                                  suggestion=_suggestion(view, index, arg, kind, h)),
        target,
    )


_SUDO_HANDS_SHELL_STARTS = Template(
    "sudo-hands-shell-starts",
    "sudo hands the shell it starts (`-s`/`-i`) its words with a backslash before "
    "every character except letters, digits, `_`, `-` and `$`",
    "the one word {code} is a command name there, spaces and operators included, and "
    "the shell fails with `command not found` (status 127). Write the words "
    "separately if it is one command, or give the text to a shell of its own, "
    "without `-s`/`-i`: {code2} (keep `-u USER` if it was there).")


def _sudo_shell_word(ctx: CheckContext, layer: Layer, view: CommandView,
                     h: ho.ShellHandoff) -> Finding | None:
    """`sudo -s 'cd /x && make'`: sudo escapes every character of its words but letters,
    digits, `_`, `-` and `$` for the shell it starts, so one word of shell text is one command
    name there (verified with sudo 1.9.13: `command not found`, status 127)."""
    index = h.script_words[0]
    if not 0 <= index < len(view.argv):
        return None
    arg = view.argv[index]
    if _problem(arg) != "syntax":
        return None
    script, extra = _as_script(arg)
    instead = " ".join(["sudo", "sh", "-c", script, *extra])
    return Finding(
        arg_span(ctx, layer, view, arg),
        _SUDO_HANDS_SHELL_STARTS(code=code(arg.value), code2=code(instead, 120)),
        layer,
    )


RULE = Rule("QC110", "exec-gets-shell-text",
            "An exec-style wrapper gets a word of shell text or a shell builtin as its program",
            "error", check,
            trigger=HANDOFFS)
