"""Regular expressions compiled when first used, not when their module is imported.

Compiling a pattern costs far more than importing the code around it (a case-insensitive
alternation of words: ~0.3 ms), and most of the module-level patterns are not used on a given
input: compiled at import, they were about a tenth of a small check's time. ``lazy_compile``
returns a stand-in that compiles its pattern the first time one of its attributes is read and
then keeps the compiled pattern's methods in its own ``__dict__``: every later ``.match``,
``.search``... is the compiled pattern's own bound method, with no call in between.

A stand-in is not an ``re.Pattern`` object: give ``.compiled`` to code that wants the object
itself (``re.sub(PATTERN, ...)`` would take a stand-in for a string).
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

# What a compiled pattern offers, copied onto the stand-in on first use.
_ATTRIBUTES = ("findall", "finditer", "flags", "fullmatch", "groupindex", "groups", "match",
               "pattern", "scanner", "search", "split", "sub", "subn")


class _LazyPattern:
    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._source = (pattern, flags)

    @property
    def compiled(self) -> re.Pattern[Any]:
        return re.compile(*self._source)  # re's own cache: compiled once

    def __getattr__(self, name: str) -> Any:
        compiled = self.compiled
        for attribute in _ATTRIBUTES:
            self.__dict__[attribute] = getattr(compiled, attribute)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile{self._source!r}"


def lazy_compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, compiled the first time it is used."""
    return cast("re.Pattern[AnyStr]", _LazyPattern(pattern, flags))
