"""The shell a file's own directive names: ``# quotecheck: shell=zsh`` or ShellCheck's
``# shellcheck shell=zsh``, on a comment line of their own (the first one counts)."""

from __future__ import annotations

import re

from quotecheck.lazy_regex import lazy_compile

_SHELL_DIRECTIVE = lazy_compile(
    r"^[ \t]*#[ \t]*(?:quotecheck[ \t]*:|shellcheck[ \t])[^\n]*?(?<![-\w])shell=([A-Za-z0-9_-]+)",
    re.MULTILINE)


def directive_shell(text: str) -> str | None:
    m = _SHELL_DIRECTIVE.search(text)
    return m.group(1) if m else None
