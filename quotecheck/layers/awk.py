"""awk's argv: where the program text, -v assignments, -F and operands are.

POSIX awk: `awk [-F fs] [-v var=value]... 'program' | -f progfile... [argument...]`; options
stop at the program text; an operand `name=value` (name an awk identifier) is an assignment
done when awk reaches it; -v values and operand values go through awk's escape processing
(the same as in a string constant), ENVIRON values do not.

Escape processing, verified against mawk 1.3.4 20200120 (Debian's awk and nawk):
`\\\\` `\\"` `\\a \\b \\f \\n \\r \\t \\v`, octal `\\d`..`\\ddd` (value modulo 256:
`\\777` is 0xff), hex `\\xh`/`\\xhh` (at most two digits); any other escape, `\\/` included,
keeps its backslash (`a\\qb` stays `a\\qb`); a trailing backslash is kept.
gawk (manual, "Escape Sequences"; not installed here) differs: `\\/` is `/`, a backslash
before any other character is dropped with a warning (`a\\qb` -> `aqb`), and `-Ft` means a
tab. gawk rules apply when argv[0] is gawk; awk/nawk/mawk use mawk's. `AwkAssignment.ambiguous`
marks values on which the two disagree.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Literal

from quotecheck.layers.argv_options import Grammar, Option, scan
from quotecheck.layers.handoff_types import AwkAssignment, AwkHandoff, Handler, basename
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import AWK_PROGRAMS

Dialect = Literal["mawk", "gawk"]

# One table for every awk: the union of POSIX, mawk (-W) and gawk options, so the program and
# operands are found whatever the implementation (gawk(1) option list).
AWK_GRAMMAR = Grammar(
    short_flags="bcCghIkMnNOPrsStVY",
    short_values="eEfFilvW",
    short_optional="dDLop",
    long_flags=frozenset({
        "characters-as-bytes", "traditional", "copyright", "gen-pot", "help", "bignum",
        "use-lc-numeric", "non-decimal-data", "optimize", "posix", "re-interval", "no-optimize",
        "sandbox", "lint-old", "version", "csv", "trace", "persist", "compat", "usage", "dump",
    }),
    long_values=frozenset({"assign", "field-separator", "file", "source", "include", "load",
                           "exec"}),
    long_optional=frozenset({"dump-variables", "debug", "lint", "pretty-print", "profile"}),
)

_IDENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE = {"\\": "\\", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t", "v": "\v"}
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"


def awk_unescape(raw: str, dialect: Dialect = "mawk") -> str:
    """A -v / operand value after awk's escape processing (see the module docstring). Bytes
    made by octal or hex escapes become the character with that code (latin-1 view)."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 >= len(raw) and dialect == "gawk":
            # gawk 5.2 drops a value's trailing lone backslash (verified here); mawk keeps it.
            i += 1
            continue
        if ch != "\\" or i + 1 >= len(raw):
            out.append(ch)
            i += 1
            continue
        nxt = raw[i + 1]
        if nxt in _SIMPLE:
            out.append(_SIMPLE[nxt])
            i += 2
        elif nxt in _OCTAL:
            j = i + 1
            while j < len(raw) and j < i + 4 and raw[j] in _OCTAL:
                j += 1
            out.append(chr(int(raw[i + 1 : j], 8) % 256))
            i = j
        elif nxt == "x" and i + 2 < len(raw) and raw[i + 2] in _HEX:
            j = i + 2
            while j < len(raw) and j < i + 4 and raw[j] in _HEX:
                j += 1
            out.append(chr(int(raw[i + 2 : j], 16)))
            i = j
        elif dialect == "gawk":
            out.append(nxt)
            i += 2
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def _dialect(name: str) -> Dialect:
    return "gawk" if name == "gawk" else "mawk"


def _assignment(
    argv: tuple[str, ...],
    dynamic: AbstractSet[int],
    index: int,
    text: str,
    kind: Literal["option", "operand"],
    dialect: Dialect,
) -> AwkAssignment | None:
    name, eq, raw = text.partition("=")
    if not eq or not _IDENT.fullmatch(name):
        return None
    value = awk_unescape(raw, dialect)
    other = awk_unescape(raw, "gawk" if dialect == "mawk" else "mawk")
    return AwkAssignment(
        index=index, name=name, raw=raw, value=value, kind=kind,
        ambiguous=value != other or index in dynamic,
    )


def _field_separator(value: str, dialect: Dialect) -> str:
    if value == "t" and dialect == "gawk":
        return "\t"
    return awk_unescape(value, dialect)


def parse_awk(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> AwkHandoff | None:
    name = basename(argv[start])
    dialect = _dialect(name)
    sc = scan(argv, AWK_GRAMMAR, start + 1, end, dynamic)
    problems: list[str] = []
    options: list[Option] = []
    program_files: list[int] = []
    sources: list[Option] = []
    assignments: list[AwkAssignment] = []
    fs_index: int | None = None
    fs_value: str | None = None
    exec_file = False
    stop_at: int | None = None
    for opt in sc.options:
        options.append(opt)
        if opt.value_index is None:
            if opt.name in ("-f", "-v", "-F", "-e", "-E", "-W") and opt.value is None:
                problems.append(f"{name}: option {opt.name} lacks argument")
            continue
        assert opt.value is not None
        if opt.name in ("-f", "--file"):
            program_files.append(opt.value_index)
        elif opt.name in ("-E", "--exec"):
            program_files.append(opt.value_index)
            exec_file = True
            stop_at = opt.value_index + 1
            break
        elif opt.name in ("-e", "--source"):
            sources.append(opt)
        elif opt.name in ("-v", "--assign"):
            found = _assignment(argv, dynamic, opt.value_index, opt.value, "option", dialect)
            if found is None:
                problems.append(f"{name}: improper assignment: -v {opt.value}")
            else:
                assignments.append(found)
        elif opt.name in ("-F", "--field-separator"):
            fs_index = opt.value_index
            fs_value = _field_separator(opt.value, dialect)
        elif opt.name == "-W" and opt.value.startswith("e"):
            # mawk `-W exec FILE` (also `-We FILE`, `-W exec=FILE`): FILE is the program and
            # the last option (verified with mawk 1.3.4).
            if "=" in opt.value:
                program_files.append(opt.value_index)
                stop_at = opt.value_index + 1
            elif opt.value_index + 1 < end:
                program_files.append(opt.value_index + 1)
                stop_at = opt.value_index + 2
            break
    if sc.has("--help", "--version", "--usage", "--copyright", "-V"):
        return None
    if any(o.name == "-W" and o.value and o.value.startswith(("v", "u", "h")) for o in options):
        return None  # -W version / usage / help
    operands = sc.operands if stop_at is None else tuple(range(stop_at, end))
    program: int | None = None
    if not program_files and not sources:
        if not operands:
            problems.append(f"{name}: no program text")
        else:
            program, operands = operands[0], operands[1:]
    for k in operands:
        if exec_file and dialect == "gawk":
            break  # gawk -E: `name=value` operands are file names
        found = _assignment(argv, dynamic, k, argv[k], "operand", dialect)
        if found is not None:
            assignments.append(found)
    return AwkHandoff(
        argv=argv,
        implementation=name,
        program=program,
        program_files=tuple(program_files),
        sources=tuple(sources),
        assignments=tuple(assignments),
        field_separator=fs_index,
        field_separator_value=fs_value,
        operands=tuple(operands),
        options=tuple(options),
        uncertain=sc.uncertain or (program is not None and program in dynamic),
        problems=tuple(problems),
    )


HANDLERS: dict[str, Handler] = {
    name: parse_awk for name in AWK_PROGRAMS
}
