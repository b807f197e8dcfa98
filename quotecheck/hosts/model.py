"""What a host file hands on: launches of a shell or of a program, mapped into the file."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from quotecheck.parsing.scanner import Problem
from quotecheck.records import FrozenRecord
from quotecheck.sourcemap import compact_offsets


class HostText(FrozenRecord):
    """A string the host builds: its value, where each character came from in the host file,
    and the parts only known when the host runs (an f-string field, a make variable from the
    environment), which hold a stand-in such as ``{host}``."""

    __slots__ = ("dynamic_ranges", "offsets", "quoted_ranges", "value")
    value: str
    offsets: Sequence[int | None]
    dynamic_ranges: tuple[tuple[int, int], ...]
    # dynamic parts made by a quoting function for POSIX sh (`shlex.quote(x)`): one word for
    # the first shell that reads them, and no more than that.
    quoted_ranges: tuple[tuple[int, int], ...]

    def __init__(self, value: str, offsets: Sequence[int | None],
                 dynamic_ranges: tuple[tuple[int, int], ...] = (),
                 quoted_ranges: tuple[tuple[int, int], ...] = ()) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "offsets", compact_offsets(offsets))
        object.__setattr__(self, "dynamic_ranges", dynamic_ranges)
        object.__setattr__(self, "quoted_ranges", quoted_ranges)

    @property
    def dynamic(self) -> bool:
        return bool(self.dynamic_ranges)

    def __add__(self, other: HostText) -> HostText:
        n = len(self.value)
        return HostText(self.value + other.value, (*self.offsets, *other.offsets),
                        (*self.dynamic_ranges, *((a + n, b + n) for a, b in other.dynamic_ranges)),
                        (*self.quoted_ranges, *((a + n, b + n) for a, b in other.quoted_ranges)))


def stand_in(written: str, start: int) -> tuple[str, list[int | None]]:
    """The text that stands for a value known only at run time: ``{name}``, one shell word
    with no quote, blank or metacharacter in it, each character placed in the source."""
    inner = written[1:-1] if written.startswith("{") and written.endswith("}") else \
        written.lstrip("%")
    keep = "".join(c if c.isalnum() or c in "._" else "_" for c in inner[:60]) or "_"
    if written.startswith("{") and written.endswith("}") and len(inner) <= 60:
        return "{" + keep + "}", list(range(start, start + len(written)))
    last = start + max(len(written) - 1, 0)
    return "{" + keep + "}", [start, *(min(start + i, last) for i in range(len(keep))), last]


def cut(text: HostText, a: int, b: int) -> HostText:
    """``text[a:b]``, its run-time and quoted parts with it."""
    def within(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
        return tuple((max(s, a) - a, min(e, b) - a) for s, e in ranges if s < b and a < e)
    return HostText(text.value[a:b], tuple(text.offsets[a:b]), within(text.dynamic_ranges),
                    within(text.quoted_ranges))


def placed(text: HostText, a: int, b: int, value: str, *, run_time: bool = False,
           quoted: bool = False) -> HostText:
    """``value`` put where ``text[a:b]`` stands in the file: its characters on those of the
    span, in order, the rest on the last one (a host's `$$`, a field's value, a stand-in)."""
    places: list[int | None] = [o for o in text.offsets[a:b] if o is not None] or [None]
    offsets = [places[min(k, len(places) - 1)] for k in range(len(value))]
    whole = ((0, len(value)),)
    return HostText(value, offsets, whole if run_time else (), whole if quoted else ())


def run_time_part(text: HostText, a: int, b: int, name: str, *,
                  quoted: bool = False) -> HostText:
    """The stand-in ``{name}`` of a value known only when the host runs, in place of
    ``text[a:b]`` (an expression, a variable reference)."""
    shown, _ = stand_in("{" + name + "}", 0)
    return placed(text, a, b, shown, run_time=True, quoted=quoted)


def splice(text: HostText, pieces: Iterable[tuple[int, int, HostText]]) -> HostText:
    """``text`` with each span ``[a, b)`` of ``pieces`` (in order, apart) replaced."""
    out = HostText("", ())
    at = 0
    for a, b, piece in pieces:
        out = out + cut(text, at, a) + piece
        at = b
    return out + cut(text, at, len(text.value))


def generated(text: str) -> HostText:
    """Text the host adds itself (a separator): it stands nowhere in the file."""
    return HostText(text, (None,) * len(text))


def join_texts(parts: Sequence[HostText], separator: HostText) -> HostText:
    out = HostText("", ())
    for i, part in enumerate(parts):
        out = out + separator + part if i else out + part
    return out


class Launch(FrozenRecord):
    """One place where the host starts a shell or a program.

    ``shell``: the argv before the text when a shell reads ``text`` (``/bin/sh -c``), with
    ``positional`` after it ($0, $1...). ``argv``: the program's argv when no shell runs.
    ``ssh``: the text goes to an ssh server (paramiko's ``exec_command``): the remote login
    shell reads it. ``partial``: the argv holds a part of unknown length (``*args``).
    """

    api: str  # what the file calls: `subprocess.run`, `recipe for build`
    span: tuple[int, int]  # the call, or the recipe line, in the host file
    shell: tuple[str, ...] | None = None
    text: HostText | None = None
    positional: tuple[HostText, ...] = ()
    argv: tuple[HostText, ...] = ()
    ssh: bool = False
    destination: str | None = None  # the ssh server, when the host file names it
    where: str = "local"  # `container:NAME` for a container's command (Compose, Kubernetes)
    partial: bool = False
    # The shell reads ``text`` from a file whose path is the `{0}` of ``shell`` (GitHub
    # Actions), not from its command line.
    reads_file: bool = False
    # The shell's dialect where the argv does not tell it (`unknown`: a Docker image's /bin/sh)
    shell_name: str | None = None
    # Launches of one unit that run one after another, each in a shell of its own (the lines
    # of one make recipe): the same number; None where a launch stands alone.
    group: int | None = None
    # Why what the shell is, is a guess (a Docker image whose /bin/sh is busybox's, not dash):
    # findings in its layers are lowered one severity and say so.
    uncertain: str | None = None
    # The host goes on whatever the launch returns (Ansible's `ignore_errors: true`, a
    # `failed_when: false`): its exit status decides nothing.
    status_ignored: bool = False


class HostReference(FrozenRecord):
    """A reference the host expands before any shell sees the text (make's `$(X)`, `$H`)."""

    span: tuple[int, int]  # in the host file
    name: str  # `H` for `$HOME`, `date +%s` for `$(date +%s)`
    written: str  # as written: `$H`, `$(date +%s)`
    defined: bool  # the file defines it (or it is one of the host's own: `$@`, `$(shell ...)`)
    # Compose: the service's own `environment:` gives the container a value of this name (not
    # Compose's: the variable itself handed through), so the text shows the container's was meant
    container_sets: bool = False


class HostValue(FrozenRecord):
    """A value the host puts into a launch's text or argv at run time (an f-string field)."""

    span: tuple[int, int]  # in the host file
    written: str  # as written there: `{d}`, `%s`, `shlex.quote(d)`
    quoted: bool  # made by a quoting function for POSIX sh (`shlex.quote`)
    outside: bool  # the text shows it comes from outside the program (argv, environment, input)


class HostFile(FrozenRecord):
    format: str  # python, make
    launches: tuple[Launch, ...]
    problems: tuple[Problem, ...] = ()
    references: tuple[HostReference, ...] = ()
    values: tuple[HostValue, ...] = ()
