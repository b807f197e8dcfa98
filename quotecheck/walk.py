"""Walking a directory for the shell scripts in it: what ``exclude`` and .gitignore leave out.

Only directories are walked this way; a file named on the command line is checked whatever
these say (as ruff does), so a pre-commit hook or ``xargs`` that names files gets them all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from quotecheck.files import is_shell_script
from quotecheck.globs import glob_match
from quotecheck.records import FrozenRecord

DEFAULT_EXCLUDE = (".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                   ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache")
# git check-ignore on a huge tree: past this the walk goes on without .gitignore.
GIT_TIMEOUT = 60.0


class WalkRules(FrozenRecord):
    exclude: tuple[str, ...]  # glob patterns (globs.py)
    base: Path | None  # patterns are relative to this (None: the working directory)
    respect_gitignore: bool

    def __init__(self, exclude: tuple[str, ...] = DEFAULT_EXCLUDE, base: Path | None = None,
                 respect_gitignore: bool = True) -> None:
        object.__setattr__(self, "exclude", exclude)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "respect_gitignore", respect_gitignore)

    def excluded(self, path: Path) -> bool:
        rel = _relative(path, self.base)
        return any(glob_match(pattern, rel) for pattern in self.exclude)


def _relative(path: Path, base: Path | None) -> str:
    absolute = Path(os.path.abspath(path))
    for root in (base or Path.cwd(), (base or Path.cwd()).resolve()):
        try:
            return absolute.relative_to(root).as_posix()
        except ValueError:
            continue
    return absolute.as_posix().lstrip("/")


def walk(directory: Path, rules: WalkRules, *, follow_symlinks: bool = True) -> Iterator[Path]:
    """The shell scripts below ``directory``, in sorted order (without ``follow_symlinks``, a
    symbolic link met in the walk is skipped: it may lead out of the tree)."""
    found: list[Path] = []
    for root, dirs, names in os.walk(directory):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not rules.excluded(here / d))
        for name in sorted(names):
            candidate = here / name
            if not follow_symlinks and candidate.is_symlink():
                continue
            if not rules.excluded(candidate) and candidate.is_file() \
                    and is_shell_script(candidate):
                found.append(candidate)
    if rules.respect_gitignore and found:
        ignored = git_ignored(directory, found)
        found = [p for p in found if str(p) not in ignored]
    yield from found


def git_ignored(directory: Path, paths: list[Path]) -> set[str]:
    """Which of ``paths`` (as given) git ignores, when ``directory`` is in a git work tree; an
    empty set outside one, or without git."""
    import subprocess  # here: a run given files only, the common case, never starts git

    # Absolute paths: git reads relative ones from its -C directory, not from ours.
    absolute = {os.path.abspath(p): str(p) for p in paths}
    data = b"".join(os.fsencode(p) + b"\0" for p in absolute)
    try:
        done = subprocess.run(["git", "-C", str(directory), "check-ignore", "--stdin", "-z"],
                              input=data, capture_output=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return set()
    if done.returncode not in (0, 1):  # 128: not a work tree
        return set()
    return {absolute.get(os.fsdecode(p), os.fsdecode(p)) for p in done.stdout.split(b"\0") if p}
