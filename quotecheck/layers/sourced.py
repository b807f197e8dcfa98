"""The files a script sources (`source F`, `. F`), read when asked (``--external-sources``).

A file is found the way ShellCheck's `-x` finds it: the word names it literally, or as a
literal tail after the script's own directory (`"$(dirname "$0")/lib.sh"`, `"$DIR"/env.sh`),
and it exists beside the script. Each file is read and parsed once per check, whoever asks
(the function table, the value analysis): ``SourcedFiles`` caches it by its resolved path.
"""

from __future__ import annotations

import os

from quotecheck.limits import Limits
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.tree import Script
from quotecheck.parsing.words import Word
from quotecheck.sourcemap import SourceMap

# How much of a sourced file is read.
MAX_SOURCED_TEXT = 1 << 20


class SourcedFile:
    """One file read: the name to show for it, the parsed text, and whether its assignments
    may be taken as known (``settles``): the text is the whole file, parsed without a problem,
    and named relative to the script's directory."""

    __slots__ = ("name", "path", "script", "settles")

    def __init__(self, name: str, path: str, script: Script, settles: bool) -> None:
        self.name = name
        self.path = path
        self.script = script
        self.settles = settles


class SourcedFiles:
    """The sourced files of one script in ``directory``, parsed with the script's limits."""

    __slots__ = ("_cache", "deadline", "dialect", "directory", "limits", "texts")

    def __init__(self, directory: str, dialect: str, limits: Limits, deadline: float) -> None:
        self.directory = directory
        self.dialect = dialect
        self.limits = limits
        self.deadline = deadline
        self._cache: dict[str, SourcedFile | None] = {}
        self.texts: dict[int, SourcedFile] = {}  # id of a file's text -> the file

    def resolve(self, word: Word) -> SourcedFile | None:
        """The file the word after `source` names, or None (not a name found this way, not
        there, not readable)."""
        name = sourced_name(word)
        if name is None:
            return None
        path = os.path.normpath(os.path.join(self.directory, name))
        if path in self._cache:
            found = self._cache[path]
        else:
            found = self._cache[path] = self._read(os.path.normpath(name), path)
            if found is not None:
                self.texts[id(found.script.text)] = found
        if found is not None and found.settles and os.path.isabs(name):
            # `. /etc/os-release` names the file of the machine running the check, not the
            # one the script runs on: its functions are read, its values are not known.
            return SourcedFile(found.name, path, found.script, False)
        return found

    def _read(self, name: str, path: str) -> SourcedFile | None:
        if not os.path.isfile(path):
            return None
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read(MAX_SOURCED_TEXT + 1)
        except OSError:
            return None
        complete = len(text) <= MAX_SOURCED_TEXT
        # Positions in the file map to nothing in the input, so its CRLFs need no map.
        text = text[:MAX_SOURCED_TEXT].replace("\r\n", "\n")
        script = parse_script(text, "sh" if self.dialect == "sh" else "bash",
                              SourceMap.from_offsets([None] * len(text)),
                              max_depth=self.limits.max_nesting,
                              time_limit=self.limits.parse_call_time, deadline=self.deadline)
        return SourcedFile(name, path, script, complete and not script.problems)


def sourced_name(word: Word) -> str | None:
    """The file a `source` word names relative to the script's directory: a literal path, or
    the literal tail after the script's own directory (`$(dirname "$0")/lib.sh`,
    `${BASH_SOURCE%/*}/lib.sh`, `"$DIR"/lib.sh`)."""
    if not word.dynamic:
        return word.value or None
    tail: list[str] = []
    for part in reversed(word.parts):
        if part.dynamic:
            break
        tail.insert(0, part.value)
    rest = "".join(tail)
    if not rest.startswith("/") or len(rest) < 2:
        return None
    return rest.lstrip("/")


__all__ = ["MAX_SOURCED_TEXT", "SourcedFile", "SourcedFiles", "sourced_name"]
