"""The inputs of ``check`` and ``fix``: the ``--command`` text, standard input, and the files
given or found in the directories given, in order; each is read only when it is wanted.

A regular file named on the command line that is not a shell script (``files.py``: by its
extension or its ``#!`` line) is skipped with a note, unless ``--shell`` says how to read it:
``git diff --name-only | xargs quotecheck check`` hands over ``README.md`` and ``app.py`` too.
A directory in which no shell script is found says so."""

from __future__ import annotations

import errno
import stat
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TextIO

from quotecheck.commands.request import Request
from quotecheck.commands.status import UsageProblem
from quotecheck.files import OTHER_FORMAT_EXTENSIONS, SHELL_EXTENSIONS, is_checked_file
from quotecheck.inputs import MAX_INPUT_BYTES, LoadedText, decode, read_text_file, too_large
from quotecheck.records import Record
from quotecheck.walk import WalkRules, walk


class Input(Record):
    display: str
    path: Path | None
    loaded: LoadedText
    named: Path | None = None  # the path standard input stands for (--stdin-filename)

    @property
    def config_path(self) -> Path | None:
        """The path that picks the configuration, the per-path ignores and the shell."""
        return self.path if self.path is not None else self.named


class PendingInput(Record):
    """An input found but not read yet: ``check`` reads each one just before checking it, so
    a run over many large files holds one of them at a time, not all."""

    display: str
    path: Path | None
    read: Callable[[], LoadedText]
    named: Path | None  # the path standard input stands for (--stdin-filename)
    stdin: bool  # reads standard input

    def __init__(self, display: str, path: Path | None, read: Callable[[], LoadedText],
                 named: Path | None = None, *, stdin: bool = False) -> None:
        self.display = display
        self.path = path
        self.read = read
        self.named = named
        self.stdin = stdin


def _given(loaded: LoadedText) -> LoadedText:
    return loaded


def _read_stdin(stdin: TextIO, limit: int = MAX_INPUT_BYTES) -> LoadedText:
    data = stdin.buffer.read(limit + 1)  # `cat /dev/zero | quotecheck check -`
    if len(data) > limit:
        return LoadedText("", error=too_large("standard input", limit))
    return decode(data)


def _stat_error(exc: OSError) -> str:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"cannot read ({exc.strerror or exc})"


def check_stdin_filename(stdin_filename: str | None, paths: list[str] | None) -> None:
    """UsageProblem if --stdin-filename is given with paths other than ``-``."""
    if stdin_filename is not None and paths and any(p != "-" for p in paths):
        raise UsageProblem("--stdin-filename names standard input: give no paths, or -")


def not_shell_note(raw: str) -> str:
    suffix = Path(raw).suffix
    if suffix.lower() in OTHER_FORMAT_EXTENSIONS:
        why = f"a {suffix} file"
    else:
        why = f"no {'/'.join(sorted(SHELL_EXTENSIONS))} extension, no #! line naming a shell"
    return f"{raw}: not a shell script ({why}): skipped; --shell bash checks it anyway"


def _unknown_yaml_note(raw: str, found: list[Path]) -> str:
    n = len(found)
    shown = ", ".join(str(p) for p in found[:3]) + (f" and {n - 3} more" if n > 3 else "")
    return (f"{raw}: {n} YAML file{'' if n == 1 else 's'} of no known kind skipped ({shown}); "
            "read are GitHub Actions workflows, Compose files, Kubernetes manifests and "
            "Ansible tasks")


def pending_inputs(request: Request, stdin: TextIO,
                   max_size: Callable[[Path | None], int] | None = None,
                   walk_rules: Callable[[Path], WalkRules] | None = None,
                   notes: list[str] | None = None, *,
                   walk_symlinks: bool = True,
                   skipped_files: list[str] | None = None) -> list[PendingInput]:
    """Every input in order; one that cannot be read says so when it is read. ``max_size``
    gives the largest input read for a path (None: standard input); default MAX_INPUT_BYTES.
    ``walk_rules`` gives what a directory's walk leaves out; ``notes`` receives a line for
    each file skipped and each directory without shell scripts, ``skipped_files`` the name of
    each file skipped. Without ``walk_symlinks``, symbolic links met walking a directory are
    left out."""
    def limit(path: Path | None) -> int:
        return MAX_INPUT_BYTES if max_size is None else max_size(path)

    skipped = notes if notes is not None else []

    inputs: list[PendingInput] = []
    if request.command is not None:
        inputs.append(PendingInput("<command>", None, partial(_given, LoadedText(request.command))))
    named = Path(request.stdin_filename) if request.stdin_filename else None
    paths = request.paths
    if named is not None and not paths and request.command is None:
        paths = ["-"]  # as ruff: a --stdin-filename without paths reads standard input
    for raw in paths:
        if raw == "-":
            inputs.append(PendingInput(request.stdin_filename or "<stdin>", None,
                                       partial(_read_stdin, stdin, limit(named)), named,
                                       stdin=True))
            continue
        path = Path(raw)
        try:
            mode = path.stat().st_mode
        except OSError as exc:  # a directory on the way that may not be searched, too
            unread = LoadedText("", error=f"{raw}: {_stat_error(exc)}")
            inputs.append(PendingInput(raw, None, partial(_given, unread)))
            continue
        if stat.S_ISDIR(mode):
            before = len(inputs)
            unlisted: list[OSError] = []
            unknown_yaml: list[Path] = []
            for found in walk(path, walk_rules(path) if walk_rules else WalkRules(),
                              follow_symlinks=walk_symlinks, unreadable=unlisted,
                              unknown_yaml=unknown_yaml):
                inputs.append(PendingInput(str(found), found,
                                           partial(read_text_file, found, limit(found))))
            for failure in unlisted:  # an input error: what it holds was not checked
                where = failure.filename or raw
                unread = LoadedText("", error=f"{where}: {_stat_error(failure)} (directory not "
                                              "walked)")
                inputs.append(PendingInput(str(where), None, partial(_given, unread)))
            if unknown_yaml:
                skipped.append(_unknown_yaml_note(raw, unknown_yaml))
            if len(inputs) == before:
                skipped.append(f"no shell scripts found in {raw}")
            continue
        # Only a regular file is looked into: a FIFO (`<(generate)`) can be read only once.
        if request.shell is None and stat.S_ISREG(mode) and not is_checked_file(path):
            skipped.append(not_shell_note(raw))
            if skipped_files is not None:
                skipped_files.append(raw)
            continue
        inputs.append(PendingInput(str(path), path, partial(read_text_file, path, limit(path))))
    return inputs


def collect_inputs(request: Request, stdin: TextIO, errors: list[str],
                   walk_rules: Callable[[Path], WalkRules] | None = None,
                   notes: list[str] | None = None) -> list[Input]:
    """Every input read now; those that cannot be read are left out, their errors added."""
    inputs: list[Input] = []
    for pending in pending_inputs(request, stdin, walk_rules=walk_rules, notes=notes):
        loaded = pending.read()
        if loaded.error:
            errors.append(loaded.error)
            continue
        inputs.append(Input(pending.display, pending.path, loaded, pending.named))
    return inputs
