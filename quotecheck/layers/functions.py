"""Functions a script defines, and what a call of one hands on.

A name the script defines as a function is that function wherever it is called (`watch() {
...}; watch x` is not procps watch), so it is never classified as the program of that name. A
call of a function whose body passes its positional parameters on (`remote() { ssh "$1" "$2";
}`) is a hand-off of its own: the body's command with the call's arguments put in where the
body reads `$1`, `"$@"`, after `shift`, or through `local h=$1`. This module finds the
definitions and builds those argvs; the trace follows them one level per call, through a
chain of the script's functions (`x0() { x1 "$@"; }`) up to the max-layers limit.

Only what the body states is used: a parameter read through an operator (`${1:-x}`, `${@:2}`)
or a variable set from anything else stays as written, unknown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quotecheck.layers.model import Arg, join_args
from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import MAX_VALUE_CHARS
from quotecheck.parsing.tree import Compound, Context, SimpleCommand, iter_nodes
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import DECLARATION_BUILTINS

# `$1`, `${1}`, `${12}`, `$@`, `${@}`, `$*`, `${*}` as written: the plain reads of parameters.
_PLAIN_READ = lazy_compile(r"\$(?:([0-9]|[@*])|\{([0-9]+|[@*])\})\Z")
_NAME_READ = lazy_compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})\Z")
_DECLARERS = DECLARATION_BUILTINS
_IFS = " \t\n"
_LOOPS = ("while", "until")
_GLOB = "*?["
# Compounds whose body may or may not run: a `shift` inside one leaves the count unknown.
_BRANCHES = frozenset(("if", "case", "while", "until", "for", "select"))


class FunctionDef:
    """One definition: its node, its name, the source offset of its start."""

    __slots__ = ("commands", "name", "node", "offset")

    def __init__(self, name: str, node: Compound, offset: int) -> None:
        self.name = name
        self.node = node
        self.offset = offset
        # The simple commands directly in its body (not in a function nested in it), in order.
        self.commands: list[tuple[SimpleCommand, Context]] = []


class FunctionTable:
    """The functions of one shell layer's script, by name."""

    __slots__ = ("by_name", "by_node", "called", "readers")
    # `called`: the functions whose every call is analysed with its arguments (`expands`), so
    # that their bodies' hand-offs are not analysed on their own as well.

    def __init__(self, commands: Sequence[tuple[SimpleCommand, Context]]) -> None:
        self.by_name: dict[str, list[FunctionDef]] = {}
        self.by_node: dict[int, FunctionDef] = {}
        calls: list[tuple[SimpleCommand, Context]] = []
        # ids of the body commands that read the parameters, per function (built when asked)
        self.readers: dict[int, set[int]] = {}
        for command, context in commands:
            if command.words and not command.words[0].dynamic:
                calls.append((command, context))
            fn = innermost_function(context)
            if fn is None:
                continue
            found = self.by_node.get(id(fn))
            if found is None:
                if fn.name is None:
                    continue
                start = context.script.origin[fn.span[0]]
                # (-1: in a file the script sources, defined before anything of the input)
                found = FunctionDef(fn.name, fn, start if start is not None else -1)
                self.by_node[id(fn)] = found
                self.by_name.setdefault(fn.name, []).append(found)
            found.commands.append((command, context))
        sites = [(c, ctx, self.expands(c, ctx)) for c, ctx in calls
                 if c.words[0].value in self.by_name]
        # A call in the body of a called function that passes its parameters on (`x1 "$@"`,
        # not in a substitution, where the trace puts no arguments in) is analysed at each
        # call of that function, with that call's arguments: it counts as analysed, which may
        # make its function called in turn (chains of wrappers). The least such set: a
        # function reached only through a cycle (`f() { f "$@"; }`) keeps its own analysis.
        self.called: set[str] = set()
        while True:
            expanded: set[str] = set()
            partly: set[str] = set()
            for command, context, plain in sites:
                name = command.words[0].value
                handed = plain or (not context.in_substitution
                                   and self.passes_on(command, context, self.called))
                (expanded if handed else partly).add(name)
            grown = expanded - partly
            if grown == self.called:
                break
            self.called = grown

    @staticmethod
    def expands(command: SimpleCommand, context: Context) -> bool:
        """A call worth analysing with its arguments: one of them is known (`remote gpu1
        "..."`), or the call sits in a loop (whose input an ssh in the body may read). A call
        passing on only run-time values says no more than the body itself."""
        if any(not w.dynamic for w in command.words[1:]):
            return True
        return any(isinstance(n, Compound) and n.kind in _LOOPS and _reads_input(n)
                   for n in context.ancestors)

    def wrapped(self, command: SimpleCommand, context: Context) -> bool:
        """``command`` reads the parameters of a function that the script calls: its
        hand-offs are analysed at the calls, with their arguments."""
        return self.passes_on(command, context, self.called)

    def passes_on(self, command: SimpleCommand, context: Context, called: set[str]) -> bool:
        """``command`` reads the parameters of its function, one of ``called``."""
        fn = innermost_function(context)
        if fn is None or fn.name not in called:
            return False
        fdef = self.by_node.get(id(fn))
        if fdef is None:
            return False
        readers = self.readers.get(id(fn))
        if readers is None:
            readers = self.readers[id(fn)] = set()
            bindings = Bindings()
            marker = [Arg("", True, None, None, ())] * 10
            for cmd, cmd_context in fdef.commands:
                if reads_parameters(cmd, marker, bindings):
                    readers.add(id(cmd))
                bindings.learn(cmd, marker, cmd_context, fdef.node)
        return id(command) in readers

    def __bool__(self) -> bool:
        return bool(self.by_name)

    def lookup(self, name: str, offset: int | None) -> FunctionDef | None:
        """The definition a call at ``offset`` runs: the last one written before it (the
        script has run it by then), else the first one (defined later, called from a function
        that runs after it)."""
        defs = self.by_name.get(name)
        if not defs:
            return None
        if offset is not None:
            before = [d for d in defs if d.offset < offset]
            if before:
                return max(before, key=lambda d: d.offset)
        return min(defs, key=lambda d: d.offset)


class CallBudget:
    """How many calls of the script's functions one call from outside them may lead to, per
    shell layer. A chain costs one per level; wrappers that each call the next twice would
    cost twice as much per level, 2**32 at the max-layers default, without a bound."""

    __slots__ = ("left",)
    LIMIT = 256

    def __init__(self) -> None:
        self.left: dict[int, int] = {}

    def take(self, layer: int, outermost: bool) -> bool | None:
        """Whether a call may be followed: True, False the first time the budget of the
        outermost call is spent (to be reported), None after that."""
        if outermost:
            self.left[layer] = self.LIMIT
            return True
        left = self.left.get(layer, 0)
        self.left[layer] = max(left - 1, -1)
        return True if left > 0 else False if left == 0 else None


def _reads_input(loop: Compound) -> bool:
    """`while read ...`: the loop's condition reads its standard input."""
    for role, part in loop.parts:
        if role == "condition":
            for node in iter_nodes([part]):
                if isinstance(node, SimpleCommand) and node.words and \
                        node.words[0].value in ("read", "mapfile", "readarray"):
                    return True
    return False


def innermost_function(context: Context) -> Compound | None:
    for node in reversed(context.ancestors):
        if isinstance(node, Compound) and node.kind == "function":
            return node
    return None


def defines_functions(text: str) -> bool:
    """A cheap test before building a table: no `()` and no `function`, no definitions."""
    return "(" in text and ("()" in text or "function" in text)


class Bindings:
    """What the body knows before one of its commands: how far it has shifted (None once a
    `shift` may or may not have run), and the variables it set from the parameters (`local
    h=$1`)."""

    __slots__ = ("shift", "variables")

    def __init__(self) -> None:
        self.shift: int | None = 0
        self.variables: dict[str, list[Arg] | None] = {}

    def learn(self, command: SimpleCommand, params: Sequence[Arg],
              context: Context | None = None, body: Compound | None = None) -> None:
        """Take in what ``command`` sets (the body's commands in order; ``context`` and the
        function's ``body`` tell whether it runs on every call)."""
        words = command.words
        name = words[0].value if words else None
        if name == "shift" and len(words) <= 2:
            count = words[1].value if len(words) == 2 else "1"
            if self.shift is not None and count.isdigit() and \
                    not _maybe_runs(context, body):
                self.shift += int(count)
            else:
                # `if [[ $1 == --quiet ]]; then shift; fi`: which parameter `$1` is now
                # depends on the call (docker-mailserver helpers/rspamd.sh).
                self.shift = None
            return
        for a in command.assignments:
            if not words:
                self.variables[a.name] = self.read(a.value, params)
            else:
                self.variables.pop(a.name, None)  # `h=x cmd`: only cmd's environment
        if name in _DECLARERS:
            for w in words[1:]:
                head = w.parts[0] if w.parts else None
                if head is None or head.kind != "literal" or head.value.startswith("-"):
                    continue
                var, eq, rest = head.value.partition("=")
                if not eq:
                    self.variables.pop(var, None)
                    continue
                tail = Word(w.span, w.raw, (*((Part(head.kind, head.quoting, head.span, rest,
                                                    head.offsets[len(var) + 1:]),) if rest
                                              else ()), *w.parts[1:]))
                self.variables[var] = self.read(tail, params)
        elif name in ("read", "unset", "mapfile", "readarray"):
            for w in words[1:]:
                self.variables.pop(w.value, None)

    def read(self, value: Word, params: Sequence[Arg]) -> list[Arg] | None:
        """The value of an assignment from a plain parameter read (`h=$1`, `h="$1"`)."""
        if len(value.parts) != 1:
            return None
        part = value.parts[0]
        found = self.param(part, params)
        if found is None or len(found) > 1:
            return None
        return found or [Arg("", False, None, None, ())]

    def param(self, part: Part, params: Sequence[Arg]) -> list[Arg] | None:
        """The call's Args ``part`` reads, or None when it reads nothing the call gave."""
        if part.kind == "special":
            m = _PLAIN_READ.match(part.value)
            if m is None:
                return None
            which = m.group(1) or m.group(2)
            shift = self.shift
            if which == "0" or shift is None:
                return None
            if which in ("@", "*"):
                return list(params[shift:])
            i = int(which) - 1 + shift
            return [params[i]] if i < len(params) else []
        if part.kind == "parameter":
            m = _NAME_READ.match(part.value)
            if m is None:
                return None
            var = m.group(1) or m.group(2)
            if var in self.variables:
                return self.variables[var]
        return None


def reads_parameters(command: SimpleCommand, params: Sequence[Arg], bindings: Bindings) -> bool:
    """Some word of ``command`` reads what the call passed (``substitute`` would put it in)."""
    for w in command.words:
        try:
            if any(bindings.param(p, params) is not None for p in w.parts):
                return True
        except (ValueError, IndexError, KeyError):
            continue  # a form not modelled: the word stays as written
    return False


def _maybe_runs(context: Context | None, body: Compound | None) -> bool:
    """A command of a function body that may not run on a call: inside a branch or loop of
    the body, or after `&&`/`||`. Unknown (no context) counts as running every time."""
    if context is None:
        return False
    inside = context.ancestors
    if body is not None:
        for i, node in enumerate(inside):
            if node is body:
                inside = inside[i + 1:]
                break
    return context.guarded or any(isinstance(n, Compound) and n.kind in _BRANCHES
                                  for n in inside)


def substitute(word: Word, arg: Arg, params: Sequence[Arg],
               bindings: Bindings) -> list[Arg] | None:
    """The Args ``word`` (whose Arg is ``arg``) becomes with the call's parameters in, or None
    when it reads none of them."""
    reads = [bindings.param(p, params) for p in word.parts]
    if all(r is None for r in reads):
        return None
    if len(word.parts) == 1:
        part = word.parts[0]
        got = reads[0]
        assert got is not None
        star = part.kind == "special" and part.value.strip("${}") == "*"
        if part.quoting != "none":
            if star:
                return [_joined(got)]
            if part.value.strip("${}") == "@":
                return list(got)
            return list(got) if got else [Arg("", False, None, arg.source_span, ())]
        out: list[Arg] = []
        for g in got:
            out.extend(_split(g))
        return out
    # A word of several parts: one Arg, parameter values spliced in (quoted or plain words).
    value: list[str] = []
    offsets: list[int | None] = []
    ranges: list[tuple[int, int]] = []
    at = 0
    k = 0
    for part, got in zip(word.parts, reads, strict=True):
        n = len(part.value)
        if got is not None and len(got) == 1 and at + len(got[0].value) > MAX_VALUE_CHARS:
            # `f() { g "$1$1$1$1"; }` called down a chain grows without bound: past the
            # value budget the parameter is known only at run time, as written here.
            got = None
        if got is None or len(got) > 1:
            value.append(part.value)
            offsets.extend(arg.offsets[k:k + n])
            if part.dynamic:
                ranges.append((at, at + n))
            at += n
        else:
            g = got[0] if got else Arg("", False, None, None, ())
            value.append(g.value)
            offsets.extend(g.offsets)
            ranges.extend((at + s, at + e) for s, e in g.dynamic_ranges)
            if part.quoting == "none" and any(c in g.value for c in _IFS + _GLOB):
                ranges.append((at, at + len(g.value)))  # split or globbed: not one known word
            at += len(g.value)
        k += n
    text = "".join(value)
    kept = tuple((s, e) for s, e in ranges if e > s)
    return [Arg(text, bool(kept), None, arg.source_span, offsets, _merge(kept))]


def _joined(args: Sequence[Arg]) -> Arg:
    text, offsets, ranges = join_args(args)
    span = args[0].source_span if args else None
    return Arg(text, bool(ranges), None, span, offsets, tuple(ranges))


def _split(a: Arg) -> list[Arg]:
    """An unquoted read of ``a``: field splitting (and globbing, left unknown)."""
    if a.dynamic:
        return [a]
    if any(c in a.value for c in _GLOB):
        return [Arg(a.value, True, a.word, a.source_span, a.offsets, ((0, len(a.value)),))]
    if not any(c in a.value for c in _IFS):
        return [a] if a.value else []
    out: list[Arg] = []
    offs = list(a.offsets)
    for m in re.finditer(r"[^ \t\n]+", a.value):
        s, e = m.span()
        out.append(Arg(m.group(), False, None, a.source_span, offs[s:e]))
    return out


def _merge(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


__all__ = ["Bindings", "CallBudget", "FunctionDef", "FunctionTable", "defines_functions",
           "substitute"]
