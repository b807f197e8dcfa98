"""QC402 syntax-without-shell: shell syntax in an argv that no shell reads.

A host that starts a program from a list (Python's ``subprocess.run([...])``, ``os.exec*``, a
Dockerfile's exec form ``CMD [...]``) or splits a line itself (systemd's ``ExecStart=``) hands
each word to the program as one argument: a ``|``, ``&&``, ``;`` or ``>`` word is an argument
like any other, so ``["ls", "-l", "|", "grep", "x"]`` runs ``ls`` with four operands and no
pipe. Words handed on to something that parses text again (ssh's remote shell, ``sh -c``) are
not this rule's: there the operators work.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import basename
from quotecheck.rules._host_layers import launched as _launched
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

# A whole argument that is a shell operator or a redirection.
_OPERATOR = lazy_compile(r"(?:\|\|?|&&|;|&|[0-9]*>>?|<|[0-9]*>&[0-9-]|&>>?|2>/dev/null|"
                         r">/dev/null)\Z")
# Programs that take these words as arguments of their own (find's `;`, test's `<`).
_OWN_OPERATORS = frozenset({"find", "expr", "test", "[", "bc"})

_NOT_A_SHELL = Template(
    "operator-is-an-argument",
    "`{word}` is passed to {program} as an argument: no shell reads this argv",
    "{api} starts {program} with these words as its argv, so {what} does not happen; "
    "{program} gets `{word}` and the words after it as arguments. {advice}")
# What to do instead, in each host's own terms.
_ADVICE = {
    "python": "Run the pieces as separate calls (a pipe: `subprocess.run(..., input=...)` or "
              "two Popen objects; a file: `stdout=open(...)`), or give the whole text to one "
              "shell: `subprocess.run(\"...\", shell=True)` with each value passed through "
              "`shlex.quote`.",
    "dockerfile": "Write the shell form (`CMD python3 app.py > /proc/1/fd/1`), or give the "
                  "text to a shell yourself: `CMD [\"/bin/sh\", \"-c\", \"...\"]`.",
    "kubernetes": "Give the text to a shell: `command: [\"sh\", \"-c\", \"...\"]` (the image "
                  "must have one), or let the program write its output itself.",
    "ansible": "The `command` module runs no shell: use `ansible.builtin.shell` for pipes, "
               "redirections and sequences (with each value `{{ x | quote }}`).",
    "compose": "Give the text to a shell: `command: [\"sh\", \"-c\", \"a && b\"]` (`$$` for "
               "each `$` the shell should see), after the wrapper if one runs the program "
               "(`dockerize -wait tcp://db:5432 sh -c \"a && b\"`).",
    "systemd": "For output to a file use `StandardOutput=append:/path` "
               "(`StandardError=` likewise); for a pipe or a sequence, "
               "`ExecStart=/bin/sh -c '...'`.",
}

_ANY_PROGRAM = (" (Which program takes these words is not known here, but any one gets "
                "`{word}` as one of its arguments: a shell's `-c` takes only the first word "
                "as its script, the rest as `$0`, `$1`...)")

_WHAT = {"|": "the pipe", "||": "the `||`", "&&": "the `&&`", ";": "the second command",
         "&": "the background job"}


def argument_layer(ctx: CheckContext, view: CommandView, arg: Arg) -> tuple[Layer, str]:
    """The layer a finding on an argument word of a host's argv launch stands on, and what to
    add to its message.

    Where the program that takes the words is a guess (Compose's `command:` goes to an
    image's ENTRYPOINT that the file does not show), a word after the first is still one
    argument of whatever program it is: an exec-form ENTRYPOINT gets it as one, and a shell's
    `-c` reads only the first word as code. A finding about such a word does not stand on
    the guess: it is put on the host's own layer and says so."""
    root = ctx.trace.root
    layer = _launched(ctx, view) or ctx.layers[root.id]
    if layer.uncertain is None or not view.argv or arg is view.argv[0]:
        return layer, ""
    return ctx.layers[root.id], _ANY_PROGRAM.format(word=arg.value)


def check(ctx: CheckContext) -> Iterator[Finding]:
    root = ctx.trace.root
    if root.kind != "host":
        return
    for view in root.commands:
        if any(not isinstance(h, ho.ExecHandoff) for h in view.handoffs):
            continue  # the words reach ssh's remote shell, `sh -c`...: there they are syntax
        effective = view.effective
        start = effective.start if effective is not None else 0
        program = basename(view.values[start]) if start < len(view.values) else ""
        if not program or view.argv[start].dynamic or \
                not _OWN_OPERATORS.isdisjoint({program, *(effective.wrappers if effective
                                                           else ())}):
            continue
        for arg in view.argv[start + 1:]:
            if arg.dynamic or not _OPERATOR.match(arg.value) or arg.source_span is None:
                continue
            api = next((x.via for x in ctx.layers if x.opened_by is view and x.via), "the call")
            what = _WHAT.get(arg.value, "the redirection")
            layer, note = argument_layer(ctx, view, arg)
            message = _NOT_A_SHELL(word=arg.value, program=f"`{program}`", api=api,
                                   what=what, advice=_ADVICE.get(root.format or "", ""))
            yield Finding(arg.source_span, message.extended(note) if note else message, layer)
            break  # one per call: the rest follows from the first


RULE = Rule("QC402", "syntax-without-shell",
            "Shell syntax in an argv that no shell reads (a host's list of arguments)",
            "warning", check, tags=("host",),
            trigger=Trigger(formats=frozenset({"python", "dockerfile", "systemd",
                                               "kubernetes", "compose", "ansible"})))
