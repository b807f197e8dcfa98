"""Program texts a layer hands to another language: awk, sed, perl, jq and python programs
given on a command line."""

from __future__ import annotations

from collections.abc import Sequence

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import AWK_PROGRAMS, PROGRAM_TEXT_LANGUAGES
from quotecheck.records import FrozenRecord
from quotecheck.rules.crosslayer.text import basename

PYTHONS = lazy_compile(r"python(?:[23](?:\.\d+)?)?|pypy3?")
PYTHON_NAME_PARTS = ("python", "pypy")  # in every name PYTHONS matches (a rule trigger)


class Program(FrozenRecord):
    language: str  # awk, sed, perl, jq, python
    layer: Layer  # the awk layer, or the shell layer whose command runs sed/perl/jq/python
    text: str
    view: CommandView | None
    sources: frozenset[int]
    jq_names: frozenset[str] = frozenset()
    offsets: tuple[int | None, ...] = ()  # source offset of each character of ``text``

    def index_of(self, source: int) -> int | None:
        try:
            return self.offsets.index(source)
        except ValueError:
            return None


def _perl_programs(values: Sequence[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    i = 1
    while i < len(values):
        v = values[i]
        if v == "--" or not v.startswith("-") or v == "-":
            break
        j = 1
        taken = False
        while j < len(v):
            c = v[j]
            if c in "eE":
                if j + 1 < len(v):
                    out.append((i, j + 1))
                elif i + 1 < len(values):
                    out.append((i + 1, 0))
                    taken = True
                break
            if c in "iFMmIxdDCV":
                break
            if c in "l0":
                j += 1
                while j < len(v) and v[j] in "01234567xX0123456789abcdefABCDEF":
                    j += 1
                continue
            j += 1
        i += 2 if taken else 1
    return out


def _sed_programs(values: Sequence[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    script_given = False
    i = 1
    operand: int | None = None
    while i < len(values):
        v = values[i]
        if v == "--":
            if i + 1 < len(values):
                operand = i + 1
            break
        if v in ("-e", "--expression"):
            if i + 1 < len(values):
                out.append((i + 1, 0))
            script_given = True
            i += 2
            continue
        if v.startswith("--expression="):
            out.append((i, len("--expression=")))
            script_given = True
        elif v in ("-f", "--file", "-l", "--line-length"):
            script_given = script_given or v in ("-f", "--file")
            i += 2
            continue
        elif v.startswith("--file="):
            script_given = True
        elif v.startswith("-e") and not v.startswith("--"):
            out.append((i, 2))
            script_given = True
        elif v.startswith("-f") and not v.startswith("--"):
            script_given = True
        elif v.startswith("-") and len(v) > 1:
            pass
        elif operand is None:
            operand = i
            break
        i += 1
    if not script_given and operand is not None:
        out.append((operand, 0))
    return out


_JQ_TWO = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})
_JQ_ONE = frozenset({"--indent", "-L", "-f", "--from-file"})


def _jq_program(values: Sequence[str]) -> tuple[list[tuple[int, int]], frozenset[str]]:
    names: set[str] = set()
    i = 1
    program: int | None = None
    from_file = False
    while i < len(values):
        v = values[i]
        if v in _JQ_TWO:
            if i + 1 < len(values):
                names.add(values[i + 1])
            i += 3
            continue
        if v in _JQ_ONE:
            from_file = from_file or v in ("-f", "--from-file")
            i += 2
            continue
        if v in ("--args", "--jsonargs"):
            i += 1
            continue
        if v.startswith("-") and len(v) > 1:
            i += 1
            continue
        if program is None and not from_file:
            program = i
        i += 1
    return ([(program, 0)] if program is not None else []), frozenset(names)


def _python_programs(values: Sequence[str]) -> list[tuple[int, int]]:
    i = 1
    while i < len(values):
        v = values[i]
        if v == "-c":
            return [(i + 1, 0)] if i + 1 < len(values) else []
        if v.startswith("-c") and len(v) > 2:
            return [(i, 2)]
        if v in ("-m", "--") or not v.startswith("-"):
            return []
        if v in ("-W", "-X", "-Q"):
            i += 2
            continue
        i += 1
    return []


def programs_in_view(layer: Layer, view: CommandView) -> list[Program]:
    """sed/perl/jq/python program texts given on ``view``'s command line."""
    argv = view.argv
    if not argv or argv[0].dynamic:
        return []
    values = [a.value for a in argv]
    prog = basename(values[0])
    jq_names: frozenset[str] = frozenset()
    named = PROGRAM_TEXT_LANGUAGES.get(prog)
    if named == "sed":
        language, found = "sed", _sed_programs(values)
    elif named == "perl":
        language, found = "perl", _perl_programs(values)
    elif named == "jq":
        language = "jq"
        found, jq_names = _jq_program(values)
    elif PYTHONS.fullmatch(prog):
        language, found = "python", _python_programs(values)
    elif prog in AWK_PROGRAMS:
        # `gawk -e PROGRAM` / `--source=PROGRAM`: no awk layer is opened for these.
        language = "awk"
        h = view.handoffs[0] if view.handoffs else None
        if not isinstance(h, ho.AwkHandoff):
            return []
        found = []
        for opt in h.sources:
            if opt.value_index is not None and opt.value is not None:
                cut = len(values[opt.value_index]) - len(opt.value)
                found.append((opt.value_index, max(cut, 0)))
    else:
        return []
    out: list[Program] = []
    for index, cut in found:
        if index >= len(argv):
            continue
        arg: Arg = argv[index]
        srcs = frozenset(o for o in arg.offsets[cut:] if o is not None)
        out.append(Program(language, layer, arg.value[cut:], view, srcs, jq_names,
                           tuple(arg.offsets[cut:])))
    return out
