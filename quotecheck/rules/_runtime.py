"""Run-time behaviour shared by the QC2xx rules: process patterns, kill pipelines, fds, lists.

What this module knows, and where each fact comes from (verified here with GNU grep 3.8,
procps-ng 4.0.2, bash 5.2.15, dash 0.5.12 and OpenSSH 9.2 unless noted):

- ``grep`` patterns are POSIX basic regular expressions with the GNU extensions ``\\|``, ``\\+``,
  ``\\?``, ``\\<``, ``\\>``, ``\\b``, ``\\w``...; ``-E`` extended, ``-F`` fixed strings. A newline
  in a pattern separates several patterns. ``pgrep``/``pkill`` compile their pattern with
  ``regcomp(REG_EXTENDED)``. ``translate`` turns both into Python ``re`` patterns (tested against
  the real grep with generated patterns).
- ``ps`` (args columns) and ``pgrep -f`` see a process's argv joined with single spaces, with a
  newline shown as a space and every other control character (tab, CR, DEL...) as ``?``
  (``render_cmdline``). So the whole text of a ``sh -c`` script is in its shell's command line.
- bash runs the last simple command of a ``-c`` string with ``exec`` (the shell is replaced):
  after ``;``, a newline, or in a lone ``&&``/``||`` list, but not when the command has a
  redirection, sits in ``{ }``, a pipeline or after ``&``, when a trap is set, or when anything
  but one newline, ``;`` or a comment follows it. Script files never do this; dash never does.
- A background job (``&``) of a non-interactive shell reads /dev/null; sshd keeps a session open
  until the job's stdout and stderr are closed. stdin does not matter (verified: a job holding
  the channel's stdin as fd 0 does not delay ssh).
"""

from __future__ import annotations

import re
import shlex
import warnings
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Literal

from quotecheck.layers import handoff as ho
from quotecheck.layers.grammar import Grammar, scan
from quotecheck.layers.model import Arg, CommandView, Layer, Trace
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Node,
    Pipeline,
    Redirect,
    Script,
    SimpleCommand,
)
from quotecheck.positions import LineIndex
from quotecheck.rules.api import CheckContext

Syntax = Literal["basic", "extended", "fixed", "perl"]


# ----------------------------------------------------------------------------------------------
# POSIX regular expressions -> Python re
# ----------------------------------------------------------------------------------------------


class UnsupportedPattern(ValueError):
    """A pattern the translator does not model (or that the real tool rejects)."""


_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_CLASSES: dict[str, str] = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "0-9A-Za-z",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "punct": "".join("\\" + c if c in "\\]^-[" else c for c in _PUNCT),
    "print": "\\x20-\\x7e",
    "graph": "\\x21-\\x7e",
    "cntrl": "\\x00-\\x1f\\x7f",
    "xdigit": "0-9A-Fa-f",
}
_INTERVAL_ERE = re.compile(r"\{(\d+)(,(\d*))?\}")
_INTERVAL_BRE = re.compile(r"\\\{(\d+)(,(\d*))?\\\}")
_SPECIAL_ESCAPES = {
    "w": r"\w", "W": r"\W", "s": r"\s", "S": r"\S", "b": r"\b",
    "<": r"\b(?=\w)", ">": r"\b(?<=\w)", "`": r"\A", "'": r"\Z",
}
_MAX_REPEAT = 255  # RE_DUP_MAX in glibc is 0x7fff; keep Python's compile cheap


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def _bracket(p: str, i: int) -> tuple[str, int]:
    """Translate the bracket expression whose body starts at ``p[i]`` (after ``[``)."""
    n = len(p)
    negate = i < n and p[i] == "^"
    if negate:
        i += 1
    items: list[tuple[str, str]] = []  # ("char", c) or ("class", python text)
    first = True
    while True:
        if i >= n:
            raise UnsupportedPattern("unmatched [")
        c = p[i]
        if c == "]" and not first:
            i += 1
            break
        if c == "[" and i + 1 < n and p[i + 1] in ":=.":
            kind = p[i + 1]
            end = p.find(kind + "]", i + 2)
            if end < 0:
                raise UnsupportedPattern("unterminated [: :] [= =] or [. .]")
            name = p[i + 2:end]
            i = end + 2
            if kind == ":":
                if name not in _CLASSES:
                    raise UnsupportedPattern(f"unknown class [:{name}:]")
                items.append(("class", _CLASSES[name]))
            else:
                if len(name) != 1:
                    raise UnsupportedPattern("multi-character collating element")
                items.append(("char", name))
        else:
            items.append(("char", c))
            i += 1
        first = False
    out: list[str] = []
    k = 0
    while k < len(items):
        kind, value = items[k]
        if (kind == "char" and k + 2 < len(items) and items[k + 1] == ("char", "-")
                and items[k + 2][0] == "char"):
            lo, hi = value, items[k + 2][1]
            if ord(lo) > ord(hi):
                raise UnsupportedPattern("invalid range end")
            out.append(f"{_class_char(lo)}-{_class_char(hi)}")
            k += 3
            continue
        out.append(value if kind == "class" else _class_char(value))
        k += 1
    return "[" + ("^" if negate else "") + "".join(out) + "]", i


class _Emitter:
    """Output tokens with enough structure to apply a quantifier to the last atom."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.atom: int | None = None  # index in ``out`` where the last atom starts
        self.quantified = False
        self.groups: list[int] = []
        self.closed_groups = 0

    def atom_text(self, text: str) -> None:
        self.atom = len(self.out)
        self.quantified = False
        self.out.append(text)

    def anchor(self, text: str) -> None:
        self.atom = None
        self.out.append(text)

    def open_group(self) -> None:
        self.groups.append(len(self.out))
        self.atom = None
        self.out.append("(")

    def close_group(self) -> None:
        if not self.groups:
            raise UnsupportedPattern("unmatched )")
        start = self.groups.pop()
        self.out.append(")")
        self.closed_groups += 1
        self.atom = start
        self.quantified = False

    def alternate(self) -> None:
        self.atom = None
        self.out.append("|")

    def quantify(self, q: str) -> None:
        if self.atom is None:
            raise UnsupportedPattern("quantifier without an atom")
        if self.quantified:
            # ERE `a+*` is (a+)*; Python rejects a repeated repeat: group what came before.
            body = "".join(self.out[self.atom:])
            del self.out[self.atom:]
            self.out.append("(?:" + body + ")")
        self.out.append(q)
        self.quantified = True

    def text(self) -> str:
        if self.groups:
            raise UnsupportedPattern("unmatched (")
        return "".join(self.out)


def _interval(m: re.Match[str]) -> str:
    lo = int(m.group(1))
    hi = m.group(3)
    if lo > _MAX_REPEAT or (hi and int(hi) > _MAX_REPEAT):
        raise UnsupportedPattern("repeat count too large")
    if hi is not None and hi != "" and int(hi) < lo:
        raise UnsupportedPattern("invalid interval")
    if m.group(2) is None:
        return "{" + str(lo) + "}"
    return "{" + str(lo) + "," + (hi or "") + "}"


def _backref(em: _Emitter, digit: str) -> None:
    if int(digit) > em.closed_groups:
        raise UnsupportedPattern("back reference to a group not closed yet")
    em.atom_text("\\" + digit)


def _bre(p: str) -> str:
    em = _Emitter()
    n = len(p)
    i = 0
    at_start = True  # start of the RE, after \( or \|: `*` is literal, `^` an anchor
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise UnsupportedPattern("trailing backslash")
            d = p[i + 1]
            if d == "{":
                m = _INTERVAL_BRE.match(p, i)
                if m is None or at_start:
                    raise UnsupportedPattern("invalid \\{ \\}")
                em.quantify(_interval(m))
                i = m.end()
                at_start = False
                continue
            i += 2
            if d == "(":
                em.open_group()
                at_start = True
            elif d == ")":
                em.close_group()
                at_start = False
            elif d == "|":
                em.alternate()
                at_start = True
            elif d in "+?":
                if at_start:
                    raise UnsupportedPattern("leading \\+ or \\?")
                em.quantify(d)
            elif d in "123456789":
                _backref(em, d)
                at_start = False
            elif d == "B":
                raise UnsupportedPattern("\\B differs from Python's at the line's edges")
            elif d in _SPECIAL_ESCAPES:
                em.anchor(_SPECIAL_ESCAPES[d]) if d in "b<>`'" else em.atom_text(
                    _SPECIAL_ESCAPES[d])
                at_start = False
            else:
                em.atom_text(re.escape(d))
                at_start = False
            continue
        if c == "[":
            text, i = _bracket(p, i + 1)
            em.atom_text(text)
            at_start = False
            continue
        i += 1
        if c == "*":
            if at_start:
                em.atom_text(r"\*")
                at_start = False
            else:
                em.quantify("*")
            continue
        if c == "^":
            if at_start and em.out[-1:] != ["^"]:
                em.anchor("^")  # still at the start: `^*` is a literal star
            else:
                em.atom_text(r"\^")
                at_start = False
            continue
        if c == "$":
            if i == n or p.startswith("\\)", i) or p.startswith("\\|", i):
                em.anchor(r"\Z")
            elif i < n and p[i] in "|)":
                # GNU grep reads `$|*` and `$)*` as matching every line: not modelled.
                raise UnsupportedPattern("$ before | or ) in a basic regex")
            else:
                em.atom_text(r"\$")
            at_start = False
            continue
        em.atom_text("." if c == "." else re.escape(c))
        at_start = False
    return em.text()


def _ere(p: str) -> str:
    em = _Emitter()
    n = len(p)
    i = 0
    at_start = True
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise UnsupportedPattern("trailing backslash")
            d = p[i + 1]
            i += 2
            if d in "123456789":
                _backref(em, d)
            elif d == "B":
                raise UnsupportedPattern("\\B differs from Python's at the line's edges")
            elif d in _SPECIAL_ESCAPES:
                em.anchor(_SPECIAL_ESCAPES[d]) if d in "b<>`'" else em.atom_text(
                    _SPECIAL_ESCAPES[d])
            else:
                em.atom_text(re.escape(d))
            at_start = False
            continue
        if c == "[":
            text, i = _bracket(p, i + 1)
            em.atom_text(text)
            at_start = False
            continue
        if c == "{":
            m = _INTERVAL_ERE.match(p, i)
            if m is None or at_start or em.atom is None:
                raise UnsupportedPattern("{ that is not an interval")
            em.quantify(_interval(m))
            i = m.end()
            continue
        i += 1
        if c in "*+?":
            if at_start or em.atom is None:
                raise UnsupportedPattern("quantifier without an atom")
            em.quantify(c)
        elif c == "(":
            em.open_group()
            at_start = True
            continue
        elif c == ")":
            em.close_group()
        elif c == "|":
            em.alternate()
            at_start = True
            continue
        elif c == "^":
            em.anchor("^")
            continue
        elif c == "$":
            em.anchor(r"\Z")
        else:
            em.atom_text("." if c == "." else re.escape(c))
        at_start = False
    return em.text()


def translate(pattern: str, syntax: Syntax = "basic", *, ignore_case: bool = False,
              word: bool = False, line: bool = False) -> re.Pattern[str]:
    """A Python regex matching the same lines as ``grep`` (or ``pgrep`` for "extended").

    A newline in ``pattern`` separates alternatives, as in grep. Raises ``UnsupportedPattern``
    for what is not modelled (and for patterns the real tools reject).
    """
    parts: list[str] = []
    pieces = pattern.split("\n")
    for piece in pieces:
        if syntax == "fixed":
            body = re.escape(piece)
        elif syntax == "perl":
            body = piece
        elif syntax == "extended":
            body = _ere(piece)
        else:
            body = _bre(piece)
        if len(pieces) > 1 and re.search(r"\\[1-9]", body):
            raise UnsupportedPattern("back references with several patterns")
        if word:
            body = r"(?<![0-9A-Za-z_])(?:" + body + r")(?![0-9A-Za-z_])"
        if line:
            body = r"^(?:" + body + r")\Z"
        parts.append(body)
    text = parts[0] if len(parts) == 1 else "|".join("(?:" + x + ")" for x in parts)
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    try:
        with warnings.catch_warnings():
            # `[[` in a bracket expression: Python warns that it may one day mean a nested set.
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(text, flags)
    except (re.error, OverflowError, RecursionError) as exc:
        raise UnsupportedPattern(str(exc)) from exc


# ----------------------------------------------------------------------------------------------
# Process command lines
# ----------------------------------------------------------------------------------------------


def render_cmdline(argv: Sequence[str]) -> str:
    """The command line as ``ps`` (args) and ``pgrep -f`` show it: same length as the join."""
    joined = " ".join(argv)
    return "".join(" " if ch == "\n" else "?" if (ord(ch) < 32 or ord(ch) == 127) else ch
                   for ch in joined)


def comm_name(argv: Sequence[str]) -> str | None:
    """The process name (``comm``, 15 bytes) ``pgrep`` without ``-f`` and ``ps -e`` show."""
    if not argv or argv[0].startswith("<"):
        return None
    return argv[0].rsplit("/", 1)[-1].lstrip("-")[:15]


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    one = text.replace("\n", "\\n").replace("\t", "\\t")
    return one if len(one) <= limit else one[: limit - 1] + "…"


def show_argv(argv: Sequence[str], limit: int = 70) -> str:
    """A process argv as a reader would type it, shortened."""
    words = [argv[0]] + [shlex.quote(a) for a in argv[1:]] if argv else []
    return short(" ".join(words), limit)


# ----------------------------------------------------------------------------------------------
# Tool calls: grep, pgrep/pkill, ps, kill, awk
# ----------------------------------------------------------------------------------------------

_GREP = Grammar(
    short_flags="EFGPiyvwxcLloqsbHhnTZzUaIrRu",
    short_values="efmABCdD",
    long_flags=frozenset({
        "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "ignore-case",
        "no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count",
        "files-with-matches", "files-without-match", "only-matching", "quiet", "silent",
        "no-messages", "byte-offset", "with-filename", "no-filename", "line-number",
        "initial-tab", "null", "null-data", "text", "recursive", "dereference-recursive",
        "line-buffered", "binary",
    }),
    long_values=frozenset({
        "regexp", "file", "max-count", "after-context", "before-context", "context",
        "devices", "directories", "label", "binary-files", "include", "exclude",
        "exclude-dir", "exclude-from", "group-separator",
    }),
    long_optional=frozenset({"color", "colour"}),
    permute=True,
)
_PGREP = Grammar(
    short_flags="lavwcfinoxLAhVe",
    short_values="dgGOPstuUFr",
    long_flags=frozenset({
        "list-name", "list-full", "inverse", "lightweight", "count", "full", "ignore-case",
        "newest", "oldest", "exact", "logpidfile", "ignore-ancestors", "help", "version",
        "echo", "queue", "require-handler",
    }),
    long_values=frozenset({
        "delimiter", "pgroup", "group", "older", "parent", "session", "terminal", "euid",
        "uid", "pidfile", "runstates", "cgroup", "ns", "nslist", "signal", "env",
    }),
    permute=True,
)
_KILL = Grammar(short_flags="lLa", short_values="snq", long_flags=frozenset({"list", "table"}),
                long_values=frozenset({"signal", "queue", "timeout"}))

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


@dataclass(frozen=True)
class GrepCall:
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

    def regex(self) -> re.Pattern[str]:
        if self.from_file or not self.patterns:
            raise UnsupportedPattern("patterns come from a file")
        return translate("\n".join(self.patterns), self.syntax, ignore_case=self.ignore_case,
                         word=self.word, line=self.line)


def parse_grep(values: Sequence[str], start: int = 0) -> GrepCall | None:
    """Options of ``grep``/``egrep``/``fgrep`` at ``values[start]``."""
    name = ho.basename(values[start])
    syntax: Syntax = {"egrep": "extended", "fgrep": "fixed"}.get(name, "basic")  # type: ignore[assignment]
    if name not in ("grep", "egrep", "fgrep"):
        return None
    sc = scan(values, _GREP, start + 1)
    patterns: list[str] = []
    indices: list[int] = []
    flags = {"i": False, "v": False, "w": False, "x": False, "c": False, "q": False}
    from_file = False
    long_map = {"--extended-regexp": "-E", "--fixed-strings": "-F", "--basic-regexp": "-G",
                "--perl-regexp": "-P", "--ignore-case": "-i", "--invert-match": "-v",
                "--word-regexp": "-w", "--line-regexp": "-x", "--count": "-c",
                "--quiet": "-q", "--silent": "-q", "--regexp": "-e", "--file": "-f",
                "--no-ignore-case": "+i", "--files-with-matches": "-l",
                "--files-without-match": "-L"}
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
        elif o in ("-v", "-w", "-x", "-c", "-q"):
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
                    flags["w"], flags["x"], flags["c"], flags["q"], reads_stdin, from_file)


@dataclass(frozen=True)
class PgrepCall:
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
    sc = scan(values, _PGREP, first)
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


@dataclass(frozen=True)
class PsCall:
    shows: Literal["args", "comm"]
    prefix: str  # what the columns before the command look like (for `^` anchors)
    restricted: bool  # -C name, -p pid, -u user, --pid...: only some processes listed


_PS_ARGS = {"args", "cmd", "command"}
_PS_COMM = {"comm", "ucomm", "ucmd", "fname", "exe"}
_PS_PREFIX = "user      4242  0.0  0.1  10000  2000 ?        S    10:00   0:00 "


def parse_ps(values: Sequence[str], start: int = 0) -> PsCall | None:
    """What ``ps`` prints for each process: the command line (args) or only its name."""
    if ho.basename(values[start]) != "ps":
        return None
    words = list(values[start + 1:])
    formats: list[str] = []
    restricted = False
    args_format = False  # -f, -F, BSD u/v/x formats show the full command line
    i = 0

    def take(rest: str) -> str:
        nonlocal i
        if rest:
            return rest
        i += 1
        return words[i] if i < len(words) else ""

    while i < len(words):
        w = words[i]
        if w.startswith("--"):
            name, eq, value = w[2:].partition("=")
            if name in ("format", "cols", "columns", "width", "sort", "headers", "no-headers"):
                if name == "format":
                    formats.extend(re.split(r"[,\s]+", value if eq else take("")))
            elif name in ("pid", "ppid", "user", "User", "group", "Group", "sid", "tty",
                          "quick-pid", "deselect"):
                restricted = True
                if not eq:
                    take("")
        elif w.startswith("-") and len(w) > 1:
            for k, letter in enumerate(w[1:]):
                rest = w[2 + k:]
                if letter in "oO":
                    formats.extend(re.split(r"[,\s]+", take(rest)))
                    break
                if letter in "pCuUgGtsqN":
                    restricted = True
                    take(rest)
                    break
                if letter in "fFlj":
                    args_format = True
        else:
            # BSD syntax: `aux`, `axo pid,args`, `p 123`.
            for k, letter in enumerate(w):
                rest = w[1 + k:]
                if letter in "oO":
                    formats.extend(re.split(r"[,\s]+", take(rest)))
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
    sc = scan(values, _KILL, i)
    for opt in sc.options:
        if opt.name in ("-s", "-n", "--signal") and opt.value is not None:
            signal = signal_name(opt.value) or signal
        if opt.name in ("-l", "-L", "--list", "--table"):
            return None
    return signal, list(sc.operands)


_AWK_TERM = re.compile(r"\s*(!?)\s*(?:\$0\s*(!?)~\s*)?/((?:[^/\\\n]|\\.)*)/\s*")
_AWK_NEUTRAL = re.compile(r"\s*(NR\s*(>|>=|!=)\s*[01]|FNR\s*>\s*1)\s*")


@dataclass(frozen=True)
class AwkCall:
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


# ----------------------------------------------------------------------------------------------
# What a command really runs (through wrappers)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Effective:
    """The program a simple command ends up running, through exec-style wrappers."""

    values: tuple[str, ...]
    start: int  # index in ``values`` of the program word
    wrappers: tuple[str, ...]
    exec_builtin: bool  # `exec prog`: the shell itself is replaced
    via_xargs: bool  # the program gets its arguments from stdin (xargs)
    placeholder: str | None = None

    @property
    def name(self) -> str:
        return ho.basename(self.values[self.start]) if self.start < len(self.values) else ""

    @property
    def argv(self) -> tuple[str, ...]:
        return self.values[self.start:]


def effective(values: Sequence[str], dynamic: AbstractSet[int] = frozenset()) -> Effective | None:
    """Follow ``exec``/``command``/``sudo``/``timeout``/``nohup``/``xargs``... to the program."""
    vals = tuple(values)
    i = 0
    exec_builtin = False
    while i < len(vals) and vals[i] in ("exec", "command", "builtin", "noglob"):
        if vals[i] == "exec":
            exec_builtin = True
        i += 1
        while i < len(vals) and vals[i] in ("-p", "-c", "-l", "--"):
            i += 1
        if exec_builtin and i < len(vals) and vals[i] == "-a":
            i += 2
    if i >= len(vals) or i in dynamic:
        return None
    wrappers: list[str] = []
    via_xargs = False
    placeholder: str | None = None
    start = i
    try:
        found = ho.chain(vals[i:], frozenset(d - i for d in dynamic if d >= i))
    except (ValueError, IndexError, KeyError):
        found = []
    for h in found:
        if not isinstance(h, ho.ExecHandoff) or h.prefix or not h.words:
            break
        wrappers.append(h.wrapper)
        if h.wrapper == "xargs":
            via_xargs = True
            placeholder = h.placeholder
        start = i + h.words[0]
    return Effective(vals, start, tuple(wrappers), exec_builtin, via_xargs, placeholder)


def view_effective(view: CommandView) -> Effective | None:
    if not view.argv:
        return None
    return effective(view.values, frozenset(view.dynamic))


# ----------------------------------------------------------------------------------------------
# Script structure: sequences, and-or lists, errexit
# ----------------------------------------------------------------------------------------------


@dataclass
class Slot:
    """Where a node sits in the list of commands it is executed with."""

    script: Script
    items: list[Node]
    ops: list[str]  # ops[i] follows items[i]: ';', '\n', '&', '&&', '||'
    index: int
    top: bool  # the list is the script's top level

    @property
    def item(self) -> Node:
        return self.items[self.index]

    def group(self, index: int | None = None) -> tuple[int, int]:
        """The and-or list (items joined by && / ||) around ``index``: [first, last]."""
        k = self.index if index is None else index
        lo = k
        while lo > 0 and self.ops[lo - 1] in ("&&", "||"):
            lo -= 1
        hi = k
        while hi < len(self.items) - 1 and self.ops[hi] in ("&&", "||"):
            hi += 1
        return lo, hi


def _index(items: Sequence[Node], target: Node) -> int:
    for i, x in enumerate(items):
        if x is target:
            return i
    raise ValueError("node not in list")


def flatten_body(body: Sequence[Node]) -> tuple[list[Node], list[str]]:
    items: list[Node] = []
    ops: list[str] = []
    for node in body:
        if isinstance(node, CommandList):
            for k, item in enumerate(node.items):
                items.append(item)
                op = node.ops[k] if k < len(node.ops) else None
                ops.append(op if op is not None else "\n")
        else:
            items.append(node)
            ops.append("\n")
    return items, ops


def _body_ids(ctx: CheckContext, script: Script) -> frozenset[int]:
    return ctx.memo.get_or_compute("body", script,
                                   lambda: frozenset(id(b) for b in script.body))


def flat_body(ctx: CheckContext, script: Script) -> tuple[list[Node], list[str], dict[int, int]]:
    """``flatten_body`` of a script, with the index of each item, computed once."""
    def make() -> tuple[list[Node], list[str], dict[int, int]]:
        items, ops = flatten_body(script.body)
        return items, ops, {id(n): i for i, n in enumerate(items)}
    return ctx.memo.get_or_compute("flat", script, make)


def local_chain(ctx: CheckContext, view: CommandView) -> tuple[Node, ...]:
    """The nodes from the top of the command's own script down to the command."""
    chain: tuple[Node, ...] = (*view.context.ancestors, view.command)
    body = _body_ids(ctx, view.context.script)
    for k, node in enumerate(chain):
        if id(node) in body:
            return chain[k:]
    return (view.command,)


def slot_of(ctx: CheckContext, view: CommandView, node: Node | None = None) -> Slot | None:
    """The list the command (or its enclosing ``node``) is an item of."""
    script = view.context.script
    chain = local_chain(ctx, view)
    if node is not None:
        for k, n in enumerate(chain):
            if n is node:
                chain = chain[: k + 1]
                break
    for k in range(len(chain) - 2, -1, -1):
        parent = chain[k]
        if isinstance(parent, CommandList):
            if k == 0:
                break
            try:
                idx = _index(parent.items, chain[k + 1])
            except ValueError:
                return None
            ops = [op if op is not None else "\n" for op in parent.ops]
            ops += ["\n"] * (len(parent.items) - len(ops))
            return Slot(script, list(parent.items), ops, idx, False)
        if isinstance(parent, Compound):
            return Slot(script, [chain[k + 1]], ["\n"], 0, False)
    items, ops, where = flat_body(ctx, script)
    target = chain[1] if len(chain) > 1 and isinstance(chain[0], CommandList) else chain[0]
    top_idx = where.get(id(target))
    if top_idx is None:
        return None
    return Slot(script, items, ops, top_idx, True)


def commands_in(node: Node) -> Iterator[SimpleCommand]:
    """Simple commands of ``node`` (not entering substitutions)."""
    if isinstance(node, SimpleCommand):
        yield node
    elif isinstance(node, Pipeline):
        for c in node.commands:
            yield from commands_in(c)
    elif isinstance(node, CommandList):
        for c in node.items:
            yield from commands_in(c)
    elif isinstance(node, Compound):
        for _, part in node.parts:
            yield from commands_in(part)


def views_by_command(layer: Layer) -> dict[int, CommandView]:
    return {id(v.command): v for v in layer.commands}


def set_flags(values: Sequence[str]) -> dict[str, bool]:
    """What ``set ...`` turns on or off: ``{"errexit": True, "pipefail": False}``."""
    out: dict[str, bool] = {}
    letters = {"e": "errexit", "u": "nounset", "x": "xtrace"}
    i = 1
    while i < len(values):
        w = values[i]
        if w == "--" or not w or w[0] not in "-+" or len(w) < 2:
            break
        on = w[0] == "-"
        for ch in w[1:]:
            if ch == "o":
                if i + 1 < len(values):
                    out[values[i + 1]] = on
                    i += 1
            elif ch in letters:
                out[letters[ch]] = on
        i += 1
    return out


def shell_flags(layer: Layer) -> dict[str, bool]:
    """Options the layer's shell was started with (``bash -e -c``, a shebang's ``-e``)."""
    out: dict[str, bool] = {}
    proc = list(layer.process or [])
    if layer.parent is None and layer.text is not None and layer.text.startswith("#!"):
        first = layer.text.split("\n", 1)[0]
        proc = ["sh", *[p for p in first[2:].split()[1:] if p != "-S"]]
    words: list[str] = ["set"]
    i = 1
    while i < len(proc):
        w = proc[i]
        if w in ("-o", "+o") and i + 1 < len(proc):
            words += [w, proc[i + 1]]
            i += 2
            continue
        if len(w) < 2 or w == "--" or w[0] not in "-+" or w.startswith("--"):
            break
        words.append(w[0] + w[1:].replace("c", "").replace("s", "").replace("i", "")
                     .replace("l", ""))
        if "c" in w[1:]:
            break
        i += 1
    out.update(set_flags([x for x in words if x not in ("-", "+")]))
    return out


def layer_position(layer: Layer, script: Script, offset: int) -> int:
    """A position in the layer's own text for ``offset`` in ``script`` (a nested script's
    position is that of its ``$( )``/backticks in the layer's text)."""
    while script is not layer.script and script.text is not (layer.text or ""):
        if script.anchor is None:
            return offset
        offset = script.anchor[0]
        parent = next((v.context.script for v in layer.commands
                       if v.context.script.substitutions.get(script.anchor[0]) is script), None)
        if parent is None or parent is script:
            return offset
        script = parent
    return offset


def _set_points(ctx: CheckContext, layer: Layer) -> tuple[list[int], list[dict[str, bool]]]:
    def make() -> tuple[list[int], list[dict[str, bool]]]:
        points: list[tuple[int, dict[str, bool]]] = []
        for v in layer.commands:
            if not v.argv or v.values[0] != "set" or v.context.in_substitution:
                continue
            flags = set_flags(v.values)
            if flags:
                pos = layer_position(layer, v.context.script, v.command.span[0])
                points.append((pos, flags))
        points.sort(key=lambda p: p[0])
        return [p for p, _ in points], [f for _, f in points]
    return ctx.memo.get_or_compute("set", layer, make)


def option_in_effect(ctx: CheckContext, layer: Layer, offset: int, script: Script,
                     name: str) -> bool:
    """Whether ``set -e`` (name ``errexit``) or ``set -o pipefail`` holds at ``offset``.

    Looks at the shell's own flags and the ``set`` commands of the layer before ``offset``
    (a position in ``script``: the layer's text or a script nested in it).
    """
    state = shell_flags(layer).get(name, False)
    positions, flags = _set_points(ctx, layer)
    upto = bisect_left(positions, layer_position(layer, script, offset))
    for k in range(upto - 1, -1, -1):
        if name in flags[k]:
            return flags[k][name]
    return state


@dataclass
class ScriptIndex:
    """The layer's commands cut from one script, in textual order, found by position."""

    starts: list[int]
    views: list[CommandView]
    by_name: dict[str, list[int]]  # argv[0] -> sorted start positions

    def after(self, pos: int) -> Iterator[CommandView]:
        """Commands starting at or after ``pos``, in order."""
        for k in range(bisect_left(self.starts, pos), len(self.views)):
            yield self.views[k]

    def named(self, name: str, before: int | None = None) -> Iterator[CommandView]:
        """Commands whose argv[0] is ``name`` (starting before ``before``), in order."""
        for start in self.by_name.get(name, []):
            if before is not None and start >= before:
                return
            yield self.views[bisect_left(self.starts, start)]

    def any_named_after(self, name: str, pos: int) -> bool:
        found = self.by_name.get(name, [])
        return bisect_left(found, pos) < len(found)

    def any_named_before(self, names: Sequence[str], pos: int) -> bool:
        return any(self.by_name.get(n, [pos])[0] < pos for n in names)


def script_index(ctx: CheckContext, layer: Layer, script: Script) -> ScriptIndex:
    def make() -> ScriptIndex:
        views = sorted((v for v in layer.commands if v.context.script is script),
                       key=lambda v: v.command.span[0])
        by_name: dict[str, list[int]] = {}
        for v in views:
            if v.argv:
                by_name.setdefault(v.values[0], []).append(v.command.span[0])
        return ScriptIndex([v.command.span[0] for v in views], views, by_name)
    return ctx.memo.get_or_compute(f"index:{id(layer)}", script, make)


def node_text(script: Script, node: Node, limit: int = 60) -> str:
    return short(" ".join(script.text[node.span[0]:node.span[1]].split()), limit)


class Locator:
    """1-based ``L:C`` of input offsets, for messages."""

    def __init__(self, source: str) -> None:
        self.index = LineIndex(source)

    def at(self, offset: int | None) -> str:
        if offset is None:
            return "?"
        line, col = self.index.position(offset)
        return f"{line + 1}:{col + 1}"



# ----------------------------------------------------------------------------------------------
# Process selection (ps | grep ..., pgrep, pkill) and kill sites
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """One line filter applied to the process list."""

    tool: str  # grep, pgrep, pkill, awk
    pattern: str
    regex: re.Pattern[str]
    invert: bool
    syntax: str  # "basic regex", "extended regex", "fixed string"...
    view: CommandView
    arg: Arg | None  # the word holding the pattern (None for awk programs)

    def describe(self) -> str:
        flags = ""
        if self.tool in ("pgrep", "pkill"):
            eff = view_effective(self.view)
            call = parse_pgrep(eff.values, eff.start) if eff is not None else None
            if call is not None:
                flags = "".join(f"-{c} " for c, on in (("f", call.full), ("i", call.ignore_case),
                                                        ("x", call.exact)) if on)
        elif self.tool == "grep":
            eff = view_effective(self.view)
            call2 = parse_grep(eff.values, eff.start) if eff is not None else None
            if call2 is not None:
                flags = "".join(f"-{c} " for c, on in (
                    ("E", call2.syntax == "extended"), ("F", call2.syntax == "fixed"),
                    ("P", call2.syntax == "perl"), ("i", call2.ignore_case),
                    ("w", call2.word), ("x", call2.line)) if on)
        return f"{self.tool} {flags}{'-v ' if self.invert else ''}{shlex.quote(self.pattern)}"


@dataclass(frozen=True)
class Match:
    filter: Filter
    start: int  # in the rendered command line of the process
    end: int
    text: str


@dataclass
class Selector:
    """How a command line picks processes: a pgrep/pkill, or ps followed by filters."""

    source: Literal["ps", "pgrep", "pkill"]
    filters: list[Filter]
    views: list[CommandView]
    ps: PsCall | None = None
    pgrep: PgrepCall | None = None
    uncertain: bool = False
    partial: bool = False  # head/tail/-n/-o: only some of the matches are used
    transformed: bool = False

    def positive(self) -> Filter | None:
        for f in self.filters:
            if not f.invert:
                return f
        return None

    def line_of(self, argv: Sequence[str]) -> tuple[str, int] | None:
        """The text the filters see for a process, and where its command line starts."""
        if self.source == "ps":
            assert self.ps is not None
            if self.ps.shows == "comm":
                name = comm_name(argv)
                return None if name is None else (self.ps.prefix + name, -1)
            return self.ps.prefix + render_cmdline(argv), len(self.ps.prefix)
        assert self.pgrep is not None
        if self.pgrep.full:
            return render_cmdline(argv), 0
        name = comm_name(argv)
        return None if name is None else (name, -1)

    def match(self, argv: Sequence[str],
              blocked: Sequence[tuple[int, int]] = ()) -> Match | None:
        """Whether the process with ``argv`` is selected, and where the pattern matched.

        ``blocked`` are ranges of the command line known only at run time: a match inside
        them does not count.
        """
        got = self.line_of(argv)
        if got is None or not self.filters:
            return None
        line, base = got
        first: Match | None = None
        for f in self.filters:
            found: re.Match[str] | None = None
            for m in f.regex.finditer(line):
                s, e = m.start() - base, m.end() - base
                if base >= 0 and any(a < max(e, s + 1) and s < b for a, b in blocked):
                    continue
                found = m
                break
            if f.invert:
                if f.regex.search(line) is not None:
                    return None
                continue
            if found is None:
                return None
            if first is None:
                s = found.start() - base if base >= 0 else -1
                e = found.end() - base if base >= 0 else -1
                first = Match(f, s, e, found.group(0))
        return first


def _filter_from_grep(view: CommandView, call: GrepCall) -> Filter | None:
    try:
        regex = call.regex()
    except UnsupportedPattern:
        return None
    names = {"basic": "basic regex", "extended": "extended regex", "fixed": "fixed string",
             "perl": "Perl regex"}
    idx = call.pattern_indices[0] if call.pattern_indices else None
    arg = view.argv[idx] if idx is not None and idx < len(view.argv) else None
    return Filter("grep", "\n".join(call.patterns), regex, call.invert, names[call.syntax], view,
                  arg)


_NEUTRAL_STAGES = frozenset({"sort", "uniq", "cat", "tee"})
_TRANSFORM_STAGES = frozenset({"cut", "tr", "sed", "awk", "gawk", "mawk", "nawk", "paste",
                               "column", "grep"})
_PARTIAL_STAGES = frozenset({"head", "tail", "shuf"})


def selector_start(view: CommandView) -> Selector | None:
    """A selector from the first command of a pipeline (``ps ...`` or ``pgrep ...``)."""
    eff = view_effective(view)
    if eff is None or eff.via_xargs:
        return None
    base = eff.start
    values = eff.values
    if eff.name == "ps":
        ps = parse_ps(values, base)
        if ps is None or ps.restricted:
            return None
        return Selector("ps", [], [view], ps=ps)
    if eff.name in ("pgrep", "pkill"):
        call = parse_pgrep(values, base)
        if call is None or call.pattern_index is None:
            return None
        arg = view.argv[call.pattern_index] if call.pattern_index < len(view.argv) else None
        sel = Selector("pgrep" if eff.name == "pgrep" else "pkill", [], [view], pgrep=call)
        if arg is not None and arg.dynamic:
            sel.uncertain = True
        try:
            regex = call.regex()
        except UnsupportedPattern:
            return None
        sel.filters.append(Filter(eff.name, values[call.pattern_index], regex, call.invert,
                                  "extended regex" if call.full else "process name", view, arg))
        sel.partial = call.partial or call.restricted
        return sel
    return None


def extend_selector(sel: Selector, view: CommandView) -> bool:
    """Add one pipeline stage after the selector's start; False when it is not understood."""
    eff = view_effective(view)
    if eff is None:
        sel.uncertain = True
        return False
    name = eff.name
    if name in ("grep", "egrep", "fgrep"):
        call = parse_grep(eff.values, eff.start)
        if call is None or not call.reads_stdin:
            sel.uncertain = True
            return False
        if sel.transformed or sel.source != "ps":
            sel.uncertain = True
            sel.views.append(view)
            return True
        flt = _filter_from_grep(view, call)
        if flt is None:
            sel.uncertain = True
        else:
            if flt.arg is not None and flt.arg.dynamic:
                sel.uncertain = True
            sel.filters.append(flt)
        sel.views.append(view)
        return True
    if name in ("awk", "gawk", "mawk", "nawk"):
        h = None
        try:
            h = ho.classify(eff.values, frozenset(view.dynamic), eff.start)
        except (ValueError, IndexError, KeyError):
            h = None
        if not isinstance(h, ho.AwkHandoff) or h.program is None or h.files():
            sel.uncertain = True
            return False
        prog = parse_awk_program(eff.values[h.program])
        if not prog.understood:
            sel.uncertain = True
        for ere, inverted in prog.filters:
            if sel.transformed or sel.source != "ps":
                sel.uncertain = True
                break
            try:
                regex = translate(ere, "extended")
            except UnsupportedPattern:
                sel.uncertain = True
                continue
            arg = view.argv[h.program] if h.program < len(view.argv) else None
            sel.filters.append(Filter("awk", ere, regex, inverted, "awk regex", view, arg))
        sel.transformed = sel.transformed or prog.transforms
        sel.views.append(view)
        return True
    if name in _PARTIAL_STAGES:
        sel.partial = True
        sel.views.append(view)
        return True
    if name in _NEUTRAL_STAGES:
        sel.views.append(view)
        return True
    if name in _TRANSFORM_STAGES:
        if name == "sed" and any(v.startswith("-n") for v in eff.argv[1:]):
            sel.uncertain = True
        sel.transformed = True
        sel.views.append(view)
        return True
    sel.uncertain = True
    return False


def _kill_in(eff: Effective) -> str | None:
    """The signal when ``eff`` is a kill command (None if it is not, or sends signal 0)."""
    if eff.name == "kill":
        parsed = parse_kill(eff.values, eff.start)
        if parsed is None:
            return None
        return parsed[0]
    return None


@dataclass
class KillSite:
    """A command that kills the processes a selector picked."""

    layer: Layer
    selector: Selector
    killer: CommandView  # pkill, the xargs/kill stage, or the kill taking $(...)
    item: Node  # the node executed as one step (the pipeline, the kill command, the loop)
    signal: str
    how: str  # "pkill", "xargs kill", "kill $(...)", "while read ... kill"
    replaceable: bool  # a lone external command the shell may exec in place


def _stages(node: Node) -> list[Node]:
    return list(node.commands) if isinstance(node, Pipeline) else [node]


def selector_from_stages(stages: Sequence[Node], views: dict[int, CommandView],
                          stop_at_kill: bool) -> tuple[Selector, int] | None:
    if not stages or not isinstance(stages[0], SimpleCommand):
        return None
    first = views.get(id(stages[0]))
    if first is None:
        return None
    sel = selector_start(first)
    if sel is None:
        return None
    k = 1
    while k < len(stages):
        node = stages[k]
        if not isinstance(node, SimpleCommand):
            break
        view = views.get(id(node))
        if view is None:
            break
        eff = view_effective(view)
        if stop_at_kill and eff is not None and eff.via_xargs and eff.name in ("kill",):
            break
        if not extend_selector(sel, view):
            break
        k += 1
    return sel, k


def loop_kill(node: Node, views: dict[int, CommandView]) -> tuple[CommandView, str] | None:
    """A ``while read ...; do kill ...; done`` (or for) loop body's kill command."""
    if not isinstance(node, Compound) or node.kind not in ("while", "until", "for"):
        return None
    for cmd in commands_in(node):
        view = views.get(id(cmd))
        if view is None:
            continue
        eff = view_effective(view)
        if eff is None:
            continue
        sig = _kill_in(eff)
        if sig is not None:
            return view, sig
    return None


def kill_sites(ctx: CheckContext, layer: Layer) -> Iterator[KillSite]:
    """Every place in a shell layer where processes chosen by pattern get a signal."""
    script = layer.script
    if script is None:
        return
    views = views_by_command(layer)
    scripts: list[Script] = [script]
    seen_scripts: set[int] = {id(script)}
    for v in layer.commands:
        s = v.context.script
        if id(s) not in seen_scripts:
            seen_scripts.add(id(s))
            scripts.append(s)
    # Variables assigned from a selector: PIDS=$(pgrep -f x)
    assigned: dict[str, Selector] = {}
    done_views: set[int] = set()
    for view in layer.commands:
        if id(view) in done_views:
            continue
        cmd = view.command
        for a in cmd.assignments:
            for inner in view.context.script.substitutions_in(a.value.span):
                found = _substitution_selector(inner, views)
                if found is not None:
                    assigned[a.name] = found
        eff = view_effective(view)
        if eff is None:
            continue
        chain = local_chain(ctx, view)
        pipeline = next((n for n in reversed(chain[:-1]) if isinstance(n, Pipeline)), None)
        # pkill / pgrep | xargs kill / ps | grep | xargs kill: decided at the first stage.
        if eff.name == "pkill" and not eff.via_xargs:
            sel = selector_start(view)
            call = sel.pgrep if sel is not None else None
            if sel is not None and call is not None and call.signal not in HARMLESS_SIGNALS:
                item = pipeline if pipeline is not None else view.command
                replaceable = pipeline is None and not cmd.redirects
                yield KillSite(layer, sel, view, item, call.signal, "pkill", replaceable)
            continue
        if pipeline is not None and pipeline.commands and pipeline.commands[0] is cmd:
            found_stage = selector_from_stages(pipeline.commands, views, stop_at_kill=True)
            if found_stage is None:
                continue
            sel, k = found_stage
            if k >= len(pipeline.commands):
                continue
            sink = pipeline.commands[k]
            sink_view = views.get(id(sink)) if isinstance(sink, SimpleCommand) else None
            if sink_view is not None:
                sink_eff = view_effective(sink_view)
                if sink_eff is not None and sink_eff.via_xargs:
                    sig = _kill_in(sink_eff)
                    if sig is not None and sig not in HARMLESS_SIGNALS:
                        yield KillSite(layer, sel, sink_view, pipeline, sig,
                                       "xargs " + " ".join(sink_eff.argv), False)
                continue
            loop = loop_kill(sink, views)
            if loop is not None and loop[1] not in HARMLESS_SIGNALS:
                yield KillSite(layer, sel, loop[0], pipeline, loop[1],
                               f"{getattr(sink, 'kind', 'while')} read ... kill", False)
            continue
        # kill $(pgrep ...), kill `ps | grep | awk`, kill $PIDS
        sig = _kill_in(eff)
        if sig is None or sig in HARMLESS_SIGNALS or eff.via_xargs:
            continue
        for w in cmd.words:
            for inner in view.context.script.substitutions_in(w.span):
                sel2 = _substitution_selector(inner, views)
                if sel2 is not None:
                    item = pipeline if pipeline is not None else view.command
                    yield KillSite(layer, sel2, view, item, sig, "kill $(...)",
                                   pipeline is None and not cmd.redirects
                                   and eff.name == "kill" and "/" in eff.values[eff.start])
            for part in w.parts:
                if part.kind == "parameter" and part.name in assigned:
                    item = pipeline if pipeline is not None else view.command
                    yield KillSite(layer, assigned[part.name], view, item, sig,
                                   f"kill ${part.name}", False)
        # for pid in $(pgrep ...); do kill $pid; done
        loop_node = next((n for n in reversed(chain[:-1])
                          if isinstance(n, Compound) and n.kind == "for"), None)
        if loop_node is not None:
            for w in loop_node.words:
                for inner in view.context.script.substitutions_in(w.span):
                    sel3 = _substitution_selector(inner, views)
                    if sel3 is not None:
                        yield KillSite(layer, sel3, view, loop_node, sig, "for ... kill", False)


def _substitution_selector(inner: Script, views: dict[int, CommandView]) -> Selector | None:
    if len(inner.body) != 1:
        return None
    stages = _stages(inner.body[0])
    found = selector_from_stages(stages, views, stop_at_kill=False)
    if found is None:
        return None
    sel, k = found
    if k < len(stages):
        sel.uncertain = True
    return sel


# ----------------------------------------------------------------------------------------------
# Which processes are running the script at the time of the kill
# ----------------------------------------------------------------------------------------------

Alive = Literal["yes", "depends"]
# Layers that put the next shell on another machine or in another pid namespace.
_BOUNDARY_WRAPPERS = frozenset({"docker", "podman", "kubectl", "srun", "nsenter", "lxc-attach",
                                "machinectl", "ssh"})
_TAIL_OK = re.compile(r"[ \t]*;?[ \t]*(#[^\n]*)?\n?")
_EXEC_SHELLS = frozenset({"bash", "zsh"})
_FORK_SHELLS = frozenset({"dash", "ash", "busybox", "posh"})


@dataclass(frozen=True)
class Candidate:
    layer: Layer
    argv: tuple[str, ...]
    alive: Alive
    note: str  # why "depends", or ""


def is_dash_c(layer: Layer) -> bool:
    """The layer's shell got its script as a ``-c`` argument."""
    proc = layer.process or []
    for w in proc[1:]:
        if w == "-c" or (w.startswith("-") and not w.startswith("--") and "c" in w[1:]
                         and "o" not in w[1:]):
            return True
        if not w.startswith(("-", "+")):
            return False
    return False


def shell_program(layer: Layer) -> str:
    """The shell's program name (``bash``, ``sh``...); ``login shell`` when it is not known."""
    proc = layer.process or []
    if not proc:
        return ""
    name = ho.basename(proc[0]).lstrip("-")
    return "login shell" if name.startswith("<") else name


def exec_in_place(layer: Layer, view: CommandView, node: Node | None = None) -> str:
    """Whether the shell replaces itself with the command (``yes``/``no``/``depends``).

    bash (and zsh) exec the last simple command of a ``-c`` string; dash never does.
    """
    if not is_dash_c(layer) or layer.script is None:
        return "no"
    cmd = view.command
    if cmd.redirects or view.context.in_substitution or view.context.background:
        return "no"
    if node is not None and node is not cmd:
        return "no"
    if view.context.script is not layer.script:
        return "no"
    body = layer.script.body
    if not body:
        return "no"
    last = body[-1]
    if last is cmd:
        pass
    elif isinstance(last, CommandList) and last.items and last.items[-1] is cmd:
        seps = [op or "\n" for op in last.ops[: len(last.items) - 1]]
        trailing = last.ops[len(last.items) - 1] if len(last.ops) >= len(last.items) else None
        if trailing not in (None, ";", "\n"):
            return "no"
        if seps and seps[-1] not in (";", "\n") and not all(op in ("&&", "||") for op in seps):
            return "no"
    else:
        return "no"
    text = layer.script.text
    if not _TAIL_OK.fullmatch(text, last.span[1]):
        return "no"
    for v in layer.commands:
        if v.argv and v.values[0] == "trap":
            return "no"
    prog = shell_program(layer)
    if prog in _FORK_SHELLS:
        return "no"
    if prog in _EXEC_SHELLS or (layer.dialect in ("bash", "zsh") and prog not in ("sh",)):
        return "yes"
    return "depends"


def _opening_view(trace: Trace, child: Layer) -> tuple[Layer, CommandView] | None:
    """The shell layer above ``child`` and the command of it that opened ``child``."""
    view = child.opened_by
    p = child.parent
    while p is not None:
        parent = trace.layers[p]
        if parent.kind == "shell":
            return (parent, view) if view is not None else None
        p = parent.parent
    return None


def running_processes(trace: Trace, layer: Layer, site_view: CommandView,
                      replaceable: bool, item: Node) -> list[Candidate]:
    """The shells on the same machine whose processes are alive when the kill runs."""
    out: list[Candidate] = []
    seen: set[tuple[str, ...]] = set()
    if layer.process and not layer.stdin_script:
        verdict = exec_in_place(layer, site_view, item) if replaceable else "no"
        if verdict != "yes":
            note = ""
            if verdict == "depends":
                note = (f"unless the shell ({shell_program(layer) or 'the login shell'}) execs "
                        "the command in place: bash and zsh do for the last command of a -c "
                        "string, dash never does")
            out.append(Candidate(layer, tuple(layer.process),
                                 "depends" if verdict == "depends" else "yes", note))
            seen.add(tuple(layer.process))
    current = layer
    while current.parent is not None:
        # Stop at a machine or namespace boundary between this layer and the next shell up.
        p = trace.layers[current.parent]
        crossed = False
        while p.kind != "shell":
            if p.kind == "ssh" or (p.kind == "exec" and p.via in _BOUNDARY_WRAPPERS):
                crossed = True
                break
            if p.parent is None:
                break
            p = trace.layers[p.parent]
        if crossed or p.kind != "shell":
            break
        opened = _opening_view(trace, current)
        if opened is None:
            break
        parent, view = opened
        if parent.process and not parent.stdin_script:
            verdict = exec_in_place(parent, view)
            if verdict != "yes" and tuple(parent.process) not in seen:
                seen.add(tuple(parent.process))
                note = "" if verdict == "no" else (
                    "unless that shell execs the command in place (bash and zsh do for the "
                    "last command of a -c string)")
                out.append(Candidate(parent, tuple(parent.process),
                                     "depends" if verdict == "depends" else "yes", note))
        current = parent
    return out


def map_match(ctx_layer: Layer, argv: Sequence[str], start: int,
              end: int) -> tuple[int, int] | None:
    """Layer-text positions of a match in the rendered command line ``argv`` (if inside the
    script text the layer reads)."""
    if start < 0 or ctx_layer.text is None:
        return None
    at = 0
    for word in argv:
        if at <= start < at + len(word) + 1:
            if word.endswith(ctx_layer.text) and ctx_layer.text:
                shift = len(word) - len(ctx_layer.text)
                a = start - at - shift
                b = min(end - at - shift, len(ctx_layer.text))
                if a >= 0:
                    return a, max(b, a + 1)
            return None
        at += len(word) + 1
    return None


def blocked_ranges(layer: Layer, argv: Sequence[str]) -> list[tuple[int, int]]:
    """Parts of the rendered command line that are only known at run time."""
    if not layer.dynamic_ranges or layer.text is None:
        return []
    at = 0
    for word in argv:
        if word.endswith(layer.text) and layer.text:
            shift = at + len(word) - len(layer.text)
            return [(a + shift, b + shift) for a, b in layer.dynamic_ranges]
        at += len(word) + 1
    return []


# ----------------------------------------------------------------------------------------------
# File descriptors of background jobs
# ----------------------------------------------------------------------------------------------

FdTable = dict[int, str]  # fd -> "channel", "tty", "file", "pipe", "closed", "local"


def apply_redirects(fds: FdTable, redirects: Sequence[Redirect]) -> FdTable:
    out = dict(fds)
    for r in redirects:
        op = r.op
        if op in ("&>", "&>>") or (op == ">&" and r.fd is None and r.dup_fd is None
                                    and r.target is not None):
            out[1] = out[2] = "file"
            continue
        if op in (">", ">>", ">|", "<>"):
            out[r.fd if r.fd is not None else (0 if op == "<>" else 1)] = "file"
        elif op in ("<", "<<", "<<-", "<<<"):
            out[r.fd if r.fd is not None else 0] = "file"
        elif op in (">&", "<&"):
            fd = r.fd if r.fd is not None else (1 if op == ">&" else 0)
            if r.dup_fd is not None:
                out[fd] = out.get(r.dup_fd, "closed")
            elif r.target is not None and r.target.value == "-":
                out[fd] = "closed"
            elif r.target is not None and r.target.value.endswith("-"):
                src = r.target.value[:-1]
                out[fd] = out.get(int(src), "closed") if src.isdigit() else "file"
            else:
                out[fd] = "file"
    return out


def base_fds(ctx: CheckContext, layer: Layer, tty: bool = False) -> FdTable:
    """stdout/stderr of a shell layer when it starts: the ssh channel for a remote shell."""
    trace = ctx.trace
    if layer.parent is None:
        return {0: "local", 1: "local", 2: "local"}
    parent = trace.layers[layer.parent]
    if parent.kind == "ssh":
        kind = "tty" if tty else "channel"
        return {0: kind, 1: kind, 2: kind}
    opened = _opening_view(trace, layer)
    if opened is None:
        return {0: "local", 1: "local", 2: "local"}
    shell, view = opened
    fds = fds_before(ctx, shell, view)
    return fds_of_command(ctx, fds, view)


def fds_before(ctx: CheckContext, layer: Layer, view: CommandView) -> FdTable:
    """The shell's fds at ``view``: its start, then every earlier ``exec >file``."""
    fds = base_fds(ctx, layer, ssh_tty(ctx.trace, layer))
    if layer.script is None:
        return fds
    pos = layer_position(layer, view.context.script, view.command.span[0])
    for v in script_index(ctx, layer, layer.script).named("exec", pos):
        if (v.values == ["exec"] and not v.context.in_pipeline
                and not any(isinstance(n, Compound) and n.kind == "subshell"
                            for n in v.context.ancestors)):
            fds = apply_redirects(fds, v.command.redirects)
    return fds


def fds_of_command(ctx: CheckContext, fds: FdTable, view: CommandView) -> FdTable:
    """Apply enclosing compound redirects, the pipe, then the command's own redirects."""
    out = dict(fds)
    for node in local_chain(ctx, view)[:-1]:
        if isinstance(node, Compound):
            out = apply_redirects(out, node.redirects)
    where = view.context
    if where.in_pipeline:
        out[0] = "pipe"
        if not where.pipeline_last:
            out[1] = "pipe"
    return apply_redirects(out, view.command.redirects)


def ssh_layer_above(trace: Trace, layer: Layer) -> Layer | None:
    """The nearest ssh layer above ``layer`` (the session it runs in), if any."""
    p = layer.parent
    while p is not None:
        x = trace.layers[p]
        if x.kind == "ssh":
            return x
        p = x.parent
    return None


def ssh_handoff(ssh: Layer) -> ho.SshHandoff | None:
    view = ssh.opened_by
    if view is None:
        return None
    eff = view_effective(view)
    if eff is None:
        return None
    try:
        h = ho.classify(eff.values, frozenset(view.dynamic), eff.start)
    except (ValueError, IndexError, KeyError):
        return None
    return h if isinstance(h, ho.SshHandoff) else None


def ssh_tty(trace: Trace, layer: Layer) -> bool:
    ssh = ssh_layer_above(trace, layer)
    if ssh is None:
        return False
    h = ssh_handoff(ssh)
    return h is not None and h.tty > 0


@dataclass
class Job:
    """A background job: the and-or list run with ``&`` and its simple commands."""

    layer: Layer
    node: Node  # the first item of the and-or list
    last: Node  # its last item (the same node for a single command or pipeline)
    views: list[CommandView] = field(default_factory=list)
    script: Script | None = None

    @property
    def span(self) -> tuple[int, int]:
        return self.node.span[0], self.last.span[1]

    def text(self, limit: int = 50) -> str:
        if self.script is None:
            return ""
        a, b = self.span
        return short(" ".join(self.script.text[a:b].split()), limit)

    def source_span(self) -> tuple[int, int] | None:
        if self.script is None:
            return None
        a, b = self.span
        return self.script.origin.span(a, max(b, a + 1))


def background_jobs(ctx: CheckContext, layer: Layer) -> list[Job]:
    jobs: dict[int, Job] = {}
    order: list[int] = []
    for view in layer.commands:
        if not view.context.background or view.context.in_substitution:
            continue
        found = job_node(ctx, view)
        if found is None:
            continue
        first, last = found
        key = id(first)
        if key not in jobs:
            jobs[key] = Job(layer, first, last, [], view.context.script)
            order.append(key)
        jobs[key].views.append(view)
    return [jobs[k] for k in order]


def job_node(ctx: CheckContext, view: CommandView) -> tuple[Node, Node] | None:
    """The and-or list followed by ``&`` that contains the command: its first and last item."""
    chain = local_chain(ctx, view)
    for k in range(len(chain) - 2, -1, -1):
        parent = chain[k]
        if isinstance(parent, CommandList):
            try:
                idx = _index(parent.items, chain[k + 1])
            except ValueError:
                return None
            j = idx
            while j < len(parent.ops) and parent.ops[j] in ("&&", "||"):
                j += 1
            if j < len(parent.ops) and parent.ops[j] == "&":
                lo = idx
                while lo > 0 and parent.ops[lo - 1] in ("&&", "||"):
                    lo -= 1
                return parent.items[lo], parent.items[j]
    return None


def waits_after(ctx: CheckContext, layer: Layer, job: Job) -> bool:
    """A ``wait`` after the job in the same script (the session is meant to last)."""
    if job.script is None:
        return False
    return script_index(ctx, layer, job.script).any_named_after("wait", job.span[1])



SUCCESS_WORDS = re.compile(
    r"\b(done|ok|okay|success|successful|successfully|succeeded|killed|stopped|started|"
    r"confirmed|complete|completed|deployed|launched|restarted|finished|installed|"
    r"updated|uploaded|created|passed|ready|running|alive)\b|✓|✔",
    re.IGNORECASE,
)
NEGATIVE_WORDS = re.compile(
    r"\b(not|no|fail|failed|failure|error|errors|unable|cannot|can't|couldn't|didn't|"
    r"won't|skip|skipped|skipping|if|unless|whether|maybe|check|usage|warning|warn|"
    r"starting|stopping|killing|launching|deploying|restarting|waiting)\b|\?",
    re.IGNORECASE,
)


def message_text(view: CommandView) -> str | None:
    """The text an ``echo``/``printf`` prints (None for other commands)."""
    if not view.argv:
        return None
    name = view.values[0]
    args = view.values[1:]
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return " ".join(args)
    if name == "printf":
        if args and args[0] == "-v":
            return None
        return " ".join(args)
    return None
