"""Which files are shell scripts: by extension, or by a sh/bash/dash/ksh shebang."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from quotecheck.programs import SCRIPT_SHEBANG_SHELLS, shell_dialect

SHELL_EXTENSIONS = frozenset({".sh", ".bash", ".dash", ".ksh", ".bats"})
_SHEBANG = re.compile(
    rb"#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?("
    + "|".join(SCRIPT_SHEBANG_SHELLS).encode() + rb")\b"
)
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                       ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


def shebang_shell(head: bytes) -> str | None:
    """The shell a script's first line asks for (``bash`` for ``#!/usr/bin/env bash``)."""
    m = _SHEBANG.match(head)
    return m.group(1).decode() if m else None


def local_dialect(text: str) -> str:
    """The dialect a script's #! line asks for: sh for sh/dash/ash, else bash."""
    shell = shebang_shell(text[:128].encode("utf-8", "replace"))
    return "sh" if shell is not None and shell_dialect(shell) == "sh" else "bash"


def is_shell_script(path: Path) -> bool:
    if path.suffix in SHELL_EXTENSIONS:
        return True
    if path.suffix:
        return False
    try:
        with path.open("rb") as f:
            return shebang_shell(f.read(128)) is not None
    except OSError:
        return False


def discover(paths: list[Path], *, follow_symlinks: bool = True) -> Iterator[Path]:
    """Files given are yielded as they are; directories are walked for shell scripts (without
    ``follow_symlinks``, a symbolic link met in a walk is skipped: it may lead out of the tree)."""
    for path in paths:
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for name in sorted(names):
                    candidate = Path(root) / name
                    if not follow_symlinks and candidate.is_symlink():
                        continue
                    if candidate.is_file() and is_shell_script(candidate):
                        yield candidate
        else:
            yield path
