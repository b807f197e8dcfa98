"""What .gitignore leaves out of a directory walk, read by quotecheck itself: it never runs git.

git runs programs a repository's own ``.git/config`` names (``core.fsmonitor``, hooks...), so a
walk that asked git would run code from the tree it checks. This module reads, as plain files:

- ``.gitignore`` in every directory from the work-tree root (the directory holding ``.git``,
  a directory or a ``gitdir:`` file) down to the file, a deeper one beating a shallower one;
  a directory holding its own ``.git`` met in the walk starts a new work tree;
- ``.git/info/exclude`` (below every .gitignore), only when ``.git`` is a directory.

Not read: ``.git/config`` (so no ``core.excludesFile``, no ``core.ignoreCase``: matching is
case-sensitive), the global excludes file (``~/.config/git/ignore``), the index (a file git
tracks although a pattern matches it is left out too), and a ``.gitignore`` that is a symbolic
link (as git 2.32 and later). Outside a work tree nothing is ignored.

The rules are git's (``man gitignore``): blank lines and ``#`` comments are skipped, ``\\#``
and ``\\!`` start a pattern with that character, trailing spaces are dropped unless escaped
(``\\ ``); ``!`` re-includes, except below an excluded directory (an excluded directory is not
entered); a trailing ``/`` matches directories only; a pattern with a ``/`` at the start or in
the middle is anchored to its file's directory, one without matches a name at any depth;
``*``, ``?`` and ``[...]`` (``[!...]``, ranges, ``[:alpha:]``) never match a ``/``; ``**/``,
``/**`` and ``/**/`` span directories; ``\\`` escapes any character; the last pattern that
matches decides. Names are compared byte for byte, as git does.

Bounded work: of each ignore file at most ``MAX_IGNORE_BYTES`` (1 MiB) and its first
``MAX_IGNORE_LINES`` (10,000) lines are read, the rest is not; a pattern is tested on a path
without backtracking (globs.py), in at most pattern × path steps.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from quotecheck.globs import SLASH, STAR, Glob, Token
from quotecheck.programs import C_LOCALE_CLASSES

MAX_IGNORE_BYTES = 1024 * 1024
MAX_IGNORE_LINES = 10_000

# The ASCII sets of the [:name:] classes: git's own ctype, not the locale's, whose `space` has
# no \f or \v.
NAMED_CLASSES = {**C_LOCALE_CLASSES, "space": " \t\n\r"}


class NeverMatches(ValueError):
    """A pattern git reads but that matches nothing (an unclosed ``[``, an unknown
    ``[:name:]``, a trailing ``\\``)."""


def _bracket(text: str, start: int) -> tuple[str, int]:
    """The one-character regex fragment of the ``[...]`` at ``start``, and the index after it."""
    i = start + 1
    n = len(text)
    negated = i < n and text[i] in "!^"
    i += negated
    members: list[str] = []
    previous: str | None = None  # the last single character: it may begin a range
    first = True
    while True:
        if i >= n:
            raise NeverMatches("unclosed [")
        c = text[i]
        if c == "]" and not first:
            break
        first = False
        if c == "\\":
            i += 1
            if i >= n:
                raise NeverMatches("unclosed [")
            c = text[i]
            members.append(re.escape(c))
            previous = c
        elif c == "-" and previous is not None and i + 1 < n and text[i + 1] != "]":
            i += 1
            high = text[i]
            if high == "\\":
                i += 1
                if i >= n:
                    raise NeverMatches("unclosed [")
                high = text[i]
            # The low end was a member on its own already; a reversed range adds nothing
            # (a regex would refuse it).
            if previous <= high:
                members.append(re.escape(previous) + "-" + re.escape(high))
            previous = None
        elif c == "[" and text.startswith(":", i + 1):
            close = text.find("]", i + 2)
            if close == -1:
                raise NeverMatches("unclosed [")
            if close - 1 < i + 2 or text[close - 1] != ":":
                # No ":]" before the next "]": the "[" is an ordinary member.
                members.append(re.escape("["))
                previous = "["
            else:
                name = text[i + 2:close - 1]
                if name not in NAMED_CLASSES:
                    raise NeverMatches(f"unknown class [:{name}:]")
                members.append("".join(re.escape(ch) for ch in NAMED_CLASSES[name]))
                previous = None
                i = close
        else:
            members.append(re.escape(c))
            previous = c
        i += 1
    body = "".join(members)
    if not body:
        return ("." if negated else "(?!)"), i + 1
    return "[" + ("^" if negated else "") + body + "]", i + 1


def tokens(text: str) -> list[Token]:
    """The tokens (globs.py) of one gitignore pattern, its ``!`` and trailing ``/`` already
    taken off; raises NeverMatches."""
    out: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise NeverMatches("trailing backslash")
            c = text[i]
            out.append(SLASH if c == "/" else (re.escape(c), c))
            i += 1
        elif c == "/":
            out.append(SLASH)
            i += 1
        elif c == "*":
            out.append(STAR)
            i += 1
        elif c == "?":
            out.append((".", None))
            i += 1
        elif c == "[":
            fragment, i = _bracket(text, i)
            out.append((fragment, None))
        else:
            out.append((re.escape(c), c))
            i += 1
    return out


class Rule:
    """One pattern of an ignore file."""

    __slots__ = ("dir_only", "glob", "negated")

    def __init__(self, glob: Glob, negated: bool, dir_only: bool) -> None:
        self.glob = glob
        self.negated = negated
        self.dir_only = dir_only


def _trim_trailing_spaces(line: str) -> str:
    keep = 0  # the length up to the last character that is not an unescaped space
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 1  # the escaped character stays, a space too
            if i == len(line):
                return line
        elif line[i] == " ":
            i += 1
            continue
        i += 1
        keep = i
    return line[:keep]


def parse_rule(line: str) -> Rule | None:
    """The rule of one line (latin-1: one character per byte), or None for none."""
    if line.endswith("\r"):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    line = _trim_trailing_spaces(line)
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
    if not line:
        return None
    anchored = "/" in line
    if line.startswith("/"):
        line = line[1:]
    try:
        return Rule(Glob(tokens(line), anchored), negated, dir_only)
    except NeverMatches:
        return None


def parse_rules(data: bytes) -> tuple[Rule, ...]:
    """The rules of an ignore file's bytes (at most MAX_IGNORE_LINES lines)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.decode("latin-1").split("\n", MAX_IGNORE_LINES)[:MAX_IGNORE_LINES]
    return tuple(rule for line in lines if (rule := parse_rule(line)) is not None)


def _read_regular(path: Path, limit: int, *, follow: bool) -> bytes:
    """At most ``limit`` bytes of a regular file; nothing for anything else (a FIFO would
    block, a device never end) or a file that cannot be read; without ``follow``, nothing
    for a symbolic link."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return b""
    chunks: list[bytes] = []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        left = limit
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 16))):
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return b""
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_ignore_file(path: Path, *, follow: bool) -> tuple[Rule, ...]:
    """The rules of an ignore file (none when it is not a regular file or cannot be read)."""
    return parse_rules(_read_regular(path, MAX_IGNORE_BYTES, follow=follow))


def _git_marker(directory: Path) -> str | None:
    """"dir" or "file" when ``directory`` holds a ``.git`` that makes it a work-tree root."""
    marker = directory / ".git"
    try:
        mode = os.lstat(marker).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file" if _read_regular(marker, 8, follow=False).startswith(b"gitdir: ") \
            else None
    return None


def _name(name: str) -> str:
    """A file name as git compares it: its bytes, one character each."""
    return os.fsencode(name).decode("latin-1")


# One ignore file's rules and the depth of its directory below the work-tree root.
Level = tuple[int, tuple[Rule, ...]]


class Ignores:
    """What is ignored in one directory: the levels of rules that apply there (shallowest
    first) and the directory's names below its work-tree root."""

    __slots__ = ("levels", "names")

    def __init__(self, levels: tuple[Level, ...], names: tuple[str, ...]) -> None:
        self.levels = levels
        self.names = names

    @classmethod
    def root(cls, directory: Path, marker: str) -> Ignores:
        levels: list[Level] = []
        if marker == "dir":
            levels.append((0, read_ignore_file(directory / ".git" / "info" / "exclude",
                                               follow=True)))
        levels.append((0, read_ignore_file(directory / ".gitignore", follow=False)))
        return cls(tuple(level for level in levels if level[1]), ())

    def child(self, directory: Path, name: str) -> Ignores:
        """The rules in ``directory``, a subdirectory named ``name`` of this one."""
        marker = _git_marker(directory)
        if marker is not None:
            return Ignores.root(directory, marker)
        names = (*self.names, _name(name))
        rules = read_ignore_file(directory / ".gitignore", follow=False)
        return Ignores((*self.levels, (len(names), rules)) if rules else self.levels, names)

    def ignored(self, name: str, is_dir: bool) -> bool:
        """Whether the entry ``name`` of this directory is ignored."""
        if not self.levels:
            return False
        base = _name(name)
        path: tuple[str, ...] | None = None
        for depth, rules in reversed(self.levels):
            relative: Sequence[str] | None = None
            for rule in reversed(rules):
                if rule.dir_only and not is_dir:
                    continue
                glob = rule.glob
                if glob.anchored:
                    if relative is None:
                        path = path or (*self.names, base)
                        relative = path[depth:]
                    hit = glob.match(relative)
                else:
                    hit = glob.match((base,))
                if hit:
                    return not rule.negated
        return False


def ignores_at(directory: Path) -> Ignores | None:
    """The rules that apply in ``directory``, or None when the directory itself is ignored
    (then everything below it is)."""
    absolute = Path(os.path.abspath(directory))
    for root in (absolute, *absolute.parents):
        marker = _git_marker(root)
        if marker is not None:
            break
    else:
        return Ignores((), ())
    state = Ignores.root(root, marker)
    here = root
    for name in absolute.relative_to(root).parts:
        if state.ignored(name, is_dir=True):
            return None
        here = here / name
        state = state.child(here, name)
    return state
