"""Remote commands that only show that an ssh login worked (QC211, QC301).

A login probe runs something on the remote side that does nothing but end (`true`, `:`,
`exit 0`) or print text it was given (`echo ...`). Two rules read it:

- QC301: nothing is sent or run in such a session that an impostor could take (any `exit N`
  will do: the status does not matter there): ``LOGIN_PROBE`` on the text ssh sends;
- QC211: such a command cannot fail, so a nonzero status of the ssh is ssh's own (it could not
  connect or log in, or the connection broke): ``cannot_fail`` on the remote shell's parse.

Why `echo` cannot fail there: its output goes into a pipe that the remote sshd reads for the
session's channel. sshd keeps reading it while the session lives, also when nothing reads
ssh's output on the local side any more (`ssh h 'sleep 1; echo hi' | true`: the remote echo
returns 0 and so does ssh, tried against OpenSSH 9). The write fails (EPIPE) only once sshd has
closed the pipe, which it does when the session or the connection is gone: a failure of ssh.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Node, Script, SimpleCommand
from quotecheck.parsing.words import Part, Word

# What a probe may run: end (`exit`, `true`, `:`) or print the words it was given (`echo`).
# One fact, in two forms: the set (for a parsed command) and the text pattern (QC301).
PROBE_COMMANDS = frozenset({"true", "/bin/true", ":", "echo", "/bin/echo", "exit"})
LOGIN_PROBE = lazy_compile(
    r"[ \t]*(?:exit(?:[ \t]+\d+)?|true|/bin/true|:|echo(?:[ \t]+[\w.-]+)*)[ \t]*")

# `printf` cannot fail either when its format takes its arguments as text (`%s`) or none:
# `printf %d abc` fails ("invalid number"), an option (`-v`) is not POSIX sh's.
_TEXT_FORMAT = re.compile(r"(?:[^%-]|%%|%s)(?:[^%]|%%|%s)*")
# A parameter read as it is (`$x`, `${x}`): `${x:?msg}` fails when x is empty, `${x=v}`
# assigns (a read-only x fails).
_PLAIN_PARAMETER = re.compile(r"\$(?:\w+|\{\w+\})")


def text_format(fmt: str) -> bool:
    """A `printf` format that takes its arguments as text: printf cannot fail on them."""
    return _TEXT_FORMAT.fullmatch(fmt) is not None


def _commands(nodes: Sequence[Node]) -> Iterator[SimpleCommand | None]:
    """The simple commands of a list of `;`/`&&`/`||`/newline-separated commands, None for any
    other construct (a pipeline, a loop, a background job, a group)."""
    for node in nodes:
        if isinstance(node, SimpleCommand):
            yield node
        elif isinstance(node, CommandList) and "&" not in node.ops:
            yield from _commands(node.items)
        else:
            yield None


def _plain(word: Word, outer: Sequence[tuple[int, int]]) -> bool:
    """A word that expands without running anything that can fail: text, a parameter read as
    it is, or text an outer layer fills in (``outer``: the ranges its values stand in)."""
    return all(_plain_part(p, outer) for p in word.parts)


def _plain_part(part: Part, outer: Sequence[tuple[int, int]]) -> bool:
    if part.kind == "literal":
        return True
    if any(a <= part.span[0] and part.span[1] <= b for a, b in outer):
        return True  # a value filled in before the remote shell runs: text to it
    return part.kind == "parameter" and _PLAIN_PARAMETER.fullmatch(part.value) is not None


def _cannot_fail(cmd: SimpleCommand, outer: Sequence[tuple[int, int]]) -> bool:
    if cmd.redirects or cmd.assignments or not cmd.words:
        return False  # a redirection can fail (no such directory, no space left)
    first, args = cmd.words[0], cmd.words[1:]
    if first.literal_value not in (*PROBE_COMMANDS, "printf"):
        return False
    if first.literal_value == "exit":
        return [a.literal_value for a in args] in ([], ["0"])
    if first.literal_value == "printf":
        fmt = args[0].literal_value if args else None
        if fmt is None or not text_format(fmt):
            return False
        args = args[1:]
    return all(_plain(w, outer) for w in args)


def cannot_fail(script: Script | None, outer: Sequence[tuple[int, int]] = ()) -> bool:
    """Every command of ``script`` (a remote shell's parse) is one that cannot fail: `true`,
    `:`, `exit` or `exit 0`, `echo` of any text, `printf` of a text format, without
    redirections, command substitutions or parameter operators; ``outer``: the ranges of the
    text that an outer layer's values fill in (text to the remote shell, whatever they hold).
    """
    if script is None or script.problems or not script.body:
        return False
    return all(c is not None and _cannot_fail(c, outer) for c in _commands(script.body))
