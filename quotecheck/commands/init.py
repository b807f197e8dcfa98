"""``quotecheck init bash|zsh``: print the snippet that guards an interactive shell.

The snippets (``quotecheck/snippets/guard.bash`` and ``guard.zsh``) hook the shell's Enter key:
bash binds it (``bind -x``) to a function that checks ``$READLINE_LINE`` before accept-line,
zsh wraps the ``accept-line`` widget and checks ``$BUFFER``. Both call ``quotecheck guard
--command=LINE`` (the ``=`` form: a line that starts with ``-`` stays the option's value) and,
when it blocks, show the reason and ask whether to run the line anyway.
"""

from __future__ import annotations

import sys
from pathlib import Path

from quotecheck.commands.status import EXIT_OK

SNIPPETS = Path(__file__).resolve().parent.parent / "snippets"


def snippet(shell: str) -> str:
    return (SNIPPETS / f"guard.{shell}").read_text(encoding="utf-8")


def run(*, shell: str) -> int:
    """``quotecheck init SHELL``."""
    sys.stdout.write(snippet(shell))
    return EXIT_OK
