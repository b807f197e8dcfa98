"""Which host format a file is, by its name and its first line, and the reader of each.

Python: ``*.py``/``*.pyw`` and a ``#!`` line naming python; make: ``Makefile``,
``makefile``, ``GNUmakefile``, ``*.mk``. A file that is neither shell nor one of these is not
read (``files.py``)."""

from __future__ import annotations

from pathlib import PurePath

from quotecheck.hosts.model import HostFile

HOST_FILE_NAMES = {"Makefile": "make", "makefile": "make", "GNUmakefile": "make"}
HOST_EXTENSIONS = {".py": "python", ".pyw": "python", ".mk": "make"}
HOST_FORMATS = ("python", "make")
# A Python module launches nothing without one of these names: most are not parsed at all.
_PYTHON_LAUNCH_WORDS = ("subprocess", "system", "popen", "exec", "spawn", "fabric")


def host_format(path: PurePath | None, head: str) -> str | None:
    """The host format of a file named ``path`` whose text starts with ``head``, or None (a
    file with a shell's extension is a shell script first: ``files.host_file_format``)."""
    if path is not None:
        by_name = HOST_FILE_NAMES.get(path.name) or HOST_EXTENSIONS.get(path.suffix.lower())
        if by_name is not None:
            return by_name
    from quotecheck.hosts.python import is_python_shebang

    first = head.split("\n", 1)[0]
    return "python" if is_python_shebang(first) else None


def read_host(format: str, source: str) -> HostFile:
    if format == "python":
        if not any(word in source for word in _PYTHON_LAUNCH_WORDS):
            return HostFile("python", ())
        from quotecheck.hosts.python import read_python

        return read_python(source)
    if format == "make":
        from quotecheck.hosts.make import read_makefile

        return read_makefile(source)
    raise ValueError(f"unknown host format: {format}")
