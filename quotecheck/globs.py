"""The glob patterns of ``exclude``, ``extend-exclude`` and ``per-path-ignores``.

Matched against a path relative to the directory of the configuration file (or the working
directory), with ``/`` between parts, as .gitignore reads them:

- a pattern without ``/`` (``*.bats``, ``vendor``) matches a file or directory name at any
  depth;
- a pattern with ``/`` (``ci/legacy/*``) is anchored at that directory, and its ``*`` and ``?``
  never match a ``/``: ``ci/legacy/*`` matches ``ci/legacy/x.sh``, not ``ci/legacy/deep/x.sh``;
- ``**`` matches any number of directories: ``ci/legacy/**`` matches everything below
  ``ci/legacy``, ``**/test_*.sh`` a test script at any depth;
- ``[abc]``, ``[!abc]`` match one character of (not of) a set; a leading ``/`` only anchors,
  a trailing ``/`` is ignored.

As in .gitignore, ``**`` is special only as a whole part (``**/x``, ``x/**``, ``x/**/y``);
elsewhere (``x**``) it is a ``*``.

Matching never backtracks: a pattern is cut into parts at ``/``, a run of ``**`` parts is
followed over the path's parts as a set of positions (at most parts × parts name tests), and
one part is tested on one name by placing its fixed-length pieces between ``*`` leftmost, one
after the other (at most pattern × name steps). gitignore.py uses the same matcher with its own
syntax (backslash escapes, POSIX classes); this module's is the one above, where ``\\`` is an
ordinary character.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# What a pattern is cut into before it is compiled: "/" (between parts), "*" (any run of
# characters in a name), or a one-character test as a regex fragment without repetition,
# with the character itself when the test is that character.
SLASH = "/"
STAR = "*"
Token = str | tuple[str, str | None]


class Piece:
    """A run of one-character tests between two ``*``: a fixed length, so placing it in a
    name never backtracks (a literal is found with str.find, the rest with a regex without
    any repetition, at most piece × name steps)."""

    __slots__ = ("length", "literal", "regex")

    def __init__(self, tests: Sequence[tuple[str, str | None]]) -> None:
        self.length = len(tests)
        chars = [char for _, char in tests]
        self.literal: str | None = None
        self.regex: re.Pattern[str] | None = None
        if all(char is not None for char in chars):
            self.literal = "".join(c for c in chars if c is not None)
        else:
            self.regex = re.compile("".join(fragment for fragment, _ in tests), re.DOTALL)

    def at(self, name: str, pos: int) -> bool:
        if self.literal is not None:
            return name.startswith(self.literal, pos)
        assert self.regex is not None
        return self.regex.match(name, pos) is not None

    def find(self, name: str, start: int, end: int) -> int:
        """Where the piece first fits wholly inside name[start:end], or -1."""
        if self.literal is not None:
            return name.find(self.literal, start, end)
        assert self.regex is not None
        found = self.regex.search(name, start, end)
        return -1 if found is None else found.start()


class Part:
    """One part of a pattern (between two ``/``), tested on one name."""

    __slots__ = ("head", "middles", "starred", "tail")

    def __init__(self, tokens: Sequence[Token]) -> None:
        pieces: list[list[tuple[str, str | None]]] = [[]]
        for token in tokens:
            if token == STAR:
                pieces.append([])
            else:
                assert isinstance(token, tuple)
                pieces[-1].append(token)
        self.starred = len(pieces) > 1
        self.head = Piece(pieces[0])
        self.tail = Piece(pieces[-1]) if self.starred else self.head
        self.middles = tuple(Piece(p) for p in pieces[1:-1] if p)

    def match(self, name: str) -> bool:
        head, tail = self.head, self.tail
        if not self.starred:
            return len(name) == head.length and head.at(name, 0)
        end = len(name) - tail.length
        if end < head.length or not head.at(name, 0) or not tail.at(name, end):
            return False
        pos = head.length
        for piece in self.middles:
            # Leftmost is never worse: whatever fits after a later place fits after this one.
            found = piece.find(name, pos, end)
            if found < 0:
                return False
            pos = found + piece.length
        return True


class Glob:
    """A compiled pattern: its parts (None for a ``**`` part) and whether it is anchored (else
    it has one part, tested on the last name of a path)."""

    __slots__ = ("anchored", "parts", "spread")

    def __init__(self, tokens: Sequence[Token], anchored: bool) -> None:
        parts: list[Part | None] = []
        current: list[Token] = []
        for token in [*tokens, SLASH]:
            if token != SLASH:
                current.append(token)
                continue
            stars = sum(1 for t in current if t == STAR)
            if stars >= 2 and stars == len(current):
                parts.append(None)
            else:
                # Consecutive stars are one star.
                parts.append(Part([t for i, t in enumerate(current)
                                   if not (t == STAR and i and current[i - 1] == STAR)]))
            current = []
        self.parts = tuple(parts)
        self.anchored = anchored
        self.spread = None in parts

    def match(self, names: Sequence[str]) -> bool:
        """Whether the path of these names (none of them empty) matches."""
        parts = self.parts
        if not names:
            return False
        if not self.anchored:
            only = parts[0]
            return only is None or only.match(names[-1])
        if not self.spread:
            return len(names) == len(parts) and all(
                part.match(name) for part, name in zip(parts, names, strict=True)
                if part is not None)
        return self._spread_match(names)

    def _spread_match(self, names: Sequence[str]) -> bool:
        # The positions in the pattern that the names so far can have reached. A ``**`` part
        # stays on a name and may be left without one, except the last part: x/** is not x.
        parts = self.parts
        done = len(parts)
        last = done - 1
        states = self._closure({0})
        for name in names:
            reached: set[int] = set()
            for k in states:
                if k == done:
                    continue
                part = parts[k]
                if part is None:
                    reached.add(k)
                    if k == last:
                        reached.add(done)
                elif part.match(name):
                    reached.add(k + 1)
            if not reached:
                return False
            states = self._closure(reached)
        return done in states

    def _closure(self, states: set[int]) -> set[int]:
        parts = self.parts
        last = len(parts) - 1
        todo = list(states)
        while todo:
            k = todo.pop()
            if k < last and parts[k] is None and k + 1 not in states:
                states.add(k + 1)
                todo.append(k + 1)
        return states


def _tokens(body: str) -> list[Token]:
    """The tokens of a configuration glob (``\\`` is an ordinary character); raises re.error
    for a ``[...]`` that is not a character set."""
    out: list[Token] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "/":
            out.append(SLASH)
        elif c == "*":
            out.append(STAR)
        elif c == "?":
            out.append(("[^/]", None))
        elif c == "[" and (close := body.find(
                "]", i + 2 if body.startswith(("[!", "[^"), i) else i + 1)) != -1:
            inner = body[i + 1:close]
            negate = inner[:1] in ("!", "^")
            inner = inner[1:] if negate else inner
            # Inside a set, [ & ~ | are plain characters; escaped, they are also no future
            # set operation (Python warns about "[[" and "&&").
            inner = re.sub(r"[\\\[&~|]", lambda m: "\\" + m.group(), inner)
            fragment = "[" + ("^/" if negate else "") + inner + "]"
            re.compile(fragment)  # the error bad_glob reports
            out.append((fragment, None))
            i = close
        else:
            out.append((re.escape(c), c))
        i += 1
    return out


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> Glob:
    body = pattern.strip("/")
    return Glob(_tokens(body), anchored=pattern.startswith("/") or "/" in body)


def glob_match(pattern: str, relative: str) -> bool:
    """Whether ``relative`` (a ``/``-separated path, no leading ``/``) matches ``pattern``."""
    return compile_glob(pattern).match(relative.split("/"))


def bad_glob(pattern: str) -> str | None:
    """Why a pattern is refused, or None."""
    if not pattern.strip("/"):
        return "an empty pattern"
    try:
        compile_glob(pattern)
    except re.error as exc:
        return f"not a glob pattern ({exc})"
    return None
