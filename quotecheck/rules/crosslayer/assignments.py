"""Where a shell layer gives a variable a value, and which values are shell-quoted output
(printf %q, ${x@Q}, getopt...)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from quotecheck.layers.model import Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import (
    Compound,
    Pipeline,
    Script,
    SimpleCommand,
    iter_nodes,
)
from quotecheck.parsing.words import EXPANSION_KINDS, Part, Word
from quotecheck.records import Record
from quotecheck.rules.crosslayer.chars import DECLARERS, scripts_of
from quotecheck.rules.crosslayer.parameters import IDENTIFIER
from quotecheck.rules.crosslayer.text import basename
from quotecheck.values.shapes import read_target_indices, substitution_node


class Assigned(Record):
    """Where a layer gives a variable a value."""

    span: tuple[int, int] | None  # source span of the assignment
    value: Word | None  # the value word, when it is `name=value`
    script: Script | None
    quoted: bool = False  # the value is shell-quoted output (printf %q, ${x@Q}, getopt)
    handover: bool = False  # `name=$name`: takes over a value an outer layer pasted in
    declared_only: bool = False  # `local name`: no value given


def _value_part_of(word: Word, name: str) -> Word:
    """The value of an `export name=value` word, as a Word of its own parts after `=`."""
    parts: list[Part] = []
    seen_eq = False
    for p in word.parts:
        if seen_eq:
            parts.append(p)
        elif p.kind == "literal" and "=" in p.value:
            seen_eq = True
    return Word(word.span, word.raw, tuple(parts))


def assigned_names(layer: Layer) -> dict[str, list[Assigned]]:
    out: dict[str, list[Assigned]] = {}
    if layer.script is None:
        return out

    def add(name: str, a: Assigned) -> None:
        out.setdefault(name, []).append(a)

    for view in layer.commands:
        cmd = view.command
        script = view.context.script
        for a in cmd.assignments:
            add(a.name, Assigned(script.origin.span(*a.span), a.value, script))
        argv = view.argv
        if not argv or argv[0].dynamic:
            continue
        prog = argv[0].value
        values = [x.value for x in argv]
        if prog in DECLARERS:
            for x in argv[1:]:
                if x.value.startswith(("-", "+")) or x.word is None:
                    continue
                name, eq, _ = x.value.partition("=")
                if IDENTIFIER.fullmatch(name):
                    add(name, Assigned(x.source_span, _value_part_of(x.word, name) if eq
                                       else None, script, declared_only=not eq))
        elif prog == "read":
            for i in read_target_indices(values):
                add(values[i], Assigned(argv[i].source_span, None, script))
        elif prog == "printf" and len(values) > 2 and values[1] == "-v":
            quoted = len(values) > 3 and ("%q" in values[3] or "%Q" in values[3])
            add(values[2].partition("[")[0],
                Assigned(argv[2].source_span, None, script, quoted=quoted))
        elif prog in ("mapfile", "readarray") and len(values) > 1:
            last = values[-1]
            if IDENTIFIER.fullmatch(last):
                add(last, Assigned(argv[-1].source_span, None, script))
        elif prog == "getopts" and len(values) > 2:
            add(values[2], Assigned(argv[2].source_span, None, script))
    for script in scripts_of(layer.script):
        for node in iter_nodes(script.body):
            if isinstance(node, Compound) and node.kind in ("for", "select") and node.name:
                add(node.name, Assigned(script.origin.span(*node.span), None, script))
    # Values that are shell-quoted output; `name=$name` hand-overs.
    for name, assigns in out.items():
        for found in assigns:
            if found.value is not None and found.value.raw.strip("\"'") in (
                    f"${name}", f"${{{name}}}"):
                found.handover = True
            if found.value is not None and found.script is not None and is_quoted_output(
                    found.value, found.script):
                found.quoted = True
    return out


def substitution_words(script: Script, part: Part) -> list[str] | None:
    """The words of the first simple command of a `$(...)`/backtick part (as written)."""
    inner = script.substitutions.get(part.span[0])
    if inner is None:
        found = script.substitutions_in(part.span)
        inner = found[0] if found else None
    if inner is None:
        return None
    for node in iter_nodes(inner.body):
        if isinstance(node, SimpleCommand) and node.words:
            return [w.value for w in node.words]
    return None


def quoting_command(words: Sequence[str]) -> bool:
    """A command whose output is shell-quoted text: printf %q, getopt, declare -p/-f..."""
    if not words:
        return False
    prog = basename(words[0])
    if prog == "printf":
        return any("%q" in w or "%Q" in w for w in words[1:])
    if prog == "getopt":
        return True
    if prog in ("declare", "typeset") and any(
            w.startswith("-") and ("p" in w or "f" in w) for w in words[1:]):
        return True
    if prog in ("export", "alias") and "-p" in words[1:]:
        return True
    if prog == "jq" and any("@sh" in w for w in words[1:]):
        return True
    return any("shlex.quote" in w or "shlex.join" in w for w in words)


# `sed 's~[^-[:alnum:]+,./:=@_]~\\&~g'` (Gradle's wrapper): every character outside a set of
# plain ones gets a backslash, so no shell reads any of them as syntax.
_ESCAPING_SED = lazy_compile(r"\s*s(.)\[\^((?:\[:[a-z]+:\]|[^\]\[])+)\]\1\\\\&\1g\s*;?\s*")
_PLAIN_CLASSES = frozenset({"alnum", "alpha", "digit", "lower", "upper", "xdigit"})
_PLAIN_CHARS = frozenset("-_.,/:=@+%")


def _escapes_for_the_shell(words: Sequence[str]) -> bool:
    """``words`` is a sed that backslash-escapes each character outside a set of plain
    characters (letters, digits, `-_.,/:=@+%`)."""
    if len(words) < 2 or basename(words[0]) != "sed":
        return False
    script = words[2] if len(words) == 3 and words[1] in ("-e", "--expression") else (
        words[1] if len(words) == 2 else None)
    m = _ESCAPING_SED.fullmatch(script) if script is not None else None
    if m is None:
        return False
    body = m.group(2)
    rest = re.sub(r"\[:([a-z]+):\]", lambda c: "" if c.group(1) in _PLAIN_CLASSES else " ", body)
    return all(c.isascii() and (c.isalnum() or c in _PLAIN_CHARS) for c in rest)


def _joins_lines(words: Sequence[str]) -> bool:
    """`tr '\\n' ' '`: the lines joined with blanks (which only separate words)."""
    return len(words) == 3 and basename(words[0]) == "tr" and words[1] == "\\n" and \
        words[2] == " "


def _escaped_pipeline(script: Script, part: Part) -> bool:
    """A `$(... | sed 's/[^PLAIN]/\\&/g' | tr '\\n' ' ')`: whatever the first stages print,
    each character that is not plain is escaped for the shell, and the lines are joined with
    blanks, so the output is words with no shell syntax (a newline left in would end a
    command)."""
    node = substitution_node(script, part)
    if not isinstance(node, Pipeline) or len(node.commands) < 2:
        return False
    stages = [[w.value for w in c.words] if isinstance(c, SimpleCommand) and not c.redirects
              and not any(w.dynamic for w in c.words) else [] for c in node.commands]
    return _escapes_for_the_shell(stages[-2]) and _joins_lines(stages[-1])


def part_is_quoted_output(part: Part, script: Script) -> bool:
    if part.kind == "parameter" and re.search(r"@[QK]\}$", part.value):
        return True
    if part.kind in ("command", "backtick"):
        words = substitution_words(script, part)
        return (words is not None and quoting_command(words)) or _escaped_pipeline(script, part)
    return False


def is_quoted_output(word: Word, script: Script) -> bool:
    exps = [p for p in word.parts if p.kind in EXPANSION_KINDS]
    return bool(exps) and all(part_is_quoted_output(p, script) for p in exps)
