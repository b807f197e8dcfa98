"""Which files are shell scripts, and in which dialect each one is read.

A file is a shell script when its name ends in a shell's extension (``SHELL_EXTENSIONS``) or
its ``#!`` line names a shell (``SCRIPT_SHEBANG_SHELLS``), whatever else its name holds: dpkg's
``foo.postinst``, ``python3.11-config`` and ``which.debianutils`` are shell scripts. Only the
extension of another format (``OTHER_FORMAT_EXTENSIONS``: ``app.py``, ``README.md``,
``ci.yml``) decides against the ``#!`` line. Anything else (``Makefile``, a file with no ``#!``)
is not one: a directory walk leaves it out, and a file named on the command line is skipped with
a note unless ``--shell`` says how to read it.
"""

from __future__ import annotations

from pathlib import Path

from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import SCRIPT_SHEBANG_SHELLS, shell_dialect

# Each extension and the shell it stands for when no #! line says otherwise.
EXTENSION_SHELLS = {".sh": "bash", ".bash": "bash", ".dash": "dash", ".ksh": "ksh",
                    ".zsh": "zsh", ".bats": "bash"}
SHELL_EXTENSIONS = frozenset(EXTENSION_SHELLS)
_SHEBANG = lazy_compile(
    rb"#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?("
    + "|".join(SCRIPT_SHEBANG_SHELLS).encode() + rb")\b"
)
HEAD_BYTES = 128  # the #! line is read from this much of the file
# Extensions of formats that are not shell whatever their #! line says (a Python file may start
# with `#!/bin/sh` and re-exec itself; a Markdown file may begin with a pasted script).
OTHER_FORMAT_EXTENSIONS = frozenset({
    ".py", ".pyi", ".pyw", ".md", ".markdown", ".rst", ".txt", ".adoc", ".yml", ".yaml",
    ".json", ".toml", ".ini", ".cfg", ".xml", ".html", ".htm", ".css", ".js", ".mjs", ".cjs",
    ".ts", ".tsx", ".jsx", ".c", ".h", ".cc", ".cpp", ".hpp", ".go", ".rs", ".rb", ".pl", ".pm",
    ".php", ".java", ".kt", ".swift", ".lua", ".r", ".sql", ".csv", ".tsv", ".svg", ".png",
    ".jpg", ".jpeg", ".gif", ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".tar",
    ".whl", ".so", ".o", ".a", ".lock", ".tcl", ".el", ".vim", ".fish", ".csh", ".tcsh",
    ".ps1", ".bat", ".cmd", ".awk", ".sed", ".patch", ".diff", ".tf", ".mk", ".cmake",
})


def shebang_shell(head: bytes) -> str | None:
    """The shell a script's first line asks for (``bash`` for ``#!/usr/bin/env bash``)."""
    m = _SHEBANG.match(head)
    return m.group(1).decode() if m else None


def _dialect(shell: str) -> str:
    dialect = shell_dialect(shell)
    return dialect if dialect in ("sh", "zsh") else "bash"


def local_dialect(text: str, path: Path | None = None) -> str:
    """The dialect a script's #! line names, else its extension; sh for sh/dash/ash, zsh for
    zsh, else bash. A shell directive in the text beats both: the checker reads the text's
    directives and applies it (``directives.named_dialect``)."""
    shell = shebang_shell(text[:HEAD_BYTES].encode("utf-8", "replace"))
    if shell is None and path is not None:
        shell = EXTENSION_SHELLS.get(path.suffix)
    return _dialect(shell) if shell is not None else "bash"


def _head(path: Path, n: int) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(n)
    except OSError:
        return b""


def host_file_format(path: Path, head: bytes | None = None) -> str | None:
    """The host format (``hosts/kinds.py``) of a file that is not a shell script, or None
    (``head``: the file's start, when it has been read already)."""
    from quotecheck.hosts.kinds import HEAD_CHARS, host_format

    if path.suffix in SHELL_EXTENSIONS:
        return None
    if head is None:
        head = _head(path, HEAD_CHARS)
    return host_format(path, head[:HEAD_CHARS].decode("utf-8", "replace"))


def is_checked_file(path: Path) -> bool:
    """A shell script, or a host file whose commands are read (a Python module, a Makefile);
    the file's start is read once for both."""
    if path.suffix in SHELL_EXTENSIONS:
        return True
    from quotecheck.hosts.kinds import HEAD_CHARS  # (not for a `.sh` file: start-up)

    head = _head(path, max(HEAD_CHARS, HEAD_BYTES))
    if path.suffix.lower() not in OTHER_FORMAT_EXTENSIONS and \
            shebang_shell(head[:HEAD_BYTES]) is not None:
        return True
    return host_file_format(path, head) is not None


def is_shell_script(path: Path) -> bool:
    if path.suffix in SHELL_EXTENSIONS:
        return True
    if path.suffix.lower() in OTHER_FORMAT_EXTENSIONS:  # `app.py`, `README.md`
        return False
    return shebang_shell(_head(path, HEAD_BYTES)) is not None
