"""QC210 relaunch-without-wait: a program is killed and started again with nothing waiting for
the old process to exit.

Kills understood: `pkill [-f|-x] P`, `killall NAME`, `kill $(pgrep ...)`/`$(pidof ...)`,
`pgrep ... | xargs kill`, `ps ... | grep P | awk ... | xargs kill`, `kill $pid` where `pid` was
set from one of those or from `$!`, and `kill $(cat FILE)` where `echo $! > FILE` recorded a
launch. The relaunch is a later command on the same machine whose process (after exec wrappers
such as `nohup`, `setsid`, `sudo`) the kill's pattern matches, the way pgrep/pkill would match
it: the whole command line for `-f` and `ps | grep`, the program name otherwise.

A wait between the two clears it: `wait`, `pidwait`/`pwait`, `tail --pid`, `killall -w`, or a
loop polling with `kill -0`, `pgrep`, `pidof`, `ps`, `fuser`, `lsof`, `nvidia-smi`, `ss` or a
`test` on `/proc/...`. A fixed `sleep` is not a wait. `systemctl stop`/`restart` and
`docker stop` are not kills here: they wait for the process themselves.
"""

from __future__ import annotations

import re
import shlex
import warnings
from collections.abc import Iterator
from functools import lru_cache

from quotecheck.diagnostics import Fix, Related
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Compound, Pipeline, SimpleCommand
from quotecheck.parsing.words import Word
from quotecheck.positions import LineIndex
from quotecheck.programs import (
    AWK_PROGRAMS,
    GREP_PROGRAMS,
    INIT_SCRIPT_DIRS,
    PIDFILE_OPTIONS,
    PROCESS_KILLERS,
    SERVICE_STARTERS,
    basename,
)
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules import _fixes
from quotecheck.rules._text import one_line_marked
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.regex import too_costly
from quotecheck.rules.runtime.script_messages import NEGATIVE_WORDS, SUCCESS_WORDS, message_text
from quotecheck.rules.runtime.slots import slot_of, views_by_command
from quotecheck.rules.runtime.toolcalls import parse_grep, parse_pgrep
from quotecheck.rules.runtime.unevaluated import Report, Unevaluated
from quotecheck.rules.triggers import Trigger

TERMINATING = frozenset({"TERM", "KILL", "INT", "QUIT", "ABRT", "15", "9", "2", "3", "6"})
NOT_A_LAUNCH = frozenset({
    "kill", "pkill", "killall", "pgrep", "pidof", "pidwait", "pwait", "ps", "grep", "egrep",
    "fgrep", "rg", "awk", "gawk", "mawk", "sed", "cat", "tail", "head", "less", "more", "echo",
    "printf", "test", "[", "true", "false", ":", "sleep", "wait", "ls", "rm", "cp", "mv", "ln",
    "mkdir", "rmdir", "touch", "chmod", "chown", "stat", "find", "xargs", "tee", "logger",
    "date", "cd", "source", ".", "export", "local", "read", "set", "unset", "eval", "exit",
    "return", "nvidia-smi", "fuser", "lsof", "ss", "netstat", "journalctl", "systemctl",
    "wc", "sort", "uniq", "cut", "tr", "basename", "dirname", "readlink", "realpath", "which",
    "command", "type", "hash", "id", "whoami", "hostname", "uptime", "df", "du", "free",
})
PROBES = frozenset({"pgrep", "pidof", "ps", "fuser", "lsof", "nvidia-smi", "ss", "netstat",
                    "pidwait", "pwait"})
LOOPS = ("while", "until", "for")
RECENT_KILLS = 32


class Matcher(FrozenRecord):
    """What a kill selects: a pattern the way pgrep/pkill/grep/killall apply it."""

    pattern: str
    full: bool  # against the whole command line (pgrep -f, ps | grep) or the process name
    exact: bool = False  # the whole name (killall, pidof, pgrep -x)
    ignore_case: bool = False
    fixed: bool = False  # grep -F
    launched: tuple[str, ...] | None = None  # `$!` of this argv
    arg: Arg | None = None  # the word holding the pattern
    tool: str = ""  # how the pattern is applied, for a message: "pkill -f", "grep"
    written: str = ""  # the pattern as the tool reads it ("": ``pattern``), for a message

    def matches(self, argv: list[str]) -> bool:
        """Whether the process with ``argv`` is selected (False when that is not known)."""
        try:
            return self.evaluate(argv)
        except GaveUp:
            return False

    def evaluate(self, argv: list[str]) -> bool:
        """Whether the process with ``argv`` is selected; raises GaveUp when that is not
        known (the pattern is too costly on that command line, or cannot be compiled)."""
        if not argv:
            return False
        if self.launched is not None:
            # the same program, doing the same: the first plain word it was given (a script,
            # a subcommand: `kubectl -n "$ns" port-forward` is not `kubectl -n "$ns" get`)
            words = [w for w in self.launched[1:] if w and not w.startswith("-")
                     and "$" not in w][:1]
            return basename(argv[0]) == basename(self.launched[0]) and \
                all(w in argv[1:] for w in words)
        name = basename(argv[0])
        if self.exact:
            return name == self.pattern or (len(self.pattern) >= 15
                                            and name[:15] == self.pattern[:15])
        subject = " ".join(argv) if self.full else name[:15]
        rx = _compile(self.pattern, self.ignore_case, self.fixed)
        if isinstance(rx, str):
            raise GaveUp(self, rx, None)
        why = too_costly(rx, subject)
        if why is not None:
            raise GaveUp(self, why, len(subject))
        return rx.search(subject) is not None

    def names(self, argv: list[str]) -> bool:
        """Whether a name pattern (pkill without -f, pgrep, matched against the program's
        name) selects the program itself, not a longer name that holds it: `pkill app` also
        selects `appctl`, but starting `appctl` is no restart of `app`. A match not inside a
        word; a version after it is allowed (`python` in `python3`). A command-line pattern
        (`-f`, `ps | grep`) names a family on purpose (`train_` in `train_dflash.py`)."""
        if self.launched is not None or self.exact or self.full or not argv:
            return True
        subject = basename(argv[0])[:15]
        rx = _compile(self.pattern, self.ignore_case, self.fixed)
        if isinstance(rx, str):
            return True
        for m in rx.finditer(subject):
            a, b = m.span()
            before = subject[a - 1] if a > 0 else " "
            after = subject[b] if b < len(subject) else " "
            if a < b and not (before.isalnum() or before == "_") and \
                    not (after.isalpha() or after == "_"):
                return True
        return False

    def describe(self) -> str:
        if self.launched is not None:
            shown = one_line_marked(' '.join(self.launched), 40)
            if self.pattern != "$!":
                return f"the `{shown}` whose pid `{one_line_marked(self.pattern, 30)}` holds"
            return f"the `{shown}` started with `&`"
        how = "command line" if self.full else "name"
        return f"the processes whose {how} matches `{self.pattern}`"


class GaveUp(Exception):
    """A Matcher's pattern was not matched, and why."""

    def __init__(self, matcher: Matcher, reason: str, length: int | None) -> None:
        super().__init__(reason)
        self.matcher = matcher
        self.reason = reason
        self.length = length


@lru_cache(maxsize=1024)
def _compile(pattern: str, ignore_case: bool, fixed: bool) -> re.Pattern[str] | str:
    """The pattern as a Python regex, or why there is none."""
    flags = re.I if ignore_case else 0
    if fixed:
        return re.compile(re.escape(pattern), flags)
    error = ""
    for text in (pattern, _bre_to_python(pattern)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)  # `[[`: "possible nested set"
                return re.compile(text, flags)
        except (re.error, RecursionError, OverflowError) as exc:
            error = error or str(exc)
    return f"Python's `re` rejects it, as written and read as a basic regex ({error})"


def _bre_to_python(pattern: str) -> str:
    """grep's basic regular expressions: `\\|`, `\\(`, `\\)`, `\\{`, `\\+`, `\\?` are the
    operators, the bare characters literal."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            n = pattern[i + 1]
            out.append(n if n in "|(){}+?" else "\\" + n)
            i += 2
            continue
        out.append("\\" + c if c in "|(){}+?" else c)
        i += 1
    return "".join(out)


class Event(Record):
    layer: Layer
    view: CommandView
    offset: int
    # When it runs: its offset, or for a command in a function body the order of a call of
    # the function followed by its offset (a function defined early and called last runs last)
    order: tuple[int, ...] = ()
    # The `if`/`case` branches it runs in, its calls' included: (id of the compound, branch)
    branches: frozenset[tuple[int, int]] = frozenset()
    # The functions the layer defines (a name started with `&` runs script code, no program)
    functions: frozenset[str] = frozenset()
    # It runs through a call of its function that sits in a loop (`while check; do ...`)
    looped: bool = False


def _exclusive(a: Event, b: Event) -> bool:
    """The two run in different branches of one `if` or `case`: never in the same run."""
    theirs = dict(b.branches)
    return any(c in theirs and theirs[c] != arm for c, arm in a.branches)


def _always_before(a: Event, b: Event) -> bool:
    """``a`` runs before ``b`` on every run that reaches ``b``: earlier in run order, in no
    `if`/`case` branch or loop that ``b`` is not in too, not after `&&`/`||`."""
    if not a.order < b.order or a.view.context.guarded or not a.branches <= b.branches:
        return False
    loops = {id(n) for n in b.view.context.ancestors
             if isinstance(n, Compound) and n.kind in LOOPS}
    return all(id(n) in loops for n in a.view.context.ancestors
               if isinstance(n, Compound) and n.kind in LOOPS)


class Kill(Record):
    event: Event
    span: tuple[int, int]
    how: str  # "`pkill -f`", "`xargs kill`"
    matchers: list[Matcher]
    signal: str | None  # as written (`9`, `KILL`, `SIGKILL`); None for the default

    def __init__(self, event: Event, span: tuple[int, int], how: str,
                 matchers: list[Matcher] | None = None, signal: str | None = None) -> None:
        self.event = event
        self.span = span
        self.how = how
        self.matchers = [] if matchers is None else matchers
        self.signal = signal


# -- reading commands ------------------------------------------------------------------------------


def _values(argv: list[Arg]) -> list[str]:
    return [a.value for a in argv]


def _signal_ok(sig: str | None) -> bool:
    if sig is None:
        return True
    s = sig.upper().removeprefix("SIG")
    return s in TERMINATING


def _pgrep_matchers(argv: list[Arg]) -> list[Matcher]:
    values = _values(argv)
    call = parse_pgrep(values)
    if call is None or call.pattern is None or call.pattern_index is None:
        return []
    tool = basename(values[0]) + (" -f" if call.full else "")
    return [Matcher(call.pattern, call.full, call.exact and not call.full, call.ignore_case,
                    arg=argv[call.pattern_index], tool=tool)]


def _grep_matcher(argv: list[Arg]) -> Matcher | None:
    values = _values(argv)
    call = parse_grep(values)
    if call is None or call.invert or not call.patterns:
        return None
    fixed = call.syntax == "fixed"
    extended = call.syntax == "extended"
    written = pattern = call.patterns[0]
    if not extended and not fixed:
        pattern = _bre_to_python(pattern)
    tool = basename(values[0]) + (" -F" if fixed else " -E" if extended else "")
    return Matcher(pattern, True, ignore_case=call.ignore_case, fixed=fixed,
                   arg=argv[call.pattern_indices[0]], tool=tool, written=written)


_AWK_PATTERN = lazy_compile(r"\s*(!?)/((?:[^/\\]|\\.)+)/")


def finder_matchers(views: list[CommandView], pidfiles: dict[str, tuple[str, ...]]
                    ) -> list[Matcher]:
    """Matchers from the commands that produce the pids (a pipeline or a `$( )`)."""
    out: list[Matcher] = []
    for v in views:
        if not v.argv or v.argv[0].dynamic:
            continue
        values = _values(v.argv)
        name = basename(values[0])
        if name == "pgrep":
            out.extend(_pgrep_matchers(v.argv))
        elif name == "pidof":
            out.extend(Matcher(x, False, exact=True) for x in values[1:] if not x.startswith("-"))
        elif name in GREP_PROGRAMS:
            m = _grep_matcher(v.argv)
            if m is not None:
                out.append(m)
        elif name in AWK_PROGRAMS and len(values) > 1:
            at = next((k for k, x in enumerate(values) if k and not x.startswith("-")), 0)
            am = _AWK_PATTERN.match(values[at]) if at else None
            if am and not am.group(1):
                out.append(Matcher(am.group(2), True, arg=v.argv[at], tool=name))
        elif name == "cat" and len(values) == 2 and v.argv[1].word is not None and \
                file_key(v.argv[1].word) in pidfiles:
            key = file_key(v.argv[1].word)
            out.append(Matcher(values[1], False, launched=pidfiles[key]))
    for v in views:  # `$(< file)`
        if not v.argv:
            for r in v.command.redirects:
                if r.op == "<" and r.target is not None and file_key(r.target) in pidfiles:
                    out.append(Matcher(r.target.value, False,
                                       launched=pidfiles[file_key(r.target)]))
    return out


def _pid_files_written(view: CommandView) -> list[str]:
    """The files `echo $! > FILE` (or printf) writes `$!` into, as ``file_key``s."""
    values = _values(view.argv)
    if not values or values[0] not in ("echo", "printf") or not any(
            p.kind == "special" and p.name == "!"
            for a in view.argv[1:] if a.word for p in a.word.parts):
        return []
    return [file_key(r.target) for r in view.command.redirects
            if r.op in (">", ">|") and r.fd in (None, 1) and r.target is not None]


def pid_files_of(argv: list[Arg]) -> list[str]:
    """The files a program is told to write its own pid to (`dockerd --pidfile FILE`), as
    ``file_key``s."""
    out: list[str] = []
    for i, a in enumerate(argv[1:], 1):
        if a.word is None:
            continue
        if a.value in PIDFILE_OPTIONS and i + 1 < len(argv) and argv[i + 1].word is not None:
            out.append(file_key(argv[i + 1].word))  # type: ignore[arg-type]
        elif "=" in a.value and a.value.split("=", 1)[0] in PIDFILE_OPTIONS:
            out.append(file_key(a.word).split("=", 1)[1])
    return out


def service_started(values: list[str]) -> str | None:
    """The service a command starts by name (`start app`, `service app start`, `systemctl
    start app.service`, `/etc/init.d/app start`), or None."""
    if not values:
        return None
    operands = [v for v in values[1:] if not v.startswith("-")]
    if values[0].startswith(INIT_SCRIPT_DIRS):
        return basename(values[0]) if operands[:1] == ["start"] and \
            basename(values[0]) else None
    form = SERVICE_STARTERS.get(values[0])
    if form is None:
        return None
    verb, name = form
    if verb is not None and (len(operands) <= verb or operands[verb] != "start"):
        return None
    if len(operands) <= name or (verb is None and len(operands) != 1):
        return None
    job = operands[name].removesuffix(".service")
    return job if job and "/" not in job and "$" not in job else None


def file_key(word: Word) -> str:
    """A file's name as a key: its value, or for a name known only at run time the expansion
    as written (`"$PIDFILE"` and `${PIDFILE}` are the same file wherever the script names it)."""
    if not word.dynamic:
        return word.value
    return word.raw.translate(str.maketrans("", "", "\"'{}"))


class _LayerIndex:
    """Per layer, built once: the commands inside each command's `$( )`, and the commands
    of each pipeline (keyed by node identity)."""

    def __init__(self, layer: Layer) -> None:
        self.inner: dict[int, list[CommandView]] = {}
        self.pipes: dict[int, list[CommandView]] = {}
        for v in layer.commands:
            for a in v.context.ancestors:
                if isinstance(a, SimpleCommand) and v.context.in_substitution:
                    self.inner.setdefault(id(a), []).append(v)
                elif isinstance(a, Pipeline):
                    self.pipes.setdefault(id(a), []).append(v)

    def inner_views(self, view: CommandView) -> list[CommandView]:
        """Commands in the `$( )` of ``view``'s words."""
        return self.inner.get(id(view.command), [])

    def pipeline_before(self, view: CommandView) -> list[CommandView]:
        pipe = next((a for a in reversed(view.context.ancestors) if isinstance(a, Pipeline)),
                    None)
        if pipe is None:
            return []
        return [v for v in self.pipes.get(id(pipe), []) if v is not view
                and v.command.span[0] < view.command.span[0]]


def _process_argv(ctx: CheckContext, view: CommandView) -> list[Arg]:
    """The argv of the process a command leaves running (after exec wrappers)."""
    argv = view.argv
    for i in view.opens:
        if 0 <= i < len(ctx.layers) and ctx.layers[i].kind == "exec" and ctx.layers[i].argv:
            argv = ctx.layers[i].argv
    return argv


def _opens_shell(ctx: CheckContext, view: CommandView) -> bool:
    return any(0 <= i < len(ctx.layers) and ctx.layers[i].kind in ("shell", "ssh", "join")
               for i in view.opens)


_STARTED_AGAIN = Template(
    "started-again",
    "`{shown_short}` is started again without waiting for the one killed on line {line} to "
    "exit",
    "A signal only asks it to stop: while it saves, flushes or releases GPU memory it still "
    "holds the GPUs, ports and files, so the new one can fail (out of memory, `address "
    "already in use`) or run alongside it. Wait until the old one is gone first, e.g. {wait}.",
    ".",
    lead="`{shown}` is started again after {how} on line {line} killed {killed}, and nothing "
    "waits for the old process to exit in between{note}")


class _Scan:
    """Walk one machine's commands in order, collecting kills, launches and waits."""

    def __init__(self, ctx: CheckContext, events: list[Event], lines: LineIndex) -> None:
        self.ctx = ctx
        self.lines = lines
        self.events = events
        self.vars: dict[str, list[Matcher]] = {}
        self.pidfiles: dict[str, tuple[str, ...]] = {}
        self.last_bg: tuple[str, ...] | None = None
        self.indexes: dict[int, _LayerIndex] = {}
        self.reports: list[Report] = []  # patterns not matched against a relaunch
        self.gave_up: set[int] = set()  # ids of their matchers: one report each

    def index(self, layer: Layer) -> _LayerIndex:
        found = self.indexes.get(layer.id)
        if found is None:
            found = self.indexes[layer.id] = _LayerIndex(layer)
        return found

    def kill_of(self, e: Event) -> Kill | None:
        view = e.view
        if not view.argv or view.argv[0].dynamic:
            return None
        # `sudo pkill ...`, `timeout 5 kill ...`: the wrapped program is the killer.
        argv = view.argv
        for i in view.opens:
            inner = self.ctx.layers[i] if 0 <= i < len(self.ctx.layers) else None
            if inner is not None and inner.kind == "exec" and inner.via != "xargs" and (
                    inner.argv and not inner.argv[0].dynamic):
                argv = inner.argv
        return self._kill_argv(e, argv) or self._xargs_kill(e)

    def _kill_argv(self, e: Event, argv: list[Arg]) -> Kill | None:
        view = e.view
        values = _values(argv)
        name = basename(values[0])
        span = argv[0].source_span or view.source_span or (0, 0)
        if name == "kill":
            return self._kill(e, argv, span)
        if name == "pkill":
            sig = _option_signal(values)
            if not _signal_ok(sig):
                return None
            ms = _pgrep_matchers(argv)
            flag = " -f" if ms and ms[0].full else ""
            return Kill(e, span, f"`pkill{flag}`", ms, sig) if ms else None
        if name == "killall":
            if any(v in ("-w", "--wait") or (v.startswith("-") and not v.startswith("--")
                                             and "w" in v[1:] and v[1:].isalpha()
                                             and v[1:].islower()) for v in values[1:]):
                return None
            if not _signal_ok(_option_signal(values)):
                return None
            regex = any(v in ("-r", "--regexp") for v in values[1:])
            names = _operands(values, {"-s", "--signal", "-u", "--user", "-o", "-y",
                                       "--older-than", "--younger-than", "-n", "--ns"})
            ms = [Matcher(n, False, exact=not regex, tool="killall -r",
                          arg=next((a for a in argv[1:] if a.value == n), None)) for n in names]
            return Kill(e, span, "`killall`", ms, _option_signal(values)) if ms else None
        return None

    def _xargs_kill(self, e: Event) -> Kill | None:
        view, layer = e.view, e.layer
        span = view.argv[0].source_span or view.source_span or (0, 0)
        for i in view.opens:
            inner = self.ctx.layers[i] if 0 <= i < len(self.ctx.layers) else None
            if inner is None or inner.kind != "exec" or inner.via != "xargs" or not inner.argv:
                continue
            if basename(inner.argv[0].value) != "kill":
                continue
            kvalues = _values(inner.argv)
            sig = _kill_signal(kvalues)
            if not _signal_ok(sig):
                return None
            ms = finder_matchers(self.index(layer).pipeline_before(view), self.pidfiles)
            kspan = inner.argv[0].source_span or span
            return Kill(e, kspan, "`xargs kill`", ms, sig) if ms else None
        return None

    def _kill(self, e: Event, argv: list[Arg], span: tuple[int, int]) -> Kill | None:
        values = _values(argv)
        sig = _kill_signal(values)
        if sig == "LIST" or not _signal_ok(sig):
            return None
        matchers: list[Matcher] = []
        inner = self.index(e.layer).inner_views(e.view)
        if inner:
            matchers.extend(finder_matchers(inner, self.pidfiles))
        for a in argv[1:]:
            if a.word is None:
                continue
            for p in a.word.parts:
                if p.kind == "parameter" and p.name in self.vars:
                    matchers.extend(self.vars[p.name])
                elif p.kind == "special" and p.name == "!" and self.last_bg is not None:
                    matchers.append(Matcher("$!", False, launched=self.last_bg))
        return Kill(e, span, "`kill`", matchers, sig) if matchers else None

    def learn(self, e: Event) -> None:
        """Remember `pid=$(pgrep ...)`, `pid=$!`, `echo $! > file` and background launches."""
        view = e.view
        for a in view.command.assignments:
            parts = a.value.parts
            if any(p.kind in ("command", "backtick") for p in parts):
                ms = finder_matchers(self.index(e.layer).inner_views(view), self.pidfiles)
                if ms:
                    self.vars[a.name] = ms
                else:
                    self.vars.pop(a.name, None)
            elif any(p.kind == "special" and p.name == "!" for p in parts) and self.last_bg:
                self.vars[a.name] = [Matcher("$!", False, launched=self.last_bg)]
            else:
                self.vars.pop(a.name, None)
        if self.last_bg:
            for name in _pid_files_written(view):
                self.pidfiles[name] = self.last_bg
        self.last_bg = self._background_launch(view) or self.last_bg

    def _background_launch(self, view: CommandView) -> tuple[str, ...] | None:
        """The argv of the program ``view`` starts with `&`, if it starts one."""
        if view.context.background and view.argv and not _opens_shell(self.ctx, view):
            argv = _values(_process_argv(self.ctx, view))
            if argv and basename(argv[0]) not in NOT_A_LAUNCH:
                return tuple(argv)
        return None

    def learn_pid_files(self) -> None:
        """The pid files the script writes (`cmd & echo $! > FILE`), read in the order of the
        text first: an init script's `restart` runs `stop`, which reads the file, before
        `start`, which writes it (on an earlier run of the script)."""
        last_bg: tuple[str, ...] | None = None
        for e in sorted(self.events, key=lambda ev: ev.offset):
            if last_bg:
                for name in _pid_files_written(e.view):
                    self.pidfiles.setdefault(name, last_bg)
            last_bg = self._background_launch(e.view) or last_bg
            # `dockerd --pidfile FILE`: the program writes its own pid there.
            launch = self._launch_argv(e)
            if launch is not None:
                argv = _process_argv(self.ctx, e.view)
                for name in pid_files_of(argv):
                    self.pidfiles.setdefault(name, tuple(launch[1]))

    def run(self) -> Iterator[Finding]:
        self.learn_pid_files()
        kills: list[tuple[int, Kill]] = []  # (event index, kill)
        reported: set[int] = set()
        # waits[i]: waits among events[:i]; sleeps[i]: index of the last `sleep` before i.
        waits = [0]
        sleeps: list[int | None] = [None]
        for i, e in enumerate(self.events):
            waits.append(waits[-1] + self._is_wait(e))
            is_sleep = bool(e.view.argv) and e.view.argv[0].value == "sleep"
            sleeps.append(i if is_sleep else sleeps[-1])
        # The relaunches each kill has met (event index of the kill -> the relaunches): the
        # first start of the program after a kill is the one that meets the old process; a
        # start that runs after such a relaunch on every run (``_always_before``) is not
        # paired with that kill again.
        met: dict[int, list[Event]] = {}
        for i, e in enumerate(self.events):
            launch = self._launch_argv(e)
            if launch is not None and kills:
                # A service started by name runs the program of that name.
                job = service_started(launch[1])
                started = [job] if job is not None else launch[1]
                # Only the latest kills: a relaunch follows its kill closely, and this keeps
                # the scan linear on scripts with hundreds of kills.
                selecting = [(k_i, k) for k_i, k in reversed(kills[-RECENT_KILLS:])
                             if k.event.order < e.order and k.event.view is not e.view
                             and not _exclusive(k.event, e)
                             and any(self._selects(k, m, e, started) for m in k.matchers)]
                hit = next(((k_i, k) for k_i, k in selecting
                            if not any(_always_before(r, e) for r in met.get(k_i, ()))),
                           None)
                for k_i, _ in selecting:
                    met.setdefault(k_i, []).append(e)
                if hit is not None and e.offset not in reported:
                    k_i, kill = hit
                    if waits[i] - waits[k_i + 1] == 0:
                        reported.add(e.offset)
                        last_sleep = sleeps[i]
                        sleep = (self.events[last_sleep] if last_sleep is not None
                                 and last_sleep > k_i else None)
                        yield self._finding(kill, e, launch, sleep)
            found = self.kill_of(e)
            if found is not None:
                kills.append((i, found))
            self.learn(e)

    def _selects(self, kill: Kill, matcher: Matcher, launch: Event, argv: list[str]) -> bool:
        """Whether the kill's ``matcher`` selects the relaunched ``argv``; a pattern not
        matched is recorded for QC002 (once) and selects nothing."""
        try:
            return matcher.evaluate(argv) and matcher.names(argv)
        except GaveUp as exc:
            if id(matcher) not in self.gave_up:
                self.gave_up.add(id(matcher))
                what = Unevaluated(matcher.tool or kill.how.strip("`"),
                                   matcher.written or matcher.pattern, matcher.arg,
                                   kill.event.view, exc.reason, exc.length)
                line = self.lines.line_of(launch.offset) + 1
                whose = "command line" if matcher.full else "name"
                self.reports.append(Report(
                    what, f"the {whose} of `{one_line_marked(' '.join(argv), 40)}` started on "
                          f"line {line}", "QC210", kill.event.layer))
            return False

    def _launch_argv(self, e: Event) -> tuple[Arg, list[str]] | None:
        view = e.view
        if not view.argv or view.context.in_substitution or _opens_shell(self.ctx, view):
            return None
        argv = _process_argv(self.ctx, view)
        if not argv or argv[0].dynamic:
            return None
        values = _values(argv)
        if (argv is view.argv or argv[0] is view.argv[0]) and values[0] in e.functions:
            return None  # (a function runs script code: a subshell a signal ends at once)
        if service_started(values) is not None and not any(a.dynamic for a in argv):
            return argv[0], values
        if basename(values[0]) in NOT_A_LAUNCH:
            return None
        if view.context.conditional and not view.context.background:
            return None  # its status is tested: a probe, not a launch
        return argv[0], values

    def _is_wait(self, e: Event) -> bool:
        view = e.view
        if not view.argv or view.argv[0].dynamic:
            return False
        values = _values(view.argv)
        name = basename(values[0])
        if name in ("wait", "pidwait", "pwait"):
            return True
        if name == "tail" and any(v.startswith("--pid") for v in values[1:]):
            return True
        if name == "killall" and any(v in ("-w", "--wait") for v in values[1:]):
            return True
        if name == "timeout":
            inner = _values(_process_argv(self.ctx, view))
            if inner and basename(inner[0]) in ("tail", "pidwait", "pwait"):
                return True
        in_loop = e.looped or any(isinstance(a, Compound) and a.kind in LOOPS
                                  for a in view.context.ancestors)
        if not in_loop:
            return False
        if name in PROBES:
            return True
        if name == "kill" and len(values) > 1 and (values[1] == "-0" or values[1:3] == [
                "-s", "0"]):
            return True
        return name in ("[", "test") and any("/proc/" in v for v in values[1:])

    def _finding(self, kill: Kill, e: Event, launch: tuple[Arg, list[str]],
                 sleep: Event | None) -> Finding:
        word, values = launch
        span = word.source_span or e.view.source_span or (0, 0)
        kill_line = self.lines.line_of(kill.span[0]) + 1
        job = service_started(values)
        matcher = next(m for m in kill.matchers if m.matches([job] if job else values))
        note = ""
        if sleep is not None:
            n = " ".join(a.value for a in sleep.view.argv[1:])
            note = f" (`sleep {n}` is a guess, not a wait)"
        if job is not None:
            note += (f"; it starts the service `{job}`, and while the old `{job}` still runs the "
                     "service manager sees it running and starts nothing (Upstart: `Job is "
                     "already running`), so once it exits nothing runs")
        if matcher.launched is not None and matcher.pattern != "$!":
            pid = f"$(cat {shlex.quote(matcher.pattern)})"
            wait = f"`while kill -0 \"{pid}\" 2>/dev/null; do sleep 1; done` (bounded: " \
                   "`timeout 60 sh -c '...'`)"
        elif matcher.launched is not None:
            wait = "`wait \"$pid\"` (for a child of this shell) or `while kill -0 \"$pid\" " \
                   "2>/dev/null; do sleep 1; done`"
        else:
            flag = "-f " if matcher.full else ("-x " if matcher.exact else "")
            pat = shlex.quote(matcher.pattern)
            wait = (f"`while pgrep {flag}{pat} >/dev/null; do sleep 1; done` (bounded: "
                    f"`timeout 60 sh -c '...'`) or `pidwait {flag}{pat}`")
        shown = one_line_marked(" ".join(values), 50)
        message = _STARTED_AGAIN(shown=shown, how=kill.how, line=kill_line,
                                 killed=matcher.describe(), note=note, wait=wait,
                                 shown_short=one_line_marked(" ".join(values), 30))
        related = (Related(kill.span, f"the old process is killed here ({kill.how})"),)
        fixes = () if matcher.launched is not None or job is not None else \
            self._wait_fix(kill, e, matcher)
        if kill.signal is not None and kill.signal.upper().removeprefix("SIG") in ("KILL", "9"):
            # SIGKILL runs no more code of the old process; only the kernel's teardown is left
            # (ports within milliseconds, measured; GPU memory may take longer): what that
            # costs depends on what the program holds, which the text does not show.
            message = message.noted(
                "the old process gets SIGKILL: it runs no more code, and only what the kernel "
                "frees as it tears the process down (ports at once, GPU memory later) can "
                "still be held")
            return Finding(span, message, e.layer, related, fixes=fixes, severity="info")
        return Finding(span, message, e.layer, related, fixes=fixes)

    def _wait_fix(self, kill: Kill, relaunch: Event, matcher: Matcher) -> tuple[Fix, ...]:
        """Replace the kill (and the `sleep` after it) with a stop that selects the old
        process by the start of its own command line and waits until it has exited."""
        layer = relaunch.layer
        if kill.event.layer is not layer or layer.script is None or layer.text is None:
            return ()
        slot = slot_of(self.ctx, kill.event.view)
        if slot is None or not slot.top or slot.script is not layer.script:
            return ()
        values = _identifying_words(_process_argv(self.ctx, relaunch.view), matcher)
        if not values or not values[0].rsplit("/", 1)[-1]:
            return ()
        lo, hi = slot.group()
        if not all(isinstance(n, (SimpleCommand, Pipeline)) for n in slot.items[lo:hi + 1]):
            return ()
        views = views_by_command(layer)
        end = slot.items[hi].span[1]
        stopped: str | None = None
        k = hi + 1
        # The `sleep` that stood in for a wait goes; the message that claimed the old process
        # was stopped moves to where that is known to be true.
        while k < len(slot.items) and slot.ops[k - 1] in ("\n", ";") and \
                isinstance(slot.items[k], SimpleCommand):
            view = views.get(id(slot.items[k]))
            name = view.values[0] if view is not None and view.argv else ""
            text = message_text(view) if view is not None else None
            if name == "sleep":
                end = slot.items[k].span[1]
            elif stopped is None and text and SUCCESS_WORDS.search(text) and \
                    not NEGATIVE_WORDS.search(text) and slot.ops[k] in ("\n", ";"):
                node = slot.items[k]
                stopped = layer.script.text[node.span[0]:node.span[1]]
                end = node.span[1]
            else:
                break
            k += 1
        start = slot.items[lo].span[0]
        if relaunch.view.command.span[0] < end:
            return ()
        block = _fixes.stop_and_wait(
            _fixes.anchored_pattern(values), " ".join(values),
            kill.signal.upper().removeprefix("SIG") if kill.signal else None, stopped,
            _fixes.line_indent(layer.text, start))
        edit = _fixes.layer_edit(self.ctx, layer, start, end, block)
        if edit is None:
            return ()
        shown = one_line_marked(" ".join(values), 40)
        return (Fix(f"stop the old `{shown}` by its own command line "
                    "and wait until it has exited", (edit,), "unsafe"),)


def _identifying_words(argv: list[Arg], matcher: Matcher, most: int = 6) -> list[str] | None:
    """The first words of the relaunched command line that select it as the kill did: the
    shortest start the kill's own pattern already matches (`python3 train.py` for
    `[p]ython3.*train`), else the program and, for an interpreter, its script. None when those
    words are only known at run time."""
    if matcher.full:
        for n in range(1, min(len(argv), most) + 1):
            if argv[n - 1].dynamic:
                break
            words = [a.value for a in argv[:n]]
            if matcher.matches(words):
                return words
    used = argv[:2] if len(argv) > 1 and not argv[1].value.startswith("-") else argv[:1]
    if not used or any(a.dynamic for a in used):
        return None
    return [a.value for a in used]


def _operands(values: list[str], with_value: set[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for v in values[1:]:
        if skip:
            skip = False
            continue
        if v in with_value:
            skip = True
            continue
        if v.startswith("-") and len(v) > 1:
            continue
        out.append(v)
    return out


def _option_signal(values: list[str]) -> str | None:
    """The signal of pkill/killall: `-9`, `-KILL`, `--signal X`, `-s X`."""
    for i, v in enumerate(values[1:], 1):
        if v in ("--signal", "-s") and i + 1 < len(values):
            return values[i + 1]
        if v.startswith("--signal="):
            return v.split("=", 1)[1]
        if v.startswith("-") and len(v) > 1 and (v[1:].isdigit() or (
                v[1:].isupper() and v[1:].isalpha())):
            return v[1:]
    return None


def _kill_signal(values: list[str]) -> str | None:
    """The signal of `kill`: None for the default (TERM), `LIST` for `kill -l`."""
    if len(values) < 2:
        return "LIST"
    v = values[1]
    if v in ("-l", "-L", "--list"):
        return "LIST"
    if v in ("-s", "-n") and len(values) > 2:
        return values[2]
    if v.startswith("-") and len(v) > 1 and v != "--":
        return v[1:]
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from _analysis(ctx)[0]


def not_evaluated(ctx: CheckContext) -> list[Report]:
    """The kill patterns whose match against a relaunched command was not computed."""
    return _analysis(ctx)[1]


# How many calls of one function are followed (each runs its body again).
_CALLS_FOLLOWED = 8
# The words of a trap's command text (`trap 'cleanup; exit' INT TERM`) that may name a function.
_TRAP_WORDS = lazy_compile(r"[A-Za-z_][A-Za-z_0-9:.-]*")
# The order of what a trap runs: after every command of the script.
_AT_EXIT = 1 << 62


def _in_run_order(layer: Layer) -> list[Event]:
    """The layer's commands as events with the order they run in: a command in a function's
    body runs where the function is called (once per call), the others where they are."""
    function_of: dict[int, str] = {}  # id(view) -> the innermost function holding it
    for view in layer.commands:
        fn = next((a for a in reversed(view.context.ancestors)
                   if isinstance(a, Compound) and a.kind == "function" and a.name), None)
        if fn is not None and fn.name is not None:
            function_of[id(view)] = fn.name
    calls: dict[str, list[CommandView]] = {}
    trapped: set[str] = set()  # functions a `trap` runs: at the signal or when the shell exits
    for view in layer.commands:
        if view.argv and not view.argv[0].dynamic and view.source_span is not None:
            name = view.argv[0].value
            if name in function_of.values() and function_of.get(id(view)) != name:
                calls.setdefault(name, []).append(view)
            elif name == "trap" and len(view.argv) >= 3:
                trapped.update(w for w in _TRAP_WORDS.findall(view.argv[1].value)
                               if w in function_of.values())

    def runs(view: CommandView, depth: int
             ) -> list[tuple[tuple[int, ...], frozenset[tuple[int, int]], bool]]:
        assert view.source_span is not None
        at = view.source_span[0]
        arms = _branches(view)
        name = function_of.get(id(view))
        if name is not None and name not in calls and name in trapped:
            # Called only by a trap (`trap cleanup EXIT`): it runs when the script exits or
            # is signalled, after everything the script has started by then.
            return [((_AT_EXIT, at), arms, False)]
        if name is None or name not in calls or depth > 4:
            return [((at,), arms, False)]
        return [((*o, at), b | arms, looped or _in_loop(call))
                for call in calls[name][:_CALLS_FOLLOWED]
                for o, b, looped in runs(call, depth + 1)] or [((at,), arms, False)]

    functions = frozenset(function_of.values())
    return [Event(layer, view, view.source_span[0], order, arms, functions, looped)
            for view in layer.commands if view.source_span is not None
            for order, arms, looped in runs(view, 0)]


def _in_loop(view: CommandView) -> bool:
    """The command sits in a loop of its own script (its condition or its body)."""
    return any(isinstance(a, Compound) and a.kind in LOOPS for a in view.context.ancestors)


def _branches(view: CommandView) -> frozenset[tuple[int, int]]:
    """The `if`/`case` branches (bodies, not conditions) that hold the command."""
    chain = (*view.context.ancestors, view.command)
    out: set[tuple[int, int]] = set()
    for k, node in enumerate(chain[:-1]):
        if not (isinstance(node, Compound) and node.kind in ("if", "case")):
            continue
        inner = chain[k + 1]
        for arm, (role, part) in enumerate(node.parts):
            if role != "condition" and (part is inner or (
                    part.span[0] <= inner.span[0] and inner.span[1] <= part.span[1])):
                out.add((id(node), arm))
                break
    return frozenset(out)


def _analysis(ctx: CheckContext) -> tuple[list[Finding], list[Report]]:
    # Computed once for QC210 and QC002 (which may run first).
    return ctx.memo.get_or_compute("qc210", ctx.trace, lambda: _analyse(ctx))


def _analyse(ctx: CheckContext) -> tuple[list[Finding], list[Report]]:
    groups: dict[str, list[Event]] = {}
    for layer in ctx.layers:
        if layer.kind != "shell":
            continue
        groups.setdefault(layer.where, []).extend(_in_run_order(layer))
    lines = LineIndex(ctx.source)
    findings: list[Finding] = []
    reports: list[Report] = []
    for events in groups.values():
        events.sort(key=lambda ev: ev.order)
        scan = _Scan(ctx, events, lines)
        findings.extend(scan.run())
        reports.extend(scan.reports)
    return findings, reports


RULE = Rule("QC210", "relaunch-without-wait",
            "A killed program is started again without waiting for the old process to exit",
            "warning", check, fix="unsafe",
            trigger=Trigger(programs=PROCESS_KILLERS))
