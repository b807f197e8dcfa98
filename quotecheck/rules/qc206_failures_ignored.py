"""QC206 failures-ignored: an inner script goes on after a failed step.

A script handed to another shell (ssh's remote command, ``sh -c``, ``bash -s``) runs every
line whatever the previous one returned unless ``set -e`` is in effect or the steps are chained
with ``&&``; the caller then sees only the last command's exit status. The first unchecked step
whose failure leaves the rest working on the wrong state (``cd``, ``source``, ``mkdir``,
``kill``...) is reported. Also ``cmd | tee log`` where the status matters and ``pipefail`` is
off: the pipeline reports tee's success.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix, Severity
from quotecheck.layers.model import CommandView, Layer, Trace
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Compound, Node, Pipeline, Script, SimpleCommand
from quotecheck.programs import PROJECT_DIRECTORY_PROGRAMS, SCRIPT_INTERPRETERS, WORD_PRINTERS
from quotecheck.rules import _fixes
from quotecheck.rules._host_layers import launch_of
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.display import Locator, node_text
from quotecheck.rules.runtime.processes import shell_program
from quotecheck.rules.runtime.script_index import script_index
from quotecheck.rules.runtime.script_messages import message_text
from quotecheck.rules.runtime.shell_options import option_in_effect, option_turned_off
from quotecheck.rules.runtime.slots import flat_body, local_chain, slot_of, views_by_command
from quotecheck.rules.runtime.ssh import ssh_layer_above
from quotecheck.rules.runtime.toolcalls import HARMLESS_SIGNALS, parse_kill
from quotecheck.rules.triggers import Trigger

_EFFECT = {
    "cd": "the next commands run in the wrong directory",
    "pushd": "the next commands run in the wrong directory",
    "source": "the next commands run without the environment it sets up (a virtualenv's "
              "python, exported variables)",
    ".": "the next commands run without the environment it sets up",
    "mkdir": "later writes into that directory fail",
    "kill": "the old process may still be running when the next steps start",
    "cp": "later steps use a missing or stale file",
    "mv": "later steps use a missing or stale file",
    "ln": "later steps use a missing or stale link",
    "rsync": "later steps use missing or stale files",
    "scp": "later steps use missing or stale files",
    "tar": "later steps use missing or partial files",
    "unzip": "later steps use missing or partial files",
    "git": "later steps run on the old code",
    "curl": "later steps use a missing or partial download",
    "wget": "later steps use a missing or partial download",
    "conda": "the next commands run in the wrong environment",
    "pip": "later steps run without the package",
    "pip3": "later steps run without the package",
}


def _who(trace: Trace, layer: Layer) -> str:
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    if parent is not None and parent.kind == "ssh":
        on = f" on {parent.destination}" if parent.destination not in (None, "?") else ""
        return f"The script the remote shell{on} runs"
    name = shell_program(layer) or "shell"
    if name == "login shell":
        return "The `-c` script of the target user's login shell"
    if layer.stdin_script:
        return f"The script `{name}` reads on stdin"
    return f"The `{name} -c` script"


def _status_sink(trace: Trace, layer: Layer) -> str:
    if ssh_layer_above(trace, layer) is not None:
        return "ssh's exit status"
    return "its exit status"


def _risky(view: CommandView) -> str | None:
    eff = view.effective
    if eff is None or eff.via_xargs:
        return None
    name = eff.name
    if name not in _EFFECT:
        return None
    args = eff.argv[1:]
    if name == "cd" and (not args or tuple(args) == ("/",)):
        return None  # (home, or the root directory: nothing to fail on)
    if name == "kill":
        parsed = parse_kill(eff.values, eff.start)
        if parsed is None or parsed[0] in HARMLESS_SIGNALS:
            return None
    if name == "mkdir" and any(a in ("-p", "--parents") or (a.startswith("-") and "p" in a
                                                           and not a.startswith("--"))
                               for a in args):
        return "mkdir"
    if name in ("pip", "pip3") and "install" not in args:
        return None
    if name == "git" and not any(a in ("pull", "checkout", "fetch", "clone", "reset", "switch",
                                       "merge", "rebase") for a in args):
        return None
    if name == "conda" and "activate" not in args:
        return None
    return name


def _unchecked(ctx: CheckContext, layer: Layer, view: CommandView) -> bool:
    c = view.context
    if c.conditional or c.background or c.in_substitution or c.in_pipeline:
        return False
    if c.script is not layer.script:
        return False
    return not option_in_effect(ctx, layer, view.command.span[0], c.script, "errexit")


def check(ctx: CheckContext) -> Iterator[Finding]:
    trace = ctx.trace
    where = Locator(ctx.source)
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        yield from _tee(ctx, trace, layer)
        if layer.parent is None:
            continue
        finding = _first_unchecked(ctx, trace, where, layer)
        if finding is not None:
            yield finding
        finding = _failure_reported_as_success(ctx, trace, where, layer)
        if finding is not None:
            yield finding


def _has_later_step(ctx: CheckContext, layer: Layer, view: CommandView) -> bool:
    assert layer.script is not None
    index = script_index(ctx, layer, layer.script)
    return bool(index.starts) and index.starts[-1] >= view.command.span[1]


def _needs_project_directory(view: CommandView) -> bool:
    """The command fails by itself outside the project directory it expects: `make`, `git
    pull`, `docker compose up`, `./run.sh`, `python3 tools/x.py` (a relative file)."""
    eff = view.effective
    if eff is None or not eff.argv:
        return False
    name, args = eff.name, list(eff.argv[1:])
    if name == "docker" and args[:1] == ["compose"]:
        name, args = "docker-compose", args[1:]
    if name in PROJECT_DIRECTORY_PROGRAMS:
        elsewhere = PROJECT_DIRECTORY_PROGRAMS[name]
        return not any(a in elsewhere or a.split("=", 1)[0] in elsewhere for a in args)
    program = eff.argv[0]
    if "/" in program and not program.startswith(("/", "~", "$")):
        return True  # ./run.sh, bin/start
    if name in SCRIPT_INTERPRETERS:
        first = next((a for a in args if not a.startswith("-")), None)
        return first is not None and not first.startswith(("/", "~", "$")) and \
            first.endswith((".py", ".sh", ".pl", ".rb", ".js"))
    return False


def _fails_elsewhere_after(layer: Layer, view: CommandView) -> bool:
    """Every command after a `cd` (or a `git clone`) in its script needs that directory and
    fails by itself outside it (`cd app; git fetch; git checkout -qf SHA`, `cd app; make up`),
    with only `cd`s and messages between: a failed step then shows in the script's status;
    nothing works on the wrong directory unseen."""
    end = view.command.span[1]
    after = [v for v in layer.commands
             if v.context.script is view.context.script and v.command.span[0] >= end
             and v.argv and not v.context.in_substitution]
    return bool(after) and all(
        _needs_project_directory(v) or _after_cd_succeeded(v) or
        (v.effective is not None and v.effective.name in (*WORD_PRINTERS, "cd"))
        for v in after) and \
        _needs_project_directory(after[-1])


def _after_cd_succeeded(view: CommandView) -> bool:
    """``view`` runs only if a `cd` before it in its `&&` chain succeeded (`cd verl && export
    X=1 && bash run.sh`): where the directory is missing, it does not run at all."""
    for node in reversed(view.context.ancestors):
        if not isinstance(node, CommandList):
            continue
        at = next((i for i, item in enumerate(node.items)
                   if item.span[0] <= view.command.span[0] < item.span[1]), None)
        if at is None:
            return False
        for k in range(at - 1, -1, -1):
            if node.ops[k] != "&&":
                return False
            item = node.items[k]
            if isinstance(item, SimpleCommand) and item.words and \
                    item.words[0].value in ("cd", "pushd"):
                return True
        return False
    return False


def _status_tested_next(layer: Layer, view: CommandView) -> bool:
    """The commands right after ``view`` read `$?` and exit on a failure
    (`rc=$? ; if [ $rc -ne 0 ]; then exit $rc; fi`, as drone-ssh's `script_stop` writes): the
    script checks the step itself."""
    end = view.command.span[1]
    after = [v for v in layer.commands
             if v.context.script is view.context.script and v.command.span[0] >= end][:4]
    if not after or "$?" not in node_text(view.context.script, after[0].command, 200):
        return False
    return any(v.effective is not None and v.effective.name in ("exit", "return") and
               (v.context.guarded or any(isinstance(a, Compound) for a in v.context.ancestors))
               for v in after)


def _status_dropped(ctx: CheckContext, trace: Trace, layer: Layer) -> bool:
    """The command that starts this script is followed by `|| true` (or `|| :`), or the host
    file ignores its status (Ansible's `ignore_errors`): the caller decides nothing on how the
    script ends, a best effort (`ssh h 'cd x; make' || true`)."""
    launch = launch_of(ctx, layer)
    if launch is not None and launch.status_ignored:
        return True
    current: Layer | None = layer
    while current is not None and current.opened_by is None and current.parent is not None:
        current = trace.layers[current.parent]
    view = current.opened_by if current is not None else None
    if view is None:
        return False
    chain = (*view.context.ancestors, view.command)
    for i in range(len(chain) - 2, -1, -1):
        node = chain[i]
        if isinstance(node, CommandList):
            k = next((j for j, item in enumerate(node.items) if item is chain[i + 1]), None)
            if k is None or k + 1 >= len(node.items) or k >= len(node.ops):
                return False
            nxt = node.items[k + 1]
            return node.ops[k] == "||" and isinstance(nxt, SimpleCommand) and \
                len(nxt.words) == 1 and not nxt.redirects and nxt.words[0].value in ("true", ":")
        if not isinstance(node, Pipeline):
            return False
    return False


_STEPS_UNCHECKED = Template(
    "steps-unchecked",
    "{who} has no `set -e` and does not chain its steps with `&&`",
    "if `{step}` ({at}) fails, the script goes on and {effect}; {status_sink} is "
    "only that of the last command{last_note}.{also} Start the script with `set -e` "
    "(and `set -o pipefail` under bash), or stop on the failure: `{one_line_escaped} "
    "|| exit 1`.")


def _first_unchecked(ctx: CheckContext, trace: Trace, where: Locator,
                     layer: Layer) -> Finding | None:
    assert layer.script is not None
    if _status_dropped(ctx, trace, layer):
        return None
    items, _, _ = flat_body(ctx, layer.script)
    if len(items) < 2:
        return None
    found: list[tuple[CommandView, str]] = []
    shows: set[int] = set()  # (steps whose failure the next ones show by failing themselves)
    for view in layer.commands:
        name = _risky(view)
        if name is None or not _unchecked(ctx, layer, view):
            continue
        if name == "." and layer.dialect == "sh":
            # `.` is a special builtin: when it cannot read the file, a non-interactive POSIX
            # sh exits (dash does; bash only in POSIX mode). Nothing goes on after it.
            continue
        if name in ("cd", "pushd", "git") and _fails_elsewhere_after(layer, view):
            shows.add(id(view))
        if not _has_later_step(ctx, layer, view) or _status_tested_next(layer, view) or \
                option_turned_off(ctx, layer, view.command.span[0], view.context.script,
                                  "errexit"):
            continue  # (after `set +e` the author has chosen to go on)
        found.append((view, name))
    if not found:
        return None
    found.sort(key=lambda f: id(f[0]) in shows)  # (stable: the first that stays unseen)
    view, name = found[0]
    shown = id(view) in shows
    step = node_text(view.context.script, view.command, 50)
    at = where.at(view.source_span[0] if view.source_span else None)
    last_views = [v for v in script_index(ctx, layer, layer.script).views if v.argv]
    last_note = ""
    if last_views:
        last = last_views[-1]
        slot = slot_of(ctx, last)
        if slot is not None:
            lo, hi = slot.group()
            node_lo, node_hi = slot.items[lo], slot.items[hi]
            text = one_line_escaped(" ".join(
                slot.script.text[node_lo.span[0]:node_hi.span[1]].split()), 60)
            src = slot.script.origin.span(node_lo.span[0], max(node_hi.span[1],
                                                                node_lo.span[0] + 1))
            last_note = f", `{text}` ({where.at(src[0] if src else None)})"
            ops = slot.ops[lo:hi]
            if ops and ops[-1] == "||" and isinstance(node_hi, SimpleCommand) and \
                    node_hi.words and node_hi.words[0].value in ("echo", "printf", "true", ":"):
                last_note += ", which is 0 even when everything before it failed"
    others = [f"`{node_text(v.context.script, v.command, 30)}` "
              f"({where.at(v.source_span[0] if v.source_span else None)})"
              for v, _ in found[1:4]]
    also = f" Also unchecked: {', '.join(others)}." if others else ""
    if shown:
        also += (" (The steps after it need that directory and fail by themselves outside it, "
                 "so the failure shows in the status unless the other directory has what "
                 "they need.)")
    effect = _EFFECT[name]
    if name == "cd" and ssh_layer_above(trace, layer) is not None:
        effect += " (the login directory)"
    msg = (_STEPS_UNCHECKED(who=_who(trace, layer), step=step, at=at, effect=effect,
                              status_sink=_status_sink(trace, layer), last_note=last_note,
                              also=also, one_line_escaped=one_line_escaped(step, 40)))
    span = view.source_span or (0, 0)
    return Finding(span, msg, layer, fixes=_stop_fixes(ctx, layer, [v for v, _ in found]),
                   severity="info" if shown else _severity(ctx, layer))


def _stop_fixes(ctx: CheckContext, layer: Layer, views: list[CommandView]) -> tuple[Fix, ...]:
    """Each unchecked step stops the script with a message when it fails."""
    edits: list[Edit] = []
    for view in views:
        slot = slot_of(ctx, view)
        if slot is None or not slot.top or slot.item is not view.command or any(
                r.heredoc is not None for r in view.command.redirects):
            return ()
        script = view.context.script
        step = script.text[view.command.span[0]:view.command.span[1]]
        at = view.command.span[1]
        edit = _fixes.layer_edit(ctx, layer, at, at, _fixes.stop_on_failure(step))
        if edit is None:
            return ()
        edits.append(edit)
    if not edits:
        return ()
    return (Fix("stop with a message when a step fails", tuple(edits), "unsafe"),)


# What a message printed when the check fails says: `... && echo ALIVE || echo DEAD`.
_FAILURE_WORDS = lazy_compile(
    r"\b(dead|died|fail|failed|failure|error|down|crash|crashed|missing|not running|"
    r"not found|not started|timeout|timed out)\b|✗|✘", re.IGNORECASE)


_REPORTS_FAILED_THEN_SCRIPT = Template(
    "reports-failed-then-script",
    "`{message}` ({at}) reports that `{check_text}` failed, and then the script ends "
    "with the status of that message, 0",
    "{status_sink} says success whatever happened, so a caller (a deploy script, CI, "
    "`&&` after ssh) goes on. Exit non-zero after the message: `{{ {message}; exit "
    "1; }}`.")


def _failure_reported_as_success(ctx: CheckContext, trace: Trace, where: Locator,
                                 layer: Layer) -> Finding | None:
    """The script's last step reports a failure (`check && echo OK || echo FAILED`) and
    then ends with that message's status, 0: the caller cannot tell."""
    script = layer.script
    if script is None:
        return None
    items, ops, _ = flat_body(ctx, script)
    if len(items) < 2:
        return None
    last = items[-1]
    if ops[-2] != "||" or not isinstance(last, SimpleCommand):
        return None
    views = views_by_command(layer)
    view = views.get(id(last))
    text = message_text(view) if view is not None else None
    if view is None or text is None or not _FAILURE_WORDS.search(text):
        return None
    lo = len(items) - 1
    while lo > 0 and ops[lo - 1] in ("&&", "||"):
        lo -= 1
    check_text = one_line_escaped(
        " ".join(script.text[items[lo].span[0]:items[-2].span[1]].split()), 50)
    message = node_text(script, last, 40)
    at = where.at(view.source_span[0] if view.source_span else None)
    msg = (_REPORTS_FAILED_THEN_SCRIPT(message=message, at=at, check_text=check_text,
                                       status_sink=_status_sink(trace, layer)))
    return Finding(view.source_span or (0, 0), msg, layer, fixes=_exit_fix(ctx, layer, last),
                   severity=_severity(ctx, layer))


def _exit_fix(ctx: CheckContext, layer: Layer, node: Node) -> tuple[Fix, ...]:
    a, b = node.span
    edits = _fixes.layer_edits(ctx, layer, [(a, a, "{ "), (b, b, "; exit 1; }")])
    if edits is None:
        return ()
    return (Fix("exit with status 1 after the failure message", edits, "unsafe"),)


_TEE_HIDES_FAILURE = Template(
    "tee-hides-failure",
    "`{node_text}`",
    "a pipeline's exit status is that of its last command, and `tee` succeeds even "
    "when `{first_text}` fails, so {why}. Add `set -o pipefail` before it (bash, "
    "zsh, ksh; dash 0.5.12 has none), or check the first command's status "
    "(`${{PIPESTATUS[0]}}` in bash).")


def _tee(ctx: CheckContext, trace: Trace, layer: Layer) -> Iterator[Finding]:
    views = views_by_command(layer)
    seen: set[int] = set()
    for view in layer.commands:
        chain = local_chain(ctx, view)
        if len(chain) < 2 or not isinstance(chain[-2], Pipeline):
            continue
        pipe = chain[-2]
        if id(pipe) in seen or pipe.commands[-1] is not view.command:
            continue
        seen.add(id(pipe))
        eff = view.effective
        if eff is None or eff.name != "tee" or len(pipe.commands) < 2:
            continue
        script = view.context.script
        if option_in_effect(ctx, layer, view.command.span[0], script, "pipefail"):
            continue
        why = _tee_matters(ctx, layer, view, pipe)
        if why is None or _only_feeds(pipe, views) or _status_read_next(ctx, view, pipe):
            continue
        first = pipe.commands[0]
        first_view = views.get(id(first)) if isinstance(first, SimpleCommand) else None
        first_text = node_text(script, first, 30)
        msg = _TEE_HIDES_FAILURE(node_text=node_text(script, pipe, 50), first_text=first_text,
                                 why=why)
        span = (first_view.source_span if first_view is not None and first_view.source_span
                else view.source_span) or (0, 0)
        yield Finding(span, msg, layer, severity=_severity(ctx, layer))


# Host formats that act on the status of the script they run: make stops, a build or a CI step
# fails, Ansible fails the task, systemd and a container's restart policy see a failed service.
_STATUS_READERS = frozenset({"make", "dockerfile", "github-actions", "ansible", "systemd",
                             "compose", "kubernetes"})


def _severity(ctx: CheckContext, layer: Layer) -> Severity:
    """A warning where the status that comes back is all anybody sees of the failure: the
    script runs on another machine (ssh, a container), or a host file that acts on its status
    runs it (a recipe, a RUN, a CI step). On this machine otherwise (`sh -c`, `| tee` in a
    script) info: whoever runs it sees the failure's own message."""
    if layer.where != "local":
        return "warning"
    parent = ctx.layers[layer.parent] if layer.parent is not None else None
    if parent is not None and parent.kind == "host" and parent.format in _STATUS_READERS:
        return "warning"
    return "info"


def _first_text(script: Script, node: Node) -> str:
    """The text of the first command ``node`` runs, with the words a compound expands before
    its body (`case ${PIPESTATUS[0]} in`, `for s in "${PIPESTATUS[@]}"`)."""
    if isinstance(node, Pipeline) and node.commands:
        return _first_text(script, node.commands[0])
    if isinstance(node, CommandList) and node.items:
        return _first_text(script, node.items[0])
    if isinstance(node, Compound) and node.parts and node.kind != "function":
        first = node.parts[0][1]
        return script.text[node.span[0]:first.span[0]] + _first_text(script, first)
    return script.text[node.span[0]:node.span[1]]


def _status_read_next(ctx: CheckContext, view: CommandView, pipe: Pipeline) -> bool:
    """The command right after the pipeline reads its statuses (`cmd | tee log; exit
    ${PIPESTATUS[0]}`, `rc=${PIPESTATUS[0]}`, `if [ "${PIPESTATUS[0]}" -ne 0 ]`): the script
    looks at the first command's status itself. Any later command resets the array."""
    slot = slot_of(ctx, view, pipe)
    if slot is None or slot.item is not pipe or slot.index + 1 >= len(slot.items) or \
            slot.ops[slot.index] == "&":
        return False
    return "PIPESTATUS" in _first_text(slot.script, slot.items[slot.index + 1])


_FEEDERS = frozenset({"echo", "printf", "cat", "yes", "true"})


def _only_feeds(pipe: Pipeline, views: dict[int, CommandView]) -> bool:
    """`echo 1 | sudo tee /proc/...`: tee is the step that matters, and its status is seen."""
    for node in pipe.commands[:-1]:
        view = views.get(id(node)) if isinstance(node, SimpleCommand) else None
        eff = view.effective if view is not None else None
        if eff is None or eff.name not in _FEEDERS or (eff.name == "cat" and len(eff.argv) > 2):
            return False
    return True


def _tee_matters(ctx: CheckContext, layer: Layer, view: CommandView,
                 pipe: Pipeline) -> str | None:
    c = view.context
    if c.conditional:
        return "the test sees success"
    if c.background or c.in_substitution:
        return None
    if option_in_effect(ctx, layer, view.command.span[0], c.script, "errexit"):
        return "`set -e` does not stop the script"
    if layer.parent is not None and c.script is layer.script:
        assert layer.script is not None
        items, _, _ = flat_body(ctx, layer.script)
        if items and (items[-1] is pipe or any(n is pipe for n in local_chain(ctx, view)
                                               if n is items[-1])):
            if _status_dropped(ctx, ctx.trace, layer):
                return None  # (the caller ignores it anyway)
            return "the caller sees success"
    return None


RULE = Rule("QC206", "failures-ignored",
            "An inner script goes on after a failed step; only the last status is seen",
            "warning", check, fix="unsafe",
            trigger=Trigger(handoffs=True, programs=frozenset({"tee"})))
