"""Settings from ``[tool.quotecheck]`` in pyproject.toml or a ``.quotecheck.toml``.

The nearest file found walking up from the checked file (or the working directory) wins;
command-line flags override it. Unknown keys and bad values are errors (exit 2), not ignored.
``[tool.quotecheck.limits]`` holds the ``Limits`` (size, depth, time and memory per input).
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from quotecheck.diagnostics import SEVERITY_ORDER

KEYS = {"select", "ignore", "severity", "remote-shell", "per-path-ignores", "limits"}
SHELLS = ("bash", "sh", "dash", "zsh")


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Limits:
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

    def with_overrides(self, assignments: list[str]) -> Limits:
        """These limits with ``KEY=VALUE`` assignments applied (a ``--limit`` option's values);
        raises ConfigError for an unknown key or a bad value."""
        values: dict[str, Any] = {}
        for assignment in assignments:
            key, sep, value = assignment.partition("=")
            key = key.strip()
            if not sep:
                raise ConfigError(f"--limit {assignment}: expected KEY=VALUE "
                                  f"(keys: {', '.join(LIMIT_KEYS)})")
            values[key] = value.strip()
        return _limits("--limit", values, self, from_text=True)


# The largest max-nesting and max-layers: deeper, the parser runs out of Python's stack
# (sys.getrecursionlimit()) and reports good code as a syntax error, or fails.
MAX_COUNT = 128
# Configuration key -> Limits field, and what the value is.
LIMIT_KEYS: dict[str, tuple[str, str]] = {
    "max-file-size": ("max_file_size", "size"),
    "max-nesting": ("max_nesting", "count"),
    "max-layers": ("max_layers", "count"),
    "parse-time": ("parse_time", "seconds"),
    "parse-call-time": ("parse_call_time", "seconds"),
    "rule-time": ("rule_time", "seconds"),
    "rule-memory": ("rule_memory", "size"),
}
_SIZE = re.compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?\s*")
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


def _count(raw: Any, from_text: bool) -> int | None:
    if from_text and isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= MAX_COUNT:
        return raw
    return None


def _seconds(raw: Any, from_text: bool) -> float | None:
    if from_text and isinstance(raw, str):
        try:
            raw = float(raw)
        except ValueError:
            return None
    if isinstance(raw, int | float) and not isinstance(raw, bool) and 0 < raw < float("inf"):
        return float(raw)
    return None


def _size(raw: Any, from_text: bool) -> int | None:
    value = parse_size(raw)
    return value if value is not None and value >= 1 else None


_KINDS: dict[str, tuple[Callable[[Any, bool], Any], str]] = {
    "size": (_size, 'a size in bytes (an integer, or a text like "16 MiB")'),
    "count": (_count, f"a whole number from 1 to {MAX_COUNT}"),
    "seconds": (_seconds, "a number of seconds greater than 0"),
}


def _limits(where: str, table: dict[str, Any], base: Limits, *, from_text: bool = False
            ) -> Limits:
    """``base`` with the limits of a ``[tool.quotecheck.limits]`` table (or of ``--limit``
    values, ``from_text``: numbers written as text) applied."""
    unknown = sorted(set(table) - set(LIMIT_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown limit(s) {', '.join(unknown)} "
                          f"(known: {', '.join(LIMIT_KEYS)})")
    changes: dict[str, Any] = {}
    for key, raw in table.items():
        name, kind = LIMIT_KEYS[key]
        convert, want = _KINDS[kind]
        value = convert(raw, from_text)
        if value is None:
            raise ConfigError(f"{where}: {key} must be {want}, not {raw!r}")
        changes[name] = value
    return replace(base, **changes)


@dataclass
class Settings:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    severity: str = "info"
    remote_shell: str | None = None
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    source: Path | None = None  # the file these came from
    base: Path | None = None  # the directory per-path patterns are relative to

    def ignores_for(self, path: Path | None) -> list[str]:
        if path is None or not self.per_path_ignores:
            return list(self.ignore)
        try:
            rel = path.resolve().relative_to(self.base or Path.cwd()).as_posix()
        except ValueError:
            rel = path.as_posix()
        extra = [code for pattern, codes in self.per_path_ignores.items()
                 if fnmatch.fnmatch(rel, pattern) for code in codes]
        return [*self.ignore, *extra]


def find_config(start: Path) -> Path | None:
    directory = start if start.is_dir() else start.parent
    directory = directory.resolve()
    for d in (directory, *directory.parents):
        dotfile = d / ".quotecheck.toml"
        if dotfile.is_file():
            return dotfile
        pyproject = d / "pyproject.toml"
        if pyproject.is_file() and _has_section(pyproject):
            return pyproject
    return None


def _has_section(pyproject: Path) -> bool:
    try:
        return "quotecheck" in tomllib.loads(pyproject.read_text()).get("tool", {})
    except (OSError, UnicodeDecodeError):
        return False
    except tomllib.TOMLDecodeError as exc:
        # It may hold our settings; guessing it does not would silently change the result.
        raise ConfigError(f"{pyproject}: invalid TOML: {exc}") from exc


def load(path: Path) -> Settings:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    table: Any = data.get("tool", {}).get("quotecheck", {}) if path.name == "pyproject.toml" \
        else data.get("tool", {}).get("quotecheck", data)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.quotecheck] must be a table")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(KEYS))})")
    s = Settings(source=path, base=path.parent.resolve())
    if "select" in table:
        s.select = _codes(path, "select", table["select"])
    if "ignore" in table:
        s.ignore = _codes(path, "ignore", table["ignore"])
    if "severity" in table:
        if table["severity"] not in SEVERITY_ORDER:
            raise ConfigError(f"{path}: severity must be one of {', '.join(SEVERITY_ORDER)}")
        s.severity = table["severity"]
    if "remote-shell" in table:
        if table["remote-shell"] not in SHELLS:
            raise ConfigError(f"{path}: remote-shell must be one of {', '.join(SHELLS)}")
        s.remote_shell = table["remote-shell"]
    if "per-path-ignores" in table:
        ppi = table["per-path-ignores"]
        if not isinstance(ppi, dict):
            raise ConfigError(f"{path}: per-path-ignores must be a table of glob = [codes]")
        s.per_path_ignores = {str(k): _codes(path, f"per-path-ignores.{k}", v)
                              for k, v in ppi.items()}
    if "limits" in table:
        if not isinstance(table["limits"], dict):
            raise ConfigError(f"{path}: limits must be a table ([tool.quotecheck.limits])")
        s.limits = _limits(f"{path}: limits", table["limits"], Limits())
    return s


def _codes(path: Path, key: str, value: Any) -> list[str]:
    from quotecheck.rules.registry import all_rules

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of rule codes or prefixes")
    codes = list(all_rules())
    for v in value:
        if not any(c.startswith(v.upper()) for c in codes):
            raise ConfigError(f"{path}: {key}: `{v}` matches no rule (see `quotecheck rules`)")
    return [v.upper() for v in value]
