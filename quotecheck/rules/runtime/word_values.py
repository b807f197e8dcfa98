"""What a word known only at run time may hold, when the script itself says so.

``pkill -f "$pattern"`` inside ``for pattern in validator.sh solana-; do ... done`` runs once
with each word of the loop; after ``if ...; then P=a; else P=b; fi`` it runs with one of them.
The values come from the layer's own analysis (``quotecheck.values``): a word every part of
which is known, each possible value one field (a pattern word that could split into several
words, or none, is left alone). Characters an outer layer fills in at run time are not this
layer's to know.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotecheck.layers.model import CommandView, Layer
from quotecheck.parsing.tree import Compound
from quotecheck.records import FrozenRecord
from quotecheck.rules.api import CheckContext
from quotecheck.rules.runtime.slots import commands_in

if TYPE_CHECKING:
    from quotecheck.values import Values

# How many values of one word are tried (each is one more match of every candidate process).
MAX_VALUES = 16
# Commands that end a loop's run before its later words are reached.
_LEAVE_LOOP = frozenset({"break", "exit", "return", "exec"})


class WordValues(FrozenRecord):
    """The possible values of a word, in the order the script gives them."""

    values: tuple[str, ...]
    # Every value is used, one after the other: the word reads the variable of a `for` loop
    # around the command, over these words, and nothing in the body leaves the loop early.
    each: bool
    shown: str  # the expansion as written: `$pattern`
    loop_at: int | None  # with ``each``: where the `for` loop starts in the layer's text


def layer_values(ctx: CheckContext, layer: Layer) -> Values | None:
    """What the script of shell layer ``layer`` says about its variables, analysed once."""
    script = layer.script
    if script is None:
        return None
    if layer.known is not None:  # the trace's own (trace.LazyValues), analysed once
        got: Values | None = layer.known.get()
        return got
    from quotecheck.values import analyse_values
    return ctx.memo.get_or_compute("values", script,
                                   lambda: analyse_values(script, ctx.source))


def word_values(ctx: CheckContext, layer: Layer, view: CommandView,
                index: int) -> WordValues | None:
    """The values ``view.argv[index]`` may hold, or None when the script does not say."""
    script = layer.script
    if script is None or not 0 <= index < len(view.argv):
        return None
    arg = view.argv[index]
    word = arg.word
    if word is None or not arg.dynamic or view.context.script.text is not script.text:
        return None
    a, b = word.span
    if any(x < b and a < y for x, y in layer.dynamic_ranges):
        return None  # filled in by an outer layer at run time
    values = layer_values(ctx, layer)
    if values is None:
        return None
    try:
        alternatives = values.expand_all(word)
    except (ValueError, IndexError, KeyError, RecursionError):
        return None
    if not alternatives:
        return None
    out: list[str] = []
    for fields in alternatives:
        if len(fields) != 1:
            return None
        out.append(fields[0].text)
    found = tuple(dict.fromkeys(out))
    if len(found) > MAX_VALUES:
        return None
    params = [p for p in word.parts if p.kind != "literal"]
    shown = params[0].value if len(params) == 1 else word.raw
    loop = _loop_of(view, params[0].name if len(params) == 1 and
                    params[0].kind == "parameter" else None)
    each = False
    if loop is not None and len(params) == 1:
        k = values.at(loop.name or "", params[0].span[0])
        each = k.kind == "exact" and k.offsets == (loop.span[0],) and not _leaves_early(loop)
    return WordValues(found, each, shown, loop.span[0] if each and loop is not None else None)


def _loop_of(view: CommandView, name: str | None) -> Compound | None:
    """The innermost `for NAME in ...` loop around the command."""
    if name is None:
        return None
    for node in reversed(view.context.ancestors):
        if isinstance(node, Compound) and node.kind == "for" and node.name == name and \
                node.words:
            return node
        if isinstance(node, Compound) and node.kind == "function":
            return None
    return None


def _leaves_early(loop: Compound) -> bool:
    for cmd in commands_in(loop):
        if cmd.words and not cmd.words[0].dynamic and cmd.words[0].value in _LEAVE_LOOP:
            return True
    return False
