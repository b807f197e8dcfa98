"""The expansions a shell layer performs, where their text lands, and the finding each gets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from quotecheck.layers.model import CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Redirect, Script
from quotecheck.parsing.words import EXPANSION_KINDS, Part, Word
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import Finding
from quotecheck.rules.crosslayer.chars import CharInfo
from quotecheck.rules.crosslayer.parameters import ParamClass, param_class, param_name

Code = Literal["QC101", "QC103", "QC104", "QC105"]


ARITH_NAMES = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Expansion(FrozenRecord):
    """An expansion a shell layer performs in a word of one of its commands."""

    layer: Layer
    view: CommandView
    script: Script
    word: Word
    part: Part
    sources: tuple[int, ...]
    heredoc: Redirect | None = None

    @property
    def span(self) -> tuple[int, int]:
        return (min(self.sources), max(self.sources) + 1)

    @property
    def text(self) -> str:
        return self.part.value

    @property
    def name(self) -> str | None:
        if self.part.kind in ("parameter", "special"):
            return param_name(self.part.value)
        return None

    @property
    def pclass(self) -> ParamClass:
        return param_class(self.name) if self.part.kind in ("parameter", "special") else "none"

    @property
    def shown(self) -> str:
        return one_line_escaped(self.part.value, 40)


class Landing(FrozenRecord):
    """Where an expansion's text is read by an inner shell layer."""

    layer: Layer
    infos: tuple[CharInfo, ...]

    @property
    def unquoted(self) -> bool:
        return any(i.quoting == "none" for i in self.infos)

    @property
    def command_word(self) -> bool:
        """The expansion is the whole command name of an inner command."""
        return any(i.first_word and i.quoting == "none" and len(i.word.parts) == 1
                   for i in self.infos)


class Result(Record):
    code: Code
    finding: Finding


def expansions_of(layer: Layer, view: CommandView,
                  inherited: Sequence[set[int]]) -> list[Expansion]:
    """Expansions ``layer`` performs in the words (and heredoc bodies) of ``view``."""
    script = view.context.script
    out: list[Expansion] = []

    def make(word: Word, part: Part, heredoc: Redirect | None) -> None:
        srcs = tuple(s for s in (script.origin[o] for o in part.offsets) if s is not None)
        if not srcs or any(s in outer for outer in inherited for s in srcs):
            return  # characters an outer layer put here: not this layer's expansion
        out.append(Expansion(layer, view, script, word, part, srcs, heredoc))

    for word in view.command.words:
        for part in word.parts:
            if part.kind in EXPANSION_KINDS and part.quoting in ("none", "double"):
                make(word, part, None)
    for r in view.command.redirects:
        if r.heredoc is not None and not r.heredoc.spec.quoted:
            for part in r.heredoc.body.parts:
                if part.kind in EXPANSION_KINDS:
                    make(r.heredoc.body, part, r)
    return out
