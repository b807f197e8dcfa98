"""Reading inputs: any bytes become text, and what could not be read is said, not raised."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from quotecheck.limits import Limits
from quotecheck.records import FrozenRecord

# No shell script is this large; past it a file (or /dev/zero, or a pipe that never ends) is
# refused instead of read into memory: analysing takes some hundred bytes per character. The
# default of the `max-file-size` limit (config.Limits); read_text_file takes another.
MAX_INPUT_BYTES = Limits().max_file_size
# A FIFO or character device given by name is read as it comes, but one that nobody writes to
# would block the run for ever: give up after this many seconds without any data.
STREAM_WAIT = 10.0


class LoadedText(FrozenRecord):
    text: str
    error: str | None = None  # the file could not be read at all
    undecodable: int | None = None  # offset of the first byte that was not UTF-8
    binary: bool = False  # holds NUL bytes: not a shell script


# What check (QC002), fix and explain say of a binary input.
BINARY_NOTE = "binary file, not analysed: it holds NUL bytes"


def is_binary(data: bytes) -> bool:
    """Whether an input is a binary file, not a script: it holds a NUL byte, which no shell
    script has (bash drops them, dash stops reading the line)."""
    return b"\0" in data


def decode(data: bytes) -> LoadedText:
    """UTF-8 with replacement characters, remembering where the first bad byte was."""
    try:
        return LoadedText(data.decode("utf-8"), binary=is_binary(data))
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        # Offset in the decoded text of the first bad byte: decode the prefix before it.
        offset = len(data[: exc.start].decode("utf-8", errors="replace"))
        return LoadedText(text, undecodable=offset, binary=is_binary(data))


def too_large(what: str, limit: int | None = None) -> str:
    limit = MAX_INPUT_BYTES if limit is None else limit
    return f"{what}: too large (more than {_size(limit)}, the max-file-size limit): not read"


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor:,} {unit}"
    return f"{n:,} bytes"


class _Unreadable(Exception):
    pass


def read_text_file(path: Path, max_bytes: int | None = None) -> LoadedText:
    """The file's text; a file larger than ``max_bytes`` (default MAX_INPUT_BYTES) is not read."""
    limit = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError
        if stat.S_ISREG(mode):
            with path.open("rb") as f:  # at most the limit, even if the file grows meanwhile
                data = f.read(limit + 1)
            if len(data) > limit:
                raise _Unreadable(too_large(str(path), limit))
        elif stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            # `<(generate)` (a pipe) and named FIFOs: a blocking read with no writer would hang.
            data = _read_stream(path, limit)
        else:
            raise _Unreadable(f"{path}: not a regular file (a socket or a block device): "
                              "not read")
    except _Unreadable as exc:
        return LoadedText("", error=str(exc))
    except FileNotFoundError:
        return LoadedText("", error=f"{path}: no such file")
    except IsADirectoryError:
        return LoadedText("", error=f"{path}: is a directory")
    except PermissionError:
        return LoadedText("", error=f"{path}: permission denied")
    except OSError as exc:
        return LoadedText("", error=f"{path}: cannot read ({exc.strerror or exc})")
    return decode(data)


def _read_stream(path: Path, limit: int) -> bytes:
    """All of a FIFO or character device, giving up after STREAM_WAIT s with nothing to read."""
    import selectors  # here: only a FIFO or device needs it

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    chunks: list[bytes] = []
    total = 0
    try:
        # poll, not epoll: epoll refuses some character devices (/dev/null) outright.
        kind = getattr(selectors, "PollSelector", selectors.SelectSelector)
        with kind() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                if not selector.select(STREAM_WAIT):
                    raise _Unreadable(
                        f"{path}: nothing to read for {STREAM_WAIT:g} s (a FIFO nobody writes "
                        "to?): not read")
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    return b"".join(chunks)
                total += len(chunk)
                if total > limit:
                    raise _Unreadable(too_large(str(path), limit))
                chunks.append(chunk)
    finally:
        os.close(fd)
