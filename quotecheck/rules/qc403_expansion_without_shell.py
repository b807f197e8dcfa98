"""QC403 expansion-without-shell: `$VAR`, `$(cmd)` or `~` in an argv that no shell expands.

A Dockerfile's exec form (``CMD ["python3", "app.py", "--out", "$OUT_DIR"]``), a Python list
(``subprocess.run(["ls", "~/logs"])``) and a Kubernetes container's ``command``/``args`` go to
the program as they are: the program gets the characters ``$OUT_DIR`` and ``~/logs``, not a
value (the kubelet expands only ``$(NAME)``). systemd expands ``$NAME`` and
``${NAME}`` itself (from ``Environment=``), but not ``$(cmd)``, backticks or ``~``. Words handed
on to something that parses them (ssh's remote shell, ``sh -c``) and the program texts of awk,
sed, perl and the like, whose own `$` they are, are not this rule's.

Two more things only a shell does go missing the same way, and the program cannot even start:

* a program word that holds its arguments (``command: ["/bin/bash /opt/run.sh"]``): no shell
  splits it at the blank, and execve() looks for a file ``run.sh`` in a directory named
  ``bash `` (QC110 reports such a word where it does not read as a path; a blank followed by
  an option or another path is no file name);
* a shell started without ``-c`` (``["/bin/sh", "set -e\n..."]``): its first operand is the
  name of a script file, and sh fails with ``cannot open set -e ...``. The words after the
  ``-c`` string of ``sh -c`` are ``$0``, ``$1``... as written: no shell expands them either.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import (
    AWK_PROGRAMS,
    GREP_PROGRAMS,
    PROGRAM_TEXT_LANGUAGES,
    basename,
)
from quotecheck.rules._host_layers import launched as _launched
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.qc402_syntax_without_shell import argument_layer
from quotecheck.rules.triggers import Trigger

# What a shell would expand: `$NAME`, `${...}`, `$(...)`, backticks; `~` starting a word.
_EXPANSION = lazy_compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}|\([^)]*\)?)|`[^`]*`")
# What systemd leaves alone (it splits at blanks first: `$(cat` and a lone backtick count)
_COMMAND_ONLY = lazy_compile(r"\$\([^)]*\)?|`[^`]*`?")
# Programs whose arguments hold `$` of their own (patterns, program texts, templates).
_OWN_DOLLARS = frozenset({*PROGRAM_TEXT_LANGUAGES, *AWK_PROGRAMS, *GREP_PROGRAMS,
                          "rg", "envsubst", "printf", "echo", "psql", "mysql", "sqlite3",
                          "git", "find"})
# Interpreters: a program text after -c/-e has `$` of its own language.
_INTERPRETERS = lazy_compile(r"(?:python[0-9.]*|pypy[0-9.]*|node|ruby|php|perl|Rscript)\Z")

_NOT_EXPANDED = Template(
    "expansion-not-expanded",
    "{program} gets `{shown}` as it is written: no shell expands this argv",
    "{api} starts the program with these words as they are, so `{shown}` is {what}. {advice}")
_ADVICE = {
    "python": "Put the value in from Python (`os.environ[\"NAME\"]`, `os.path.expanduser`, "
              "`subprocess.run([...], capture_output=True).stdout`), or give the text to a "
              "shell: `[\"sh\", \"-c\", 'cmd \"$NAME\"']`.",
    "dockerfile": "Use the shell form (`CMD exec python3 app.py --out \"$OUT_DIR\"`: `exec` "
                  "keeps the program as PID 1), or `[\"/bin/sh\", \"-c\", \"exec ...\"]`.",
    "systemd": "systemd expands `$NAME` and `${NAME}` from `Environment=`, not commands or "
               "`~`: compute the value in an `EnvironmentFile=`, or run the line through "
               "`/bin/sh -c '...'`.",
    "ansible": "The `command` module runs no shell (it puts in only `$NAME`, `${NAME}` and a "
               "leading `~`): use `ansible.builtin.shell`, or put the value in with Jinja.",
    "compose": "Compose turns `$$NAME` into `$NAME` and no shell in the container expands "
               "it: run the command through a shell (`command: sh -c 'app \"$$NAME\"'`), or "
               "write `$NAME` for Compose's own value where that is the one meant.",
    "kubernetes": "The kubelet expands `$(NAME)` for a variable of the container's `env:`, "
                  "not `$NAME` or `${NAME}`: write `$(NAME)`, or run the command through "
                  "`[\"sh\", \"-c\", \"...\"]`.",
}


# A word QC110 takes for a path (it may hold blanks: "/opt/My App/bin/run"), and a blank in it
# that starts an option or another path, which no file name does: the program's arguments.
_PATH_LIKE = lazy_compile(r"(?:/|\./|\.\./|~/)[^;&|<>()`'\"$\n]*")
_ARGUMENT_AFTER_BLANK = lazy_compile(r"\s+(?:-|/|\./|\.\./|~/)")
# Text of a script, not a file's name: a newline, an operator, a redirection, a backtick.
_SCRIPT_TEXT = lazy_compile(r"\n|[;&|<>`]")

_ONE_WORD = Template(
    "program-word-holds-arguments",
    "`{word}` is one word: no shell splits it into the program and its arguments",
    "{api} execs a program named `{word}`, blanks included, which does not exist: the "
    "launch fails at once with `No such file or directory` and nothing runs. Give each word "
    "an item of its own: `[{words}]`.")
_NO_DASH_C = Template(
    "shell-text-as-script-file",
    "`{shell}` takes this text as the name of its script file: without `-c` no shell runs it",
    "a shell's first operand is a file to read the script from, so `{shell}` tries to open "
    "a file named `{first}` and fails (`cannot open`, `No such file`) before any of the "
    "text runs. Put `-c` before the text: `[\"{program}\", \"-c\", \"...\"]`.")


def _unparsed(view: CommandView) -> tuple[set[int], ho.ShellHandoff | None] | None:
    """The indices of the view's words that no shell parses, and the shell the view starts
    (if any); None where a word goes to something that parses it (ssh, a join, awk)."""
    parsed: set[int] = set()
    shell = None
    for h in view.handoffs:
        if isinstance(h, ho.ShellHandoff):
            if h.uncertain or (h.mode == "c" and h.script is None):
                return None
            shell = shell or h
            if h.mode == "c" and h.script is not None:
                parsed.add(h.script)
            parsed.update(h.script_words)
        elif not isinstance(h, ho.ExecHandoff):
            return None
    return set(range(len(view.argv))) - parsed, shell


def _static(arg: Arg) -> str:
    """The word's characters that are written in the file (run-time parts blanked)."""
    chars = list(arg.value)
    for a, b in arg.dynamic_ranges:
        for i in range(max(a, 0), min(b, len(chars))):
            chars[i] = " "
    return "".join(chars)


def check(ctx: CheckContext) -> Iterator[Finding]:
    root = ctx.trace.root
    if root.kind != "host":
        return
    systemd = root.format == "systemd"
    for view in root.commands:
        got = _unparsed(view)
        if got is None:
            continue  # handed to something that parses it (ssh): expanded there
        unparsed, shell = got
        effective = view.effective
        start = effective.start if effective is not None else 0
        if start >= len(view.argv) or view.argv[start].dynamic:
            continue
        api = next((x.via for x in ctx.layers if x.opened_by is view and x.via), "the call")
        layer = _launched(ctx, view) or root
        # (an image's ENTRYPOINT may take the words as its arguments: lowered with the layer)
        fails: Severity = "warning" if layer.uncertain else "error"
        finding = _cannot_start(view, start, shell, api, layer, fails)
        if finding is not None:
            yield finding
            continue
        program = basename(view.values[start])
        if program in _OWN_DOLLARS or (_INTERPRETERS.match(program) and any(
                v in ("-c", "-e", "-E") for v in view.values[start + 1:])):
            continue
        for index, arg in enumerate(view.argv[start:], start):
            if arg.source_span is None or index not in unparsed:
                continue
            text = _static(arg)
            m = (_COMMAND_ONLY if systemd else _EXPANSION).search(text)
            tilde = text.startswith("~") or "=~/" in text
            if m is None and not tilde:
                continue
            shown = m.group() if m is not None else text.split("/", 1)[0] + "/"
            what = ("the command's text, not its output" if m is not None and
                    m.group().startswith(("$(", "`")) else
                    "not the home directory" if m is None else "the name, not the value")
            where, note = argument_layer(ctx, view, arg) if index > start else (layer, "")
            message = _NOT_EXPANDED(program=f"`{program}`", shown=shown, api=api, what=what,
                                    advice=_ADVICE.get(root.format or "", ""))
            yield Finding(arg.source_span, message.extended(note) if note else message, where)
            break  # one per launch


def _cannot_start(view: CommandView, start: int, shell: ho.ShellHandoff | None, api: str,
                  layer: Layer, severity: Severity) -> Finding | None:
    """A launch that fails before the program runs, for want of a shell: a program word that
    holds its arguments, or script text given to a shell as the name of its script file."""
    word = view.argv[start]
    if word.source_span is not None and not word.dynamic and \
            _PATH_LIKE.fullmatch(word.value) and _ARGUMENT_AFTER_BLANK.search(word.value):
        words = ", ".join(f'"{w}"' for w in word.value.split())
        return Finding(word.source_span, _ONE_WORD(word=word.value, api=api, words=words),
                       layer, severity=severity)
    if shell is None or shell.mode != "file" or shell.script is None or \
            shell.script >= len(view.argv):
        return None
    script = view.argv[shell.script]
    if script.source_span is None or not _SCRIPT_TEXT.search(_static(script)):
        return None
    lines = script.value.strip().splitlines() or [""]
    first = lines[0][:40] + ("..." if len(lines) > 1 or len(lines[0]) > 40 else "")
    program = view.values[shell.shell_index] if shell.shell_index is not None else shell.shell
    return Finding(script.source_span,
                   _NO_DASH_C(shell=basename(program), first=first, program=program),
                   layer, severity=severity)


RULE = Rule("QC403", "expansion-without-shell",
            "`$VAR`, `$(cmd)` or `~` in an argv that no shell expands", "warning", check,
            tags=("host",), trigger=Trigger(formats=frozenset({"python", "dockerfile",
                                                                "systemd", "kubernetes",
                                                                "compose", "ansible"})))
