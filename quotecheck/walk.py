"""Walking a directory for the shell scripts in it: what ``exclude`` and .gitignore leave out.

Only directories are walked this way; a file named on the command line is checked whatever
these say (as ruff does), so a pre-commit hook or ``xargs`` that names files gets them all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from quotecheck.files import is_checked_file
from quotecheck.gitignore import Ignores, ignores_at
from quotecheck.globs import glob_match
from quotecheck.records import FrozenRecord

DEFAULT_EXCLUDE = (".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                   ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache")


class WalkRules(FrozenRecord):
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE  # glob patterns (globs.py)
    base: Path | None = None  # patterns are relative to this (None: the working directory)
    respect_gitignore: bool = True

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


def walk(directory: Path, rules: WalkRules, *, follow_symlinks: bool = True,
         unreadable: list[OSError] | None = None,
         unknown_yaml: list[Path] | None = None) -> Iterator[Path]:
    """The shell scripts below ``directory``, in sorted order (without ``follow_symlinks``, a
    symbolic link met in the walk is skipped: it may lead out of the tree). What .gitignore
    leaves out is read by gitignore.py (never by running git); an ignored directory is not
    entered. A directory that cannot be listed is added to ``unreadable`` (its scripts would
    otherwise be left out without a word). A YAML file of no host format it knows is added to
    ``unknown_yaml``: the caller says it was skipped."""
    top = ignores_at(directory) if rules.respect_gitignore else Ignores((), ())
    if top is None:
        return
    # Each directory's ignore rules, read when the walk gets there (never through a link).
    pending: dict[str, tuple[Ignores, str]] = {}
    for root, dirs, names in os.walk(directory, onerror=None if unreadable is None
                                     else unreadable.append):
        here = Path(root)
        parent = pending.pop(root, None)
        ignores = top if parent is None else parent[0].child(here, parent[1])
        dirs[:] = sorted(d for d in dirs if not rules.excluded(here / d)
                         and not ignores.ignored(d, is_dir=True))
        for d in dirs:
            pending[os.path.join(root, d)] = (ignores, d)
        for name in sorted(names):
            candidate = here / name
            if not follow_symlinks and candidate.is_symlink():
                continue
            if not rules.excluded(candidate) and not ignores.ignored(name, is_dir=False) \
                    and candidate.is_file():
                if is_checked_file(candidate):
                    yield candidate
                elif unknown_yaml is not None and candidate.suffix in (".yml", ".yaml"):
                    unknown_yaml.append(candidate)
