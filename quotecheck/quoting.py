"""Quoting for one more layer, and for a stack of them: the engine behind ``quotecheck quote``.

Quoting goes innermost first. The target argv is turned into what the innermost layer must
receive, then that into what the next layer out must receive, and so on:

- an exec wrapper (``sudo -u svc``, ``env X=1``, ``timeout 5``) passes its argv on unchanged,
  so the argv is appended to its words;
- a shell that runs a string (``sh -c``, ``bash -c``, ``su -c``) gets one word: the argv quoted
  for that shell's dialect and joined with spaces;
- ssh joins its remote words with spaces and the remote login shell parses the result, so it
  also gets one word: the argv quoted for the remote shell's dialect.

The final argv is quoted for the local shell. For a POSIX shell, bash and zsh a word is left bare
when nothing in it is special, else given the shortest of single quotes, double quotes (when it
holds none of ``$ ` \\ " !``) and single quotes with ``'\\''`` for each quote. The first word of
each command line is quoted also when it would be read as a reserved word (``time``, ``if``) or
an assignment (``A=1``). A layer quotecheck does not know is refused, never guessed.
"""

from __future__ import annotations

from typing import Literal

from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import (
    NEEDS_COMMAND_PREFIX,
    POSIX_QUOTING,
    RESERVED_WORDS,
    ZSH_PRECOMMAND_MODIFIERS,
)
from quotecheck.records import FrozenRecord

_SAFE = lazy_compile(r"[A-Za-z0-9_@%+=:,./-]+")
_DOUBLE_QUOTE_SPECIAL = frozenset('$`\\"!')  # `!`: history expansion in interactive bash/zsh
_ASSIGNMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")


class CannotQuote(ValueError):
    """A value that a layer's dialect cannot carry (e.g. a newline through tcsh)."""


def _posix_shortest(value: str, dialect: str) -> str:
    if value and _SAFE.fullmatch(value) and not (dialect == "zsh" and value[0] == "="):
        return value  # (zsh expands a bare `=word` to a command's path)
    candidates = []
    if "'" not in value:
        candidates.append(f"'{value}'")
    if not _DOUBLE_QUOTE_SPECIAL.intersection(value):
        candidates.append(f'"{value}"')
    escaped = "'" + value.replace("'", "'\\''") + "'"
    if escaped.startswith("''") and len(escaped) > 2:
        escaped = escaped[2:]
    if escaped.endswith("''") and len(escaped) > 2:
        escaped = escaped[:-2]
    candidates.append(escaped)
    return min(candidates, key=len)  # single quotes first on a tie


def quote_word(value: str, dialect: str = "sh", *, shortest: bool = False) -> str:
    """``value`` as one word that ``dialect`` reads back exactly (``shortest``: the shortest
    such spelling, for a person to read; otherwise plain single quotes, as fixes write)."""
    if dialect in POSIX_QUOTING:
        if shortest:
            return _posix_shortest(value, dialect)
        if value and _SAFE.fullmatch(value) and not (dialect == "zsh" and value[0] == "="):
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


def quote_command_name(value: str, dialect: str = "sh", *, shortest: bool = False) -> str:
    """The first word of a command line: also quoted when a shell would take it for a
    reserved word or an assignment rather than the program to run."""
    word = quote_word(value, dialect, shortest=shortest)
    if value in NEEDS_COMMAND_PREFIX or (dialect == "zsh" and value in ZSH_PRECOMMAND_MODIFIERS):
        return f"command {word}"
    if word == value and (value in RESERVED_WORDS or _ASSIGNMENT.match(value)):
        return f"'{value}'"
    return word


def quote_argv(argv: list[str], dialect: str = "sh", *, shortest: bool = False) -> str:
    """A command line that ``dialect`` splits back into exactly ``argv``, run as a command."""
    if not argv:
        raise CannotQuote("nothing to quote: the argv is empty")
    first = quote_command_name(argv[0], dialect, shortest=shortest)
    return " ".join([first, *(quote_word(a, dialect, shortest=shortest) for a in argv[1:])])


class Step(FrozenRecord):
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
        break
    # An unknown program (sshpass, autossh, python3 -c...) may run what follows it as code:
    # quoting for a guess could deliver an injection, so it is refused.
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
            current = [*step.words, quote_argv(current, step.dialect, shortest=True)]
    return quote_argv(current, local_shell, shortest=True), steps
