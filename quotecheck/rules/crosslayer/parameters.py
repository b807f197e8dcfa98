"""Shell parameters: the name a `$x` or `${x...}` reads, and what kind of parameter it is."""

from __future__ import annotations

from typing import Literal

from quotecheck.lazy_regex import lazy_compile

ParamClass = Literal["positional", "special", "named", "none"]


IDENTIFIER = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_AT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!_-]")


def param_name(text: str) -> str | None:
    """The parameter a `$x` / `${x...}` text reads (`${10}` -> `10`, `${#}` -> `#`)."""
    if text.startswith("${"):
        body = text[2:]
        if len(body) > 1 and body[0] in "#!" and body[1] != "}":
            body = body[1:]
        m = _NAME_AT.match(body)
        return m.group() if m else None
    if text.startswith("$") and len(text) > 1:
        body = text[1:]
        m = IDENTIFIER.match(body)
        if m:
            return m.group()
        return body[0] if body[0].isdigit() or body[0] in "@*#?$!_-" else None
    return None


def param_class(name: str | None) -> ParamClass:
    if name is None:
        return "none"
    if name.isdigit() or name in ("#", "@", "*"):
        return "positional"
    if name in ("!", "?", "$", "-", "_"):
        return "special"
    return "named"
