"""The settings ``check`` and ``fix`` apply to each input: the codes given on the command
line, the configuration file that governs the input, and the ``Options`` they make together
(made by ``config.build_options``)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from quotecheck.checker import Options
from quotecheck.commands.inputs import Input, PendingInput, pending_inputs
from quotecheck.commands.request import Request
from quotecheck.commands.status import UsageProblem
from quotecheck.config import (
    ConfigError,
    Overrides,
    Settings,
    build_options,
    find_config,
    load,
)
from quotecheck.diagnostics import Severity
from quotecheck.inputs import MAX_INPUT_BYTES
from quotecheck.walk import DEFAULT_EXCLUDE, WalkRules

# What check and fix report and fail on by default: a commit is stopped by warnings and
# errors; `--severity info` shows the notes too (the editor shows them: lsp/engine.py).
DEFAULT_SEVERITY: Severity = "warning"


def codes_option(values: list[str] | None) -> list[str] | None:
    """--select/--ignore values: comma-separated codes or prefixes, each matching some rule."""
    if values is None:
        return None
    out = [c.strip().upper() for v in values for c in v.split(",") if c.strip()]
    from quotecheck.rules.registry import NAMES

    known = list(NAMES)
    for code in out:
        if not any(k.startswith(code) for k in known):
            raise UsageProblem(f"`{code}` matches no rule (see `quotecheck rules`)")
    return out


def globs_option(values: list[str] | None, flag: str) -> list[str] | None:
    """--exclude/--extend-exclude values: comma-separated glob patterns."""
    from quotecheck.globs import bad_glob

    if values is None:
        return None
    out = [g.strip() for v in values for g in v.split(",") if g.strip()]
    for pattern in out:
        why = bad_glob(pattern)
        if why is not None:
            raise UsageProblem(f"{flag} `{pattern}` is {why}")
    return out


class SettingsCache:
    """Configuration per directory, loaded once."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.cache: dict[Path | None, Settings] = {}
        self.explicit = load(request.config) if request.config else None

    def for_path(self, path: Path | None) -> Settings:
        if self.explicit is not None:
            return self.explicit
        if self.request.no_config:
            return Settings()
        found = find_config(path if path is not None else Path.cwd())
        if found not in self.cache:
            self.cache[found] = load(found) if found else Settings()
        return self.cache[found]

    def walk_rules(self, directory: Path) -> WalkRules:
        """What a walk of ``directory`` leaves out: the exclude patterns of the configuration
        that governs it (relative to that file's directory) and the command line's."""
        try:
            settings = self.for_path(directory)
        except ConfigError:
            settings = Settings()  # the error is reported when a file is checked
        request = self.request
        exclude = request.exclude if request.exclude is not None else settings.exclude
        patterns = [*(DEFAULT_EXCLUDE if exclude is None else exclude),
                    *settings.extend_exclude, *(request.extend_exclude or [])]
        respect = request.respect_gitignore if request.respect_gitignore is not None \
            else settings.respect_gitignore
        return WalkRules(tuple(patterns), settings.base, respect)

    def max_file_size(self, path: Path | None) -> int:
        """The max-file-size limit for this path (None: standard input)."""
        try:
            return self.for_path(path).limits.max_file_size
        except ConfigError:
            return MAX_INPUT_BYTES  # the same error is reported when the file is checked


def overrides(request: Request) -> Overrides:
    """What the command line says over the configuration file."""
    return Overrides(select=request.select, extend_select=request.extend_select,
                     ignore=request.ignore, severity=request.severity,
                     remote_shell=request.remote_shell, shell=request.shell,
                     external_sources=request.external_sources)


def options_for(request: Request, settings: Settings, item: Input) -> Options:
    return build_options(settings, item.loaded.text, item.config_path, DEFAULT_SEVERITY,
                         overrides(request))


def start_run(request: Request, stdin: TextIO, stderr: TextIO, nothing: str, *,
              walk_symlinks: bool = True, quiet: bool = False,
              skipped_files: list[str] | None = None
              ) -> tuple[SettingsCache, list[PendingInput]] | None:
    """What `check` and `fix` do first: the settings and the inputs, the walk's notes said on
    ``stderr`` (unless ``quiet``); None (after saying why) when there is nothing to do or the
    settings are broken. ``nothing`` is the message for a run given no input;
    ``skipped_files`` receives the files named on the command line that were skipped."""
    from quotecheck.output.terminal import printable

    if request.command is None and not request.paths and request.stdin_filename is None:
        stderr.write(f"quotecheck: error: {nothing}\n")
        return None
    try:
        settings = SettingsCache(request)
    except ConfigError as exc:
        stderr.write(f"quotecheck: error: {exc}\n")
        return None
    notes: list[str] = []
    pending = pending_inputs(request, stdin, settings.max_file_size, settings.walk_rules, notes,
                             walk_symlinks=walk_symlinks, skipped_files=skipped_files)
    for note in [] if quiet else notes:
        stderr.write(f"quotecheck: {printable(note)}\n")
    return settings, pending
