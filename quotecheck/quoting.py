"""Quoting for one more layer, and for a stack of them: the engine behind ``quotecheck quote``.

Quoting goes innermost first. The target argv is turned into what the innermost layer must
receive, then that into what the next layer out must receive, and so on:

- an exec wrapper (``sudo -u svc``, ``env X=1``, ``timeout 5``) passes its argv on unchanged,
  so the argv is appended to its words;
- a shell that runs a string (``sh -c``, ``bash -c``, ``su -c``) gets one word: the argv quoted
  for that shell's dialect and joined with spaces;
- ssh joins its remote words with spaces and the remote login shell parses the result, so it
  also gets one word: the argv quoted for the remote shell's dialect.

The final argv is quoted for the local shell. Quoting for a POSIX shell uses single quotes (and
``'"'"'`` for a quote), which every POSIX shell, bash and zsh read back exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from quotecheck.programs import POSIX_QUOTING

_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


class CannotQuote(ValueError):
    """A value that a layer's dialect cannot carry (e.g. a newline through tcsh)."""


def quote_word(value: str, dialect: str = "sh") -> str:
    """``value`` as one word that ``dialect`` reads back exactly."""
    if dialect in POSIX_QUOTING:
        if value and _SAFE.fullmatch(value):
            return value
        return "'" + value.replace("'", "'\"'\"'") + "'"
    if dialect == "fish":
        # Inside fish's single quotes only \' and \\ are escapes.
        if value and _SAFE.fullmatch(value):
            return value
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if dialect in ("tcsh", "csh"):
        for ch, why in (("\n", "a newline cannot stand inside csh quotes"),
                        ("!", "csh expands `!` history references even inside quotes")):
            at = value.find(ch)
            if at >= 0:
                raise CannotQuote(f"{dialect} cannot carry {value!r}: {why} "
                                  f"(character {at + 1})")
        if value and _SAFE.fullmatch(value):
            return value
        return "'" + value.replace("'", "'\"'\"'") + "'"
    raise CannotQuote(f"unknown shell dialect {dialect!r}")


def quote_argv(argv: list[str], dialect: str = "sh") -> str:
    """A command line that ``dialect`` splits back into exactly ``argv``."""
    if not argv:
        raise CannotQuote("nothing to quote: the argv is empty")
    return " ".join(quote_word(a, dialect) for a in argv)


@dataclass(frozen=True)
class Step:
    """How one ``--via`` layer takes what is inside it."""

    words: tuple[str, ...]  # the via's own words, e.g. ('sudo', '-u', 'svc', 'sh', '-c')
    kind: Literal["exec", "shell", "ssh"]
    dialect: str  # the dialect of the shell that parses the string (shell and ssh steps)
    description: str


def plan_via(via: list[str], remote_shell: str = "sh") -> Step:
    """Decide how ``via`` (already split into words) hands on what follows it."""
    from quotecheck.layers import dispatch
    from quotecheck.layers import handoff_types as ho

    sentinel = "\0quotecheck-target\0"
    argv = [*via, sentinel]
    at = len(argv) - 1
    while True:
        if at == 0:
            # The target argv itself is what this layer runs.
            return Step(tuple(via), "exec", "", f"{' '.join(via)}: argv passed on")
        h = dispatch.classify(argv)
        if isinstance(h, ho.ExecHandoff):
            words = list(h.words)
            if at not in words or h.prefix:
                break
            argv = [argv[i] for i in words]
            at = argv.index(sentinel)
            continue
        if isinstance(h, ho.ShellHandoff) and h.mode == "c" and h.script == at and \
                h.script_offset == 0:
            shell = h.shell if h.shell != "unknown" else "sh"
            return Step(tuple(via), "shell", shell,
                        f"{' '.join(via)}: one word, parsed by {shell}")
        if isinstance(h, ho.SshHandoff) and at in h.command:
            if h.command[0] != at:
                break
            return Step(tuple(via), "ssh", remote_shell,
                        f"{' '.join(via)}: one word, parsed by the remote {remote_shell}")
        if h is None:
            # A program that takes the target as arguments (`python3 run.py`): passed on.
            return Step(tuple(via), "exec", "", f"{' '.join(via)}: argv passed on")
        break
    raise CannotQuote(
        f"cannot tell how `{' '.join(via)}` passes on what follows it; give a wrapper "
        "(sudo -u u, env, timeout 5...), a shell with -c (sh -c, bash -c, su -c) or ssh HOST")


def compose(argv: list[str], vias: list[list[str]], local_shell: str = "bash",
            remote_shell: str = "sh") -> tuple[str, list[Step]]:
    """The command line for ``local_shell`` that delivers ``argv`` through ``vias``.

    ``vias`` are outermost first, as written on the command line.
    """
    steps = [plan_via(v, remote_shell) for v in vias]
    current = list(argv)
    for step in reversed(steps):
        if step.kind == "exec":
            current = [*step.words, *current]
        else:
            current = [*step.words, quote_argv(current, step.dialect)]
    return quote_argv(current, local_shell), steps
