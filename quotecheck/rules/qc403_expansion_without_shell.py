"""QC403 expansion-without-shell: `$VAR`, `$(cmd)` or `~` in an argv that no shell expands.

A Dockerfile's exec form (``CMD ["python3", "app.py", "--out", "$OUT_DIR"]``), a Python list
(``subprocess.run(["ls", "~/logs"])``) and a Kubernetes container's ``command``/``args`` go to
the program as they are: the program gets the characters ``$OUT_DIR`` and ``~/logs``, not a
value (the kubelet expands only ``$(NAME)``). systemd expands ``$NAME`` and
``${NAME}`` itself (from ``Environment=``), but not ``$(cmd)``, backticks or ``~``. Words handed
on to something that parses them (ssh's remote shell, ``sh -c``) and the program texts of awk,
sed, perl and the like, whose own `$` they are, are not this rule's.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import (
    AWK_PROGRAMS,
    GREP_PROGRAMS,
    PROGRAM_TEXT_LANGUAGES,
    basename,
)
from quotecheck.rules._host_layers import launched as _launched
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
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
    "kubernetes": "The kubelet expands `$(NAME)` for a variable of the container's `env:`, "
                  "not `$NAME` or `${NAME}`: write `$(NAME)`, or run the command through "
                  "`[\"sh\", \"-c\", \"...\"]`.",
}


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
        if any(not isinstance(h, ho.ExecHandoff) for h in view.handoffs):
            continue  # handed to something that parses it (ssh, sh -c): expanded there
        effective = view.effective
        start = effective.start if effective is not None else 0
        if start >= len(view.argv) or view.argv[start].dynamic:
            continue
        program = basename(view.values[start])
        if program in _OWN_DOLLARS or (_INTERPRETERS.match(program) and any(
                v in ("-c", "-e", "-E") for v in view.values[start + 1:])):
            continue
        api = next((x.via for x in ctx.layers if x.opened_by is view and x.via), "the call")
        for arg in view.argv[start:]:
            if arg.source_span is None:
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
            yield Finding(arg.source_span,
                          _NOT_EXPANDED(program=f"`{program}`", shown=shown, api=api,
                                        what=what, advice=_ADVICE.get(root.format or "", "")),
                          _launched(ctx, view) or root)
            break  # one per launch


RULE = Rule("QC403", "expansion-without-shell",
            "`$VAR`, `$(cmd)` or `~` in an argv that no shell expands", "warning", check,
            tags=("host",), trigger=Trigger(formats=frozenset({"python", "dockerfile",
                                                                "systemd", "kubernetes",
                                                                "compose", "ansible"})))
