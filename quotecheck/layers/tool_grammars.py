"""Option tables of programs that open no layer: the filters and readers a script feeds
(cat, grep, sort, awk's and sed's operands...), the process tools (pgrep/pkill, kill), and the
script interpreters' inline-program options.

The hand-off programs keep their tables with their parsers (`ssh.py`, `wrappers.py`,
`shells.py`, `joins.py`, `awk.py`); these are read by the rules (`rules/runtime/toolcalls.py`,
`layers/stdin_readers.py`) with `argv_options.scan`. A table lists what the readers need: the
options that take a value (so that the value is not taken for a file), and the options that
give a program its pattern or code (so that no operand is). Letters a table does not list scan
as flags.
"""

from __future__ import annotations

from quotecheck.layers.argv_options import Grammar
from quotecheck.records import FrozenRecord

# GNU grep 3.8 (`grep --help`).
GREP_GRAMMAR = Grammar(
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
# procps-ng pgrep/pkill 4.0 (`pgrep --help`, `pkill --help`: `-q, --queue <value>`).
PGREP_GRAMMAR = Grammar(
    short_flags="lavwcfinoxLAhVe",
    short_values="dgGOPstuUFrq",
    long_flags=frozenset({
        "list-name", "list-full", "inverse", "lightweight", "count", "full", "ignore-case",
        "newest", "oldest", "exact", "logpidfile", "ignore-ancestors", "help", "version",
        "echo", "require-handler",
    }),
    long_values=frozenset({
        "delimiter", "pgroup", "group", "older", "parent", "session", "terminal", "euid",
        "uid", "pidfile", "runstates", "cgroup", "ns", "nslist", "signal", "env", "queue",
    }),
    permute=True,
)
# procps-ng kill(1) and the shells' builtin kill.
KILL_GRAMMAR = Grammar(short_flags="lLa", short_values="snq",
                       long_flags=frozenset({"list", "table"}),
                       long_values=frozenset({"signal", "queue", "timeout"}))


class FileReader(FrozenRecord):
    """A program that reads its standard input when no file operand names another input."""

    grammar: Grammar
    leading: int = 0
    """Operands before the files that are not files: grep's pattern, sed's and awk's
    program, jq's filter."""
    program_options: frozenset[str] = frozenset()
    """Options that give the pattern or program instead (`grep -e P`, `sed -f F`): then no
    leading operand is read."""


def _reader(values: str = "", long_values: str = "", leading: int = 0,
            program_options: str = "") -> FileReader:
    """A GNU-style reader (options may follow operands) from its value-taking options."""
    return FileReader(
        Grammar(short_values=values, long_values=frozenset(long_values.split()), permute=True),
        leading, frozenset(program_options.split()))


_GREP_PROGRAM = "-e -f --regexp --file"
_SED_PROGRAM = "-e -f --expression --file"
# egrep and fgrep are `grep -E`/`grep -F`; zgrep hands its options to grep.
_GREP_READER = FileReader(GREP_GRAMMAR, 1, frozenset(_GREP_PROGRAM.split()))

FILE_READERS: dict[str, FileReader] = {
    "cat": _reader(),
    "tac": _reader("s"),
    "nl": _reader("bdfhinsvw"),
    "head": _reader("nc"),
    "tail": _reader("ncs", "pid"),
    "grep": _GREP_READER,
    "egrep": _GREP_READER,
    "fgrep": _GREP_READER,
    "zgrep": _GREP_READER,
    "rg": _reader("efmABCgtT", leading=1, program_options=_GREP_PROGRAM),
    "sed": _reader("efl", leading=1, program_options=_SED_PROGRAM),
    "jq": _reader("f", "arg argjson slurpfile rawfile indent", leading=1),
    "sort": _reader("ktoST", "parallel"),
    "uniq": _reader("fsw"),
    "wc": _reader(),
    "cut": _reader("bcdf"),
    "paste": _reader("d"),
    "fold": _reader("w"),
    "fmt": _reader("w"),
    "rev": _reader(),
    "column": _reader("stc"),
    "od": _reader("AjNtw"),
    "hexdump": _reader("efns"),
    "xxd": _reader("cgls"),
    "strings": _reader("nt"),
    "base64": _reader("w"),
    **{name: _reader() for name in (
        "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "b2sum", "zcat", "bzip2",
        "bunzip2", "xz", "unxz", "diff")},
    "gzip": _reader("S"),
    "gunzip": _reader("S"),
    "zstd": _reader("o"),
    "split": _reader("abln"),
    "iconv": _reader("fto"),
}
"""Readers of their standard input unless a file operand is given (awk's operands are read
from `awk.py`'s grammar, the shells' from `shells.py`'s)."""

INLINE_PROGRAMS: dict[str, tuple[Grammar, frozenset[str]]] = {
    name: (Grammar(short_values=letters), frozenset("-" + c for c in letters))
    for name, letters in (
        ("python", "cm"), ("python3", "cm"), ("perl", "eE"), ("ruby", "e"), ("node", "ep"),
    )
}
"""Interpreters that read their program from standard input unless given a script file or an
inline program: the options that give one (`python3 -c CODE`, `perl -e CODE`)."""
