"""Build the layer tree for an input: parse each shell layer, follow every hand-off.

For each simple command of a shell layer the argv is computed (values after quote removal,
dynamic words kept as written), then ``layers.dispatch`` says what the command hands on (kept on
the command's view, and on each layer it opens, for the rules to read); if it opens another
layer, the child layer's text is assembled from the argv with a source map back to the input,
and the child is analysed the same way. Nothing is ever executed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from quotecheck.layers import dispatch
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.effective import effective
from quotecheck.layers.functions import (
    Bindings,
    CallBudget,
    FunctionDef,
    FunctionTable,
    defines_functions,
    reads_parameters,
    substitute,
)
from quotecheck.layers.known_values import LazyValues, known_args, known_in, written_args
from quotecheck.layers.model import Arg, CommandView, Layer, Trace, join_args
from quotecheck.layers.sourced import SourcedFiles
from quotecheck.layers.wrappers import in_place_command
from quotecheck.limits import Limits
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import Problem
from quotecheck.parsing.tree import Compound, Context, Script, SimpleCommand, walk
from quotecheck.parsing.words import Word
from quotecheck.programs import (
    CONTAINER_RUNNERS,
    IN_PLACE_BUILTINS,
    SCRIPT_SOURCERS,
    Dialect,
    basename,
    shell_dialect,
    sudo_shell_escapes,
)
from quotecheck.records import FrozenRecord
from quotecheck.sourcemap import SourceMap

if TYPE_CHECKING:
    from quotecheck.hosts.model import HostFile

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
    known_values: tuple[tuple[int, int, str], ...] = ()


def build_trace(
    source: str,
    *,
    dialect: str = "bash",
    remote_shell: str | None = None,
    path: str | None = None,
    limits: Limits | None = None,
    external_sources: bool = False,
    host: HostFile | None = None,
) -> Trace:
    """Trace ``source`` (a script or one command line) through every layer it opens.

    ``external_sources``: the files the script sources (`source F`, `. F`) that exist beside
    ``path`` are read, and their functions are the script's (ShellCheck's `-x`); the value
    analysis of the script takes in their assignments where it sources them.

    ``limits`` (default: config.Limits()) bounds the nesting depth, the layer depth and the
    parsing time; what lies past a limit is reported as a QC002 problem of its layer.

    ``host``: ``source`` is a host file (a Python module, a Makefile) read by its format's
    reader: the host is the root layer, and what it launches is below it."""
    builder = _Builder(source, remote_shell, limits)
    if host is not None:
        builder.host_layers(host)
        trace = Trace(source, builder.layers, host=host)
        trace.known_spans = sorted(set(builder.known_spans))
        return trace
    if external_sources and path:
        builder.sources = SourcedFiles(os.path.dirname(os.path.abspath(path)), dialect,
                                       builder.limits, builder.deadline)
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
    trace = Trace(source, builder.layers)
    trace.known_spans = sorted(set(builder.known_spans))
    return trace


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
        self.sources: SourcedFiles | None = None  # the files it sources (--external-sources)
        # words that got a known value: their span and the expansions that gave it
        self.known_spans: list[tuple[int, int, tuple[str, ...]]] = []
        self.calls = CallBudget()  # calls of functions followed from calls of functions

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
        known_values: Sequence[tuple[int, int, str]] = (),
        handoff: ho.Handoff | None = None,
        handoff_argv: list[Arg] | None = None,
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
            known_values=list(known_values), handoff=handoff, handoff_argv=handoff_argv,
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
        aliases = Aliases(dialect, text)
        commands = list(walk(script))
        table_from = commands
        if parent is None and self.sources is not None:
            table_from = [*self.sourced_commands(commands), *commands]
        functions = FunctionTable(table_from) if defines_functions(text) or \
            table_from is not commands else None
        # What the script's own assignments make known (computed when a word needs it).
        known = LazyValues(script, self.source, self.sources.resolve
                           if parent is None and self.sources is not None else None) \
            if "$" in text else None
        layer.known = known
        # Characters an outer layer expands at run time stay unknown here, quoted or not.
        inherited = bytearray(len(text))
        for a, b in dynamic_ranges:
            inherited[max(a, 0):max(min(b, len(text)), 0)] = b"\x01" * (
                max(min(b, len(text)), 0) - max(a, 0))
        for command, context in commands:
            if dynamic_ranges and context.in_substitution and context.script.text is text and \
                    _from_outer(context.script, inherited):
                # `ssh h "cd $(pwd)"`: the remote shell receives pwd's output, not `$(pwd)`;
                # the text is only a stand-in for a value, not commands of this layer.
                continue
            args = [arg_of(w, context.script) for w in command.words]
            if known is not None and any(w.dynamic and known.may_know(w) for w in command.words):
                args = known_args(command.words, args, context.script, known.get(),
                                  inherited if dynamic_ranges else None, may_know=known.may_know)
                self.note_known(args, context.script)
            if dynamic_ranges and context.script.text is text:
                args = [inherit_dynamic(a, inherited) for a in args]
            view = CommandView(
                aliases.expand(command, args),
                command,
                context,
                context.script.origin.map_span(command.span),
            )
            read_handoffs(view, self.limits.max_layers)
            aliases.learn(view.argv)
            layer.commands.append(view)
            own = self.stdin_of(command, context.script, known)
            if functions and functions.wrapped(command, context):
                # A body command reading the parameters of a function the script calls: it is
                # analysed at each call, with the call's arguments (`call_function`).
                continue
            self.follow(layer, view, view.argv, depth, own or stdin, where, functions)
        return layer

    def note_known(self, args: Sequence[Arg], script: Script) -> None:
        """Remember where the script reads a value it set (``Trace.known_spans``)."""
        for a in args:
            if not a.known or a.word is None:
                continue
            names = {n for _, _, n in a.known}
            for part in a.word.parts:
                if part.kind != "parameter" or part.value not in names:
                    continue
                span = script.origin.map_span(part.span)
                if span is not None:
                    self.known_spans.append((*span, (part.value,)))

    def sourced_commands(self, commands: list[tuple[SimpleCommand, Context]]
                         ) -> list[tuple[SimpleCommand, Context]]:
        """The commands of the files the script sources, where they exist beside it (their
        text is not the input: positions in it map to nothing)."""
        assert self.sources is not None
        out: list[tuple[SimpleCommand, Context]] = []
        seen: set[str] = set()
        for command, _ in commands:
            words = command.words
            if len(words) < 2 or words[0].dynamic or words[0].value not in SCRIPT_SOURCERS:
                continue
            found = self.sources.resolve(words[1])
            if found is None or found.path in seen:
                continue
            seen.add(found.path)
            out.extend(walk(found.script))
        return out

    def stdin_of(self, command: SimpleCommand, script: Script,
                 known: LazyValues | None = None) -> Feed | None:
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
            if known is not None and word.dynamic and r.heredoc is not None and \
                    known.may_know(word):
                # An unquoted heredoc's `$DATA_DIR` set by the script: the text it really is.
                got = known_args([word], [arg], script, known.get(), None, split=False)[0]
                self.note_known([got], script)
                arg = got.written or got
            feed = Feed(
                arg.value + suffix,
                (*arg.offsets, *([None] * len(suffix))),
                arg.dynamic_ranges,
                origin.map_span(word.span),
                arg.known,
            )
        return feed

    # -- host files --------------------------------------------------------------------------

    def host_layers(self, host: HostFile) -> None:
        """The host layer at the root and, below it, what each of its launches starts: a shell
        reading the text the host hands to ``sh -c``; the program of an argv, followed as a
        command's argv is; an ssh server whose login shell reads the text (paramiko's
        ``exec_command``)."""
        from quotecheck.layers.host_argv import argv_view, host_arg

        source = self.source
        root = self.new_layer(Layer(
            id=-1, parent=None, kind="host", where="local", source_span=(0, len(source)),
            text=source, origin=SourceMap.identity(len(source)), format=host.format))
        for launch in host.launches:
            if launch.ssh and launch.text is not None:
                text = launch.text
                ssh = self.new_layer(Layer(
                    id=-1, parent=root.id, kind="ssh", where="local", source_span=launch.span,
                    text=text.value, origin=SourceMap.from_offsets(text.offsets),
                    dynamic_text=text.dynamic, dynamic_ranges=list(text.dynamic_ranges),
                    via=launch.api, destination=launch.destination or "?", sends=text.value,
                    sends_dynamic=list(text.dynamic_ranges)))
                ssh.uncertain = launch.uncertain
                login = self.remote_shell or UNKNOWN_LOGIN_SHELL
                self.shell_layer(
                    parent=ssh.id, where=f"remote:{launch.destination or '?'}",
                    shell_name=self.remote_shell or "unknown",
                    text=text.value, offsets=text.offsets, process=[login, "-c", text.value],
                    source_span=_span_of(text.offsets) or launch.span,
                    dynamic_ranges=text.dynamic_ranges, depth=2, stdin=None)
            elif launch.shell is not None and launch.text is not None:
                text = launch.text
                shell = self.shell_layer(
                    parent=root.id, where=launch.where,
                    shell_name=launch.shell_name or _shell_program(launch.shell),
                    text=text.value, offsets=text.offsets,
                    process=list(launch.shell) if launch.reads_file else
                    [*launch.shell, text.value, *(p.value for p in launch.positional)],
                    source_span=_span_of(text.offsets) or launch.span,
                    dynamic_ranges=text.dynamic_ranges, depth=1, stdin=None,
                    positional=[host_arg(p) for p in launch.positional])
                shell.via = launch.api  # what starts it: `os.system`, `CMD`, `recipe for x`
                shell.uncertain = launch.uncertain
            elif launch.argv:
                view = argv_view(source, launch)
                read_handoffs(view, self.limits.max_layers)
                root.commands.append(view)
                exec_layer = self.new_layer(Layer(
                    id=-1, parent=root.id, kind="exec", where=launch.where,
                    source_span=launch.span, via=launch.api, argv=list(view.argv),
                    opened_by=view))
                if launch.partial:
                    exec_layer.uncertain = (
                        "uncertain: a part of the argv is a list known only at run time, so "
                        "where each word stands is a guess")
                elif launch.uncertain:
                    exec_layer.uncertain = launch.uncertain
                if not view.argv[0].dynamic:
                    self.follow(exec_layer, view, view.argv, 1, None, launch.where)

    # -- hand-offs ---------------------------------------------------------------------------

    def follow(self, layer: Layer, view: CommandView, argv: list[Arg], depth: int,
               stdin: Feed | None, where: str, functions: FunctionTable | None = None,
               active: tuple[FunctionDef, ...] = ()) -> None:
        """Open the layers the command ``argv`` hands text or argv to (if any).

        ``functions``: the script's functions, when ``argv`` is a command of the shell itself
        (not one a wrapper such as sudo or `command` execs): a name defined there is that
        function, not the program."""
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
        if functions and 0 not in dynamic and "/" not in values[0]:
            fdef = functions.lookup(values[0], view.source_span[0] if view.source_span else None)
            if fdef is not None:
                # (a call in a function's body reached from a call, and an argument the
                # script's own assignment makes known, count as known arguments)
                if active or functions.expands(view.command, view.context) or \
                        any(not a.dynamic for a in argv[1:]):
                    self.call_function(layer, view, argv, depth, stdin, where, functions, fdef,
                                       active)
                return
        if name in IN_PLACE_BUILTINS and 0 not in dynamic and len(argv) > 1:
            # (`command -v x` only looks the name up: no command, no layer)
            start = in_place_command(values, dynamic)
            inner = argv[start:] if start is not None else []
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
        if argv is view.argv:
            handoff = view.handoffs[0] if view.handoffs else None  # read with the view
        else:
            handoff = dispatch.classify(values, frozenset(dynamic))
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

    def call_function(self, layer: Layer, view: CommandView, argv: list[Arg], depth: int,
                      stdin: Feed | None, where: str, functions: FunctionTable,
                      fdef: FunctionDef, active: tuple[FunctionDef, ...]) -> None:
        """A call of a function of the script: each body command that hands the call's
        arguments on is followed with them put in, one level deeper (a function calling itself
        is not followed again). The layers it opens belong to the call: its position, its
        loop, its redirections; their chain names the function."""
        if any(d is fdef for d in active):
            return
        go = self.calls.take(layer.id, not active)
        if not go:
            if go is False and layer.script is not None:
                same = view.context.script.text is layer.script.text
                span = view.command.span if same else (0, len(layer.script.text))
                layer.script.problems.append(Problem(
                    "QC002", span[0], span[1],
                    f"more than {CallBudget.LIMIT} calls of the script's functions from one "
                    "call: the rest are not analysed"))
            return
        params = argv[1:]
        bindings = Bindings()
        # The chain of calls, outermost first: `x0() at line 1 -> x1() at line 2`.
        label = " -> ".join(self.function_label(d) for d in (*active, fdef))
        bridge = Compound("call", view.command.span, [("body", fdef.node)],
                          redirects=list(view.command.redirects))
        outer = view.context
        for command, context in fdef.commands:
            if context.in_substitution:
                continue
            if not reads_parameters(command, params, bindings):
                bindings.learn(command, params, context, fdef.node)
                continue  # nothing of the call in it: analysed once, as the body's own
            written = [arg_of(w, context.script) for w in command.words]
            args = written
            if layer.known is not None and context.script.text is layer.text and \
                    any(w.dynamic and layer.known.may_know(w) for w in command.words):
                args = known_args(command.words, args, context.script, layer.known.get(), None,
                                  may_know=layer.known.may_know)
                self.note_known(args, context.script)
            new: list[Arg] = []
            changed = False
            for w, a, as_written in zip(command.words, args, written, strict=True):
                try:
                    # A word that reads a parameter is rebuilt from its parts as written (the
                    # offsets of a known value put in would not line up with them).
                    got = substitute(w, as_written, params, bindings)
                except (ValueError, IndexError, KeyError):
                    got = None  # a form not modelled: the word stays as written
                if got is None:
                    new.append(a)
                else:
                    new.extend(got)
                    changed = True
            bindings.learn(command, params, context, fdef.node)
            if not changed or not new:
                continue
            inside = context.ancestors
            for i, node in enumerate(inside):
                if node is fdef.node:
                    inside = inside[i:]
                    break
            ctx = Context(
                context.script, (*outer.ancestors, view.command, bridge, *inside),
                outer.background or context.background,
                outer.conditional or context.conditional, outer.guarded or context.guarded,
                outer.in_pipeline or context.in_pipeline,
                outer.pipeline_last if outer.in_pipeline else context.pipeline_last,
                outer.in_substitution or context.in_substitution,
            )
            body_view = CommandView(new, command, ctx, view.source_span)
            read_handoffs(body_view, self.limits.max_layers)
            first_id = len(self.layers)
            own = self.stdin_of(command, context.script, layer.known)
            self.follow(layer, body_view, new, depth + 1, own or stdin, where, functions,
                        (*active, fdef))
            for x in self.layers[first_id:]:
                if x.parent == layer.id and x.through is None:
                    x.through = label
            view.opens.extend(body_view.opens)

    def function_label(self, fdef: FunctionDef) -> str:
        if fdef.offset >= 0:
            return f"{fdef.name}() at line {self.source.count(chr(10), 0, fdef.offset) + 1}"
        found = self.sources.texts.get(id(fdef.commands[0][1].script.text)) \
            if self.sources is not None and fdef.commands else None
        return f"{fdef.name}() in {found.name if found is not None else 'a sourced file'}"

    def ssh(self, layer: Layer, view: CommandView, argv: list[Arg], h: ho.SshHandoff,
            depth: int, stdin: Feed | None) -> None:
        dest = argv[h.destination].value if h.destination is not None else "?"
        words = [argv[i] for i in h.command]
        sends, _, _ = join_args(words)
        # The remote shell's text: known values as written where they are not plain words.
        text, offsets, ranges = join_args(written_args(words))
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
            dynamic_ranges=ranges, via="ssh", destination=dest, sends=sends, options=options,
            opened_by=view, sends_dynamic=sends_dynamic(words), known_values=known_in(words),
            handoff=h, handoff_argv=argv,
        ))
        view.opens.append(ssh_layer.id)
        if h.spread:
            shown = ", ".join(f"`{argv[i].value}`" for i in h.spread)
            ssh_layer.uncertain = (
                f"uncertain: {shown} is not known before run time and may expand to any number "
                "of words; it is taken here for ssh options, so where the destination and the "
                "remote command start is a guess")
        remote_where = f"remote:{dest}"
        login = self.remote_shell or UNKNOWN_LOGIN_SHELL
        feed = None if h.stdin_null else stdin
        if text:  # `ssh h ''` sends an empty command: sshd then starts a login shell
            self.shell_layer(
                parent=ssh_layer.id, where=remote_where,
                shell_name=self.remote_shell or "unknown", text=text, offsets=offsets,
                process=[login, "-c", sends], source_span=_span_of(offsets),
                dynamic_ranges=ranges, depth=depth + 1, stdin=feed, opened_by=view,
                known_values=ssh_layer.known_values,
            )
        elif feed is not None:
            # No command: sshd starts the login shell as a login shell reading stdin.
            self.shell_layer(
                parent=ssh_layer.id, where=remote_where,
                shell_name=self.remote_shell or "unknown", text=feed.text,
                offsets=feed.offsets, process=["-" + login], source_span=feed.source_span,
                dynamic_ranges=feed.dynamic_ranges, depth=depth + 1, stdin=None,
                stdin_script=True, opened_by=view, known_values=feed.known_values,
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
            via=h.wrapper, argv=inner, opened_by=view, handoff=h, handoff_argv=argv,
        ))
        view.opens.append(exec_layer.id)
        if inner and not inner[0].dynamic:
            self.follow(exec_layer, view, inner, depth + 1, stdin, where)

    def shell_handoff(self, layer: Layer, view: CommandView, argv: list[Arg],
                      h: ho.ShellHandoff, depth: int, stdin: Feed | None, where: str) -> None:
        shell = h.shell
        if h.elsewhere is not None:
            where = f"remote:{h.elsewhere}"
        values = [a.value for a in argv]
        positional = [argv[i] for i in h.args if i < len(argv)] if h.mode == "c" else [
            argv[h.shell_index] if h.shell_index is not None else Arg(shell, False, None, None),
            *(argv[i] for i in h.args if i < len(argv))]
        # The process running the shell: the argv itself when the shell is argv's program,
        # else what the wrapper (su, sudo -s, flock -c, script...) starts.
        start = h.shell_index if h.shell_index is not None else None
        shell_name = shell if shell != "unknown" else UNKNOWN_LOGIN_SHELL
        known: list[tuple[int, int, str]] = []
        if h.mode == "c" and (h.script is not None or h.script_words):
            if h.script_words:
                text, offsets, ranges = sudo_shell_text([argv[i] for i in h.script_words])
            else:
                assert h.script is not None
                a = argv[h.script]
                a = a.written or a
                cut = h.script_offset
                text, offsets = a.value[cut:], list(a.offsets[cut:])
                ranges = [(max(s - cut, 0), e - cut) for s, e in a.dynamic_ranges if e > cut]
                known = [(max(s - cut, 0), e - cut, n) for s, e, n in a.known if e > cut]
            process = values[start:] if start is not None else [shell_name, "-c", text, *(
                argv[i].value for i in h.args if i < len(argv))]
            layer_ = self.shell_layer(
                parent=layer.id, where=where, shell_name=shell, text=text, offsets=offsets,
                process=process, source_span=_span_of(offsets), dynamic_ranges=ranges,
                depth=depth + 1, stdin=stdin, positional=positional, opened_by=view,
                known_values=known, handoff=h, handoff_argv=argv,
            )
            view.opens.append(layer_.id)
        elif h.mode == "stdin" and stdin is not None:
            process = values[start:] if start is not None else [shell_name]
            layer_ = self.shell_layer(
                parent=layer.id, where=where, shell_name=shell, text=stdin.text,
                offsets=stdin.offsets, process=process, source_span=stdin.source_span,
                dynamic_ranges=stdin.dynamic_ranges, depth=depth + 1, stdin=None,
                positional=positional, stdin_script=True, opened_by=view,
                known_values=stdin.known_values, handoff=h, handoff_argv=argv,
            )
            view.opens.append(layer_.id)

    def join(self, layer: Layer, view: CommandView, argv: list[Arg], h: ho.JoinHandoff,
             depth: int, stdin: Feed | None, where: str) -> None:
        words = written_args([argv[i] for i in h.words if i < len(argv)])
        text, offsets, ranges = join_args(words)
        join_layer = self.new_layer(Layer(
            id=-1, parent=layer.id, kind="join", where=where, source_span=view.source_span,
            text=text, origin=SourceMap.from_offsets(offsets), dynamic_text=bool(ranges),
            dynamic_ranges=ranges, via=h.wrapper, sends=text, opened_by=view,
            known_values=known_in(words), handoff=h, handoff_argv=argv,
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
            known_values=join_layer.known_values,
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
            handoff=h, handoff_argv=argv,
        ))
        view.opens.append(awk_layer.id)


def _shell_program(argv: Sequence[str]) -> str:
    """The shell an argv starts: `bash` for `/usr/bin/env bash -c` (a Makefile's `SHELL =
    /usr/bin/env bash`)."""
    words = list(argv)
    if words and basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return basename(words[0]) if words else "sh"


def read_handoffs(view: CommandView, max_layers: int) -> None:
    """Read what ``view`` hands on, once: the trace follows it, and the rules read it from the
    view (``handoffs``, ``effective``) instead of classifying the argv again. Wrappers are
    read as deep as the trace follows them (``max_layers``), no deeper."""
    values = view.values
    dynamic = frozenset(view.dynamic)
    found = dispatch.chain(values, dynamic, limit=max_layers)
    view.effective = effective(values, dynamic, found, max_layers)
    view.handoffs = dispatch.with_other_clauses(found, values, dynamic)


class Aliases:
    """Aliases defined earlier in a script with constant values.

    POSIX shells (dash) expand aliases in scripts; bash does so only with ``expand_aliases``
    (off in scripts), so bash layers ignore them. A value that is more than plain words makes
    the command's name dynamic instead of guessed.
    """

    def __init__(self, dialect: Dialect, text: str = "") -> None:
        # bash expands them too once a script turns `expand_aliases` on.
        self.active = dialect == "sh" or "expand_aliases" in text
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


def sends_dynamic(args: Sequence[Arg]) -> list[tuple[int, int]]:
    """The ranges of the joined text of ``args`` that the local shell fills in at run time.

    A word with an unquoted glob or brace expansion is replaced as a whole (by the names it
    matches, or by several words), so its whole text is dynamic; elsewhere only the expansions
    themselves (`$x`, `$(cmd)`, `~`) are."""
    ranges: list[tuple[int, int]] = []
    at = 0
    for i, a in enumerate(args):
        if i:
            at += 1
        whole = a.word is not None and a.dynamic_ranges and any(
            p.kind in ("glob", "brace") and p.quoting == "none" for p in a.word.parts)
        if whole:
            ranges.append((at, at + len(a.value)))
        else:
            ranges.extend((at + s, at + e) for s, e in a.dynamic_ranges)
        at += len(a.value)
    return list(merge_ranges(ranges))


def sudo_shell_text(args: Sequence[Arg]) -> tuple[str, list[int | None], list[tuple[int, int]]]:
    """The string ``sudo -s``/``-i`` hands to the shell: words joined, characters escaped.

    A value the outer shell expands is escaped at run time character by character as well
    (`SUDO_SHELL_KEPT`), so its stand-in here is escaped whole, its `$` too: the `$` stands for
    the value, it is not one of the value's characters. The shell reads the value as a literal.
    """
    text: list[str] = []
    offsets: list[int | None] = []
    ranges: list[tuple[int, int]] = []
    for i, a in enumerate(args):
        if i:
            text.append(" ")
            offsets.append(None)
        n = len(a.value)
        outer = bytearray(n)
        spans = a.dynamic_ranges or (((0, n),) if a.dynamic else ())
        for s, e in spans:
            s, e = min(max(s, 0), n), min(max(e, 0), n)
            outer[s:e] = b"\x01" * (e - s)
        start: int | None = None
        for j, (ch, off) in enumerate(zip(a.value, a.offsets, strict=True)):
            if outer[j] and start is None:
                start = len(text)
            elif not outer[j] and start is not None:
                ranges.append((start, len(text)))
                start = None
            if outer[j] or sudo_shell_escapes(ch):
                text.append("\\")
                offsets.append(off)
            text.append(ch)
            offsets.append(off)
        if start is not None:
            ranges.append((start, len(text)))
    return "".join(text), offsets, ranges


def _span_of(offsets: Sequence[int | None]) -> tuple[int, int] | None:
    known = [o for o in offsets if o is not None]
    if not known:
        return None
    return (min(known), max(known) + 1)


__all__ = ["Context", "Feed", "build_trace", "join_args"]
