"""A cache of the code ``@dataclass`` generates, for the command-line process.

Each ``@dataclass`` writes ``__init__``, ``__repr__``, ``__eq__``... as source text and compiles
it with ``exec``: ~0.35 ms per class, ~30 ms for the ~90 dataclasses quotecheck creates on
every run, a fifth of a ``quotecheck check`` of a small script (measured on a 2-core VM). The
compiled code depends only on that text and the interpreter, so it is kept in one file beside the
bashlex table cache, keyed by the exact text, and ``dataclasses`` is handed an ``exec`` that looks
the text up before compiling it. The generated functions are exactly the ones ``exec`` would
have made from the text (same code, same globals and locals).

Only ``cli.main`` uses it, and only when quotecheck is the process (not when a program or a
test calls ``main``): it changes ``dataclasses`` for the whole process while installed.
``QUOTECHECK_CACHE_DIR=""`` turns it off, like the table cache. A missing, unreadable, corrupt or
unwritable cache costs the compile time and nothing else.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
import types
from collections.abc import Callable
from typing import Any

_MAGIC = b"quotecheck dataclass code 1\n"
MAX_ENTRIES = 4096  # far above what quotecheck creates; stops unbounded growth


def cache_file() -> str | None:
    """Where the code is cached (the same directory as parsing/grammar.py's table cache)."""
    override = os.environ.get("QUOTECHECK_CACHE_DIR")
    if override is not None:
        base = override.strip()
        if not base:
            return None
    else:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(home, "quotecheck")
    # Code objects are specific to the interpreter version and the optimisation level.
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-O{sys.flags.optimize}"
    return os.path.join(base, f"dataclass-code-{tag}.marshal")


def _load(path: str) -> dict[str, types.CodeType]:
    import zlib

    try:
        with open(path, "rb") as handle:
            data = handle.read()
        head = len(_MAGIC) + 4
        if data[:len(_MAGIC)] != _MAGIC:
            return {}
        if int.from_bytes(data[len(_MAGIC):head], "little") != zlib.crc32(data[head:]):
            return {}  # torn or damaged: start again
        table = marshal.loads(data[head:])
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(table, dict) or not all(
            type(k) is str and type(v) is types.CodeType for k, v in table.items()):
        return {}
    return table


def _save(path: str, table: dict[str, types.CodeType]) -> None:
    import zlib

    payload = marshal.dumps(table)
    data = _MAGIC + zlib.crc32(payload).to_bytes(4, "little") + payload
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)  # atomic: concurrent runs never read half a file
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def install() -> Callable[[], None] | None:
    """Serve ``dataclasses``' compiles from the cache; returns the function that uninstalls the
    hook and saves what was compiled anew (None: nothing installed)."""
    path = cache_file()
    if path is None:
        return None
    import dataclasses

    if "exec" in vars(dataclasses):  # installed already, or dataclasses changed: stay out
        return None
    table = _load(path)
    used: set[str] = set()
    fresh: list[str] = []
    real_exec = builtins.exec

    def cached_exec(source: Any, globals: Any = None, locals: Any = None, /,
                    **kwargs: Any) -> None:
        if type(source) is not str or kwargs:
            real_exec(source, globals, locals, **kwargs)
            return
        code = table.get(source)
        if code is None:
            # What exec(source) compiles: dataclasses has no __future__ flags to inherit.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            table[source] = code
            fresh.append(source)
        used.add(source)
        real_exec(code, globals, locals)

    # dataclasses finds `exec` in its module globals before the builtins.
    dataclasses.exec = cached_exec  # type: ignore[attr-defined]

    def finish() -> None:
        if vars(dataclasses).get("exec") is cached_exec:
            del dataclasses.exec  # type: ignore[attr-defined]
        if not fresh:
            return
        keep = table if len(table) <= MAX_ENTRIES else {k: table[k] for k in used}
        _save(path, keep)

    return finish
