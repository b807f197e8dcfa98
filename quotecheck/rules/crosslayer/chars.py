"""How a shell layer reads each character of its text: inside which word part, quoted how."""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers.model import Layer
from quotecheck.parsing.tree import Compound, Script, SimpleCommand, iter_nodes
from quotecheck.parsing.words import Word
from quotecheck.programs import DECLARATION_BUILTINS
from quotecheck.records import FrozenRecord
from quotecheck.rules.crosslayer.parameters import IDENTIFIER

DECLARERS = DECLARATION_BUILTINS


def scripts_of(script: Script) -> list[Script]:
    """``script`` and every substitution script cut from its text, outermost first."""
    out = [script]
    seen = {id(script)}
    tables: set[int] = set()  # the scripts of one text share one table: read each once
    stack = [script]
    while stack:
        s = stack.pop()
        if id(s.substitutions) in tables:
            continue
        tables.add(id(s.substitutions))
        for sub in s.substitutions.values():
            if id(sub) not in seen:
                seen.add(id(sub))
                out.append(sub)
                stack.append(sub)
    rest = sorted(out[1:], key=lambda s: -(s.anchor[1] - s.anchor[0]) if s.anchor else 0)
    return [script, *rest]


class CharInfo(FrozenRecord):
    """How an inner layer reads one character: inside which word part, quoted how."""

    quoting: str
    kind: str
    word: Word
    script: Script
    command: SimpleCommand | None
    first_word: bool  # the word is the command name
    assigns: str | None = None  # the word is the value of `name=...` (or `export name=...`)


def words_of(script: Script) -> Iterator[tuple[Word, SimpleCommand | None, bool, str | None]]:
    """Every word of ``script``: (word, its command, is the command name, assigned name)."""
    for node in iter_nodes(script.body):
        if isinstance(node, SimpleCommand):
            declarer = bool(node.words) and node.words[0].value in DECLARERS
            for i, w in enumerate(node.words):
                name = None
                if declarer and i > 0:
                    m = IDENTIFIER.match(w.raw)
                    if m and w.raw[m.end():m.end() + 1] == "=":
                        name = m.group()
                yield w, node, i == 0, name
            for a in node.assignments:
                yield a.value, node, False, a.name
            for r in node.redirects:
                if r.target is not None:
                    yield r.target, node, False, None
                if r.heredoc is not None:
                    yield r.heredoc.body, node, False, None
        elif isinstance(node, Compound):
            for w in node.words:
                yield w, None, False, None
            for r in node.redirects:
                if r.target is not None:
                    yield r.target, None, False, None


def char_map(layer: Layer) -> dict[int, CharInfo]:
    """Source offset -> how ``layer`` reads the character from there (innermost part wins)."""
    out: dict[int, CharInfo] = {}
    if layer.script is None:
        return out
    for script in scripts_of(layer.script):
        origin = script.origin
        for word, command, first, assigns in words_of(script):
            for part in word.parts:
                info = CharInfo(part.quoting, part.kind, word, script, command, first,
                                assigns)
                for off in part.offsets:
                    src = origin[off]
                    if src is not None:
                        out[src] = info
    return out
