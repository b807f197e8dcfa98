"""QC112 inner-shell-args: the words after `sh -c 'script'` are not what the script reads.

`sh -c STRING a b` runs STRING with `$0=a`, `$1=b` (POSIX; verified with bash and dash): the first
word after the string is the shell's name, not `$1`. So `sh -c 'echo $1' x` prints an empty line,
`find . -exec sh -c 'gzip "$1"' {} \\;` gzips nothing, and `xargs sh -c 'echo "$1"'` loses the
first input word. `sh -c ls -l /tmp` runs `ls` alone (`-l` is `$0`). `su -c` takes one command
string: su reads the words after it as its own options or as the user name (`su -c ls -l /root`
is a login shell for a user named `/root`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix, Related
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Compound, iter_nodes
from quotecheck.parsing.words import Word
from quotecheck.programs import SHELL_PROGRAMS
from quotecheck.records import Record
from quotecheck.rules._handoffs import (
    arg_span,
    code,
    command_span,
    descendants,
    in_function,
    outer_dynamic_offsets,
    view_words,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

_NESTED_POSITIONAL = lazy_compile(r"\$\{?([0-9]+|[@*#])")
_OPTIONAL = lazy_compile(r"\$\{[0-9]+:?[-=?+]")
_FOR_ALL = lazy_compile(r"(?:^|[;\s&|(])for\s+[A-Za-z_][A-Za-z0-9_]*\s*(?:;|\n|do\b)")
_REWIRING = frozenset({"shift", "set", "getopts"})
# Words written as $0 on purpose: a shell's name, or a word that says it is a stand-in.
_PLACEHOLDERS = frozenset(SHELL_PROGRAMS) | {"_", "-", "--", "argv0", "arg0", "dummy", "script",
                                             "shell", "name", "$0"}


class Refs(Record):
    """Positional parameters a script reads."""

    numbers: dict[int, tuple[CommandView | None, tuple[int, int] | None]]
    all_args: bool  # $@ $* $# or `for x; do`
    zero: bool
    optional: set[int]  # ${1:-default}
    rewired: bool  # shift / set -- / getopts change them
    any_in_functions: bool

    def __init__(
        self,
        numbers: dict[int, tuple[CommandView | None, tuple[int, int] | None]] | None = None,
        all_args: bool = False,
        zero: bool = False,
        optional: set[int] | None = None,
        rewired: bool = False,
        any_in_functions: bool = False,
    ) -> None:
        self.numbers = {} if numbers is None else numbers
        self.all_args = all_args
        self.zero = zero
        self.optional = set() if optional is None else optional
        self.rewired = rewired
        self.any_in_functions = any_in_functions

    @property
    def max_number(self) -> int:
        needed = [n for n in self.numbers if n not in self.optional]
        return max(needed, default=0)

    @property
    def reads_any(self) -> bool:
        return bool(self.numbers) or self.all_args or self.zero or self.any_in_functions


def _note(refs: Refs, name: str, view: CommandView | None, span: tuple[int, int] | None,
          text: str) -> None:
    if name in ("@", "*", "#"):
        refs.all_args = True
    elif name == "0":
        refs.zero = True
    elif name.isdigit():
        n = int(name)
        refs.numbers.setdefault(n, (view, span))
        if _OPTIONAL.match(text):
            refs.optional.add(n)


def _scan_word(refs: Refs, word: Word, view: CommandView | None, outer: set[int],
               layer: Layer) -> None:
    origin = view.context.script.origin if view is not None else layer.script.origin \
        if layer.script is not None else None
    for p in word.parts:
        if p.kind not in ("parameter", "special", "arithmetic"):
            continue
        if origin is not None and outer:
            off = origin[p.span[0]]
            if off is not None and off in outer:
                continue
        span = origin.span(*p.span) if origin is not None else None
        if p.kind == "special" and p.name is not None:
            _note(refs, p.name, view, span, p.value)
        for m in _NESTED_POSITIONAL.finditer(p.value[1:] if p.kind == "special" else p.value):
            _note(refs, m.group(1), view, span, m.group(0))


def positional_refs(layer: Layer) -> Refs:
    refs = Refs()
    outer = outer_dynamic_offsets(layer)
    for view in layer.commands:
        if (view.values and view.values[0] in _REWIRING and not in_function(view)
                and (view.values[0] != "set" or any(v == "--" or not v.startswith(("-", "+"))
                                                    for v in view.values[1:]))):
            refs.rewired = True
        target = refs
        if in_function(view):
            target = Refs()
        for word in view_words(view):
            _scan_word(target, word, view, outer, layer)
        if target is not refs and target.reads_any:
            refs.any_in_functions = True
    if layer.script is not None:
        for node in iter_nodes(layer.script.body):
            if isinstance(node, Compound):
                for word in node.words:
                    _scan_word(refs, word, None, outer, layer)
        if _FOR_ALL.search(layer.script.text):
            refs.all_args = True
    return refs


def _names_dollar_zero(arg: Arg) -> bool:
    """A first word put there as $0 on purpose: `sh`, `_`, `--`, or the caller's own `"$0"`."""
    v = arg.value
    if arg.dynamic:
        return v.startswith(("$0", "${0", "$(basename")) or "BASH_SOURCE" in v
    return v in _PLACEHOLDERS or v.rsplit("/", 1)[-1] in _PLACEHOLDERS


def _is_option(arg: Arg) -> bool:
    """A word written as an option (`--no-install-kmd`, `-v`), not `-`, `--` or a login
    shell's name (`-bash`)."""
    v = arg.value
    return (not arg.dynamic and v.startswith("-") and v not in ("-", "--")
            and v[1:] not in _PLACEHOLDERS)


def _looks_like_name(arg: Arg) -> bool:
    """A word someone put there on purpose as $0."""
    if arg.dynamic:
        return False
    v = arg.value
    return v in _PLACEHOLDERS or bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", v)) or \
        v.rsplit("/", 1)[-1] in _PLACEHOLDERS


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer, view in ctx.commands():
        for h in view.handoffs:
            if not isinstance(h, ho.ShellHandoff) or h.mode != "c" or h.script is None:
                continue
            if h.wrapper in ("su", "runuser"):
                found = _su_words(ctx, layer, view, h)
                if found is not None:
                    yield found
                    continue
            inner = _inner_layer(ctx, view, h)
            if inner is None:
                continue
            found = _judge(ctx, layer, view, h, inner)
            if found is not None:
                yield found


def _inner_layer(ctx: CheckContext, view: CommandView, h: ho.ShellHandoff) -> Layer | None:
    text = h.script_text(view.values)
    for x in descendants(ctx, view):
        if x.kind == "shell" and not x.stdin_script and x.text == text:
            return x
    return None


def _name(h: ho.ShellHandoff) -> str:
    return h.shell if h.shell != "unknown" else "the shell"


def _zero(h: ho.ShellHandoff) -> str:
    """A name to pass as $0."""
    return h.shell if h.shell != "unknown" else "sh"


def _raw(view: CommandView, start: int, end: int) -> list[str]:
    return [a.word.raw if a.word is not None else _q(a.value) for a in view.argv[start:end]]


_READS_BUT = Template(
    "reads-but",
    "{script} reads `${need}`, but {what}",
    "`${need}` is empty when {shell} runs it. Pass the values after a name for $0: "
    "{code}.")
_RUNS_ONLY_SCRIPT = Template(
    "runs-only-script",
    "{shell} runs only the script {script}",
    "the words after it, {words}, become $0, $1... and the script never reads them. "
    "If they belong to the command, put them inside the string: {code}.",
    ";")


def _judge(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.ShellHandoff,
           inner: Layer) -> Finding | None:
    positional = inner.positional
    refs = positional_refs(inner)
    if refs.rewired:
        return None
    given = max(len(positional) - 1, 0)
    shell = _name(h)
    script = code(inner.text or "", 50)
    need = refs.max_number
    if positional and not refs.zero:
        first = positional[0]
        placeholder = _names_dollar_zero(first)
        # `$1` read, one word short; a data word ({} of find, xargs input, "$f") as $0; or
        # "$@" read while the first word looks like a file name rather than a shell name.
        off_by_one = (need and need == given + 1 and not placeholder) or (
            first.dynamic and not placeholder and (need or refs.all_args))
        # A file name first: data, not a name chosen for $0 (`sh -c 'cp "$1" "$2"' a.txt /b`).
        file_like = (not first.dynamic and not placeholder
                     and ("/" in first.value or "." in first.value.lstrip(".")))
        file_first = file_like and (need or (refs.all_args and not _looks_like_name(first)))
        # An option first (`bash -c "$(curl ...)" --no-kmd`, `sh -c 'prog "$@"' -v x`): a
        # script reads its options from $1 on, never from $0, whatever the script is; so
        # also when its text is known only at run time.
        option_first = _is_option(first) and bool(
            need or refs.all_args or (inner.dynamic_ranges and not refs.reads_any))
        if off_by_one or file_first or option_first:
            return _first_is_zero(ctx, layer, view, h, inner, first, refs, shell, script)
    if need > given and h.script is not None:
        view_span = refs.numbers[need]
        span = view_span[1] or command_span(ctx, layer, view)
        if not positional:
            what = "no words follow the script"
        else:
            words = " ".join(f"‹{a.value}›" for a in positional)
            what = f"the words after it, {words}, fill only $0..${given}"
        return Finding(
            span,
            _READS_BUT(script=script, need=need, what=what, shell=shell,
                       code=code(' '.join([*_raw(view, 0, h.script + 1), _zero(h), 'ARG1',
                                           '...']), 120)),
            inner,
        )
    if positional and not refs.reads_any and not inner.dynamic_ranges:
        extra = list(positional)
        if len(extra) >= 2 or (extra and extra[0].value.startswith("-")
                               and not extra[0].dynamic and extra[0].value not in ("-", "--")):
            words = " ".join(f"‹{a.value}›" for a in extra)
            joined = " ".join([inner.text or "", *(a.value for a in extra[: len(extra)])])
            return Finding(
                arg_span(ctx, layer, view, extra[0]),
                _RUNS_ONLY_SCRIPT(shell=shell, script=script, words=words,
                                  code=code(f'{shell} -c {_q(joined)}', 120)),
                inner,
            )
    return None


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


_FIRST_ARGUMENT_IS_DOLLAR_ZERO = Template(
    "first-argument-is-dollar-zero",
    "{where} `$0` of {shell} (its name in error messages), not `$1`",
    "the script {script} reads {values} and misses it. To make it `$1`, {how}.")


def _first_is_zero(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.ShellHandoff,
                   inner: Layer, first: Arg, refs: Refs, shell: str, script: str) -> Finding:
    reads = [f"${n}" for n in sorted(refs.numbers)] + (["$@"] if refs.all_args else [])
    if not reads:
        # The script's text comes only at run time (`bash -c "$(curl ...)" --opt`).
        reads = ["its options and arguments from `$1` on (whatever it holds: its text comes "
                 "only at run time)"]
    assert h.script is not None
    name = _zero(h)
    head = _raw(view, 0, h.script + 1)
    if first.value == "{input}":
        where = ("xargs appends its input words after the script, so the first of them "
                 "becomes")
        how = f"end the command with a name for $0: {code(' '.join([*head, name]), 120)}"
    elif first.value in ("$@", "${@}") or first.value.startswith("${@"):
        where = (f"the first word {code(first.value)} expands to after the script (the first "
                 f"argument) becomes")
        rest = _raw(view, h.script + 1, len(view.argv))
        how = f"put a name for $0 before it: {code(' '.join([*head, name, *rest]), 120)}"
    else:
        where = f"‹{first.value}› is the first word after the script, so it becomes"
        rest = _raw(view, h.script + 1, len(view.argv))
        how = f"put a name for $0 before it: {code(' '.join([*head, name, *rest]), 120)}"
    related: tuple[Related, ...] = ()
    if refs.numbers:
        n = min(refs.numbers)
        span = refs.numbers[n][1]
        if span is not None:
            related = (Related(span, f"`${n}` is read here"),)
    fixes: tuple[Fix, ...] = ()
    if layer.parent is None and first.source_span is not None and first.word is not None:
        a = first.source_span[0]
        if ctx.source[a:a + len(first.word.raw)] == first.word.raw:
            fixes = (Fix(f"insert `{name}` as $0", (Edit((a, a), f"{name} "),), "unsafe"),)
    elif layer.parent is None and first.value == "{input}" and h.script is not None:
        end = view.argv[h.script].source_span
        if end is not None and view.argv[h.script].word is not None:
            fixes = (Fix(f"append `{name}` as $0", (Edit((end[1], end[1]), f" {name}"),),
                         "unsafe"),)
    span = (arg_span(ctx, layer, view, first) if first.source_span is not None
            else (related[0].span if related else command_span(ctx, layer, view)))
    return Finding(
        span,
        _FIRST_ARGUMENT_IS_DOLLAR_ZERO(where=where, shell=shell, script=script,
                                       values=', '.join(reads),
                             how=how),
        inner,
        related=related,
        fixes=fixes,
    )


_C_TAKES_EXACTLY_ONE = Template(
    "c-takes-exactly-one",
    "{wrapper} -c takes exactly one command string, {code}",
    "it reads the words after it itself: {reads}. They never reach the command. "
    "Quote the whole command as one word: {code2}.",
    ";")


def _su_words(ctx: CheckContext, layer: Layer, view: CommandView,
              h: ho.ShellHandoff) -> Finding | None:
    assert h.script is not None
    values = view.values
    args = set(h.args)
    options = {o.index: o for o in h.options}
    taken: list[tuple[int, str]] = []
    seen_user = False
    for k in range(h.script + 1, len(values)):
        if k in args:
            continue
        if k in options:
            taken.append((k, f"‹{values[k]}› as its own option"))
        elif any(o.value_index == k for o in h.options):
            taken.append((k, f"‹{values[k]}› as an option's value"))
        elif values[k] == "-":
            continue
        else:
            user = values[k]
            named = re.fullmatch(r"[a-z_][a-z0-9_.-]*\$?", user) or (
                view.argv[k].dynamic and not seen_user)  # `su -c 'cmd' "$user"`
            seen_user = True
            if named and not any(o > h.script for o in options):
                continue  # `su -c 'cmd' user`: the usual order
            taken.append((k, f"‹{user}› as the user name"))
    if not taken:
        return None
    first = taken[0][0]
    wrapper = h.wrapper or "su"
    reads = "; ".join(t for _, t in taken)
    command = " ".join([values[h.script], *(values[k] for k, _ in taken)])
    return Finding(
        arg_span(ctx, layer, view, view.argv[first]),
        _C_TAKES_EXACTLY_ONE(wrapper=wrapper, code=code(values[h.script]), reads=reads,
                             code2=code(f'{wrapper} -c {_q(command)}', 120)),
        layer,
    )


RULE = Rule("QC112", "inner-shell-args",
            "The words after sh -c 'script' (or su -c) are not what the script reads",
            "warning", check, fix="unsafe",
            trigger=HANDOFFS)
