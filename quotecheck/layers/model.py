"""The layer tree: what each interpretation layer receives and hands on.

A trace is a tree of layers. The root is the local shell reading the input; a command in a shell
layer may open a child layer (ssh sends a string, ``sh -c`` parses one, sudo passes an argv on,
awk reads a program). Every layer knows where its text came from (``origin``), so a finding at
any depth points back at the input.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from quotecheck.parsing.tree import Context, Script, SimpleCommand
from quotecheck.parsing.words import Word
from quotecheck.programs import SHELL_PROGRAMS, Dialect, basename
from quotecheck.records import FrozenRecord, Record
from quotecheck.sourcemap import SourceMap, compact_offsets

if TYPE_CHECKING:
    from quotecheck.hosts.model import HostFile
    from quotecheck.layers.effective import Effective
    from quotecheck.layers.handoff_types import Handoff

LayerKind = Literal["host", "shell", "ssh", "join", "exec", "awk"]


class Arg(FrozenRecord):
    """One argv element as the program receives it (or the word as written, when dynamic)."""

    __slots__ = ("dynamic", "dynamic_ranges", "known", "offsets", "source_span", "value",
                 "word", "written")
    value: str
    dynamic: bool
    word: Word | None  # None for words a layer generates itself
    source_span: tuple[int, int] | None
    # The source offset of each character of ``value`` (a range when consecutive).
    offsets: Sequence[int | None]
    dynamic_ranges: tuple[tuple[int, int], ...]  # parts of ``value`` known only at run time
    # Parts of ``value`` that are the known value of a variable the script set: (start, end,
    # the expansion as written, e.g. `$APP`).
    known: tuple[tuple[int, int, str], ...]
    # The word as written when a known value with a blank or a shell metacharacter was put in:
    # a later layer that parses this text as code is given the expansion, not the value, so
    # that the rules judge `$X` pasted into code (its value they ask of quotecheck.values).
    written: Arg | None

    def __init__(
        self,
        value: str,
        dynamic: bool,
        word: Word | None,
        source_span: tuple[int, int] | None,
        offsets: Sequence[int | None] = (),
        dynamic_ranges: tuple[tuple[int, int], ...] = (),
        known: tuple[tuple[int, int, str], ...] = (),
        written: Arg | None = None,
    ) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "dynamic", dynamic)
        object.__setattr__(self, "word", word)
        object.__setattr__(self, "source_span", source_span)
        # (a non-empty range is compact already)
        object.__setattr__(self, "offsets", offsets if type(offsets) is range and offsets
                           and offsets.step == 1 else compact_offsets(offsets))
        object.__setattr__(self, "dynamic_ranges", dynamic_ranges)
        object.__setattr__(self, "known", known)
        object.__setattr__(self, "written", written)


class CommandView(Record):
    """A simple command of a shell layer with its argv after that layer's expansions."""

    __slots__ = ("__weakref__", "argv", "command", "context", "effective", "handoffs", "opens",
                 "source_span")
    argv: list[Arg]
    command: SimpleCommand
    context: Context
    source_span: tuple[int, int] | None
    opens: list[int]  # ids of the layers this command opens
    # What the command hands on, read once by the trace (rules read it here and never classify
    # the argv again): each hand-off through exec wrappers (`sudo timeout 5 sh -c X`: sudo,
    # timeout, sh), for find every -exec clause and what it runs; indices into ``argv``.
    # Shared by every rule: do not change it.
    handoffs: list[Handoff]
    # The program it ends up running, past in-place builtins and exec wrappers.
    effective: Effective | None

    def __init__(
        self,
        argv: list[Arg],
        command: SimpleCommand,
        context: Context,
        source_span: tuple[int, int] | None,
        opens: list[int] | None = None,
        handoffs: list[Handoff] | None = None,
        effective: Effective | None = None,
    ) -> None:
        self.argv = argv
        self.command = command
        self.context = context
        self.source_span = source_span
        self.opens = [] if opens is None else opens
        self.handoffs = [] if handoffs is None else handoffs
        self.effective = effective

    @property
    def values(self) -> list[str]:
        return [a.value for a in self.argv]

    @property
    def dynamic(self) -> list[int]:
        return [i for i, a in enumerate(self.argv) if a.dynamic]


class Layer(Record):
    id: int
    parent: int | None
    kind: LayerKind
    where: str  # "local" or "remote:<destination>"
    source_span: tuple[int, int] | None
    # What the layer reads: a shell's script, awk's program, the string ssh sends.
    text: str | None
    origin: SourceMap | None
    dynamic_text: bool
    dynamic_ranges: list[tuple[int, int]]  # in ``text``
    # shell layers
    dialect: Dialect | None
    script: Script | None
    commands: list[CommandView]
    process: list[str] | None  # the argv of the process running it, as `ps` shows it
    positional: list[Arg]  # $0 $1 ... for `sh -c STR a0 a1`
    stdin_script: bool  # the shell reads its script from stdin (bash -s, ssh <<EOF)
    # ssh / join layers
    via: str | None  # ssh, watch, su, eval ...
    destination: str | None
    sends: str | None
    options: dict[str, str]  # ssh -o settings, -p, -t ...
    # ssh: the ranges of ``sends`` the local shell fills in at run time (`~`, a glob, `$x`).
    sends_dynamic: list[tuple[int, int]]
    # Why the layer's split of its argv is a guess (ssh `"${SSH_OPTS[@]}" host cmd`), if it is:
    # findings in and below it are lowered one severity and say so.
    uncertain: str | None
    # shell layers: what the script's own assignments make known (trace.LazyValues), or None
    known: Any
    # ssh, join and shell layers: ranges of ``text`` that are the known value of a variable of
    # an outer layer, put in by it: (start, end, the expansion as written, e.g. `$APP`).
    known_values: list[tuple[int, int, str]]
    # exec layers
    argv: list[Arg]
    # awk layers
    assignments: list[tuple[str, str]]  # -v name=value after escapes
    opened_by: CommandView | None
    # The function of the script whose call opened this layer (`remote() at line 1`).
    through: str | None
    # The hand-off that opened it (an ssh layer's SshHandoff, xargs' ExecHandoff...) and the
    # argv it was read from, which its indices are into: the exec layer above's ``argv``, else
    # ``opened_by.argv``. None and [] for the exec layer of an in-place builtin (`exec prog`)
    # and for what an ssh or join layer opens.
    handoff: Handoff | None
    handoff_argv: list[Arg]
    # host layers: the file's format (python, make); ``text`` is the whole file
    format: str | None

    def __init__(
        self,
        id: int,
        parent: int | None,
        kind: LayerKind,
        where: str,
        source_span: tuple[int, int] | None,
        text: str | None = None,
        origin: SourceMap | None = None,
        dynamic_text: bool = False,
        dynamic_ranges: list[tuple[int, int]] | None = None,
        dialect: Dialect | None = None,
        script: Script | None = None,
        commands: list[CommandView] | None = None,
        process: list[str] | None = None,
        positional: list[Arg] | None = None,
        stdin_script: bool = False,
        via: str | None = None,
        destination: str | None = None,
        sends: str | None = None,
        options: dict[str, str] | None = None,
        argv: list[Arg] | None = None,
        assignments: list[tuple[str, str]] | None = None,
        opened_by: CommandView | None = None,
        through: str | None = None,
        sends_dynamic: list[tuple[int, int]] | None = None,
        uncertain: str | None = None,
        known: Any = None,
        known_values: list[tuple[int, int, str]] | None = None,
        handoff: Handoff | None = None,
        handoff_argv: list[Arg] | None = None,
        format: str | None = None,
    ) -> None:
        self.id = id
        self.parent = parent
        self.kind = kind
        self.where = where
        self.source_span = source_span
        self.text = text
        self.origin = origin
        self.dynamic_text = dynamic_text
        self.dynamic_ranges = [] if dynamic_ranges is None else dynamic_ranges
        self.dialect = dialect
        self.script = script
        self.commands = [] if commands is None else commands
        self.process = process
        self.positional = [] if positional is None else positional
        self.stdin_script = stdin_script
        self.via = via
        self.destination = destination
        self.sends = sends
        self.options = {} if options is None else options
        self.argv = [] if argv is None else argv
        self.assignments = [] if assignments is None else assignments
        self.opened_by = opened_by
        self.through = through
        self.sends_dynamic = [] if sends_dynamic is None else sends_dynamic
        self.uncertain = uncertain
        self.known = known
        self.known_values = [] if known_values is None else known_values
        self.handoff = handoff
        self.handoff_argv = [] if handoff_argv is None else handoff_argv
        self.format = format

    def in_dynamic_range(self, offset: int) -> bool:
        """True when ``offset`` of ``text`` lies in one of ``dynamic_ranges``. The ranges are
        merged and sorted on the first question (kept beside the fields, not one of them): a
        rule asks once per word, and scanning every range made a line of n words O(n^2)."""
        merged: tuple[list[int], list[int]] | None = self.__dict__.get("_merged_ranges")
        if merged is None:
            starts: list[int] = []
            ends: list[int] = []
            for a, b in sorted(r for r in self.dynamic_ranges if r[0] < r[1]):
                if ends and a <= ends[-1]:
                    ends[-1] = max(ends[-1], b)
                else:
                    starts.append(a)
                    ends.append(b)
            merged = (starts, ends)
            self.__dict__["_merged_ranges"] = merged
        k = bisect_right(merged[0], offset) - 1
        return k >= 0 and offset < merged[1][k]

    def source_offset(self, index: int) -> int | None:
        """Offset in the original input of character ``index`` of this layer's text."""
        return self.origin[index] if self.origin is not None else None

    def chain(self, layers: list[Layer]) -> list[Layer]:
        """This layer and its ancestors, outermost first."""
        out: list[Layer] = [self]
        while out[0].parent is not None:
            out.insert(0, layers[out[0].parent])
        return out

    def chain_labels(self, layers: list[Layer]) -> tuple[str, ...]:
        """The labels of :meth:`chain`, with the script's functions whose calls opened a
        layer in between: `local bash`, `remote() at line 1`, `ssh`, `remote shell`."""
        out: list[str] = []
        for x in self.chain(layers):
            if x.through:
                out.append(x.through)
            out.append(x.label())
        return tuple(out)

    def label(self) -> str:
        """A short name for layer chains: `local bash -> ssh -> remote sh -> awk`."""
        if self.kind == "shell":
            where = {"local": "local", "container": "container"}.get(
                self.where.partition(":")[0], "remote")
            name: str = self.dialect or "sh"
            if self.process and self.parent is not None:
                prog = basename(self.process[0]).lstrip("-")
                if prog in SHELL_PROGRAMS:
                    name = prog
            if name == "unknown":
                return f"{where} shell"
            return f"{where} {name}"
        if self.kind == "host":
            return f"{self.format} file"
        return self.via or self.kind


class Trace(Record):
    source: str
    layers: list[Layer]
    # Where the script reads a value it set (`$APP` -> shopfront): the expansion's source span
    # and its text; no fix may write the value in place of the expansion.
    known_spans: list[tuple[int, int, tuple[str, ...]]]
    host: HostFile | None  # what the host file's reader found, when the input is one

    def __init__(self, source: str, layers: list[Layer],
                 known_spans: list[tuple[int, int, tuple[str, ...]]] | None = None,
                 host: HostFile | None = None) -> None:
        self.source = source
        self.layers = layers
        self.known_spans = [] if known_spans is None else known_spans
        self.host = host

    @property
    def root(self) -> Layer:
        return self.layers[0]

    def children(self, layer: Layer) -> list[Layer]:
        return [x for x in self.layers if x.parent == layer.id]

    def chain_label(self, layer: Layer) -> str:
        return " -> ".join(layer.chain_labels(self.layers))


def join_args(args: Sequence[Arg]) -> tuple[str, list[int | None], list[tuple[int, int]]]:
    """Join argv elements with single spaces, as ssh, eval and watch do."""
    text: list[str] = []
    offsets: list[int | None] = []
    ranges: list[tuple[int, int]] = []
    at = 0
    for i, a in enumerate(args):
        if i:
            text.append(" ")
            offsets.append(None)
            at += 1
        text.append(a.value)
        offsets.extend(a.offsets)
        ranges.extend((at + s, at + e) for s, e in a.dynamic_ranges)
        at += len(a.value)
    return "".join(text), offsets, ranges
