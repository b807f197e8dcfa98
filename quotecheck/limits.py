"""What quotecheck spends on one input at most, and how a configuration table sets it.

The trace, the checker and the input reader take a ``Limits``; the settings reader
(``config.py``) builds one from ``[tool.quotecheck.limits]`` with ``limits_from_table``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quotecheck.lazy_regex import lazy_compile
from quotecheck.records import FrozenRecord, replace


class LimitError(ValueError):
    """A limits table with an unknown key or a bad value (the message says which)."""


class Limits(FrozenRecord):
    """What quotecheck spends on one input at most; past a limit the part it applies to is
    reported (QC002 "... not analysed", or an input error for ``max_file_size``), never a hang.

    Configured in ``[tool.quotecheck.limits]`` (``LIMIT_KEYS`` gives the key of each field).
    """

    # Larger files, and standard input or a FIFO delivering more, are not read (an error).
    max_file_size: int = 16 * 1024 * 1024
    # Compound commands, substitutions, quotes and ${...} nested deeper are not analysed
    # (at most MAX_COUNT: the analysis recurses once per level).
    max_nesting: int = 64
    # Layers handed on deeper than this (ssh in sh -c in sudo ...) are not analysed (at most
    # MAX_COUNT).
    max_layers: int = 32
    # Seconds of parsing for a file's own text, and as much again for every text it hands on
    # to other layers together; past it the rest of the text is not analysed.
    parse_time: float = 60.0
    # Seconds one parser call may take (a region that needs longer is parsed in chunks).
    parse_call_time: float = 5.0
    # Seconds all the rules together may take on one file; a rule still running then is
    # stopped, and it and the rules after it are reported as not run.
    rule_time: float = 60.0
    # Bytes the process may grow by while the rules run on one file (Linux: its resident
    # memory); past it the rule running is stopped, as for rule_time.
    rule_memory: int = 1024 * 1024 * 1024


# The largest max-nesting and max-layers: deeper, the parser runs out of Python's stack
# (sys.getrecursionlimit()) and reports good code as a syntax error, or fails.
MAX_COUNT = 128
# The largest max-file-size: a file is read whole into memory, and its analysis takes some
# hundred bytes per byte; past this a value is a mistake (and one past the memory, a crash).
MAX_FILE_SIZE = 1024**3
# Sizes of what the analysis builds (not configurable: past them a value is left unknown, as
# at run time, and QC002 says so; the analysis goes on). Each is a few times below what makes
# a value's own analysis cost more than its file's.
# Characters of one known value, all its alternatives and elements together (values/flow.py,
# expand.py), of the known values put into one command together (layers/known_values.py:
# the text ssh joins of them), and of a parameter a function call passes on
# (layers/functions.py). `B=$A$A$A...` eight names deep would be 63 MB.
MAX_VALUE_CHARS = 1 << 16
# Configuration key -> Limits field, and what the value is.
LIMIT_KEYS: dict[str, tuple[str, str]] = {
    "max-file-size": ("max_file_size", "file-size"),
    "max-nesting": ("max_nesting", "count"),
    "max-layers": ("max_layers", "count"),
    "parse-time": ("parse_time", "seconds"),
    "parse-call-time": ("parse_call_time", "seconds"),
    "rule-time": ("rule_time", "seconds"),
    "rule-memory": ("rule_memory", "size"),
}
_SIZE = lazy_compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?\s*")
_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "k": 1024, "kib": 1024,
          "m": 1024**2, "mib": 1024**2, "g": 1024**3, "gib": 1024**3}


def parse_size(value: Any) -> int | None:
    """Bytes from an integer or a text like ``"16 MiB"``, ``"500kB"``; None if it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    m = _SIZE.fullmatch(value)
    if m is None:
        return None
    return int(float(m.group(1)) * _UNITS[(m.group(2) or "b").lower()])


def _count(raw: Any) -> int | None:
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= MAX_COUNT:
        return raw
    return None


def _seconds(raw: Any) -> float | None:
    if isinstance(raw, int | float) and not isinstance(raw, bool) and 0 < raw < float("inf"):
        return float(raw)
    return None


def _size(raw: Any) -> int | None:
    value = parse_size(raw)
    return value if value is not None and value >= 1 else None


def _file_size(raw: Any) -> int | None:
    value = _size(raw)
    return value if value is not None and value <= MAX_FILE_SIZE else None


_KINDS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "size": (_size, 'a size in bytes (an integer, or a text like "16 MiB")'),
    "file-size": (_file_size, 'a size in bytes from 1 to 1 GiB (an integer, or a text like '
                              '"16 MiB")'),
    "count": (_count, f"a whole number from 1 to {MAX_COUNT}"),
    "seconds": (_seconds, "a number of seconds greater than 0"),
}


def limits_from_table(where: str, table: dict[str, Any], base: Limits | None = None) -> Limits:
    """``base`` (default: the defaults) with the limits of a ``[tool.quotecheck.limits]`` table
    applied; raises LimitError, its message starting with ``where``, for a bad key or value."""
    unknown = sorted(set(table) - set(LIMIT_KEYS))
    if unknown:
        raise LimitError(f"{where}: unknown limit(s) {', '.join(unknown)} "
                         f"(known: {', '.join(LIMIT_KEYS)})")
    changes: dict[str, Any] = {}
    for key, raw in table.items():
        name, kind = LIMIT_KEYS[key]
        convert, want = _KINDS[kind]
        value = convert(raw)
        if value is None:
            raise LimitError(f"{where}: {key} must be {want}, not {raw!r}")
        changes[name] = value
    return replace(base if base is not None else Limits(), **changes)
