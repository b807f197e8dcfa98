"""QC205 unconditional-success: a success message printed whatever happened before it.

``step; echo "Done"`` (or the two on separate lines) prints "Done" when ``step`` failed too:
nothing ties the message to the step's exit status unless ``set -e`` is in effect, the message
is joined with ``&&``, or it sits in an ``if``. Commands that only wait or print (``sleep``,
other ``echo`` lines) are skipped to find the step the message reports on.

A warning when that step's failure is common and easy to miss (``COMMON_FAILURE_STEPS``: a kill,
a package install, a download, ``sed -i``...) or the step is an ordinary command; info when it
rarely fails unseen (a function of the script, a script of the project, a mkdir or kill the
script has just tested, forced removals), where the message may be meant as progress, and when
the message is on the script's way out (``_find_way_out``: after its wait for TERM, in a trap
that exits), where a failed stop leaves nothing to act on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from quotecheck.diagnostics import Fix, Severity
from quotecheck.layers.effective import Effective
from quotecheck.layers.model import CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Node,
    Pipeline,
    Script,
    SimpleCommand,
    iter_nodes,
)
from quotecheck.programs import (
    COMMON_FAILURE_STEPS,
    GREP_PROGRAMS,
    IN_PLACE_EDIT_OPTIONS,
    PACKAGE_INSTALL_VERBS,
    SCRIPT_INTERPRETERS,
    SCRIPT_SOURCERS,
    WORD_PRINTERS,
)
from quotecheck.rules import _fixes
from quotecheck.rules._claim_text import LABEL, claims, claims_nothing
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.display import Locator, node_text
from quotecheck.rules.runtime.script_messages import NEGATIVE_WORDS, SUCCESS_WORDS, message_text
from quotecheck.rules.runtime.shell_options import (
    option_in_effect,
    set_flags,
    sourced_option_sources,
)
from quotecheck.rules.runtime.slots import Slot, commands_in, slot_of, views_by_command
from quotecheck.rules.triggers import Trigger

_NEUTRAL = frozenset({"sleep", "echo", "printf", "true", ":", "date", "sync", "logger",
                      "export", "local", "declare", "typeset", "readonly", "unset", "shift",
                      "set", "clear", "wait"})
# Cleanup after the real work (``popd``, removing a temporary file): the message reports on the
# step before it.
_CLEANUP = frozenset({"rm", "rmdir", "popd", "pushd"})
_STOPS = frozenset({"exit", "return", "exec"})
# Commands a printing helper uses besides echo/printf: tests, colour settings, its return.
_PRINTING = _NEUTRAL | frozenset({"[", "test", "tput", "stty", "return"})
# A command named by a variable that holds a terminal control sequence (`$SETCOLOR_SUCCESS`,
# `$MOVE_TO_COL`, `${RED}`): it prints a colour code, it is no step to report on.
_COLOUR_VARIABLE = lazy_compile(
    r"^\$\{?[A-Za-z_]*(?:COLOU?R|MOVE_TO|RED|GREEN|YELLOW|BLUE|BOLD|NORMAL|RESET|NC)"
    r"[A-Za-z_]*\}?$", re.IGNORECASE)
# A time stamp in a message: `$(date)`, `` `date +%T` ``, `$NOW`, `${END_TIME}`.
_TIME_STAMP = lazy_compile(r"\$\(\s*date\b[^)]*\)|`\s*date\b[^`]*`"
                           r"|\$\{?[A-Za-z_0-9]*(?:date|time|now)[A-Za-z_0-9]*\}?", re.IGNORECASE)
# The words that say only that something ended ("srun command finished", "Done"), not that it
# worked; and how a line made of one of them starts ("all done", "--- finished").
_ENDED = frozenset({"done", "finished", "complete", "completed"})
_ENDED_LINE = r"[\W_]*(?:all\s+)?(?:" + "|".join(sorted(_ENDED)) + r")[\W_]*"
# What is left of a bare end-of-run line ("done at $(date)", "$(date): all finished") without
# its time stamp.
_RUN_END = lazy_compile(_ENDED_LINE + r"(?:at|on)?[\W_]*", re.IGNORECASE)
# How long the run took: `$(( $(date +%s) - start ))s`, `${SECONDS} seconds`, `$elapsed min`.
_DURATION = lazy_compile(
    r"(?:\$\(\((?:[^()]|\([^()]*\)|\$\([^()]*\))*\)\)|\$\{?(?:SECONDS|[A-Za-z_0-9]*(?:"
    r"elapsed|duration|runtime|took|seconds|secs|minutes|mins)[A-Za-z_0-9]*)\}?)"
    r"\s*(?:s|sec|secs|seconds|m|min|mins|minutes|ms)?\b", re.IGNORECASE)
# What is left of a timing line ("Finished in 42s", "Done after 3 minutes", "all done, took
# 42s") without its duration.
_RUN_TOOK = lazy_compile(_ENDED_LINE + r"(?:in|after|took)[\W_]*", re.IGNORECASE)
# `$?`, `${?}` or `${PIPESTATUS[i]}` read in a command's text: the status of the command (or
# pipeline) before it.
_READS_STATUS = lazy_compile(r"\$(?:\?|\{\?\}|\{PIPESTATUS\[)")
# A variable holding a status or result (`$rc`, `${TRAVIS_TEST_RESULT}`, `$exit_code`): a
# message that prints it reports the status, whatever it is.
_STATUS_VARIABLE = lazy_compile(
    r"\$\{?(?:[A-Za-z_0-9]*_)?(?:result|status|rc|ret|retval|retcode|exitcode|exit_code"
    r"|exit_status|return_code|returncode)\}?(?![A-Za-z_0-9])", re.IGNORECASE)
# Bookkeeping after the work a message reports on: a marker file (`touch $dir/.complete`), a
# service restarted or reloaded to pick the work up (`systemctl restart cron`,
# `restart_service cron`, `nginx -s reload`). A message that names neither reports on the
# work before it.
_RESTART_WORD = lazy_compile(r"(?:^|[_\-/])(?:restart|reload|daemon-reload|force-reload)"
                             r"(?:$|[_\-])", re.IGNORECASE)
_NAMES_RESTART = lazy_compile(r"\b(?:re)?(?:start|load)\w*|\brunning\b|\bup\b|\bactive\b"
                              r"|\bonline\b|\bready\b", re.IGNORECASE)
_NAMES_MARKER = lazy_compile(r"\btouch\w*|\bmark\w*|\bflag\w*|\bstamp\w*|\bcreat\w*"
                             r"|\bready\b", re.IGNORECASE)
# A progress line that announces a display ("Displaying current VPN connections:", "Listing
# pods", "Showing the status"): the command after it shows the reader the state the work left,
# it is no step a later message reports on.
_SHOWS = lazy_compile(r"(?:displaying|listing|showing|printing)\b", re.IGNORECASE)
# A message of only `_ENDED` words says the step ended, not that it worked: when the script
# tests the outcome right after it, the test is the report.
# A variable named for failures the script collected (`${#faillibs[@]}`, `$errors`,
# `$FAILED`): a test of it checks the work before it.
_FAILURES_READ = lazy_compile(r"\$\{?#?[A-Za-z_0-9]*(?:fail|error|errs\b|err\b)",
                              re.IGNORECASE)
# The shell's own start-up files, sourced to load settings the script has just written.
_STARTUP_FILE = lazy_compile(r"(?:^|/)(?:\.bashrc|\.bash_profile|\.profile|\.zshrc|"
                             r"\.kshrc|profile|bashrc|bash\.bashrc)$")
_NAMES_SOURCE = lazy_compile(r"\b(?:re)?load\w*|\bsourc\w*|\brc\b|\bprofile\b|\bbashrc\b"
                             r"|\bshell\b", re.IGNORECASE)
_START_WORDS = frozenset({"started", "launched", "running", "restarted", "alive", "spawned"})


def _reads_status(script: Script, node: Node) -> bool:
    """Whether ``node`` reads `$?` (`echo "rc=$?"`, `status=$?`, `if [ $? -ne 0 ]`, `case $?
    in`): right after a step, the script looks at the step's status itself."""
    return _READS_STATUS.search(script.text[node.span[0]:node.span[1]]) is not None


def _prints_status(script: Script, node: Node) -> bool:
    """Whether the message prints a status or result the script holds (`echo "Build done
    with result: ${TRAVIS_TEST_RESULT}"`, `echo "finished, rc=$rc"`): it reports that value,
    which says whether something worked, whatever it is."""
    return _STATUS_VARIABLE.search(script.text[node.span[0]:node.span[1]]) is not None


def _run_end_marker(text: str, slot: Slot, views: dict[int, CommandView]) -> bool:
    """A bare "done at $(date)" or "finished in ${SECONDS}s" as the script's last step: it logs
    when the run ended or how long it took (a line "start at ..." often opens it), it reports
    on no step before it."""
    stamped = _TIME_STAMP.search(text) is not None and \
        _RUN_END.fullmatch(_TIME_STAMP.sub(" ", text)) is not None
    timed = _DURATION.search(text) is not None and \
        _RUN_TOOK.fullmatch(_DURATION.sub(" ", text)) is not None
    if not slot.top or not (stamped or timed):
        return False
    after = slot.items[slot.index + 1:]
    return all(_neutral([n], views) or _names(n, views) == ["exit"] for n in after)


# -- how likely the step is to have failed unseen (the finding's severity) ----------------------

# A script path of the project's own: relative (`./run.sh`, `steps/info/x.pl`) or next to the
# script (`$(dirname "$0")/x.sh`, `${0%/*}/x.sh`).
_OWN_SCRIPT = lazy_compile(r"(?!/|\$|~)\S*/\S*|\$\(dirname\b[^)]*\)/\S+|\$\{0%/\*\}/\S+")
_SCRIPT_SUFFIX = lazy_compile(r"(?!/|\$|~)\S+\.(?:sh|bash|py|pl|rb|js)")
_UNQUOTE = str.maketrans("", "", "\"'{}")


def _written(view: CommandView, k: int) -> str:
    """Argument ``k`` as written, without quotes and braces (`"${pid}"` -> `$pid`)."""
    arg = view.argv[k] if k < len(view.argv) else None
    raw = arg.word.raw if arg is not None and arg.word is not None else ""
    return raw.translate(_UNQUOTE)


def _commands(node: Node, views: dict[int, CommandView], layer: Layer) -> list[CommandView]:
    """The commands a step runs: a command that is only `$(...)` (`$(rm -f $PID_FILE)`) stands
    for the commands in it."""
    out: list[CommandView] = []
    for cmd in commands_in(node):
        v = views.get(id(cmd))
        if v is None or not v.argv:
            continue
        value = v.values[0]
        if len(v.argv) == 1 and v.argv[0].dynamic and value.startswith("$(") and \
                value.endswith(")") and v.source_span is not None:
            a, b = v.source_span
            out.extend(w for w in layer.commands if w.context.in_substitution and w.argv
                       and w.source_span is not None and a <= w.source_span[0] < b)
            continue
        out.append(v)
    return out


def _if_condition(view: CommandView) -> Node | None:
    """The condition of the `if` whose then-branch holds the command."""
    chain = (*view.context.ancestors, view.command)
    for i in range(len(chain) - 2, -1, -1):
        node = chain[i]
        if isinstance(node, Compound):
            role = next((r for r, p in node.parts if p is chain[i + 1]), None)
            if node.kind != "if" or role != "body":
                return None
            k = next(j for j, (_, p) in enumerate(node.parts) if p is chain[i + 1])
            return node.parts[k - 1][1] if k > 0 and node.parts[k - 1][0] == "condition" \
                else None
    return None


def _source_tested(view: CommandView, start: int) -> bool:
    """`if [[ -f /etc/crontab.orig ]]; then mv /etc/crontab.orig /etc/crontab`: the file moved
    or copied was there a moment ago (like `mkdir` after `[ ! -d ]`)."""
    condition = _if_condition(view)
    if condition is None:
        return False
    script = view.context.script
    tested = " ".join(script.text[condition.span[0]:condition.span[1]].translate(_UNQUOTE)
                      .split())
    if "!" in tested or "||" in tested:
        return False  # `if ! [ -f x ]`, `[ -f x ] || ...`: not known to be there
    operands = [_written(view, k) for k in range(start + 1, len(view.argv))
                if not view.values[k].startswith("-")]
    sources = operands[:-1]
    return bool(sources) and all(
        re.search(rf"-[fe] {re.escape(f)}(?:\s|\]|$)", tested) for f in sources)


def _kill_targets(view: CommandView, start: int) -> tuple[bool, list[str]]:
    """Whether ``kill`` only tests (`-0`, `-s 0`), and its targets as written."""
    probe = False
    targets: list[str] = []
    k = start + 1
    while k < len(view.values):
        value = view.values[k]
        if value in ("-s", "-n") and k + 1 < len(view.values):
            probe = probe or view.values[k + 1] == "0"
            k += 2
            continue
        if value == "-0":
            probe = True
        elif not value.startswith("-"):
            targets.append(_written(view, k))
        k += 1
    return probe, targets


def _kill_checked(view: CommandView, start: int, views: dict[int, CommandView]) -> bool:
    """`if kill -0 $pid; then kill -9 $pid; ...`: the process was there a moment ago."""
    condition = _if_condition(view)
    if condition is None:
        return False
    _, targets = _kill_targets(view, start)
    for cmd in commands_in(condition):
        v = views.get(id(cmd))
        eff = v.effective if v is not None else None
        if v is None or eff is None or eff.name != "kill":
            continue
        probe, tested = _kill_targets(v, eff.start)
        if probe and targets and set(targets) <= set(tested):
            return True
    return False


def _common_failure(view: CommandView, views: dict[int, CommandView]) -> bool:
    """A step whose failure is common and often unseen (``COMMON_FAILURE_STEPS``)."""
    eff = view.effective
    if eff is None:
        return False
    kind = COMMON_FAILURE_STEPS.get(eff.name)
    args = eff.argv[1:]
    if kind == "package":
        return any(a in PACKAGE_INSTALL_VERBS for a in args)
    if kind == "edit":
        return any(re.fullmatch(IN_PLACE_EDIT_OPTIONS[eff.name], a) for a in args)
    if eff.name == "kill":
        return not _kill_checked(view, eff.start, views)
    return kind is not None


def _forced_removal(view: CommandView) -> bool:
    eff = view.effective
    return eff is not None and eff.name == "rm" and any(
        a == "--force" or (a.startswith("-") and not a.startswith("--") and "f" in a)
        for a in eff.argv[1:])


def _own_script(eff: Effective) -> bool:
    """A script of the project's own (`steps/info/gmm_dir_info.pl $dir`, `bash ./x.sh`): it
    reports its own failures, the message after it is the caller's progress line."""
    argv = eff.argv
    if _OWN_SCRIPT.fullmatch(argv[0]):
        return True
    return eff.name in SCRIPT_INTERPRETERS and len(argv) > 1 and bool(
        _OWN_SCRIPT.fullmatch(argv[1]) or _SCRIPT_SUFFIX.fullmatch(argv[1]))


def _dir_tested(view: CommandView, start: int) -> bool:
    """`if [ ! -d "$D" ]; then mkdir "$D"`: the directory was missing a moment ago."""
    condition = _if_condition(view)
    if condition is None:
        return False
    script = view.context.script
    tested = " ".join(script.text[condition.span[0]:condition.span[1]].translate(_UNQUOTE)
                      .split())
    dirs = [_written(view, k) for k in range(start + 1, len(view.argv))
            if not view.values[k].startswith("-")]
    return bool(dirs) and all(re.search(rf"! -[de] {re.escape(d)}(?:\s|\]|$)", tested)
                              for d in dirs)


def _script_functions(ctx: CheckContext, script: Script) -> frozenset[str]:
    return ctx.memo.get_or_compute("qc205_functions", script, lambda: frozenset(
        n.name for n in iter_nodes(script.body)
        if isinstance(n, Compound) and n.kind == "function" and n.name))


def _quiet(ctx: CheckContext, layer: Layer, view: CommandView,
           views: dict[int, CommandView]) -> bool:
    """A step that rarely fails unseen: a function of the script or a script of the project
    (each says what went wrong itself), a mkdir or kill the script has just tested, a forced
    removal."""
    if _forced_removal(view):
        return True
    eff = view.effective
    if eff is None:
        return False
    if not eff.wrappers and layer.script is not None and \
            view.values[eff.start] in _script_functions(ctx, layer.script):
        return True
    if eff.name == "mkdir":
        return _dir_tested(view, eff.start)
    if eff.name == "kill":
        return _kill_checked(view, eff.start, views)
    if eff.name == "chmod":
        return _written_before(layer, view, eff.start)
    if eff.name in ("mv", "cp"):
        return _source_tested(view, eff.start)
    return _own_script(eff)


def _written_before(layer: Layer, view: CommandView, start: int) -> bool:
    """`cat > run.sh <<EOF ... EOF; chmod +x run.sh`: every file the chmod names was written
    by the script a moment ago (a redirection, `cp`/`mv`/`install`'s target, `curl -o`,
    `wget -O`, `tee`): the script owns it, and the chmod does not fail unseen."""
    files = [_written(view, k) for k in range(start + 2, len(view.argv))
             if not view.values[k].startswith("-")]
    if not files or view.source_span is None:
        return False
    written: set[str] = set()
    for v in layer.commands:
        if v.source_span is None or v.source_span[0] >= view.source_span[0]:
            continue
        for r in v.command.redirects:
            if r.op in (">", ">>", ">|", "&>") and r.target is not None:
                written.add(r.target.raw.translate(_UNQUOTE) if r.target.raw else "")
        eff = v.effective
        if eff is None or not eff.argv:
            continue
        args = [_written(v, k) for k in range(eff.start + 1, len(v.argv))]
        if eff.name in ("cp", "mv", "install") and args:
            written.add(args[-1])
        elif eff.name == "tee":
            written.update(a for a in args if not a.startswith("-"))
        elif eff.name in ("curl", "wget"):
            flag = ("-o", "--output") if eff.name == "curl" else ("-O", "--output-document")
            written.update(args[k + 1] for k in range(len(args) - 1) if args[k] in flag)
    return all(f in written for f in files)


def _severity(ctx: CheckContext, layer: Layer, slot: Slot, lo: int, hi: int,
              views: dict[int, CommandView]) -> Severity:
    """Warning when the step is one whose failure is common and unseen (a kill, a package
    install, a download, `sed -i`, `ln`, a background start), or an ordinary command; info when
    it rarely fails unseen (``_quiet``). After forced removals only (`rm -f $PID_FILE`), the
    step before them decides."""
    if slot.ops[hi] == "&":
        return "warning"
    step = [v for node in slot.items[lo:hi + 1] for v in _commands(node, views, layer)]
    if any(_common_failure(v, views) for v in step):
        return "warning"
    if not step or not all(_quiet(ctx, layer, v, views) for v in step):
        return "warning"
    if not all(_forced_removal(v) for v in step):
        return "info"
    j = lo - 1
    while j >= 0:
        glo, ghi = slot.group(j)
        items = slot.items[glo:ghi + 1]
        before = [v for node in items for v in _commands(node, views, layer)]
        if _neutral(items, views) or _cleanup(items, views) or \
                (before and all(_forced_removal(v) for v in before)):
            j = glo - 1
            continue
        return "warning" if any(_common_failure(v, views) for v in before) else "info"
    return "info"


# -- the script's way out: a stop function a signal trap runs, or one called after the wait ----

# Signals that end a service script: `docker stop`, Ctrl-C, a hang-up, and the shell's own EXIT.
_END_SIGNALS = frozenset({"TERM", "SIGTERM", "15", "INT", "SIGINT", "2", "QUIT", "SIGQUIT",
                          "3", "HUP", "SIGHUP", "1"})
_EXIT_SIGNALS = frozenset({"EXIT", "SIGEXIT", "0"})
_LOOPS = frozenset({"while", "until", "for", "select"})
# A stop the message or the step names: what the way out is for (`stop.sh`, `xargs kill`,
# "shut down", "==> STOP SUCCESSFUL").
_STOPPING = lazy_compile(r"\b(?:stop\w*|kill\w*|pkill|shut\w*|terminat\w*|halt\w*|down)\b",
                         re.IGNORECASE)
_ACTION_WORD = lazy_compile(r"(?:^|[;&|(){}]|\bthen|\bdo|\belse)\s*([A-Za-z_][\w.:-]*)")


class _WayOut(NamedTuple):
    """Where a script is on its way out: the functions that run only there (with why), and the
    offset after which its top level only shuts down (None: no such point)."""

    functions: dict[str, str]
    after: int | None
    waited: str


def _trap_signals(v: CommandView) -> tuple[str, frozenset[str]] | None:
    """A `trap ACTION SIGNAL...` that sets an action (not `trap - TERM`, `trap '' INT`)."""
    if len(v.values) < 3 or v.values[0] != "trap" or v.values[1] in ("-", ""):
        return None
    return v.values[1], frozenset(a.upper() for a in v.values[2:])


def _way_out(ctx: CheckContext, layer: Layer) -> _WayOut:
    script = layer.script
    assert script is not None
    return ctx.memo.get_or_compute("qc205_way_out", script,
                                   lambda: _find_way_out(ctx, layer, script))


def _find_way_out(ctx: CheckContext, layer: Layer, script: Script) -> _WayOut:
    """The shutdown path of a service script, as its text shows it:

    * a function a `trap` runs on EXIT, or on TERM/INT/QUIT/HUP when the trap (or the function)
      then exits: `trap stop_all TERM INT` with `exit` in `stop_all`;
    * the top level after the script has waited for TERM or INT (a call of a function of its own
      that sets such a trap and then `wait`s, like the `waitterm` of many container entrypoints,
      or a `wait` after a top-level trap), when no loop and no second wait follows there: the
      script runs straight to its end;
    * a function every call of which is in either place."""
    functions = _script_functions(ctx, script)
    own = [v for v in layer.commands if v.argv and v.context.script is script
           and not v.context.in_substitution]
    body: dict[str, list[CommandView]] = {}
    for v in own:
        f = _function_of(v)
        if f is not None and f.name:
            body.setdefault(f.name, []).append(v)

    def exits(name: str) -> bool:
        return any(w.values[0] == "exit" for w in body.get(name, []))

    found: dict[str, str] = {}
    for v in own:
        trap = _trap_signals(v)
        if trap is None:
            continue
        action, signals = trap
        on_exit = bool(signals & _EXIT_SIGNALS)
        if not on_exit and not signals & _END_SIGNALS:
            continue
        at = Locator(ctx.source).at(v.source_span[0] if v.source_span else None)
        for name in _ACTION_WORD.findall(action):
            if name in functions and name not in found and (
                    on_exit or re.search(r"\bexit\b", action) or exits(name)):
                found[name] = (f"which `trap` runs when the script ends ({at})" if on_exit
                               else f"which `trap` runs on {'/'.join(sorted(signals))} "
                                    f"before the script exits ({at})")

    def waits_for_signal(name: str) -> bool:
        names = body.get(name, [])
        return any((t := _trap_signals(w)) is not None and t[1] & _END_SIGNALS
                   for w in names) and any(w.values[0] == "wait" for w in names)

    top = [v for v in own if _function_of(v) is None]
    waits = []
    for v in top:
        if v.argv[0].dynamic:
            continue
        name = v.values[0]
        if (name in functions and waits_for_signal(name)) or (name == "wait" and any(
                (t := _trap_signals(w)) is not None and t[1] & _END_SIGNALS
                and w.command.span[0] < v.command.span[0] for w in top)):
            waits.append(v)
    after: int | None = None
    waited = ""
    if len(waits) == 1 and not any(isinstance(a, Compound) and a.kind in _LOOPS
                                   for a in waits[0].context.ancestors):
        point = waits[0].command.span[1]
        loop_after = any(isinstance(n, Compound) and n.kind in _LOOPS and n.span[0] > point
                         for v in top for n in v.context.ancestors)
        if not loop_after:
            after = point
            src = waits[0].source_span
            waited = (f"`{node_text(script, waits[0].command, 30)}` "
                      f"({Locator(ctx.source).at(src[0] if src else None)})")
    calls_of: dict[str, list[CommandView]] = {}
    for v in own:
        if not v.argv[0].dynamic and v.values[0] in functions:
            calls_of.setdefault(v.values[0], []).append(v)
    changed = True
    while changed:
        changed = False
        for name in sorted(functions - found.keys()):
            calls = calls_of.get(name, [])
            if not calls:
                continue
            if all(((f := _function_of(v)) is not None and f.name in found)
                   or (f is None and after is not None and v.command.span[0] > after)
                   for v in calls):
                if after is not None and all(_function_of(v) is None for v in calls):
                    found[name] = f"which the script calls only after {waited} waited for " \
                                  "TERM or INT"
                else:
                    callers = sorted({f.name for v in calls if (f := _function_of(v)) is not None
                                      and f.name})
                    found[name] = "called only on the script's way out" + (
                        f", from `{callers[0]}`" if callers else "")
                changed = True
    return _WayOut(found, after, waited)


def _on_the_way_out(ctx: CheckContext, layer: Layer, view: CommandView) -> str | None:
    """Why the message is on the script's way out (``_find_way_out``), or None."""
    if layer.script is None or view.context.script is not layer.script:
        return None
    out = _way_out(ctx, layer)
    function = _function_of(view)
    if function is not None:
        why = out.functions.get(function.name or "")
        return None if why is None else f"in `{function.name}`, {why}"
    if out.after is not None and view.command.span[0] > out.after:
        return f"after {out.waited} waited for TERM or INT"
    return None


# A bare acknowledgement: "Done", "OK.", "done!".
_BARE_DONE = lazy_compile(r"[\W_]*(?:done|ok|okay)[\W_]*", re.IGNORECASE)


def _answers_prompt(layer: Layer, view: CommandView, text: str) -> bool:
    """A bare "Done" in the branch an `if` runs on the user's answer to a prompt the script has
    just read (`read -r REPLY; if [[ $REPLY =~ ^[Yy]$ ]]; then iptables ...; echo "Done"`):
    the person at the terminal sees the step's own error right above it, and the line only
    closes the attempt they asked for."""
    if not _BARE_DONE.fullmatch(text) or view.source_span is None:
        return False
    condition = _if_condition(view)
    if condition is None:
        return False
    tested = view.context.script.text[condition.span[0]:condition.span[1]]
    for v in layer.commands:
        if not v.argv or v.values[0] != "read" or v.source_span is None or \
                v.source_span[0] >= view.source_span[0]:
            continue
        names = [a for a in v.values[1:] if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", a)]
        for name in names[-1:] or ["REPLY"]:
            if re.search(rf"\$\{{?{name}\b", tested):
                return True
    return False


def _function_of(view: CommandView) -> Compound | None:
    for node in reversed(view.context.ancestors):
        if isinstance(node, Compound) and node.kind == "function":
            return node
    return None


def _printing_helper(function: Compound, views: dict[int, CommandView]) -> bool:
    """A function that only prints (``echo_success_msg() { ...; echo -n "[  OK  ]"; }``): it says
    OK by definition, whatever its caller did."""
    for cmd in commands_in(function):
        v = views.get(id(cmd))
        if v is None or not v.argv:
            continue
        if v.values[0] in _PRINTING or v.argv[0].dynamic:
            continue
        return False
    return True


def _failures_stop_elsewhere(ctx: CheckContext, layer: Layer, view: CommandView) -> bool:
    """``set -e`` at the top level of the script (or of a file it sources there, when that file can
    be read), which a function called later runs under, or an ``ERR`` trap (with ``set -E`` or
    not) that the script sets: a failed step never reaches the message."""
    in_function = _function_of(view) is not None
    sourced = sourced_option_sources(ctx, layer, "errexit") if in_function else []
    for v in layer.commands:
        if not v.argv or v.context.in_substitution:
            continue
        name = v.values[0]
        if name == "trap" and len(v.values) >= 3 and v.values[1] not in ("-", "") \
                and "ERR" in v.values[2:]:
            return True
        if not in_function or any(isinstance(a, Compound) and a.kind == "function"
                                  for a in v.context.ancestors):
            continue
        if name == "set" and set_flags(v.values).get("errexit"):
            return True
        if name in SCRIPT_SOURCERS and v.context.script is layer.script and \
                v.command.span[0] in sourced:
            return True  # a sourced file whose top level runs `set -e`
    return False


def _names(node: Node, views: dict[int, CommandView]) -> list[str]:
    out: list[str] = []
    for cmd in commands_in(node):
        v = views.get(id(cmd))
        out.append(v.values[0] if v is not None and v.argv else "")
    return out


def _neutral(items: list[Node], views: dict[int, CommandView]) -> bool:
    if len(items) == 1 and isinstance(items[0], SimpleCommand):
        names = _names(items[0], views)
        if all(n == "" or n in _NEUTRAL for n in names):
            return True
    if len(items) == 1 and isinstance(items[0], Pipeline):
        # `echo "EXITVALUE $rc" | tee -a log`: a message, to the terminal and a log file
        names = _names(items[0], views)
        if names[:1] in (["echo"], ["printf"]) and all(n in _NEUTRAL or n == "tee"
                                                        for n in names):
            return True
    return _colour_only(items, views)


def _colour_only(items: list[Node], views: dict[int, CommandView]) -> bool:
    """``[ "$BOOTUP" = color ] && $SETCOLOR_SUCCESS``, ``tput setaf 2``: only a colour is set."""
    colour = False
    for node in items:
        if not isinstance(node, SimpleCommand):
            return False
        v = views.get(id(node))
        if v is None or not v.argv:
            return False
        raw = node.words[0].raw if node.words else ""
        sets_colour = v.argv[0].dynamic and bool(_COLOUR_VARIABLE.match(raw)) and \
            len(v.argv) == 1
        if sets_colour or v.values[0] == "tput":
            colour = True
        elif v.values[0] not in ("[", "test"):
            return False
    return colour


def _then_branch(view: CommandView) -> bool:
    """The command is in the branch an `if` runs when its condition succeeded."""
    chain = (*view.context.ancestors, view.command)
    for i in range(len(chain) - 2, -1, -1):
        node = chain[i]
        if isinstance(node, Compound):
            role = next((r for r, p in node.parts if p is chain[i + 1]), None)
            return node.kind == "if" and role == "body"
    return False


def _exits_on_failure(layer: Layer, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """``name`` is a function of this script that ends the script itself when something fails
    (an `exit` with a status other than 0 in its body), or whose body ends with a plain call
    of such a function (``setup() { ...; wait_for_vpn_active conn_west; }``: the step it ends
    with is checked): its callers' messages follow a checked step."""
    last: CommandView | None = None
    for v in layer.commands:
        function = _function_of(v) if v.argv else None
        if function is None or function.name != name:
            continue
        if v.values[0] == "exit" and v.values[1:] not in ([], ["0"]):
            return True
        if not v.context.in_substitution and v.values[0] not in _NEUTRAL:
            last = v
    if last is None or last.values[0] in seen | {name} or last.argv[0].dynamic:
        return False
    return _plain_in_function(last) and \
        _exits_on_failure(layer, last.values[0], seen | {name})


def _plain_in_function(view: CommandView) -> bool:
    """The command runs whenever its function does, on its own: not in a branch, loop or
    pipeline of the function, not joined with `&&`/`||`, not in the background."""
    chain = (*view.context.ancestors, view.command)
    k = next(k for k in range(len(chain) - 1, -1, -1) if chain[k] is _function_of(view))
    for a, inner in zip(chain[k + 1:-1], chain[k + 2:], strict=True):
        if isinstance(a, Pipeline) or (isinstance(a, Compound) and a.kind != "group"):
            return False
        if isinstance(a, CommandList):
            at = next(n for n, item in enumerate(a.items) if item is inner)
            around = [a.ops[at] if at < len(a.ops) else None, a.ops[at - 1] if at else None]
            if any(op in ("&&", "||", "&") for op in around):
                return False
    return True


def _bookkeeping(items: list[Node], views: dict[int, CommandView], text: str) -> bool:
    """``touch $dir/.complete``, a service restart (``restart_service cron``, ``systemctl
    reload nginx``) or a shell start-up file sourced to load the settings just written
    (``source ~/.bashrc``) that ``text`` does not name: it follows the work the message reports
    on, and its failure does not undo that work."""
    if len(items) != 1 or not isinstance(items[0], SimpleCommand):
        return False
    v = views.get(id(items[0]))
    if v is None or not v.argv or v.argv[0].dynamic:
        return False
    eff = v.effective
    name = eff.name if eff is not None else v.values[0]
    words = eff.argv if eff is not None else v.values
    if name == "touch":
        return _NAMES_MARKER.search(text) is None
    if name in SCRIPT_SOURCERS:
        return len(v.argv) == 2 and _STARTUP_FILE.search(_written(v, 1)) is not None and \
            _NAMES_SOURCE.search(text) is None
    return any(_RESTART_WORD.search(w) for w in words[:3]) and \
        _NAMES_RESTART.search(text) is None


def _marker(items: list[Node], views: dict[int, CommandView]) -> bool:
    """``touch $START_FLAG``: a marker file, one command alone."""
    if len(items) != 1 or not isinstance(items[0], SimpleCommand):
        return False
    v = views.get(id(items[0]))
    eff = v.effective if v is not None else None
    return eff is not None and eff.name == "touch"


def _keeps_alive(node: Node, views: dict[int, CommandView]) -> bool:
    """A command that waits forever and does nothing else: `while :; do sleep 10; done`,
    `while true; do sleep 1; done`, `tail -f /dev/null`, `sleep infinity` (how a container's
    entrypoint keeps it running)."""
    if isinstance(node, SimpleCommand):
        v = views.get(id(node))
        return v is not None and v.values in (["tail", "-f", "/dev/null"],
                                             ["tail", "-F", "/dev/null"],
                                             ["sleep", "infinity"])
    if not isinstance(node, Compound) or node.kind not in ("while", "until"):
        return False
    forever = {":", "true"} if node.kind == "while" else {"false"}
    condition = [n for role, part in node.parts if role == "condition"
                 for n in _names(part, views)]
    body = [n for role, part in node.parts if role != "condition" for n in _names(part, views)]
    return bool(condition) and all(n in forever for n in condition) and bool(body) and \
        all(n in _NEUTRAL for n in body)


def _parks_forever(slot: Slot, i: int, views: dict[int, CommandView]) -> bool:
    """After the message at ``i``, the script's top level only prints and then waits forever
    (``_keeps_alive``): the message is the last word of its start-up."""
    if not slot.top:
        return False
    for k in range(i + 1, len(slot.items)):
        if _keeps_alive(slot.items[k], views):
            return True
        if not _neutral([slot.items[k]], views):
            return False
    return False


def _checking_if(node: Node, views: dict[int, CommandView], text: str) -> bool:
    """``if ! tar -xzf x.tgz; then echo ... >&2; exit 1; fi``: an `if` on a step (not a bare
    test, unless it tests failures the script collected: ``_FAILURES_READ``) with a branch
    that ends the script or function. ``text`` is the script's."""
    if not isinstance(node, Compound) or node.kind != "if":
        return False
    conditions = [n for role, part in node.parts if role == "condition"
                  for n in _names(part, views)]
    tested = " ".join(text[part.span[0]:part.span[1]] for role, part in node.parts
                      if role == "condition")
    if not _FAILURES_READ.search(tested) and (
            not conditions or all(n in ("[", "test", "[[", "") for n in conditions)):
        return False
    return any(n in ("exit", "return") for role, part in node.parts if role != "condition"
               for n in _names(part, views))


def _before_bookkeeping(slot: Slot, lo: int, views: dict[int, CommandView],
                        text: str) -> tuple[int, int] | None:
    """The work before a trailing bookkeeping step (``_bookkeeping``) the message names nothing
    of: a checked step (``_checking_if``, ``step || exit 1``: no finding then) or plain commands
    (the finding names them and its severity is theirs). None (an `if` or loop that checks
    nothing, or nothing before it) keeps the pairing with the bookkeeping step."""
    j = lo - 1
    while j >= 0:
        glo, ghi = slot.group(j)
        items = slot.items[glo:ghi + 1]
        if _neutral(items, views) or _bookkeeping(items, views, text):
            j = glo - 1
            continue
        if (len(items) == 1 and _checking_if(items[0], views, slot.script.text)) or \
                not any(isinstance(n, (Compound, CommandList)) for n in items):
            return glo, ghi
        return None
    return None


def _displayed(slot: Slot, lo: int, views: dict[int, CommandView]) -> bool:
    """The group at ``lo`` is one command right after a line that announces it as a display
    (``_SHOWS``: `echo "Displaying current VPN connections:"; openstack ... list`): it shows the
    reader the state, and a message after it reports on the work before the pair."""
    if lo < 1 or slot.group(lo) != (lo, lo) or slot.group(lo - 1) != (lo - 1, lo - 1):
        return False
    node = slot.items[lo - 1]
    v = views.get(id(node)) if isinstance(node, SimpleCommand) else None
    if v is None or not v.argv or v.values[0] not in ("echo", "printf"):
        return False
    shown = message_text(v) or ""
    label = LABEL.match(shown)
    return _SHOWS.match(shown[label.end() if label is not None else 0:]) is not None


def _tested_next(slot: Slot, i: int, views: dict[int, CommandView], step_text: str) -> bool:
    """After the message at ``i``, the next step is an `if` that tests something the step
    names (a `$variable` of its text) and has a branch that reports a failure or exits."""
    k = i + 1
    while k < len(slot.items) and _neutral([slot.items[k]], views):
        k += 1
    if k >= len(slot.items) or slot.ops[i] in ("&&", "||", "&"):
        return False
    node = slot.items[k]
    if not isinstance(node, Compound) or node.kind != "if":
        return False
    named = {m.group(1) for m in re.finditer(r"\$\{?([A-Za-z_][A-Za-z_0-9]*)", step_text)}
    text = slot.script.text
    tested = {m.group(1) for role, part in node.parts if role == "condition"
              for m in re.finditer(r"\$\{?([A-Za-z_][A-Za-z_0-9]*)",
                                   text[part.span[0]:part.span[1]])}
    if not named & tested:
        return False
    for role, part in node.parts:
        if role == "condition":
            continue
        for cmd in commands_in(part):
            v = views.get(id(cmd))
            if v is None or not v.argv:
                continue
            if v.values[0] in ("exit", "return") and v.values[1:] not in ([], ["0"]):
                return True
            if v.values[0] in ("echo", "printf") and \
                    NEGATIVE_WORDS.search(message_text(v) or ""):
                return True
    return False


def _cleanup(items: list[Node], views: dict[int, CommandView]) -> bool:
    if len(items) != 1 or not isinstance(items[0], SimpleCommand):
        return False
    return all(n in _CLEANUP for n in _names(items[0], views))


def _checked_before(slot: Slot, j: int, views: dict[int, CommandView],
                    layer: Layer | None = None, then_branch: bool = False) -> bool:
    """Whether the real step before a cleanup (``make || exit 1; popd; echo done``) is checked:
    the message reports on that step, not on the cleanup."""
    while j >= 0:
        lo, hi = slot.group(j)
        items = slot.items[lo:hi + 1]
        if _neutral(items, views) or _cleanup(items, views):
            j = lo - 1
            continue
        if any(isinstance(n, (Compound, CommandList)) for n in items):
            return True
        names = [n for node in items for n in _names(node, views)]
        return any(n in _STOPS for n in names) or _handled(items, slot.ops[lo:hi], views) \
            or (layer is not None and len(names) == 1 and _exits_on_failure(layer, names[0]))
    # Only cleanup before the message in an `if`'s then-branch: the condition is the step.
    return then_branch


def _handled(items: list[Node], ops: list[str], views: dict[int, CommandView]) -> bool:
    """``step || exit 1``, ``step || true``, ``step || { ...; exit 1; }``: status handled."""
    if len(items) < 2:
        return False
    return "||" in ops


def _hint(step: list[Node], slot: Slot, views: dict[int, CommandView]) -> str:
    hints: list[str] = []
    node = step[-1]
    if isinstance(node, Pipeline) and len(node.commands) > 1:
        last = node.commands[-1]
        last_view = views.get(id(last)) if isinstance(last, SimpleCommand) else None
        if last_view is not None:
            hints.append(f"a pipeline's status is only that of its last command, "
                         f"`{node_text(slot.script, last, 30)}`")
            eff = last_view.effective
            if eff is not None and eff.via_xargs and any(
                    v in ("-r", "--no-run-if-empty") for v in last_view.values[1:eff.start]):
                hints[-1] += " (with no match at all, `xargs -r` runs nothing and exits 0)"
        if any(r.fd == 2 and r.op == ">" and r.target is not None
               and r.target.value == "/dev/null"
               for c in node.commands if isinstance(c, SimpleCommand) for r in c.redirects):
            hints.append("and its errors go to /dev/null")
            hints[-2:] = [", ".join(hints[-2:])] if len(hints) >= 2 else hints[-1:]
    elif isinstance(node, SimpleCommand):
        v = views.get(id(node))
        eff = v.effective if v is not None else None
        if eff is not None and eff.name in GREP_PROGRAMS:
            hints.append("grep exits 1 when nothing matches and 2 when the file is missing")
    if len(step) > 1:
        hints.append("if an earlier part of the `&&` list fails, the rest is skipped and the "
                     "message still prints")
    return (": " + " ".join(hints)) if hints else ""


def check(ctx: CheckContext) -> Iterator[Finding]:
    where = Locator(ctx.source)
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        views = views_by_command(layer)
        for view in layer.commands:
            finding = _check_view(ctx, where, layer, view, views)
            if finding is not None:
                yield finding


_PRINTED_EVEN_WHEN_FAILED = Template(
    "printed-even-when-failed",
    "`{message}` is printed even when `{step_text}` ({at}) failed",
    "the step's status is not checked. The message may be meant as progress; if it "
    "says the step worked, print it only then (`... && {message}`).")
_PRINTED_ON_THE_WAY_OUT = Template(
    "printed-on-the-way-out",
    "`{message}` is printed even when `{step_text}` ({at}) failed, on the script's way out",
    "the line is on the script's way out ({why}): the script ends right after it, so a "
    "failed stop there leaves nothing for it, or for whoever reads the log, to act on. If "
    "the message should say the step worked, print it only then (`... && {message}`).")
_CLAIMS_SUCCESS_WHATEVER_HAPPENED = Template(
    "claims-success-whatever-happened",
    "`{message}` claims success whatever happened",
    "the step it reports on, `{step_text}` ({at}), was only started in the "
    "background (`&`): it has not finished, and nothing checks how it ends. Wait for "
    "it and test its status (`wait $! && {message}`), or report only that it was "
    "started.")
_CLAIMS_SUCCESS_WHATEVER_HAPPENED_2 = Template(
    "claims-success-whatever-happened-2",
    "`{message}` claims success whatever happened",
    "the step it reports on, `{step_text}` ({at}), may have failed, since {why}. "
    "Print it only on success: {fix}.")


def _check_view(ctx: CheckContext, where: Locator, layer: Layer, view: CommandView,
                views: dict[int, CommandView]) -> Finding | None:
    text = message_text(view)
    if not text or not SUCCESS_WORDS.search(text) or NEGATIVE_WORDS.search(text):
        return None
    if claims_nothing(text):
        return None
    c = view.context
    if c.in_substitution or c.in_pipeline or c.background:
        return None
    slot = slot_of(ctx, view)
    if slot is None or slot.item is not view.command:
        return None
    i = slot.index
    if i > 0 and slot.ops[i - 1] in ("&&", "||"):
        return None
    if _run_end_marker(text, slot, views):
        return None
    if _reads_status(slot.script, view.command) or _prints_status(slot.script, view.command):
        return None  # `echo "done (rc=$?)"` reports a status, whatever it is
    j = i - 1
    lo = hi = -1
    while j >= 0:
        lo, hi = slot.group(j)
        items = slot.items[lo:hi + 1]
        if _neutral(items, views):
            j = lo - 1
            continue
        if _displayed(slot, lo, views):
            j = lo - 2
            continue
        break
    if j < 0:
        return None
    if hi + 1 < len(slot.items) and _reads_status(slot.script, slot.items[hi + 1]):
        # `cp a b; echo "rc=$?"` or `status=$?`: the script reads the step's status itself,
        # and a fix joined to the step would leave it nothing to read.
        return None
    if _marker(slot.items[lo:hi + 1], views) and _parks_forever(slot, i, views):
        # `touch $START_FLAG; echo "ready"; while :; do sleep 10; done`: the marker and the
        # message both record that the start-up is over; the work before the marker is what
        # they report on, and after an `if` or loop there is no one step to name.
        before = _before_bookkeeping(slot, lo, views, "")
        if before is None:
            return None
        lo, hi = before
    elif _bookkeeping(slot.items[lo:hi + 1], views, text):
        before = _before_bookkeeping(slot, lo, views, text)
        if before is not None:
            lo, hi = before
    if _cleanup(slot.items[lo:hi + 1], views) and _checked_before(
            slot, lo - 1, views, layer, _then_branch(view)):
        return None
    function = _function_of(view)
    if function is not None and _printing_helper(function, views):
        return None
    step = slot.items[lo:hi + 1]
    step_ops = slot.ops[lo:hi]
    if any(isinstance(n, (Compound, CommandList)) for n in step):
        return None
    names = [n for node in step for n in _names(node, views)]
    if any(n in _STOPS for n in names) or _handled(step, step_ops, views):
        return None
    if len(names) == 1 and _exits_on_failure(layer, names[0]):
        return None
    background = slot.ops[hi] == "&"
    span_text = slot.script.text[step[0].span[0]:step[-1].span[1]]
    if not background and all(w.lower() in _ENDED for w in claims(text)) and \
            _tested_next(slot, i, views, span_text):
        # `srun ...; echo "srun finished"; if mountpoint -q "$MP"; then ... ERROR ...`: the
        # line says the step ended, and the test right after it reports how.
        return None
    if background and all(w.lower() in _START_WORDS for w in claims(text)):
        # "started"/"launched" after `cmd &` is true: the job was started. Only a claim that
        # it finished or worked ("done", "deployed") is reported for a background step.
        return None
    if not background and (option_in_effect(ctx, layer, view.command.span[0], slot.script,
                                            "errexit", sourced=True)
                           or _failures_stop_elsewhere(ctx, layer, view)):
        return None
    step_text = one_line_escaped(" ".join(span_text.split()), 70)
    src = slot.script.origin.span(step[0].span[0], max(step[-1].span[1], step[0].span[0] + 1))
    at = where.at(src[0] if src else None)
    message = node_text(slot.script, view.command, 50)
    severity = _severity(ctx, layer, slot, lo, hi, views)
    if not background and _answers_prompt(layer, view, text):
        severity = "info"
    way_out = None if background or severity == "info" or not (
        _STOPPING.search(text) or _STOPPING.search(span_text)) else \
        _on_the_way_out(ctx, layer, view)
    if way_out is not None:
        severity = "info"
        msg = _PRINTED_ON_THE_WAY_OUT(message=message, step_text=step_text, at=at, why=way_out)
    elif severity == "info":
        msg = (_PRINTED_EVEN_WHEN_FAILED(message=message, step_text=step_text, at=at))
    elif background:
        msg = (_CLAIMS_SUCCESS_WHATEVER_HAPPENED(message=message, step_text=step_text, at=at))
    else:
        why = ("its exit status is not checked (no `set -e`, not joined with `&&`, not in "
               "an `if`)" + _hint(step, slot, views))
        compact = " ".join(span_text.split())
        if len(compact) <= 40:
            fix = (f"`{compact} && {message}`, or `if {compact}; then {message}; else echo "
                   f"'... failed' >&2; exit 1; fi`")
        else:
            fix = (f"join it to the step with `&&` (`... && {message}`), or put the step in "
                   f"an `if` with an `else` branch that reports the failure and exits non-zero")
        msg = (_CLAIMS_SUCCESS_WHATEVER_HAPPENED_2(message=message, step_text=step_text, at=at,
                                                   why=why, fix=fix))
    span = view.source_span or (0, 0)
    fixes = () if background else _stop_fix(ctx, layer, slot, step, span_text)
    return Finding(span, msg, layer, fixes=fixes,
                   severity="info" if severity == "info" else None)


def _stop_fix(ctx: CheckContext, layer: Layer, slot: Slot, step: list[Node],
              step_text: str) -> tuple[Fix, ...]:
    """``step || { echo "FAILED ..." >&2; exit 1; }``: the message after it is then true.

    Only for a step at the top level of the layer's own script, where ``exit`` ends the script
    (in a function or a subshell it would not), and not for one with a heredoc (the text after
    the operator's line is the heredoc's)."""
    if not slot.top or slot.script is not layer.script:
        return ()
    if any(r.heredoc is not None for node in step for cmd in commands_in(node)
           for r in cmd.redirects):
        return ()
    at = step[-1].span[1]
    edit = _fixes.layer_edit(ctx, layer, at, at, _fixes.stop_on_failure(step_text))
    if edit is None:
        return ()
    return (Fix("stop with a message when the step fails", (edit,), "unsafe"),)


RULE = Rule("QC205", "unconditional-success",
            "A success message is printed whether or not the step before it worked",
            "warning", check, fix="unsafe",
            trigger=Trigger(programs=WORD_PRINTERS))
