"""Build the layer tree for an input: parse each shell layer, follow every hand-off.

For each simple command of a shell layer the argv is computed (values after quote removal,
dynamic words kept as written), then ``layers.dispatch.classify`` says whether the command opens
another layer; if it does, the child layer's text is assembled from the argv with a source map
back to the input, and the child is analysed the same way. Nothing is ever executed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from quotecheck.layers import dispatch
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer, Trace
from quotecheck.limits import Limits
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import Problem
from quotecheck.parsing.tree import Context, Script, SimpleCommand, walk
from quotecheck.parsing.words import Word
from quotecheck.programs import CONTAINER_RUNNERS, IN_PLACE_BUILTINS, Dialect, shell_dialect
from quotecheck.records import FrozenRecord
from quotecheck.sourcemap import SourceMap

UNKNOWN_LOGIN_SHELL = "<login-shell>"
# Once the time for parsing inner layers is used up, a layer text this short still gets this long.
SMALL_LAYER_TEXT = 4096
SMALL_LAYER_GRACE = 1.0


class Feed(FrozenRecord):
    """Text a layer will read on standard input (a heredoc or herestring), mapped to the source."""

    text: str
    offsets: tuple[int | None, ...]
    dynamic_ranges: tuple[tuple[int, int], ...]
    source_span: tuple[int, int] | None

    def __init__(self, text: str, offsets: tuple[int | None, ...],
                 dynamic_ranges: tuple[tuple[int, int], ...],
                 source_span: tuple[int, int] | None) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "dynamic_ranges", dynamic_ranges)
        object.__setattr__(self, "source_span", source_span)


def build_trace(
    source: str,
    *,
    dialect: str = "bash",
    remote_shell: str | None = None,
    path: str | None = None,
    limits: Limits | None = None,
) -> Trace:
    """Trace ``source`` (a script or one command line) through every layer it opens.

    ``limits`` (default: config.Limits()) bounds the nesting depth, the layer depth and the
    parsing time; what lies past a limit is reported as a QC002 problem of its layer."""
    builder = _Builder(source, remote_shell, limits)
    process = [dialect, path] if path else None
    text, origin = without_crlf(source)
    builder.shell_layer(
        parent=None,
        where="local",
        shell_name=dialect,
        text=text,
        offsets=None,
        process=process,
        source_span=(0, len(source)),
        dynamic_ranges=(),
        depth=0,
        stdin=None,
        origin=origin,
    )
    return Trace(source, builder.layers)


def without_crlf(source: str) -> tuple[str, SourceMap | None]:
    """The text of a CRLF (Windows) file as the LF text its author meant, mapped to the source.

    Read as it is, every ``\r`` ends up in the last word of its line (``do\r`` is no keyword,
    ``"$x"\r`` is another argument): a few spurious findings per line, at positions that were
    still right. The checker says once that the file has CRLF line endings (bash itself does
    read the ``\r``); the layers analyse the text without them, and the map keeps every position
    pointing into the source. ``None`` when there is no CRLF.
    """
    if "\r\n" not in source:
        return source, None
    runs: list[tuple[int, int | None, int]] = []
    at = 0  # index in the text without the \r of each \r\n
    start = 0  # source offset where the current run starts
    cr = source.find("\r\n")
    while cr >= 0:
        # The line and its \n, which maps to the \r: a position at a line's end is then at the
        # same column as in the LF text (the checker extends a span that ends there over the
        # \n as well).
        runs.append((at, start, cr + 1 - start))
        at += cr + 1 - start
        start = cr + 2
        cr = source.find("\r\n", start)
    runs.append((at, start, len(source) - start))
    at += len(source) - start
    return source.replace("\r\n", "\n"), SourceMap(runs, at)


def _from_outer(script: Script, inherited: bytearray) -> bool:
    """A substitution script whose `$(` was filled in by an outer layer."""
    anchor = script.anchor
    return anchor is not None and 0 <= anchor[0] < len(inherited) and bool(inherited[anchor[0]])


def inherit_dynamic(arg: Arg, inherited: bytearray) -> Arg:
    """Mark the parts of ``arg`` whose characters an outer layer fills in at run time."""
    if arg.word is None:
        return arg
    ranges = list(arg.dynamic_ranges)
    at = 0
    hit = False
    for part in arg.word.parts:
        for i, off in enumerate(part.offsets):
            if 0 <= off < len(inherited) and inherited[off]:
                ranges.append((at + i, at + i + 1))
                hit = True
        at += len(part.value)
    if not hit:
        return arg
    return Arg(arg.value, True, arg.word, arg.source_span, arg.offsets, merge_ranges(ranges))


def merge_ranges(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted, non-overlapping, adjacent ranges joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def arg_of(word: Word, script: Script) -> Arg:
    origin = script.origin
    offsets: Sequence[int | None]
    if len(word.parts) == 1:
        offsets = origin.map_offsets(word.parts[0].offsets)
    else:
        offsets = []
        for part in word.parts:
            offsets.extend(origin.map_offsets(part.offsets))
    ranges: list[tuple[int, int]] = []
    at = 0
    for part in word.parts:
        if part.dynamic:
            ranges.append((at, at + len(part.value)))
        at += len(part.value)
    return Arg(word.value, word.dynamic, word, origin.map_span(word.span), offsets, tuple(ranges))


class _Builder:
    def __init__(self, source: str, remote_shell: str | None,
                 limits: Limits | None = None) -> None:
        self.source = source
        self.remote_shell = remote_shell
        self.layers: list[Layer] = []
        # Nesting depth, layer depth, parsing time (config.Limits; the defaults unless given).
        self.limits = limits if limits is not None else Limits()
        # Time budgets for parsing: one for the input's own text, one shared by every layer it
        # hands text on to (one per layer would be multiplied by many ssh commands each
        # sending a hard-to-parse string; one for all would leave nothing for the layers of a
        # long script).
        self.deadline = time.monotonic() + self.limits.parse_time
        self.inner_deadline: float | None = None

    def new_layer(self, layer: Layer) -> Layer:
        layer.id = len(self.layers)
        self.layers.append(layer)
        return layer

    # -- shell layers ------------------------------------------------------------------------

    def shell_layer(
        self,
        *,
        parent: int | None,
        where: str,
        shell_name: str,
        text: str,
        offsets: Sequence[int | None] | None,
        process: list[str] | None,
        source_span: tuple[int, int] | None,
        dynamic_ranges: Sequence[tuple[int, int]],
        depth: int,
        stdin: Feed | None,
        positional: Sequence[Arg] = (),
        stdin_script: bool = False,
        opened_by: CommandView | None = None,
        origin: SourceMap | None = None,
    ) -> Layer:
        dialect = shell_dialect(shell_name)
        if origin is None:
            origin = SourceMap.identity(len(text)) if offsets is None else \
                SourceMap.from_offsets(offsets)
        layer = self.new_layer(Layer(
            id=-1, parent=parent, kind="shell", where=where, source_span=source_span, text=text,
            origin=origin, dynamic_text=bool(dynamic_ranges),
            dynamic_ranges=list(dynamic_ranges), dialect=dialect, process=process,
            positional=list(positional), stdin_script=stdin_script, opened_by=opened_by,
        ))
        # Unknown dialects are parsed as bash (the superset); rules judge portability.
        if parent is None:
            deadline = self.deadline
        else:
            now = time.monotonic()
            if self.inner_deadline is None:
                self.inner_deadline = now + self.limits.parse_time
            deadline = self.inner_deadline
            if deadline <= now and len(text) <= SMALL_LAYER_TEXT:
                # One huge layer (a 100,000-line script fed to `ssh h bash -s`) must not leave
                # `ssh h "echo $HOME"` unanalysed: short texts still get a moment each.
                deadline = now + min(SMALL_LAYER_GRACE, self.limits.parse_time)
        script = parse_script(text, "bash" if dialect == "unknown" else dialect, origin,
                              max_depth=self.limits.max_nesting,
                              time_limit=self.limits.parse_call_time, deadline=deadline)
        layer.script = script
        aliases = Aliases(dialect)
        # Characters an outer layer expands at run time stay unknown here, quoted or not.
        inherited = bytearray(len(text))
        for a, b in dynamic_ranges:
            inherited[max(a, 0):max(min(b, len(text)), 0)] = b"\x01" * (
                max(min(b, len(text)), 0) - max(a, 0))
        for command, context in walk(script):
            if dynamic_ranges and context.in_substitution and context.script.text is text and \
                    _from_outer(context.script, inherited):
                # `ssh h "cd $(pwd)"`: the remote shell receives pwd's output, not `$(pwd)`;
                # the text is only a stand-in for a value, not commands of this layer.
                continue
            args = [arg_of(w, context.script) for w in command.words]
            if dynamic_ranges and context.script.text is text:
                args = [inherit_dynamic(a, inherited) for a in args]
            view = CommandView(
                aliases.expand(command, args),
                command,
                context,
                context.script.origin.map_span(command.span),
            )
            aliases.learn(view.argv)
            layer.commands.append(view)
            own = self.stdin_of(command, context.script)
            self.follow(layer, view, view.argv, depth, own or stdin, where)
        return layer

    def stdin_of(self, command: SimpleCommand, script: Script) -> Feed | None:
        """The heredoc or herestring a command reads, as a feed (the last one wins, as in sh)."""
        feed: Feed | None = None
        origin = script.origin
        for r in command.redirects:
            if r.fd not in (None, 0):
                continue
            word: Word | None = None
            suffix = ""
            if r.heredoc is not None:
                word = r.heredoc.body
            elif r.op == "<<<" and r.target is not None:
                word, suffix = r.target, "\n"
            elif r.op == "<":
                feed = None  # a file: its content is unknown
                continue
            if word is None:
                continue
            arg = arg_of(word, script)
            feed = Feed(
                arg.value + suffix,
                (*arg.offsets, *([None] * len(suffix))),
                arg.dynamic_ranges,
                origin.map_span(word.span),
            )
        return feed

    # -- hand-offs ---------------------------------------------------------------------------

    def follow(self, layer: Layer, view: CommandView, argv: list[Arg], depth: int,
               stdin: Feed | None, where: str) -> None:
        """Open the layers the command ``argv`` hands text or argv to (if any)."""
        max_layers = self.limits.max_layers
        if not argv or depth >= max_layers:
            if argv and depth >= max_layers:
                # Said on the shell layer whose command this is: an exec layer (`env env ...`,
                # `sudo sudo ...`) has no script of its own to say it on, and the limit must not
                # pass silently.
                shell = layer
                while shell.script is None and shell.parent is not None:
                    shell = self.layers[shell.parent]
                if shell.script is not None:
                    # (a command of a backtick script has positions in that script's own text)
                    same = view.context.script.text is shell.script.text
                    span = view.command.span if same else (0, len(shell.script.text))
                    shell.script.problems.append(Problem(
                        "QC002", span[0], span[1],
                        f"more than {max_layers} nested layers: deeper layers are not "
                        "analysed (the max-layers limit)",
                    ))
            return
        values = [a.value for a in argv]
        dynamic = {i for i, a in enumerate(argv) if a.dynamic}
        name = values[0].rsplit("/", 1)[-1]
        if name in IN_PLACE_BUILTINS and 0 not in dynamic and len(argv) > 1:
            if name == "command" and values[1].startswith("-") and values[1] not in ("-p", "--"):
                return  # `command -v x` only looks the name up
            start = 2 if values[1] in ("-p", "--") and len(argv) > 2 else 1
            if name == "exec":
                while start < len(values) and values[start] in ("-c", "-l", "-a"):
                    start += 2 if values[start] == "-a" else 1
            inner = argv[start:]
            if inner:
                # `exec prog`/`command prog` run prog as a process with exactly this argv.
                exec_layer = self.new_layer(Layer(
                    id=-1, parent=layer.id, kind="exec", where=where,
                    source_span=view.source_span, via=name, argv=list(inner), opened_by=view,
                ))
                view.opens.append(exec_layer.id)
                self.follow(exec_layer, view, inner, depth + 1, stdin, where)
            return
        if 0 in dynamic:
            return
        try:
            handoff = dispatch.classify(values, frozenset(dynamic))
        except (ValueError, IndexError, KeyError):
            handoff = None
        if handoff is None:
            return
        if isinstance(handoff, ho.SshHandoff):
            self.ssh(layer, view, argv, handoff, depth, stdin)
        elif isinstance(handoff, ho.ExecHandoff) and handoff.wrapper == "find":
            for clause in dispatch.find_exec_clauses(values, frozenset(dynamic)):
                self.exec_wrapper(layer, view, argv, clause, depth, stdin, where)
        elif isinstance(handoff, ho.ExecHandoff):
            self.exec_wrapper(layer, view, argv, handoff, depth, stdin, where)
        elif isinstance(handoff, ho.ShellHandoff):
            self.shell_handoff(layer, view, argv, handoff, depth, stdin, where)
        elif isinstance(handoff, ho.JoinHandoff):
            self.join(layer, view, argv, handoff, depth, stdin, where)
        elif isinstance(handoff, ho.AwkHandoff):
            self.awk(layer, view, argv, handoff)

    def ssh(self, layer: Layer, view: CommandView, argv: list[Arg], h: ho.SshHandoff,
            depth: int, stdin: Feed | None) -> None:
        dest = argv[h.destination].value if h.destination is not None else "?"
        words = [argv[i] for i in h.command]
        text, offsets, ranges = join_args(words)
        options: dict[str, str] = {}
        for letter, index in h.options:
            if index is not None and index < len(argv):
                key = letter
                value = argv[index].value
                if letter == "-o" and "=" in value:
                    k, _, v = value.partition("=")
                    key, value = k, v
                options.setdefault(key, value)
            else:
                options.setdefault(letter, "")
        ssh_layer = self.new_layer(Layer(
            id=-1, parent=layer.id, kind="ssh", where=layer.where, source_span=view.source_span,
            text=text, origin=SourceMap.from_offsets(offsets), dynamic_text=bool(ranges),
            dynamic_ranges=ranges, via="ssh", destination=dest, sends=text, options=options,
            opened_by=view,
        ))
        view.opens.append(ssh_layer.id)
        remote_where = f"remote:{dest}"
        login = self.remote_shell or UNKNOWN_LOGIN_SHELL
        feed = None if h.stdin_null else stdin
        if text:  # `ssh h ''` sends an empty command: sshd then starts a login shell
            self.shell_layer(
                parent=ssh_layer.id, where=remote_where,
                shell_name=self.remote_shell or "unknown", text=text, offsets=offsets,
                process=[login, "-c", text], source_span=_span_of(offsets),
                dynamic_ranges=ranges, depth=depth + 1, stdin=feed, opened_by=view,
            )
        elif feed is not None:
            # No command: sshd starts the login shell as a login shell reading stdin.
            self.shell_layer(
                parent=ssh_layer.id, where=remote_where,
                shell_name=self.remote_shell or "unknown", text=feed.text,
                offsets=feed.offsets, process=["-" + login], source_span=feed.source_span,
                dynamic_ranges=feed.dynamic_ranges, depth=depth + 1, stdin=None,
                stdin_script=True, opened_by=view,
            )

    def exec_wrapper(self, layer: Layer, view: CommandView, argv: list[Arg], h: ho.ExecHandoff,
                     depth: int, stdin: Feed | None, where: str) -> None:
        inner: list[Arg] = [Arg(w, False, None, None, (None,) * len(w)) for w in h.prefix]
        for i in h.words:
            if i >= len(argv):
                continue
            a = argv[i]
            if h.placeholder and h.placeholder in a.value:
                # The wrapper substitutes its input for each placeholder at run time.
                ranges = list(a.dynamic_ranges)
                at = a.value.find(h.placeholder)
                while at >= 0:
                    ranges.append((at, at + len(h.placeholder)))
                    at = a.value.find(h.placeholder, at + len(h.placeholder))
                inner.append(Arg(a.value, True, a.word, a.source_span, a.offsets,
                                 merge_ranges(ranges)))
            else:
                inner.append(a)
        if h.appends_input and not (h.placeholder and any(h.placeholder in a.value
                                                           for a in inner)):
            inner.append(Arg("{input}", True, None, None, (None,) * 7, ((0, 7),)))
        if h.wrapper in CONTAINER_RUNNERS and h.action in (None, "exec", "run") and \
                h.target is not None and h.target < len(argv):
            # The command runs inside the container: another machine, as far as the
            # environment, files and processes go.
            where = f"container:{argv[h.target].value}"
        exec_layer = self.new_layer(Layer(
            id=-1, parent=layer.id, kind="exec", where=where, source_span=view.source_span,
            via=h.wrapper, argv=inner, opened_by=view,
        ))
        view.opens.append(exec_layer.id)
        if inner and not inner[0].dynamic:
            self.follow(exec_layer, view, inner, depth + 1, stdin, where)

    def shell_handoff(self, layer: Layer, view: CommandView, argv: list[Arg],
                      h: ho.ShellHandoff, depth: int, stdin: Feed | None, where: str) -> None:
        shell = h.shell
        values = [a.value for a in argv]
        positional = [argv[i] for i in h.args if i < len(argv)] if h.mode == "c" else [
            argv[h.shell_index] if h.shell_index is not None else Arg(shell, False, None, None),
            *(argv[i] for i in h.args if i < len(argv))]
        # The process running the shell: the argv itself when the shell is argv's program,
        # else what the wrapper (su, sudo -s, flock -c, script...) starts.
        start = h.shell_index if h.shell_index is not None else None
        shell_name = shell if shell != "unknown" else UNKNOWN_LOGIN_SHELL
        if h.mode == "c" and (h.script is not None or h.script_words):
            if h.script_words:
                text, offsets, ranges = sudo_shell_text([argv[i] for i in h.script_words])
            else:
                assert h.script is not None
                a = argv[h.script]
                cut = h.script_offset
                text, offsets = a.value[cut:], list(a.offsets[cut:])
                ranges = [(max(s - cut, 0), e - cut) for s, e in a.dynamic_ranges if e > cut]
            process = values[start:] if start is not None else [shell_name, "-c", text, *(
                argv[i].value for i in h.args if i < len(argv))]
            layer_ = self.shell_layer(
                parent=layer.id, where=where, shell_name=shell, text=text, offsets=offsets,
                process=process, source_span=_span_of(offsets), dynamic_ranges=ranges,
                depth=depth + 1, stdin=stdin, positional=positional, opened_by=view,
            )
            view.opens.append(layer_.id)
        elif h.mode == "stdin" and stdin is not None:
            process = values[start:] if start is not None else [shell_name]
            layer_ = self.shell_layer(
                parent=layer.id, where=where, shell_name=shell, text=stdin.text,
                offsets=stdin.offsets, process=process, source_span=stdin.source_span,
                dynamic_ranges=stdin.dynamic_ranges, depth=depth + 1, stdin=None,
                positional=positional, stdin_script=True, opened_by=view,
            )
            view.opens.append(layer_.id)

    def join(self, layer: Layer, view: CommandView, argv: list[Arg], h: ho.JoinHandoff,
             depth: int, stdin: Feed | None, where: str) -> None:
        words = [argv[i] for i in h.words if i < len(argv)]
        text, offsets, ranges = join_args(words)
        join_layer = self.new_layer(Layer(
            id=-1, parent=layer.id, kind="join", where=where, source_span=view.source_span,
            text=text, origin=SourceMap.from_offsets(offsets), dynamic_text=bool(ranges),
            dynamic_ranges=ranges, via=h.wrapper, sends=text, opened_by=view,
        ))
        view.opens.append(join_layer.id)
        same = h.shell == "same"
        shell = (layer.dialect or "bash") if same else h.shell
        process = layer.process if same else [
            shell if shell != "unknown" else UNKNOWN_LOGIN_SHELL, "-c", text]
        self.shell_layer(
            parent=join_layer.id, where=where, shell_name=str(shell), text=text,
            offsets=offsets, process=process, source_span=_span_of(offsets),
            dynamic_ranges=ranges, depth=depth + 1, stdin=stdin, opened_by=view,
        )

    def awk(self, layer: Layer, view: CommandView, argv: list[Arg], h: ho.AwkHandoff) -> None:
        if h.program is None or h.program >= len(argv):
            return
        prog = argv[h.program]
        awk_layer = self.new_layer(Layer(
            id=-1, parent=layer.id, kind="awk", where=layer.where,
            source_span=prog.source_span, text=prog.value,
            origin=SourceMap.from_offsets(prog.offsets), dynamic_text=prog.dynamic,
            dynamic_ranges=list(prog.dynamic_ranges), via=argv[0].value.rsplit("/", 1)[-1],
            assignments=[(a.name, a.value) for a in h.assignments], opened_by=view,
        ))
        view.opens.append(awk_layer.id)


class Aliases:
    """Aliases defined earlier in a script with constant values.

    POSIX shells (dash) expand aliases in scripts; bash does so only with ``expand_aliases``
    (off in scripts), so bash layers ignore them. A value that is more than plain words makes
    the command's name dynamic instead of guessed.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.active = dialect == "sh"
        self.table: dict[str, list[str] | None] = {}

    def learn(self, argv: list[Arg]) -> None:
        if not self.active or not argv or argv[0].value != "alias":
            return
        for a in argv[1:]:
            name, eq, value = a.value.partition("=")
            if not eq or a.dynamic:
                continue
            words = value.split()
            simple = all(w.isprintable() and not any(c in w for c in "'\"$`;&|<>()*?[~{")
                         for w in words)
            self.table[name] = words if simple and words else None

    def expand(self, command: SimpleCommand, argv: list[Arg]) -> list[Arg]:
        if not self.table or not argv or argv[0].dynamic or argv[0].value not in self.table:
            return argv
        word = argv[0].word
        if word is None or word.quoted:
            return argv  # a quoted command name is never an alias
        words = self.table[argv[0].value]
        first = argv[0]
        if words is None:
            return [Arg(first.value, True, first.word, first.source_span, first.offsets,
                        ((0, len(first.value)),)), *argv[1:]]
        # The alias's words come from the `alias` line, not from this command: no offsets.
        expanded = [Arg(w, False, first.word, first.source_span, (None,) * len(w))
                    for w in words]
        return [*expanded, *argv[1:]]


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


def sudo_shell_text(args: Sequence[Arg]) -> tuple[str, list[int | None], list[tuple[int, int]]]:
    """The string ``sudo -s``/``-i`` hands to the shell: words joined, metacharacters escaped."""
    text: list[str] = []
    offsets: list[int | None] = []
    ranges: list[tuple[int, int]] = []
    for i, a in enumerate(args):
        if i:
            text.append(" ")
            offsets.append(None)
        start = len(text)
        for ch, off in zip(a.value, a.offsets, strict=True):
            if not (ch.isalnum() or ch in "_-$"):
                text.append("\\")
                offsets.append(off)
            text.append(ch)
            offsets.append(off)
        if a.dynamic:
            ranges.append((start, len(text)))
    return "".join(text), offsets, ranges


def _span_of(offsets: Sequence[int | None]) -> tuple[int, int] | None:
    known = [o for o in offsets if o is not None]
    if not known:
        return None
    return (min(known), max(known) + 1)


__all__ = ["Context", "Feed", "build_trace", "join_args"]
