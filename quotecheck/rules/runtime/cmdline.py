"""Process command lines as ``ps`` and ``pgrep`` show them.

``ps`` (args columns) and ``pgrep -f`` see a process's argv joined with single spaces, with a
newline shown as a space and every other control character (tab, CR, DEL...) as ``?``
(``render_cmdline``). So the whole text of a ``sh -c`` script is in its shell's command line.
Without ``-f``, ``pgrep`` and ``ps -e`` match the process name (``comm_name``).
"""

from __future__ import annotations

from collections.abc import Sequence


def render_cmdline(argv: Sequence[str]) -> str:
    """The command line as ``ps`` (args) and ``pgrep -f`` show it: same length as the join."""
    joined = " ".join(argv)
    return "".join(" " if ch == "\n" else "?" if (ord(ch) < 32 or ord(ch) == 127) else ch
                   for ch in joined)


def comm_name(argv: Sequence[str]) -> str | None:
    """The process name (``comm``, 15 bytes) ``pgrep`` without ``-f`` and ``ps -e`` show."""
    if not argv or argv[0].startswith("<"):
        return None
    return argv[0].rsplit("/", 1)[-1].lstrip("-")[:15]
