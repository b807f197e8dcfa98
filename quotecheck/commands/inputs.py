"""The inputs of ``check`` and ``fix``: the ``--command`` text, standard input, and the files
given or found in the directories given, in order; each is read only when it is wanted."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TextIO

from quotecheck.commands.request import Request
from quotecheck.files import discover
from quotecheck.inputs import MAX_INPUT_BYTES, LoadedText, decode, read_text_file, too_large


@dataclass
class Input:
    display: str
    path: Path | None
    loaded: LoadedText


@dataclass
class PendingInput:
    """An input found but not read yet: ``check`` reads each one just before checking it, so
    a run over many large files holds one of them at a time, not all."""

    display: str
    path: Path | None
    read: Callable[[], LoadedText]


def _given(loaded: LoadedText) -> LoadedText:
    return loaded


def _read_stdin(stdin: TextIO, limit: int = MAX_INPUT_BYTES) -> LoadedText:
    data = stdin.buffer.read(limit + 1)  # `cat /dev/zero | quotecheck check -`
    if len(data) > limit:
        return LoadedText("", error=too_large("standard input", limit))
    return decode(data)


def pending_inputs(request: Request, stdin: TextIO,
                   max_size: Callable[[Path | None], int] | None = None, *,
                   walk_symlinks: bool = True) -> list[PendingInput]:
    """Every input in order; one that cannot be read says so when it is read. ``max_size``
    gives the largest input read for a path (None: standard input); default MAX_INPUT_BYTES.
    Without ``walk_symlinks``, symbolic links met walking a directory are left out."""
    def limit(path: Path | None) -> int:
        return MAX_INPUT_BYTES if max_size is None else max_size(path)

    inputs: list[PendingInput] = []
    if request.command is not None:
        inputs.append(PendingInput("<command>", None, partial(_given, LoadedText(request.command))))
    for raw in request.paths:
        if raw == "-":
            inputs.append(PendingInput("<stdin>", None, partial(_read_stdin, stdin, limit(None))))
            continue
        path = Path(raw)
        if not path.exists():
            missing = LoadedText("", error=f"{raw}: no such file or directory")
            inputs.append(PendingInput(raw, None, partial(_given, missing)))
            continue
        for found in discover([path], follow_symlinks=walk_symlinks):
            inputs.append(PendingInput(str(found), found,
                                       partial(read_text_file, found, limit(found))))
    return inputs


def collect_inputs(request: Request, stdin: TextIO, errors: list[str]) -> list[Input]:
    """Every input read now; those that cannot be read are left out, their errors added."""
    inputs: list[Input] = []
    for pending in pending_inputs(request, stdin):
        loaded = pending.read()
        if loaded.error:
            errors.append(loaded.error)
            continue
        inputs.append(Input(pending.display, pending.path, loaded))
    return inputs
