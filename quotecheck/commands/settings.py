"""The settings ``check`` and ``fix`` apply to each input: the codes given on the command
line, the configuration file that governs the input, and the ``Options`` they make together."""

from __future__ import annotations

from pathlib import Path

from quotecheck.checker import Options
from quotecheck.commands.inputs import Input
from quotecheck.commands.request import Request
from quotecheck.commands.status import UsageProblem
from quotecheck.config import ConfigError, Settings, find_config, load
from quotecheck.files import local_dialect
from quotecheck.inputs import MAX_INPUT_BYTES


def codes_option(values: list[str] | None) -> list[str] | None:
    """--select/--ignore values: comma-separated codes or prefixes, each matching some rule."""
    if values is None:
        return None
    out = [c.strip().upper() for v in values for c in v.split(",") if c.strip()]
    from quotecheck.rules.registry import all_rules

    known = list(all_rules())
    for code in out:
        if not any(k.startswith(code) for k in known):
            raise UsageProblem(f"`{code}` matches no rule (see `quotecheck rules`)")
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

    def max_file_size(self, path: Path | None) -> int:
        """The max-file-size limit for this path (None: standard input)."""
        try:
            return self.for_path(path).limits.max_file_size
        except ConfigError:
            return MAX_INPUT_BYTES  # the same error is reported when the file is checked


def options_for(request: Request, settings: Settings, item: Input) -> Options:
    dialect = local_dialect(item.loaded.text) if item.path is not None else "bash"
    ignore = [*settings.ignores_for(item.path), *(request.ignore or [])]
    return Options(
        select=request.select if request.select is not None else settings.select,
        ignore=ignore,
        severity=(request.severity or settings.severity),  # type: ignore[arg-type]
        remote_shell=request.remote_shell or settings.remote_shell,
        dialect=dialect,
        limits=settings.limits,
    )
