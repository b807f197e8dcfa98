"""Where a command's report goes (standard output or ``--output-file``), and what a failed write
says: a full disk, ``/dev/full``, a file that cannot be opened end the run with one line and
status 2, not a traceback. A closed pipe (EPIPE) is left to the caller: ``quotecheck check |
head`` is not an error.

``--output-file`` never truncates a file being checked: it is opened, without truncating it,
once every input is known, and refused if it is one of them (the same file, by any name); the
report is held in a temporary spool and written over the file's old contents only after every
input has been read (a file a script sources, a configuration file, a race with the walk).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

from quotecheck.commands.status import UsageProblem

if TYPE_CHECKING:
    from quotecheck.commands.inputs import PendingInput

STANDARD_OUTPUT = "standard output"
SPOOL_BYTES = 8 * 1024 * 1024  # a report larger than this waits in a temporary file
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class WriteFailed(UsageProblem):
    """The report could not be written; the message names where it was going."""


def _failed(where: str, exc: OSError) -> WriteFailed:
    return WriteFailed(f"{where}: cannot write the report ({exc.strerror or exc})")


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null: what standard output still buffers would fail
    again when the interpreter flushes it at exit, with a second message and status 120."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
        finally:
            os.close(null)


@contextlib.contextmanager
def writing_to(where: str, stream: IO[Any] | None = None) -> Iterator[None]:
    """Turn an OSError raised inside (other than a closed pipe) into WriteFailed naming
    ``where``. ``stream`` is the stream written to: if it is this process's standard output,
    that is silenced after a failure."""
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            raise
        if stream is not None and _is_fd_1(stream):
            silence_stdout()
        raise _failed(where, exc) from exc


def _is_fd_1(stream: IO[Any]) -> bool:
    try:
        return stream.fileno() == 1
    except (AttributeError, OSError, ValueError):
        return False


class GuardedStream:
    """A text stream whose failed writes and flushes raise WriteFailed naming it."""

    def __init__(self, wrapped: TextIO, where: str = STANDARD_OUTPUT) -> None:
        self.wrapped = wrapped
        self.where = where

    def write(self, text: str) -> int:
        with writing_to(self.where, self.wrapped):
            return self.wrapped.write(text)

    def flush(self) -> None:
        with writing_to(self.where, self.wrapped):
            self.wrapped.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, buffer, encoding...
        return getattr(self.wrapped, name)


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


class ReportFile:
    """``--output-file PATH``: ``stream`` is where the report is written while the inputs are
    checked; ``open`` (once the inputs are known) opens PATH or refuses it; ``commit`` (once
    all of them have been read) writes the report into it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = f"--output-file {path}"
        import tempfile  # --output-file only: tempfile imports shutil, random and more

        self._spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115  (closed by close())
            max_size=SPOOL_BYTES, mode="w+", encoding="utf-8")
        self.stream = GuardedStream(self._spool, self.where)  # type: ignore[arg-type]
        self._fd: int | None = None

    def open(self, inputs: list[PendingInput], stdin: IO[Any] | None) -> None:
        """Open PATH for writing, creating it but not truncating it; UsageProblem if it cannot
        be opened or is one of ``inputs`` (``stdin`` is standard input, if one of them reads
        it)."""
        try:
            # Not O_TRUNC: nothing of the file is lost before the report is complete.
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | _CLOEXEC, 0o666)
            st = os.fstat(self._fd)
        except OSError as exc:
            raise UsageProblem(f"{self.where}: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(st.st_mode):
            return  # /dev/null, a terminal, a pipe: nothing there to lose
        same = _identity(st)
        for item in inputs:
            if _input_identity(item, stdin) == same:
                raise UsageProblem(f"{self.where}: is one of the inputs ({item.display}): the "
                                   "report would overwrite it; write it elsewhere")

    def commit(self) -> None:
        """Replace PATH's contents by the report (nothing, if the run ended before ``open``)."""
        if self._fd is None:
            return
        with writing_to(self.where):
            self._spool.flush()
            self._spool.seek(0)
            if stat.S_ISREG(os.fstat(self._fd).st_mode):
                os.ftruncate(self._fd, 0)
            while chunk := self._spool.read(1 << 16):
                view = memoryview(chunk.encode("utf-8"))
                while view:
                    view = view[os.write(self._fd, view):]

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
        with contextlib.suppress(OSError):
            self._spool.close()


def _input_identity(item: PendingInput, stdin: IO[Any] | None) -> tuple[int, int] | None:
    """The file an input reads (device, inode), if it is one that can be told."""
    try:
        if item.stdin:
            return _identity(os.fstat(stdin.fileno())) if stdin is not None else None
        if item.path is not None:
            return _identity(os.stat(item.path))
    except (AttributeError, OSError, ValueError):  # a StringIO, a file gone since the walk
        pass
    return None
