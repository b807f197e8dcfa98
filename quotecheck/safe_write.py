"""Rewriting a file in place without ever losing data: what ``fix --write`` writes through.

A file is read once into a ``Snapshot`` (its bytes and its identity: device, inode, size,
modification time). Its new contents go to a temporary file in the same directory, which
replaces the original by ``os.replace`` only if the file is still the one that was read; so an
interrupted run (killed, out of disk, a file-size limit) leaves either the original bytes or the
whole new contents, never a mix, and a change made meanwhile by someone else is not lost.
Symbolic links are never followed, and only regular files are read or written.

The new file gets the old one's owner (when allowed) and every mode bit, set-user-ID,
set-group-ID and sticky included. A file with several hard links is refused: replacing one name
would leave the other names with the old contents, and writing in place could not be undone
half-way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from quotecheck.inputs import too_large
from quotecheck.records import FrozenRecord

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# Suffix of the temporary files: a run killed mid-write may leave one behind, never a damaged
# original.
TEMP_SUFFIX = ".quotecheck-tmp"


class NotWritten(Exception):
    """The file was not read or not replaced; the message says why, naming the file."""


class Snapshot(FrozenRecord):
    path: Path
    data: bytes
    device: int
    inode: int
    size: int
    mtime_ns: int
    mode: int
    uid: int
    gid: int
    nlink: int = 1


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def read_snapshot(path: Path, max_bytes: int) -> Snapshot:
    """The bytes of the regular file ``path`` (not a symbolic link, FIFO or device: those are
    refused without being opened for reading, so a FIFO nobody writes to cannot block)."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            raise NotWritten(f"{path}: is a symbolic link: not fixed (fix the file it points "
                             "to by its own name)")
        if not stat.S_ISREG(st.st_mode):
            raise NotWritten(f"{path}: not a regular file: not fixed")
        # O_NONBLOCK: if the name became a FIFO since the lstat, opening it does not wait.
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK)
    except NotWritten:
        raise
    except OSError as exc:
        raise NotWritten(_os_error(path, exc, "cannot read")) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotWritten(f"{path}: not a regular file: not fixed")
        chunks: list[bytes] = []
        total = 0
        while True:  # at most the limit, even if the file grows meanwhile
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise NotWritten(too_large(str(path), max_bytes))
    except OSError as exc:
        raise NotWritten(_os_error(path, exc, "cannot read")) from exc
    finally:
        os.close(fd)
    return Snapshot(path, b"".join(chunks), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                    stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, st.st_nlink)


def _os_error(path: Path, exc: OSError, what: str) -> str:
    if exc.errno == errno.ELOOP:
        return f"{path}: is a symbolic link: not fixed"
    if exc.errno == errno.ENOENT:
        return f"{path}: no such file"
    if isinstance(exc, PermissionError):
        return f"{path}: permission denied: not fixed"
    return f"{path}: {what} ({exc.strerror or exc}): not fixed"


def unchanged_since(snapshot: Snapshot) -> bool:
    """Whether ``snapshot.path`` is still the same regular file with the same bytes."""
    try:
        st = os.lstat(snapshot.path)
        if not stat.S_ISREG(st.st_mode) or _identity(st) != (
                snapshot.device, snapshot.inode, snapshot.size, snapshot.mtime_ns) \
                or st.st_nlink != snapshot.nlink:  # a hard link made meanwhile
            return False
        fd = os.open(snapshot.path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if _identity(os.fstat(fd)) != _identity(st):
            return False
        return os.read(fd, snapshot.size + 1) == snapshot.data
    except OSError:
        return False
    finally:
        os.close(fd)


def replace_contents(snapshot: Snapshot, data: bytes) -> None:
    """Give the file of ``snapshot`` the contents ``data``, keeping its mode bits (and its owner
    when allowed); raises NotWritten, leaving the file as it was, if it changed since it was
    read, has several hard links, or the new contents cannot be written whole with its
    owner's set-ID bits."""
    path = snapshot.path
    if snapshot.nlink > 1:
        raise NotWritten(f"{path}: has {snapshot.nlink} hard links: not fixed (the fixed file "
                         "would replace this name only, the other names keeping the old "
                         "contents)")
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                    suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise NotWritten(_os_error(path, exc, "cannot write in its directory")) from exc
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            # The owner first: chown clears the set-ID bits (on Linux even for root).
            with contextlib.suppress(OSError):  # only root may give a file away
                os.fchown(fd, snapshot.uid, snapshot.gid)
            _keep_mode(fd, snapshot)
            os.fsync(fd)
        finally:
            os.close(fd)
        if not unchanged_since(snapshot):
            raise NotWritten(f"{path}: changed while it was being fixed: left as it is")
        # rename(2) replaces the name itself: if a symbolic link took the file's place since
        # the check, the link is replaced, never the file it points to.
        os.replace(temp, path)
    except NotWritten:
        _remove(temp)
        raise
    except OSError as exc:
        _remove(temp)
        raise NotWritten(_os_error(path, exc, "cannot write")) from exc
    except BaseException:
        _remove(temp)
        raise
    _sync_directory(path.parent)


def _keep_mode(fd: int, snapshot: Snapshot) -> None:
    """Give the new file ``snapshot.mode``, or raise NotWritten: a set-user-ID (set-group-ID)
    bit on a file whose owner (group) could not be kept would run it as someone else."""
    st = os.fstat(fd)
    if snapshot.mode & stat.S_ISUID and st.st_uid != snapshot.uid:
        raise NotWritten(f"{snapshot.path}: set-user-ID, and its owner (uid {snapshot.uid}) "
                         "cannot be kept: not fixed")
    if snapshot.mode & stat.S_ISGID and st.st_gid != snapshot.gid:
        raise NotWritten(f"{snapshot.path}: set-group-ID, and its group (gid {snapshot.gid}) "
                         "cannot be kept: not fixed")
    os.fchmod(fd, snapshot.mode)
    kept = stat.S_IMODE(os.fstat(fd).st_mode)
    if kept != snapshot.mode:  # the kernel may drop set-group-ID for a group we are not in
        raise NotWritten(f"{snapshot.path}: its mode {snapshot.mode:04o} cannot be kept (the "
                         f"new file would be {kept:04o}): not fixed")


def _remove(temp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temp)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | _CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
