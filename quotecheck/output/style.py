"""Terminal styling: ANSI colour when writing to a terminal, plain text otherwise."""

from __future__ import annotations

import os
from typing import TextIO

_CODES = {"bold": "1", "dim": "2", "red": "31", "yellow": "33", "blue": "34", "cyan": "36",
          "magenta": "35"}


def want_colour(stream: TextIO, choice: str = "auto") -> bool:
    """``--color auto`` follows the tty and the NO_COLOR / FORCE_COLOR conventions."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def _wrap(self, text: str, *names: str) -> str:
        if not self.colour or not text:
            return text
        codes = ";".join(_CODES[n] for n in names)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self._wrap(text, "bold")

    def dim(self, text: str) -> str:
        return self._wrap(text, "dim")

    def heading(self, text: str) -> str:
        return self._wrap(text, "bold", "cyan")

    def dynamic(self, text: str) -> str:
        return self._wrap(text, "yellow")

    def severity(self, severity: str) -> str:
        colour = {"error": "red", "warning": "yellow", "info": "blue", "hint": "magenta"}
        return self._wrap(severity, "bold", colour.get(severity, "bold"))

    def caret(self, text: str) -> str:
        return self._wrap(text, "bold", "red")
