"""An expansion that lands unquoted in an inner shell's code: QC101 when the inner layer
has a value of its own (or the command was meant to run there), else QC103."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator

from quotecheck.diagnostics import Related, Severity
from quotecheck.layers.handoff_types import ExecHandoff
from quotecheck.layers.model import Layer, Trace
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Compound, iter_nodes
from quotecheck.programs import (
    ACTION_INPUT_PREFIX,
    CONTAINER_RUNNERS,
    MACHINE_FACTS,
    TASK_LAUNCHERS,
    TASK_VARIABLES,
    WORD_PRINTERS,
)
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.advice import (
    escape_fix,
    local_value,
    lowercase_first,
    outer_label,
    quote_advice,
)
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.assignments import (
    Assigned,
    part_is_quoted_output,
    substitution_words,
)
from quotecheck.rules.crosslayer.expansions import ARITH_NAMES, Expansion, Landing, Result
from quotecheck.rules.crosslayer.inner_shells import (
    ENVIRONMENT_NAMES,
    describe,
    environment_differs,
    eval_prints,
    has_own_arguments,
    is_eval,
    is_ssh_shell,
    sudo_escaped,
)
from quotecheck.rules.crosslayer.known import (
    evidence,
    knowledge,
    known_unsafe,
    output_is_plain,
)
from quotecheck.rules.crosslayer.parameters import param_name
from quotecheck.rules.crosslayer.text import basename, line_around, text_index

# Parameters whose value is always a number: `$$`, `$#`, `$?`, `$!`, `$LINENO`, `$RANDOM`...
_NUMBERS = frozenset({"$", "#", "?", "!"})
# Characters that make a value's text a shell operator or redirection when eval parses it.
_OPERATOR_CHARS = "<>|;&"
_SHELL_NUMBERS = frozenset({"LINENO", "RANDOM", "SECONDS", "BASHPID", "PPID", "UID", "EUID",
                            "SRANDOM", "EPOCHSECONDS", "OPTIND", "SHLVL"})


def code_result(ctx: CheckContext, an: Analysis, exp: Expansion, first: Landing,
                damage: Landing | None) -> Result | None:
    result = _code_result(ctx, an, exp, first, damage)
    if result is not None and result.code == "QC101" and sudo_escaped(ctx, exp.layer):
        return _by_sudo_shell(ctx, exp, first, damage, result)
    return result


_SUDO_SHELL_EXPANDS = Template(
    "sudo-shell-expands",
    "`{shown}` is expanded by the shell that `sudo -s`/`sudo -i` starts, before "
    "{inner} runs",
    "sudo hands that shell the command with a backslash before every character "
    "except letters, digits, `_`, `-` and `$`, so every `$` in it expands there, "
    "single-quoted here or not, and a backslash written before it is escaped by sudo "
    "too. Run the command without that shell: `sudo bash -c '...'` (add `-u USER -H` "
    "for another user, `bash -l` for a login environment).")


def _by_sudo_shell(ctx: CheckContext, exp: Expansion, first: Landing, damage: Landing | None,
                   result: Result) -> Result:
    """`sudo -s bash -c 'for f in *; do echo "$f"; done'`: the shell sudo starts expands the
    `$` before bash sees it, whatever the quotes, and `\\$` cannot help (sudo escapes the
    backslash): the one remedy is not to have that shell."""
    where = damage.layer if damage is not None else first.layer
    inner = describe(ctx.trace, where)
    msg = (_SUDO_SHELL_EXPANDS(shown=exp.shown, inner=inner))
    f = result.finding
    return Result("QC101", Finding(f.span, msg, f.layer, f.related, (), f.severity))


_INNER_SCRIPT_SETS_IT = Template(
    "inner-script-sets-it",
    "`{shown}` is expanded by {local} before {inner} runs, but that script sets "
    "`{name}` itself",
    "{local_value} is pasted into `{snippet}` and the inner assignment is never read "
    "there. Write `\\{text}` (or single-quote the inner script) so that the inner "
    "shell expands it.")
_LOCAL_ENVIRONMENT_VALUE = Template(
    "local-environment-value",
    "`{shown}` is expanded by {local} before the command reaches {inner}",
    "`{snippet}` gets this machine's {name}, not the one {inner} would see. If you "
    "meant the inner value, write `\\{text}` inside the double quotes (or "
    "single-quote the whole command). If the local value is what you want: "
    "{advice}.")
_SUBSTITUTION_RUNS_HERE = Template(
    "substitution-runs-here",
    "`{shown}` runs on this machine ({local}), before the command reaches {inner}",
    "its output is pasted unquoted into `{snippet}`. If the command was meant to run "
    "there, write `\\{text}` (or single-quote the whole command). If the local output "
    "is what you want: {advice}.",
    ";")
_SUBSTITUTION_IN_LOOP_CONDITION = Template(
    "substitution-in-loop-condition",
    "`{shown}` in the `{loop}` condition runs once, in {local}, not on each round",
    "the loop of {inner} tests the same pasted output every time (`{snippet}`), so it "
    "never sees a change and waits forever or never runs. Write `\\{text}` so that the "
    "loop runs the command each round.",
    ";")
_ARITHMETIC_USES_LOCAL_VALUE = Template(
    "arithmetic-uses-local-value",
    "`{shown}` is computed by {local} before {inner} runs, but that script sets "
    "`{hit}` itself",
    "the result uses the local value. Write `\\{text}` so that the inner shell "
    "computes it.")
_PROCESS_SUBSTITUTION_PATH = Template(
    "process-substitution-path",
    "`{shown}` is replaced by {local} with a /dev/fd/N path of this machine",
    "{inner} cannot open it. Run the command there instead, or send the data on "
    "stdin.",
    ";")


def _code_result(ctx: CheckContext, an: Analysis, exp: Expansion, first: Landing,
                 damage: Landing | None) -> Result | None:
    trace = ctx.trace
    kind = exp.part.kind
    where = damage.layer if damage is not None else first.layer
    inner = describe(trace, where)
    snippet = line_around(where, exp.sources)
    local = outer_label(exp)
    env_differs = environment_differs(trace, exp.layer, where)
    name = exp.name
    pclass = exp.pclass
    reached = [first.layer] if damage is None or damage.layer is first.layer else [
        first.layer, damage.layer]
    if pclass == "named" and name is not None:
        if part_is_quoted_output(exp.part, exp.script):
            return None
        sets = an.assigned(exp.layer).get(name, [])
        if sets and all(a.quoted for a in sets):
            return None  # `q=$(printf %q "$x")`, `printf -v q %q`, `opts=$(getopt ...)`
    if is_eval(trace, first.layer) and pclass in ("special", "positional", "named"):
        # eval runs in the same shell: the value is the same, only the parsing is doubled.
        if pclass == "special" or damage is None:
            return None
        return _qc103(ctx, an, exp, damage, snippet)
    if kind in ("parameter", "special"):
        # `ssh h "dir=$dir; ..."` hands the local value over on purpose; `PATH=$PATH:x`
        # extends the inner shell's own PATH (and gets this machine's instead).
        carried = _carried_whole(exp, first, damage)
        handed_over = any(i.assigns == name for land in (first, damage) if land is not None
                          for i in land.infos) and (name not in ENVIRONMENT_NAMES or carried)
        # A variable this script sets before the hand-off is meant to be expanded here.
        known = knowledge(ctx, exp)
        set_here = known is not None and known.local
        if name is not None and pclass == "named" and not handed_over and not set_here:
            for layer in reached:
                inner_sets = [a for a in an.assigned(layer).get(name, []) if not a.handover]
                if inner_sets:
                    rel = tuple(Related(a.span, f"{describe(trace, layer)} sets {name} here")
                                for a in inner_sets[:1] if a.span is not None)
                    msg = (_INNER_SCRIPT_SETS_IT(shown=exp.shown, local=local, inner=inner,
                                                     name=name, local_value=local_value(name),
                                                     snippet=snippet, text=exp.text))
                    return Result("QC101", Finding(exp.span, msg, where, rel,
                                                   escape_fix(ctx, exp), "error"))
        if pclass == "special":
            return _special(ctx, exp, first, where, inner, snippet, env_differs)
        if pclass == "positional":
            return _positional(ctx, an, exp, first, damage, snippet)
        if pclass == "named" and name is not None:
            sets = an.assigned(exp.layer).get(name, [])
            task = _task_variable(ctx, exp, where, sets, snippet, local, inner, set_here)
            if task is not None:
                return task
            if name == "PWD" and not sets and not set_here:
                decided = decided_here(ctx, an, exp, first, local)
                if decided is not None:
                    return decided
                if _moves_into_it(an, exp, first):
                    return None
            if damage is None:
                return None
            if (not sets and not set_here and name in ENVIRONMENT_NAMES and env_differs
                    and not carried):
                msg = (_LOCAL_ENVIRONMENT_VALUE(shown=exp.shown, local=local, inner=inner,
                                                        snippet=snippet, name=name, text=exp.text,
                                                        advice=lowercase_first(
                                                    quote_advice(ctx, an, exp, where))))
                return Result("QC101", Finding(exp.span, msg, where, (),
                                               escape_fix(ctx, exp), "warning"))
            return _qc103(ctx, an, exp, damage, snippet)
        return None
    if kind in ("command", "backtick"):
        if part_is_quoted_output(exp.part, exp.script):
            return None
        decided = decided_here(ctx, an, exp, first, local)
        if decided is not None:
            return decided
        if damage is None:
            return None
        if damage.command_word:
            return None  # generated code: `eval "$(ssh-agent -s)"`, `ssh h "$(declare -f f)"`
        loop = _loop_condition(ctx, where, exp)
        if loop is not None:
            inner_text = exp.text[2:-1] if exp.text.startswith("$(") else ""
            plain = bool(inner_text) and not any(c in inner_text for c in "\"$`\\'")
            msg = _SUBSTITUTION_IN_LOOP_CONDITION(shown=exp.shown, local=local, inner=inner,
                                                  loop=loop, snippet=snippet, text=exp.text)
            return Result("QC101", Finding(exp.span, msg, where, (),
                                           escape_fix(ctx, exp) if plain else (), "warning"))
        words = substitution_words(exp.script, exp.part)
        if words and basename(words[0]) in ("declare", "typeset", "cat"):
            return None
        if env_differs:
            msg = (_SUBSTITUTION_RUNS_HERE(shown=exp.shown, local=local, inner=inner,
                                                snippet=snippet, text=exp.text,
                                                advice=lowercase_first(
                                                quote_advice(ctx, an, exp, where))))
            return Result("QC101", Finding(exp.span, msg, where, (), (), "warning"))
        return _qc103(ctx, an, exp, damage, snippet)
    if kind == "arithmetic":
        names = set(ARITH_NAMES.findall(exp.text[3:-2]))
        for layer in reached:
            hit = sorted(n for n in names if n in an.assigned(layer))
            if hit:
                msg = (_ARITHMETIC_USES_LOCAL_VALUE(shown=exp.shown, local=local, inner=inner,
                                                 hit=hit[0], text=exp.text))
                return Result("QC101", Finding(exp.span, msg, where, (),
                                               escape_fix(ctx, exp), "error"))
        return None
    if kind == "process" and env_differs:
        msg = (_PROCESS_SUBSTITUTION_PATH(shown=exp.shown, local=local, inner=inner))
        return Result("QC101", Finding(exp.span, msg, where, (), (), "error"))
    return None


_OUTER_LAST_JOB_PID = Template(
    "outer-last-job-pid",
    "`{shown}` is expanded by {local} before the command reaches {inner}",
    "`{snippet}` gets the PID of this shell's last background job (or nothing), a "
    "number that means nothing there; {own}.")
_OUTER_EXIT_STATUS = Template(
    "outer-exit-status",
    "`{shown}` is expanded by {local} when the command line is built, so `{snippet}` "
    "gets the exit status of the local command that ran before, not of a command "
    "{inner} runs",
    "Write `\\$?` so that the inner shell expands it.",
    ".")
_OUTER_PID = Template(
    "outer-pid",
    "`{shown}` is expanded by {local}",
    "`{snippet}` gets this shell's PID, not the PID of {inner}. That is fine as a "
    "unique name; to use the inner shell's own PID write `\\$$`.")
_OUTER_SPECIAL = Template(
    "outer-special",
    "`{shown}` is expanded by {local}, not by {inner}",
    "`{snippet}` gets the outer value. Write `\\{text}` if the inner shell should "
    "expand it.")


def _special(ctx: CheckContext, exp: Expansion, first: Landing, where: Layer, inner: str,
             snippet: str, env_differs: bool) -> Result | None:
    name = exp.name or "?"
    local = outer_label(exp)
    if name == "!":
        background = any(
            v.context.background and v.source_span is not None
            and v.source_span[0] < exp.span[0] for v in first.layer.commands)
        if not env_differs and not background:
            return None  # the inner shell has no job of its own: the local PID is meant
        own = ("the inner script starts a background job itself, so write `\\$!` to get its "
               "PID" if background else
               "write `\\$!` if you meant a job the inner script starts")
        msg = (_OUTER_LAST_JOB_PID(shown=exp.shown, local=local, inner=inner,
                                                  snippet=snippet, own=own))
        severity: Severity = "error"
    elif name == "?":
        msg = (_OUTER_EXIT_STATUS(shown=exp.shown, local=local, snippet=snippet,
                                           inner=inner))
        severity = "error"
    elif name == "$":
        if _outer_pid_names_shared(exp):
            return None
        msg = (_OUTER_PID(shown=exp.shown, local=local, snippet=snippet, inner=inner))
        severity = "warning"
    else:
        msg = (_OUTER_SPECIAL(shown=exp.shown, local=local, inner=inner, snippet=snippet,
                           text=exp.text))
        severity = "warning"
    return Result("QC101", Finding(exp.span, msg, where, (), escape_fix(ctx, exp), severity))


def _carried_whole(exp: Expansion, first: Landing, damage: Landing | None) -> bool:
    """`su -c "export JAVA_HOME=\\"${JAVA_HOME}\\"; ..."`: the inner script sets the name to the
    outer value and nothing else, which carries it past an environment reset on purpose."""
    for land in (first, damage):
        for info in land.infos if land is not None else ():
            if info.assigns != exp.name:
                continue
            parts = [p for p in info.word.parts if p.value]
            if parts and parts[0].kind == "literal" and parts[0].value == f"{exp.name}=":
                parts = parts[1:]  # `export NAME=...` is one word
            if len(parts) == 1 and parts[0].kind == "parameter" and \
                    param_name(parts[0].value) == exp.name:
                return True
    return False


def _outer_pid_names_shared(exp: Expansion) -> bool:
    """The outer script uses its own `$$` outside this command too (`tmp=/tmp/out.$$`,
    `scp h:/tmp/out.$$ .`): the outer PID is a unique name both sides share, as meant."""
    inside = exp.view.source_span or exp.span
    for view in exp.layer.commands:
        command = view.command
        words = [*command.words, *(a.value for a in command.assignments),
                 *(r.target for r in command.redirects if r.target is not None)]
        for w in words:
            for p in w.parts:
                if p.kind != "special" or p.name != "$":
                    continue
                src = [s for s in (exp.script.origin[o] for o in p.offsets) if s is not None]
                if src and not inside[0] <= src[0] < inside[1]:
                    return True
    return False


_OUTER_POSITIONAL = Template(
    "outer-positional",
    "`{shown}` is expanded by {local} ({what} of the outer script) while the text is "
    "still the script of {inner} (`{snippet}`)",
    "that shell has its own positional parameters ({given}), and the outer value is "
    "pasted in as code. {quote_advice}.",
    ";")


def _positional(ctx: CheckContext, an: Analysis, exp: Expansion, first: Landing,
                damage: Landing | None, snippet: str) -> Result | None:
    trace = ctx.trace
    local = outer_label(exp)
    target = damage.layer if damage is not None else first.layer
    name = exp.name or "1"
    what = {"#": "the number of arguments", "@": "the arguments", "*": "the arguments",
            "0": "the name of the script"}.get(name, f"argument {name}")
    if damage is not None and damage.command_word:
        if name in ("@", "*") and is_ssh_shell(trace, target):
            return _qc103(ctx, an, exp, damage, snippet)
        return _qc103(ctx, an, exp, damage, snippet, severity="info")
    inner = describe(trace, target)
    # An inner shell given no words after its script has nothing of its own to mean: the outer
    # value is the one meant, and pasting it in is QC103's (docker-mailserver
    # test/test_helper/common.bash: `sh -c "docker logs ${1} | grep ..."` in a function whose
    # $1 is the container). Given words (`sh -c "echo $1" "$?"`), the writer meant its own.
    own = has_own_arguments(target)
    if own or (target.positional and damage is not None and not is_ssh_shell(trace, target)
               and not is_eval(trace, target)):
        given = ("it was given its own arguments" if own else
                 "it was given only `$0`, so its own `$1` is empty")
        msg = (_OUTER_POSITIONAL(shown=exp.shown, local=local, what=what, inner=inner,
                                            snippet=snippet, given=given,
                                            quote_advice=quote_advice(ctx, an, exp, target)))
        return Result("QC101", Finding(exp.span, msg, target, (), (), "error"))
    if damage is None:
        return None
    return _qc103(ctx, an, exp, damage, snippet)


_TASK_VALUE_EXPANDED_HERE = Template(
    "task-value-expanded-here",
    "`{shown}` is expanded once, by {local}, before {launcher} starts {inner}",
    "`{variable}` is set by each task or container for itself{given}; expanded here, "
    "every one of them gets this shell's value (usually empty) in `{snippet}`.{through} "
    "{advice}",
    ";")


def _task_variable(ctx: CheckContext, exp: Expansion, where: Layer, sets: list[Assigned],
                   snippet: str, local: str, inner: str, set_here: bool) -> Result | None:
    """A variable that each task of a launcher (srun, a container) sets for itself, expanded
    before the launch: directly, or through a variable of this script holding it
    (`ARGS="--rank $SLURM_PROCID"; srun sh -c "app $ARGS"`)."""
    name = exp.name
    if name is None:
        return None
    found = _launcher_between(ctx.trace, exp.layer, where)
    if found is None:
        return None
    launcher, launch = found
    own = TASK_VARIABLES | container_env_names(launch)
    variable, through = name, ""
    if name in own and set_here:
        return None  # the script's own value, set before the launch
    if name not in own:
        held = [p.name for a in sets if a.value is not None for p in a.value.parts
                if p.kind == "parameter" and p.name in own]
        if not held or len(held) != len([a for a in sets if a.value is not None]):
            return None
        variable = held[0]
        through = f" `{name}` holds `${variable}` (set before the launch)."
    given = f" (`{launcher}` sets it with `-e`)" if variable not in TASK_VARIABLES else ""
    # (through a variable of this script, which the inner shell does not have: the variable's
    # value must keep the `$`)
    advice = (f"Write `\\${variable}` where `{name}` is set (or set it in single quotes), "
              f"so that {inner} expands it." if through else
              f"Write `\\{exp.text}` so that {inner} expands it.")
    msg = _TASK_VALUE_EXPANDED_HERE(shown=exp.shown, local=local, launcher=f"`{launcher}`",
                                    inner=inner, variable=variable, snippet=snippet,
                                    through=through, given=given, advice=advice)
    fixes = escape_fix(ctx, exp) if not through else ()
    return Result("QC101", Finding(exp.span, msg, where, (), fixes, "warning"))


def _launcher_between(trace: Trace, outer: Layer, inner: Layer) -> tuple[str, Layer] | None:
    """The task launcher (``TASK_LAUNCHERS``) that starts ``inner`` from ``outer``, and the
    layer it opens, if any."""
    chain = inner.chain(trace.layers)
    at = next((i for i, x in enumerate(chain) if x.id == outer.id), None)
    if at is None:
        return None
    for layer in chain[at + 1:]:
        view = layer.opened_by
        if view is not None and view.argv and not view.argv[0].dynamic:
            program = basename(view.argv[0].value)
            if program in TASK_LAUNCHERS:
                return program, layer
        if layer.via is not None and layer.via in TASK_LAUNCHERS:
            return layer.via, layer
    return None


def container_env_names(layer: Layer) -> frozenset[str]:
    """The variables a container runner's `-e NAME=value` options set inside the container
    ``layer`` runs to a value of their own."""
    return frozenset(container_env(layer))


def container_env(layer: Layer) -> dict[str, str]:
    """Name -> option (`-e X=1`) for each `-e NAME=value` of the container runner that opens
    ``layer`` (`-e NAME` and `-e NAME=$NAME` pass this shell's value on: expanding it here
    gives the same, so they are left out)."""
    h = layer.handoff
    if not isinstance(h, ExecHandoff) or h.wrapper not in CONTAINER_RUNNERS:
        return {}
    found: dict[str, str] = {}
    for o in h.options:
        if o.name in ("-e", "--env") and o.value and "=" in o.value:
            name, value = o.value.split("=", 1)
            if value not in (f"${name}", f"${{{name}}}"):
                found[name] = f"{o.name} {o.value}"
    return found


_CONTAINER_VALUE_IN_ARGV = Template(
    "container-value-in-argv",
    "`{shown}` is expanded by {local}, but `{option}` sets `{name}` inside the container",
    "`{program}` gets this shell's value of `{name}` (empty when it is not set here), not "
    "the container's. To read the container's, let a shell there expand it: "
    "`... sh -c '{program} \"${name}\"'`.",
    ";")
_TASK_VALUE_IN_ARGV = Template(
    "task-value-in-argv",
    "`{shown}` is expanded once, by {local}, before `{launcher}` starts its tasks",
    "every task gets this shell's value of `{name}` (usually empty), not its own. To read "
    "each task's, let a shell there expand it: `{launcher} ... sh -c '{program} ... "
    "\"${name}\"'`.",
    ";")
_HOST_VALUE_IN_CONTAINER = Template(
    "host-value-in-container",
    "`{shown}` is this machine's, expanded by {local} before `{launcher}` runs `{program}` in "
    "the container",
    "the container has a `{name}` of its own ({theirs}). To use the container's, let a shell "
    "there expand it: `... sh -c '{program} ... \"${name}\"'`; to mean this machine's, "
    "write the value the container should see.",
    ";")
_PRINTED_HERE = Template(
    "printed-here",
    "`{program}` in the container prints {local}'s `{shown}`, not the container's",
    "the script never sets `{name}`, and the container is asked only to print it, so the "
    "value meant is the container's own; {local} expands it before `{launcher}` runs. Let a "
    "shell there expand it: `... sh -c '{program} \"${name}\"'`.",
    ";")
# Variables every container sets for itself, to values the host's never equal: its host name
# (the container id or pod name) and the home directory of its user (`/root` in most images).
CONTAINER_OWN_VARIABLES = frozenset({"HOSTNAME", "HOME"})


def container_env_results(ctx: CheckContext, an: Analysis, layer: Layer) -> list[Result]:
    """A variable of the container or task read in the argv a launcher runs, which no shell
    there expands: `docker run -e X=1 img echo $X`, `srun echo $SLURM_PROCID`,
    `kubectl exec pod -- echo $VAR`."""
    launcher = _task_launcher(layer)
    if launcher is None or layer.parent is None or not layer.argv or \
            any(x.kind == "shell" for x in ctx.trace.children(layer)):
        return []  # a shell there reads the text: judged as its expansions (_task_variable)
    outer = ctx.trace.layers[layer.parent]
    sets = an.assigned(outer)
    env = container_env(layer)
    container = launcher in CONTAINER_RUNNERS
    h = layer.handoff
    options = h.options if isinstance(h, ExecHandoff) else ()
    option_text = " ".join(o.value or "" for o in options)
    # `-e X` and `-e X=$X` hand this shell's value on: the container's is the same
    passed = {o.value.split("=", 1)[0] for o in options if o.name in ("-e", "--env") and o.value}
    program = basename(layer.argv[0].value)
    printer = container and not layer.argv[0].dynamic and program in WORD_PRINTERS
    local = f"the {outer.label()}"
    out: list[Result] = []
    for arg in layer.argv:
        for part in arg.word.parts if arg.word is not None else ():
            name = part.name
            if part.kind != "parameter" or part.quoting == "single" or name is None or \
                    name in sets or not (name[0].isalpha() or name[0] == "_"):
                continue
            if name in env:
                msg = _CONTAINER_VALUE_IN_ARGV(shown=part.value, local=local, option=env[name],
                                               name=name, program=program)
            elif (name in TASK_VARIABLES and launcher not in CONTAINER_RUNNERS) or \
                    (container and name in CONTAINER_OWN_VARIABLES and \
                    f"${name}" not in option_text and f"${{{name}}}" not in option_text):
                # (`-v $HOME:$HOME` mounts this shell's home at the same path on purpose)
                if container:
                    theirs = "the container's id or the pod's name" if name == "HOSTNAME" \
                        else "the home of the container's user, `/root` in most images"
                    msg = _HOST_VALUE_IN_CONTAINER(shown=part.value, local=local,
                                                   launcher=launcher, program=program,
                                                   name=name, theirs=theirs)
                else:
                    msg = _TASK_VALUE_IN_ARGV(shown=part.value, local=local, launcher=launcher,
                                              name=name, program=program)
            elif printer and name not in ENVIRONMENT_NAMES and name not in passed:
                msg = _PRINTED_HERE(program=program, local=local, shown=part.value, name=name,
                                    launcher=launcher)
            else:
                continue
            span = ctx.span_in_source(outer, part.span[0], part.span[1])
            out.append(Result("QC101", Finding(span, msg, layer, (), (), "warning")))
    return out


def _task_launcher(layer: Layer) -> str | None:
    """The task launcher (``TASK_LAUNCHERS``) whose argv ``layer`` is."""
    h = layer.handoff
    if not isinstance(h, ExecHandoff):
        return None
    if h.wrapper in TASK_LAUNCHERS:
        return h.wrapper
    view = layer.opened_by
    if view is not None and view.argv and not view.argv[0].dynamic:
        program = basename(view.argv[0].value)
        if program in TASK_LAUNCHERS:
            return program
    return None


_MACHINE_FACT_TESTED_HERE = Template(
    "machine-fact-tested-here",
    "`{shown}` runs on this machine ({local}), so the `{test}` of {inner} tests this "
    "machine, not its own",
    "the branch {inner} takes is decided here, with this machine's answer pasted into "
    "`{snippet}`. Write `\\{text}` so that the command runs where the test is made.",
    ";")
_DIRECTORY_BEFORE_CD = Template(
    "directory-before-cd",
    "`{shown}` is this shell's directory, expanded by {local} before {inner} runs its `cd`",
    "`{snippet}` gets the directory this script is in, not the one {inner} has just changed "
    "to. {advice}",
    ";")
_INNER_CD = lazy_compile(r"(?:^|[;&|(\n]|\bthen|\bdo)\s*cd\s+\S")
_SEPARATOR = lazy_compile(r"[;&|\n]")


def _cd_before(text: str, at: int) -> bool:
    """A `cd` command of the text ends before offset ``at`` (not the `cd` whose argument
    ``at`` is in)."""
    return any(_SEPARATOR.search(text, m.end(), at) for m in _INNER_CD.finditer(text, 0, at))


_CD_ARGUMENT = lazy_compile(r"(?:^|[\s;&|({])(?:cd|pushd)(?:[ \t]+--)?[ \t]+[\"']?$")


def _moves_into_it(an: Analysis, exp: Expansion, first: Landing) -> bool:
    """`$PWD` starts the argument of the inner script's first `cd` (`bash -c "cd $PWD/tests;
    ..."` after `sudo --login`, `ssh h "cd $PWD && make"` on a shared file system): the inner
    shell's own directory would make that `cd` pointless, so taking this one's there is the
    purpose of the text."""
    return any(_CD_ARGUMENT.search(layer.text or "", 0, at) is not None and
               not _cd_before(layer.text or "", at) for layer, at in _read_in(an, exp, first))


def _read_in(an: Analysis, exp: Expansion, first: Landing) -> Iterator[tuple[Layer, int]]:
    """The shell layers (the first landing's, then those below it) whose text holds what
    ``exp`` expands to, with where it starts there."""
    for layer in [first.layer, *(x for x in an.subtree([first.layer.id])
                                 if x.kind == "shell" and x is not first.layer)]:
        if exp.sources[0] not in an.chars(layer):
            continue
        at = next((i for i in (text_index(layer, s) for s in exp.sources) if i is not None),
                  None)
        if at is not None:
            yield layer, at


def decided_here(ctx: CheckContext, an: Analysis, exp: Expansion, first: Landing,
                  local: str) -> Result | None:
    """A fact of this machine read where another shell decides with it, in any quoting: a
    `$(uname)` in the condition of an inner `if` on another machine, or `$(pwd)`/`$PWD`
    after the inner script's own `cd`."""
    words = (substitution_words(exp.script, exp.part) if exp.name is None else None) or []
    program = basename(words[0]) if words else ""
    pwd = exp.name == "PWD" or (program == "pwd" and len(words) == 1)
    if not pwd and program not in MACHINE_FACTS:
        return None
    for layer, at in _read_in(an, exp, first):
        inner = describe(ctx.trace, layer)
        snippet = line_around(layer, exp.sources)
        if pwd and _cd_before(layer.text or "", at):
            quoted = an.chars(layer)[exp.sources[0]].quoting == "single"
            advice = (f"There it sits in single quotes, where no shell expands it: close them "
                      f"around it, `'...'\"\\{exp.text}\"'...'`, so that {inner} expands it "
                      "after the `cd`." if quoted else
                      f"Write `\\{exp.text}` so that it is expanded after the `cd`.")
            msg = _DIRECTORY_BEFORE_CD(shown=exp.shown, local=local, inner=inner,
                                       snippet=snippet, advice=advice)
        elif not pwd and environment_differs(ctx.trace, exp.layer, layer) and \
                (test := _condition(ctx, layer, at)) is not None:
            msg = _MACHINE_FACT_TESTED_HERE(shown=exp.shown, local=local, test=test,
                                            inner=inner, snippet=snippet, text=exp.text)
        else:
            continue
        return Result("QC101", Finding(exp.span, msg, layer, (), (), "warning"))
    return None


def _condition(ctx: CheckContext, where: Layer, at: int) -> str | None:
    """`if`, `while` or `until` when offset ``at`` of ``where``'s text is in such a
    condition."""
    starts, spans = ctx.memo.get_or_compute("conditions", where, lambda: _conditions(where))
    k = bisect_right(starts, at) - 1
    while k >= 0:
        if at < spans[k][0][1]:
            return spans[k][1]
        k -= 1
    return None


def _loop_condition(ctx: CheckContext, where: Layer, exp: Expansion) -> str | None:
    """`while` or `until` when ``exp`` landed in the condition of such a loop of ``where``'s
    script: a test meant to be made again on every round."""
    at = next((i for i in (text_index(where, s) for s in exp.sources) if i is not None), None)
    if at is None:
        return None
    starts, spans = ctx.memo.get_or_compute("loop-conditions", where,
                                            lambda: _conditions(where, ("while", "until")))
    # The last condition starting at or before it (conditions do not overlap but by nesting,
    # and a loop inside another loop's condition is not written).
    k = bisect_right(starts, at) - 1
    if k >= 0 and at < spans[k][0][1]:
        return spans[k][1]
    return None


def _conditions(where: Layer, kinds: tuple[str, ...] = ("if", "while", "until")
                ) -> tuple[list[int], list[tuple[tuple[int, int], str]]]:
    """The conditions of ``where``'s compounds of these kinds by start (read once per
    layer)."""
    if where.script is None:
        return [], []
    spans = sorted((part.span, node.kind) for node in iter_nodes(where.script.body)
                   if isinstance(node, Compound) and node.kind in kinds
                   for role, part in node.parts if role == "condition")
    return [span[0] for span, _ in spans], spans


def _script_argument(exp: Expansion) -> bool:
    """``exp`` reads an argument of the script itself (`$1`, `"$@"`) at its top level: a value
    whoever runs the script chooses, data as much as a line it reads. In a function the
    parameters are the call's, which the script may pass itself."""
    if exp.pclass != "positional" or exp.name in ("#", "0") or exp.layer.parent is not None:
        return False
    return not any(isinstance(node, Compound) and node.kind == "function"
                   for node in exp.view.context.ancestors)


def _action_input(an: Analysis, exp: Expansion) -> bool:
    """``exp`` reads `$INPUT_<NAME>`, which the script never sets: an input the runner hands
    a GitHub Action's program."""
    return exp.pclass == "named" and _is_action_input(an, exp.layer, exp.name)


def _is_action_input(an: Analysis, layer: Layer, name: str | None) -> bool:
    """`INPUT_<NAME>` that ``layer`` never sets."""
    return name is not None and name.startswith(ACTION_INPUT_PREFIX) and \
        len(name) > len(ACTION_INPUT_PREFIX) and not an.assigned(layer).get(name)


def _holds_script_argument(an: Analysis, exp: Expansion) -> bool:
    """``exp`` reads a variable of the script's top level that is only ever set to one of its
    arguments (`dir=$2`, `host="${1}"`): the caller's value under another name."""
    if exp.pclass != "named" or exp.name is None or exp.layer.parent is not None or \
            exp.layer.script is None:
        return False
    sets = an.assigned(exp.layer).get(exp.name, [])
    if not sets:
        return False
    # (in a function, `$1` is the call's argument, which the script may pass itself)
    functions = [node.span for node in iter_nodes(exp.layer.script.body)
                 if isinstance(node, Compound) and node.kind == "function"]
    reads_at = exp.part.span[0]
    if any(a <= reads_at < b for a, b in functions):
        return False
    for a in sets:
        at = a.value.span[0] if a.value is not None else -1
        if a.script is not exp.layer.script or any(x <= at < y for x, y in functions):
            return False
        parts = [p for p in a.value.parts if p.value] if a.value is not None else []
        if len(parts) != 1 or parts[0].kind != "special" or \
                not (parts[0].name or "").isdigit() or parts[0].name == "0":
            return False
    return True


_REFERENCE = lazy_compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")


def _only_references(value: str) -> bool:
    """The value's only shell syntax is `$name` references (and blanks between plain words)."""
    rest = _REFERENCE.sub("x", value)
    return "$" in value and all(c.isalnum() or c in " _./:,+%@=-" for c in rest)


def _options_list(value: str) -> bool:
    """A value the script wrote as a list of options: plain words split at blanks, one of
    them an option (`-D 10 -x 0`, `--epochs 6 --lr 6e-4`). Split on purpose, it holds nothing a
    shell reads as code; a single name with a blank (`/srv/my app`) is not one."""
    words = value.split()
    return len(words) > 1 and any(w.startswith("-") and len(w) > 1 for w in words) and all(
        c.isalnum() or c in "_./:,+%@=-" for w in words for c in w)


def _starts_command(where: Layer, exp: Expansion, value: str) -> bool:
    """The known value is where the inner layer's command starts: its command name is the
    value's first word, the command the script itself wrote."""
    text = where.text or ""
    i = next((j for j in (text_index(where, s) for s in exp.sources) if j is not None), None)
    if i is None or not text.startswith(value, i):
        return False
    before = text[:i].rstrip(" \t")
    return not before or before[-1] in "\n;&|({"


_SSH_JOINS_ARGUMENTS = Template(
    "ssh-joins-arguments",
    "ssh joins the words of `{shown}` with spaces and {inner} parses the result "
    "again (`{snippet}`)",
    "an argument holding a space, a quote, `;` or `$(...)` is split or runs as code "
    "there. Quote each argument for the remote shell: `ssh host \"$(printf '%q ' "
    '"$@")"`.')
_COMMAND_FROM_VALUE = Template(
    "command-from-value",
    "the command `{snippet}` that {inner} runs is the value of `{shown}` ({local} "
    "pastes it in)",
    "whatever it holds is parsed as code there.{built} That is fine for a command "
    "you wrote yourself; data (file names, user input) must not be built into that "
    "string: pass it as arguments (`sh -c 'cmd \"$1\"' sh \"$data\"`) or quote it with "
    "`printf %q`.")
_PASTED_UNQUOTED = Template(
    "pasted-unquoted",
    "the {pasted} of `{shown}` is pasted unquoted into the code that {inner} parses",
    "spaces split it, `*` and `?` glob, and any `;`, `|`, `$(...)` or quote in it "
    "runs as shell code there. {quote_advice}.{evidence}",
    lead="the {pasted} of `{shown}` is pasted by {local} into the code that {inner} parses "
    "(`{snippet}`), without quotes for that layer")


def _qc103(ctx: CheckContext, an: Analysis, exp: Expansion, damage: Landing, snippet: str,
           severity: Severity | None = None) -> Result | None:
    if exp.part.kind == "arithmetic" or (exp.part.kind == "special" and exp.name in _NUMBERS) \
            or (exp.pclass == "named" and exp.name in _SHELL_NUMBERS):
        return None  # a number: nothing in it can be parsed as code
    trace = ctx.trace
    where = damage.layer
    inner = describe(trace, where)
    local = outer_label(exp)
    related: tuple[Related, ...] = ()
    known = knowledge(ctx, exp)
    if output_is_plain(ctx, exp):
        return None  # `$(hostname)`, `$(nproc)`: one plain word, nothing to split or run
    if known is not None and (known.safe or (damage.command_word and known.kind == "exact")):
        # A plain word (or a number, quoted text...) cannot become code; a whole command the
        # script wrote itself is the command meant.
        return None
    if exp.name in ("@", "*") and is_ssh_shell(trace, where):
        msg = (_SSH_JOINS_ARGUMENTS(shown=exp.shown, inner=inner, snippet=snippet))
        return Result("QC103", Finding(exp.span, msg, where, (), (), severity))
    if damage.command_word:
        # The whole command comes from the value: code in a variable.
        name = exp.name
        if exp.pclass == "named" and name is not None:
            sets = an.assigned(exp.layer).get(name, [])
            dynamic = [a for a in sets if a.value is None or a.value.dynamic]
            if sets and not dynamic:
                return None  # a command the script wrote itself
            if dynamic:
                related = tuple(Related(a.span, f"`{name}` is built here")
                                for a in dynamic[:1] if a.span is not None)
        # A command string built to be run (`eval "$cmd"`, `sh -c "$hook"`): running it is
        # the point; what it is built from decides. A GitHub Action's input pasted into it is
        # data the calling workflow chooses (a branch name, a commit message).
        inputs = sorted({p.name or "" for a in dynamic for p in (a.value.parts if a.value else ())
                         if p.kind == "parameter" and _is_action_input(an, exp.layer, p.name)}
                        ) if exp.pclass == "named" and name is not None else []
        severity = "warning" if inputs else "info"
        built = (f" `{exp.name}` is built from other values here, and they become code "
                 "with it." if related else "")
        if inputs:
            built += (f" `${inputs[0]}` is an input of a GitHub Action: the workflow that uses "
                      "the action chooses it, and a quote, `$(...)` or backtick in it runs.")
        msg = (_COMMAND_FROM_VALUE(snippet=snippet, inner=inner, shown=exp.shown,
                                          local=local, built=built))
        return Result("QC103", Finding(exp.span, msg, where, related, (), severity))
    if known is not None and known.kind == "exact" and known.unsafe_value is not None:
        if _starts_command(where, exp, known.unsafe_value):
            return None  # `cmd="python ./v.py"; eval $cmd`: the command the script wrote
        if _options_list(known.unsafe_value):
            return None  # `OPTS="-D 10 -x 0"`: words the script wrote to be split, no code
        if is_eval(trace, where) and any(c in known.unsafe_value for c in _OPERATOR_CHARS):
            # `XSTDERR="2>/dev/null"; eval apt-get check $XSTDERR`: an operator or redirection
            # the script wrote into the value is why it evals (apt's apt.systemd.daily).
            return None
        if eval_prints(trace, where) is not None and \
                _only_references(known.unsafe_value):
            # `SRUN='srun -w $hostn'` ... `$(eval echo $SRUN)`: the `$name`s the script wrote
            # into the value are what `eval echo` is there to expand, late (MLCommons run.sub)
            return None
        return known_unsafe(ctx, an, exp, known, where, snippet)
    kind = "command output" if exp.part.kind in ("command", "backtick") else "value"
    msg = (_PASTED_UNQUOTED(pasted=kind, shown=exp.shown, local=local, inner=inner,
                                    snippet=snippet,
                                    quote_advice=quote_advice(ctx, an, exp, where),
                                    evidence=evidence(known, exp.shown)))
    # A value the script does not show is mostly a host, path or version spliced in on purpose
    # (precision corpus, both sets at 26a3a70: of 42 such warnings judged, 39 noise, 3 false,
    # none true): info, shown in editors and with `--severity info`. A value read from input
    # is data: a warning. What the script shows to be unsafe is an error above.
    # The script's own argument (or a variable set only to one) pasted into a script this
    # machine runs again (`sh -c`, `bash -c`, eval), which has positional parameters of its
    # own: data become code, and the text shows whose value it is. Into a remote command, where
    # pasting is how a value is sent, the harm depends on what the caller passes (a blank in a
    # path), which the text does not show: judged as any other value.
    script_argument = (_script_argument(exp) or _holds_script_argument(an, exp)) and \
        not is_ssh_shell(trace, where)
    if script_argument and known is None:
        msg = msg.extended(f" (`{exp.shown}` is an argument of the script: whoever runs it "
                           "chooses the value.)")
    action_input = _action_input(an, exp)
    if action_input:
        msg = msg.extended(f" (`{exp.shown}` is an input of a GitHub Action: the workflow that "
                           "uses the action chooses it, a branch name or a commit message "
                           "included, and a quote or `$(...)` in it is parsed as code.)")
    if severity is None:
        severity = "warning" if (known is not None and known.from_input) or script_argument \
            or action_input else "info"
        printer = eval_prints(trace, where)
        if printer is not None and severity == "warning":
            # `eval echo "$LINE"` says what it is for: expanding the `${VAR}`s the value holds
            # (Megatron-LM run_perf_test.sh, the lines of its own argument file). Intended.
            severity = "info"
            msg = msg.extended(f" `eval {printer}` is the way to expand the value's own `$` "
                               "references, which looks intended here; keep what it reads to "
                               "text you trust.")
    return Result("QC103", Finding(exp.span, msg, where, related, (), severity))

