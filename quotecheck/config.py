"""Settings from ``[tool.quotecheck]`` in pyproject.toml or a ``.quotecheck.toml``.

The nearest file found walking up from the checked file (or the working directory) wins;
command-line flags override it. Unknown keys and bad values are errors (exit 2), not ignored.
``[tool.quotecheck.limits]`` holds the ``Limits`` (size, depth, time and memory per input;
``limits.py``).

``build_options`` is the one place the checker's ``Options`` for an input are made, from these
settings and the command line's ``Overrides``: ``check``, ``fix``, ``guard``, ``explain`` and the
language server all call it, so they read one configuration the same way.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from quotecheck.diagnostics import SEVERITY_ORDER, Severity
from quotecheck.files import SHELL_EXTENSIONS, local_dialect
from quotecheck.globs import bad_glob, glob_match
from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import LimitError, Limits, limits_from_table
from quotecheck.programs import SHELL_OPTION_VALUES, shell_dialect
from quotecheck.records import Record

if TYPE_CHECKING:
    from quotecheck.checker import Options

KEYS = {"select", "extend-select", "ignore", "severity", "remote-shell", "per-path-ignores",
        "exclude", "extend-exclude", "respect-gitignore", "limits", "external-sources"}


class ConfigError(Exception):
    pass


class Settings(Record):
    select: list[str] | None
    extend_select: list[str]
    ignore: list[str]
    # None: each command's own default (check and fix: warning; the editor: info)
    severity: str | None
    remote_shell: str | None
    per_path_ignores: dict[str, list[str]]
    exclude: list[str] | None  # None: walk.DEFAULT_EXCLUDE
    extend_exclude: list[str]
    respect_gitignore: bool
    external_sources: bool  # read the files `source`/`.` name (ShellCheck's -x)
    limits: Limits
    source: Path | None  # the file these came from
    base: Path | None  # the directory per-path patterns are relative to

    def __init__(self, select: list[str] | None = None, extend_select: list[str] | None = None,
                 ignore: list[str] | None = None, severity: str | None = None,
                 remote_shell: str | None = None,
                 per_path_ignores: dict[str, list[str]] | None = None,
                 exclude: list[str] | None = None, extend_exclude: list[str] | None = None,
                 respect_gitignore: bool = True, external_sources: bool = False,
                 limits: Limits | None = None,
                 source: Path | None = None, base: Path | None = None) -> None:
        self.select = select
        self.extend_select = [] if extend_select is None else extend_select
        self.ignore = [] if ignore is None else ignore
        self.severity = severity
        self.remote_shell = remote_shell
        self.per_path_ignores = {} if per_path_ignores is None else per_path_ignores
        self.exclude = exclude
        self.extend_exclude = [] if extend_exclude is None else extend_exclude
        self.respect_gitignore = respect_gitignore
        self.external_sources = external_sources
        self.limits = Limits() if limits is None else limits
        self.source = source
        self.base = base

    def ignores_for(self, path: Path | None) -> list[str]:
        if path is None or not self.per_path_ignores:
            return list(self.ignore)
        try:
            rel = path.resolve().relative_to(self.base or Path.cwd()).as_posix()
        except ValueError:
            rel = path.as_posix()
        extra = [code for pattern, codes in self.per_path_ignores.items()
                 if glob_match(pattern, rel) for code in codes]
        return [*self.ignore, *extra]


class Overrides(Record):
    """What a command line says over the configuration file; None: the file's value."""

    select: list[str] | None = None  # replaces the file's selection
    extend_select: list[str] | None = None  # added to the file's
    ignore: list[str] | None = None  # added to the file's
    severity: str | None = None
    remote_shell: str | None = None
    shell: str | None = None  # --shell: every input is read in this shell, whatever it says
    external_sources: bool | None = None  # True: on, whatever the file says


def build_options(settings: Settings, text: str, path: Path | None, default_severity: Severity,
                  overrides: Overrides | None = None) -> Options:
    """The checker's Options for one input: ``settings`` (the configuration file that governs
    it) with ``overrides`` over them. ``path`` (None: a command line, or standard input with no
    --stdin-filename) picks the per-path ignores; the dialect is ``overrides.shell``, else the
    text's #! line or the path's extension (``files.local_dialect``), which a ``shell=``
    directive in the text still overrides (``checker.check_source``). ``default_severity``
    is the command's own, for a configuration that sets none."""
    from quotecheck.checker import Options  # not at the top: reading a file needs no checker

    given = overrides or Overrides()
    host = None
    if given.shell is not None:
        dialect = str(shell_dialect(given.shell))
    else:
        dialect = local_dialect(text, path)
        if path is None or path.suffix not in SHELL_EXTENSIONS:
            from quotecheck.hosts.kinds import HEAD_CHARS, host_format  # (not for `.sh`)

            host = host_format(path, text[:HEAD_CHARS])
    ignore = [*settings.ignores_for(path), *(given.ignore or [])]
    select = given.select if given.select is not None else settings.select
    extend = [*settings.extend_select, *(given.extend_select or [])]
    if extend:
        # Added to the selection; a code named here is longer than the prefix it beats in
        # `ignore` (the longest matching prefix wins), so `extend-select = ["QC201"]` wins
        # over `ignore = ["QC2"]`.
        select = [*(select if select is not None else ["QC"]), *extend]
    # Both checked against SEVERITY_ORDER: the setting by load(), the flag by the CLI.
    severity = cast(Severity, given.severity or settings.severity or default_severity)
    return Options(
        select=select,
        ignore=ignore,
        severity=severity,
        remote_shell=given.remote_shell or settings.remote_shell,
        dialect=dialect,
        dialect_given=given.shell is not None,
        limits=settings.limits,
        external_sources=bool(given.external_sources or settings.external_sources),
        host=host,
    )


def nearest_settings(start: Path) -> Settings:
    """The settings of the configuration file nearest above ``start`` (a file or a directory),
    or the defaults when there is none."""
    found = find_config(start)
    return load(found) if found is not None else Settings()


def find_config(start: Path) -> Path | None:
    directory = start if start.is_dir() else start.parent
    directory = directory.resolve()
    for d in (directory, *directory.parents):
        dotfile = d / ".quotecheck.toml"
        if dotfile.is_file():
            return dotfile
        pyproject = d / "pyproject.toml"
        if pyproject.exists() and not pyproject.is_file():
            raise ConfigError(f"{pyproject}: cannot read: not a regular file")
        if pyproject.is_file() and _has_section(pyproject):
            return pyproject
    return None


def _has_section(pyproject: Path) -> bool:
    # A pyproject.toml that cannot be read may hold our settings as well as one that does not
    # parse: either is an error, as for a .quotecheck.toml, never silently skipped.
    tool = parse_config(pyproject).get("tool", {})
    return isinstance(tool, dict) and "quotecheck" in tool


# What a real configuration file needs, checked before tomllib reads it: past these its time
# grows faster than the text (a 400 KB dotted header took minutes) or it runs out of stack.
# quotecheck's own settings are a few lines; a pyproject.toml holds other tools' too, and the
# largest real ones are tens of KiB.
MAX_CONFIG_BYTES = 256 * 1024  # a .quotecheck.toml, or any file --config names
MAX_PYPROJECT_BYTES = 512 * 1024
MAX_CONFIG_NESTING = 32  # arrays and inline tables inside one another
MAX_KEY_PARTS = 16  # the dotted parts of one key or table header

# The pre-scan's tokens: strings and comments (whose brackets and dots do not count; each
# always matches, an unclosed one to the end of its line or of the text, so the scan is
# linear), and the characters that nest, separate keys or end a key.
_TOML_TOKENS = lazy_compile(r"""
    "{3}(?:[^"\\]|\\.|"{1,2}(?!"))*+(?:"{3,5}|\Z)
  | '{3}(?:[^']|'{1,2}(?!'))*+(?:'{3,5}|\Z)
  | "(?:[^"\\\n]|\\[^\n])*+"?
  | '[^'\n]*+'?
  | \#[^\n]*+
  | [\[\]{}=,.\n]
""", re.VERBOSE | re.DOTALL)


def _within_bounds(path: Path, text: str) -> None:
    """Raise ConfigError for brackets nested deeper than MAX_CONFIG_NESTING or a key of more
    than MAX_KEY_PARTS parts (dots between two of ``[ ] { } = ,`` and line ends: a value
    holds at most one, a float's)."""
    depth = 0
    dots = 0
    for token in _TOML_TOKENS.finditer(text):
        c = token.group()[0]
        if c in "[{":
            depth += 1
            if depth > MAX_CONFIG_NESTING:
                line = text.count("\n", 0, token.start()) + 1
                raise ConfigError(f"{path}: line {line}: arrays or tables nested deeper than "
                                  f"{MAX_CONFIG_NESTING}: not read")
        elif c in "]}":
            depth = max(depth - 1, 0)
        if c == ".":
            dots += 1
            if dots >= MAX_KEY_PARTS:
                line = text.count("\n", 0, token.start()) + 1
                raise ConfigError(f"{path}: line {line}: a key or table header of more than "
                                  f"{MAX_KEY_PARTS} dotted parts: not read")
        elif c in "[]{}=,\n":
            dots = 0


def read_config_text(path: Path) -> str:
    """The text of a configuration file that is a regular file of at most MAX_CONFIG_BYTES
    (MAX_PYPROJECT_BYTES for a pyproject.toml); anything else (a FIFO that would block, a
    device that never ends) raises ConfigError."""
    limit = MAX_PYPROJECT_BYTES if path.name == "pyproject.toml" else MAX_CONFIG_BYTES
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{path}: not a regular file: not read")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 16):
            total += len(chunk)
            if total > limit:
                raise ConfigError(f"{path}: too large (more than {limit // 1024} KiB): "
                                  "not read")
            chunks.append(chunk)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: not UTF-8 ({exc})") from exc


def parse_config(path: Path) -> dict[str, Any]:
    """The TOML document of a configuration file, read within the bounds above; whatever
    goes wrong is a ConfigError naming the file (the guard, the editor and check share it)."""
    import tomllib  # here, not at the top: a run that reads no configuration file never needs it

    text = read_config_text(path)
    _within_bounds(path, text)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # It may hold our settings; guessing it does not would silently change the result.
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except Exception as exc:  # past the bounds above tomllib should never fail otherwise
        raise ConfigError(f"{path}: not read as TOML ({type(exc).__name__})") from exc


def load(path: Path) -> Settings:
    data = parse_config(path)
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
    if "extend-select" in table:
        s.extend_select = _codes(path, "extend-select", table["extend-select"])
    if "ignore" in table:
        s.ignore = _codes(path, "ignore", table["ignore"])
    if "severity" in table:
        if table["severity"] not in SEVERITY_ORDER:
            raise ConfigError(f"{path}: severity must be one of {', '.join(SEVERITY_ORDER)}")
        s.severity = table["severity"]
    if "remote-shell" in table:
        if table["remote-shell"] not in SHELL_OPTION_VALUES:
            choices = ", ".join(SHELL_OPTION_VALUES)
            raise ConfigError(f"{path}: remote-shell must be one of {choices}")
        s.remote_shell = table["remote-shell"]
    if "per-path-ignores" in table:
        ppi = table["per-path-ignores"]
        if not isinstance(ppi, dict):
            raise ConfigError(f"{path}: per-path-ignores must be a table of glob = [codes]")
        for pattern in ppi:
            _globs(path, "per-path-ignores", [pattern])
        s.per_path_ignores = {str(k): _codes(path, f"per-path-ignores.{k}", v)
                              for k, v in ppi.items()}
    if "exclude" in table:
        s.exclude = _globs(path, "exclude", table["exclude"])
    if "extend-exclude" in table:
        s.extend_exclude = _globs(path, "extend-exclude", table["extend-exclude"])
    if "respect-gitignore" in table:
        if not isinstance(table["respect-gitignore"], bool):
            raise ConfigError(f"{path}: respect-gitignore must be true or false")
        s.respect_gitignore = table["respect-gitignore"]
    if "external-sources" in table:
        if not isinstance(table["external-sources"], bool):
            raise ConfigError(f"{path}: external-sources must be true or false")
        s.external_sources = table["external-sources"]
    if "limits" in table:
        if not isinstance(table["limits"], dict):
            raise ConfigError(f"{path}: limits must be a table ([tool.quotecheck.limits])")
        try:
            s.limits = limits_from_table(f"{path}: limits", table["limits"])
        except LimitError as exc:
            raise ConfigError(str(exc)) from exc
    return s


def _codes(path: Path, key: str, value: Any) -> list[str]:
    from quotecheck.rules.registry import NAMES

    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of rule codes or prefixes")
    codes = list(NAMES)
    for v in value:
        if not any(c.startswith(v.upper()) for c in codes):
            raise ConfigError(f"{path}: {key}: `{v}` matches no rule (see `quotecheck rules`)")
    return [v.upper() for v in value]


def _globs(path: Path, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {key} must be a list of glob patterns")
    for v in value:
        why = bad_glob(v)
        if why is not None:
            raise ConfigError(f"{path}: {key}: `{v}` is {why}")
    return list(value)
