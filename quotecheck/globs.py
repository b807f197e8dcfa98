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
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    anchored = pattern.startswith("/") or "/" in pattern.strip("/")
    body = pattern.strip("/")
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if body.startswith("**", i):
            i += 2
            if i < n and body[i] == "/":
                out.append("(?:[^/]+/)*")  # zero or more whole directories
                i += 1
            else:
                out.append(".*")
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = body.find("]", i + 2 if body.startswith(("[!", "[^"), i) else i + 1)
            if close == -1:
                out.append(re.escape(c))
            else:
                inner = body[i + 1:close]
                negate = inner[:1] in ("!", "^")
                inner = inner[1:] if negate else inner
                out.append("[" + ("^/" if negate else "") + inner.replace("\\", "\\\\") + "]")
                i = close
        else:
            out.append(re.escape(c))
        i += 1
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(prefix + "".join(out))


def glob_match(pattern: str, relative: str) -> bool:
    """Whether ``relative`` (a ``/``-separated path, no leading ``/``) matches ``pattern``."""
    return compile_glob(pattern).fullmatch(relative) is not None


def bad_glob(pattern: str) -> str | None:
    """Why a pattern is refused, or None."""
    if not pattern.strip("/"):
        return "an empty pattern"
    try:
        compile_glob(pattern)
    except re.error as exc:
        return f"not a glob pattern ({exc})"
    return None
