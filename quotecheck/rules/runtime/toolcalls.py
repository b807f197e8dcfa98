"""The options of the tools that select and signal processes: grep, pgrep/pkill, ps, kill
and awk, and the signal names kill and pkill take."""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Literal

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.argv_options import scan
from quotecheck.layers.tool_grammars import GREP_GRAMMAR, KILL_GRAMMAR, PGREP_GRAMMAR
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import GREP_PROGRAMS
from quotecheck.records import FrozenRecord
from quotecheck.rules.runtime.regex import Syntax, UnsupportedPattern, translate

SIGNALS: dict[str, int] = {
    "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8,
    "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
    "STKFLT": 16, "CHLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21, "TTOU": 22,
    "URG": 23, "XCPU": 24, "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28, "IO": 29,
    "PWR": 30, "SYS": 31,
}
# Signals whose default action does not end a shell (or that test only).
HARMLESS_SIGNALS = frozenset({"0", "CHLD", "CONT", "URG", "WINCH"})


def signal_name(text: str) -> str | None:
    """``9``/``KILL``/``SIGKILL``/``kill`` -> ``KILL``; None if it is not a signal."""
    t = text.upper()
    if t.startswith("SIG"):
        t = t[3:]
    if t.isdigit():
        num = int(t)
        if num == 0:
            return "0"
        for name, value in SIGNALS.items():
            if value == num:
                return name
        return t if 0 < num < 65 else None
    if t in SIGNALS:
        return t
    if re.fullmatch(r"RTM(IN|AX)([+-]\d+)?", t):
        return t
    return None


def exit_status_for(signal: str) -> int | None:
    return 128 + SIGNALS[signal] if signal in SIGNALS else None


class GrepCall(FrozenRecord):
    patterns: tuple[str, ...]
    pattern_indices: tuple[int, ...]  # argv indices of the words holding patterns
    syntax: Syntax
    ignore_case: bool
    invert: bool
    word: bool
    line: bool
    count: bool
    quiet: bool
    reads_stdin: bool  # no file operands (or `-`)
    from_file: bool  # -f FILE: patterns unknown
    only_matching: bool = False  # -o: prints the matched parts, not the lines

    def regex(self) -> re.Pattern[str]:
        if self.from_file or not self.patterns:
            raise UnsupportedPattern("patterns come from a file")
        return translate("\n".join(self.patterns), self.syntax, ignore_case=self.ignore_case,
                         word=self.word, line=self.line)


def parse_grep(values: Sequence[str], start: int = 0) -> GrepCall | None:
    """Options of ``grep``/``egrep``/``fgrep`` at ``values[start]``."""
    name = ho.basename(values[start])
    syntax: Syntax = {"egrep": "extended", "fgrep": "fixed"}.get(name, "basic")  # type: ignore[assignment]
    if name not in GREP_PROGRAMS:
        return None
    sc = scan(values, GREP_GRAMMAR, start + 1)
    patterns: list[str] = []
    indices: list[int] = []
    flags = {"i": False, "v": False, "w": False, "x": False, "c": False, "q": False,
             "o": False}
    from_file = False
    long_map = {"--extended-regexp": "-E", "--fixed-strings": "-F", "--basic-regexp": "-G",
                "--perl-regexp": "-P", "--ignore-case": "-i", "--invert-match": "-v",
                "--word-regexp": "-w", "--line-regexp": "-x", "--count": "-c",
                "--quiet": "-q", "--silent": "-q", "--regexp": "-e", "--file": "-f",
                "--no-ignore-case": "+i", "--files-with-matches": "-l",
                "--files-without-match": "-L", "--only-matching": "-o"}
    for opt in sc.options:
        o = long_map.get(opt.name, opt.name)
        if o == "-E":
            syntax = "extended"
        elif o == "-F":
            syntax = "fixed"
        elif o == "-G":
            syntax = "basic"
        elif o == "-P":
            syntax = "perl"
        elif o in ("-i", "-y"):
            flags["i"] = True
        elif o == "+i":
            flags["i"] = False
        elif o in ("-v", "-w", "-x", "-c", "-q", "-o"):
            flags[o[1]] = True
        elif o in ("-l", "-L"):
            flags["q"] = True
        elif o == "-e" and opt.value is not None:
            patterns.append(opt.value)
            indices.append(opt.value_index if opt.value_index is not None else opt.index)
        elif o == "-f":
            from_file = True
    operands = list(sc.operands)
    if not patterns and not from_file:
        if not operands:
            return None
        patterns.append(values[operands[0]])
        indices.append(operands[0])
        operands = operands[1:]
    reads_stdin = not operands or all(values[i] == "-" for i in operands)
    return GrepCall(tuple(patterns), tuple(indices), syntax, flags["i"], flags["v"],
                    flags["w"], flags["x"], flags["c"], flags["q"], reads_stdin, from_file,
                    flags["o"])


class PgrepCall(FrozenRecord):
    tool: str  # pgrep or pkill
    pattern: str | None
    pattern_index: int | None
    full: bool
    ignore_case: bool
    exact: bool
    invert: bool
    partial: bool  # -n / -o: one process only
    restricted: bool  # -u, -P, -s, -t... narrow the candidates
    ignore_ancestors: bool
    count: bool
    signal: str

    def regex(self) -> re.Pattern[str]:
        if self.pattern is None:
            raise UnsupportedPattern("no pattern")
        return translate(self.pattern, "extended", ignore_case=self.ignore_case,
                         line=self.exact)


def parse_pgrep(values: Sequence[str], start: int = 0) -> PgrepCall | None:
    name = ho.basename(values[start])
    if name not in ("pgrep", "pkill", "pidof"):
        return None
    if name == "pidof":
        return None
    signal = "TERM"
    first = start + 1
    # pkill takes `-SIGNAL` as its first argument (procps: before option parsing).
    if name == "pkill" and first < len(values) and values[first].startswith("-"):
        sig = signal_name(values[first][1:])
        if sig is not None and values[first][1:] not in ("f", "n", "o", "x", "v", "i", "c"):
            signal = sig
            first += 1
    sc = scan(values, PGREP_GRAMMAR, first)
    flags: dict[str, bool] = {}
    restricted = False
    for opt in sc.options:
        o = opt.name
        if o in ("-f", "--full"):
            flags["f"] = True
        elif o in ("-i", "--ignore-case"):
            flags["i"] = True
        elif o in ("-x", "--exact"):
            flags["x"] = True
        elif o in ("-v", "--inverse"):
            flags["v"] = True
        elif o in ("-n", "-o", "--newest", "--oldest"):
            flags["n"] = True
        elif o in ("-A", "--ignore-ancestors"):
            flags["A"] = True
        elif o in ("-c", "--count"):
            flags["c"] = True
        elif o == "--signal" and opt.value is not None:
            signal = signal_name(opt.value) or signal
        elif o in ("-g", "-G", "-P", "-s", "-t", "-u", "-U", "-F", "-r", "-O", "--pgroup",
                   "--group", "--parent", "--session", "--terminal", "--euid", "--uid",
                   "--pidfile", "--runstates", "--older", "--cgroup", "--ns", "--env"):
            restricted = True
    pattern_index = sc.operands[0] if sc.operands else None
    pattern = values[pattern_index] if pattern_index is not None else None
    return PgrepCall(name, pattern, pattern_index, flags.get("f", False),
                     flags.get("i", False), flags.get("x", False), flags.get("v", False),
                     flags.get("n", False), restricted, flags.get("A", False),
                     flags.get("c", False), signal)


class PsCall(FrozenRecord):
    # What each line shows of the process: its command line, only its name, or neither
    # (`ps -o pgid`, `-o pid,user`): a filter on such lines cannot find its own command.
    shows: Literal["args", "comm", "none"]
    prefix: str  # what the columns before the command look like (for `^` anchors)
    restricted: bool  # -C name, -p pid, a bare pid, -u user, --pid...: only some processes


_PS_ARGS = {"args", "cmd", "command", "%a"}
_PS_COMM = {"comm", "ucomm", "ucmd", "fname", "exe", "%c"}
_PS_PREFIX = "user      4242  0.0  0.1  10000  2000 ?        S    10:00   0:00 "
_PS_PIDS = lazy_compile(r"\d+(?:,\d+)*")


def parse_ps(values: Sequence[str], start: int = 0, dynamic: AbstractSet[int] = frozenset(),
             pids: AbstractSet[int] = frozenset()) -> PsCall | None:
    """What ``ps`` prints for each process: the command line (args), only its name, or
    neither. ``dynamic`` are the indices of words that start with a value known only at run
    time (their text is not read as options); ``pids`` those of them that are one value each
    (`"$pid"`, `$!`), which as an operand are a pid list."""
    if ho.basename(values[start]) != "ps":
        return None
    words = list(values[start + 1:])
    formats: list[str] = []
    formats_known = True  # no format word is known only at run time, and no -O defaults
    restricted = False
    args_format = False  # -f, -F, BSD u/v/x formats show the full command line
    i = 0

    def take(rest: str) -> str:
        nonlocal i
        if rest:
            return rest
        i += 1
        return words[i] if i < len(words) else ""

    def take_format(rest: str, preloaded: bool = False) -> None:
        nonlocal formats_known
        formats.extend(re.split(r"[,\s]+", take(rest)))
        if preloaded or (not rest and start + 1 + i in dynamic):
            formats_known = False

    while i < len(words):
        w = words[i]
        if start + 1 + i in dynamic:
            # A value from run time: one pid list when it is one value (`ps -o pgid "$pid"`),
            # otherwise not known (options or pids).
            if start + 1 + i in pids:
                restricted = True
        elif w.startswith("--"):
            name, eq, value = w[2:].partition("=")
            if name in ("format", "cols", "columns", "width", "sort", "headers", "no-headers"):
                if name == "format":
                    if eq:
                        formats.extend(re.split(r"[,\s]+", value))
                    else:
                        take_format("")
            elif name in ("pid", "ppid", "user", "User", "group", "Group", "sid", "tty",
                          "quick-pid", "deselect"):
                restricted = True
                if not eq:
                    take("")
        elif w.startswith("-") and len(w) > 1:
            for k, letter in enumerate(w[1:]):
                rest = w[2 + k:]
                if letter in "oO":
                    take_format(rest, preloaded=letter == "O")
                    break
                if letter in "pCuUgGtsqN":
                    restricted = True
                    take(rest)
                    break
                if letter in "fFlj":
                    args_format = True
        elif _PS_PIDS.fullmatch(w):
            restricted = True  # `ps 4242`: a pid list (procps and the BSDs)
        else:
            # BSD syntax: `aux`, `axo pid,args`, `p 123`.
            for k, letter in enumerate(w):
                rest = w[1 + k:]
                if letter in "oO":
                    take_format(rest, preloaded=letter == "O")
                    break
                if letter in "pqtU":
                    restricted = True
                    take(rest)
                    break
                if letter in "uvxajlsSfe":
                    args_format = True
        i += 1
    names = [f.partition("=")[0].partition(":")[0].lower() for f in formats if f]
    if names:
        if any(n in _PS_ARGS for n in names):
            before = names[: next(k for k, n in enumerate(names) if n in _PS_ARGS)]
            return PsCall("args", "4242 " * len(before), restricted)
        if formats_known and not any(n in _PS_COMM for n in names):
            return PsCall("none", "", restricted)
        return PsCall("comm", "4242 " * max(len(names) - 1, 0), restricted)
    if args_format:
        return PsCall("args", _PS_PREFIX, restricted)
    return PsCall("comm", "4242 ?        00:00:00 ", restricted)


def parse_kill(values: Sequence[str], start: int = 0) -> tuple[str, list[int]] | None:
    """``kill [-s SIG | -SIG] operands``: the signal and the operand indices."""
    if ho.basename(values[start]) != "kill":
        return None
    signal = "TERM"
    i = start + 1
    if i < len(values) and values[i].startswith("-") and values[i] not in ("-s", "-n", "--",
                                                                           "-l", "-L"):
        sig = signal_name(values[i][1:])
        if sig is not None:
            signal = sig
            i += 1
    sc = scan(values, KILL_GRAMMAR, i)
    for opt in sc.options:
        if opt.name in ("-s", "-n", "--signal") and opt.value is not None:
            signal = signal_name(opt.value) or signal
        if opt.name in ("-l", "-L", "--list", "--table"):
            return None
    return signal, list(sc.operands)


_AWK_TERM = lazy_compile(r"\s*(!?)\s*(?:\$0\s*(!?)~\s*)?/((?:[^/\\\n]|\\.)*)/\s*")
_AWK_NEUTRAL = lazy_compile(r"\s*(NR\s*(>|>=|!=)\s*[01]|FNR\s*>\s*1)\s*")


class AwkCall(FrozenRecord):
    filters: tuple[tuple[str, bool], ...]  # (ERE, inverted)
    transforms: bool  # the action prints something other than the line
    understood: bool


def parse_awk_program(program: str) -> AwkCall:
    """The line filters of an awk program of the form ``cond && cond {action}``."""
    text = program.strip()
    brace = text.find("{")
    cond = text if brace < 0 else text[:brace]
    action = None if brace < 0 else text[brace:]
    if action is not None and not action.rstrip().endswith("}"):
        return AwkCall((), True, False)
    if action is not None and text.count("{") > 1:
        return AwkCall((), True, False)
    filters: list[tuple[str, bool]] = []
    understood = True
    if cond.strip():
        for term in cond.split("&&"):
            m = _AWK_TERM.fullmatch(term)
            if m:
                inverted = bool(m.group(1)) != bool(m.group(2))
                filters.append((m.group(3).replace("\\/", "/"), inverted))
            elif not _AWK_NEUTRAL.fullmatch(term):
                understood = False
    transforms = action is not None and not re.fullmatch(
        r"\{\s*(print\s*(\$0)?)?\s*;?\s*\}", action.strip())
    return AwkCall(tuple(filters), transforms, understood)
