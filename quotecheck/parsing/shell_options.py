"""The shell options a text turns on that change how bash parses it.

bash reads ``@(a|b)``, ``!(x)``, ``+(..)``, ``*(..)`` and ``?(..)`` as one pattern word only
while ``extglob`` is on when the text is parsed; with it off they are a syntax error. A script
turns it on with ``shopt -s extglob`` (it takes effect for the top-level commands and functions
read after it) or on its ``#!`` line (``#!/bin/bash -O extglob``). The text is judged as a whole,
as ``bash -O extglob -n`` judges it: where in the file the option is set is not followed.
"""

from __future__ import annotations

import re

from quotecheck.lazy_regex import lazy_compile

# `shopt -s extglob`, `shopt -qs nullglob extglob`; not in a comment (no `#` before it).
_SHOPT_EXTGLOB = lazy_compile(
    r"^[^#\n]*\bshopt[ \t]+(?:-[A-Za-z]*s[A-Za-z]*[ \t]+)(?:-[A-Za-z]+[ \t]+)*"
    r"(?:[A-Za-z_]+[ \t]+)*extglob\b",
    re.MULTILINE,
)
# `#!/bin/bash -O extglob`, `#!/usr/bin/env -S bash -O extglob`.
_SHEBANG_EXTGLOB = lazy_compile(r"\A#![^\n]*[ \t]-O[ \t]*extglob\b")


def enables_extglob(text: str) -> bool:
    """Whether ``text`` turns bash's ``extglob`` on (``shopt -s`` or its ``#!`` line)."""
    if "extglob" not in text:  # (the common case, decided without a regex)
        return False
    return bool(_SHEBANG_EXTGLOB.match(text) or _SHOPT_EXTGLOB.search(text))


def argv_enables_extglob(argv: list[str]) -> bool:
    """Whether a shell's command line turns extglob on before it reads its script
    (`bash -O extglob -c ...`; options end at the first word that is not one)."""
    for k, word in enumerate(argv[1:], 1):
        if word == "-O" and argv[k + 1:k + 2] == ["extglob"]:
            return True
        if word == "-Oextglob":
            return True
        if word == "--" or not word.startswith(("-", "+")):
            return False
    return False
