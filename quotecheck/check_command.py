"""``quotecheck check``: inputs in, reports out, the exit status decided.

Exit status: 0 nothing reported, 1 findings at or above the chosen severity, 2 a usage,
configuration or input error (a file that does not parse is a finding, QC001, not an error).
Every file is checked even when an earlier one failed to load.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from quotecheck.checker import Options, check_source
from quotecheck.config import ConfigError, Settings, find_config, load
from quotecheck.diagnostics import Diagnostic
from quotecheck.files import discover, local_dialect
from quotecheck.inputs import MAX_INPUT_BYTES, LoadedText, decode, read_text_file, too_large
from quotecheck.positions import Encoding, LineIndex

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
PROGRESS_AFTER = 200  # files; below this a run is quick enough to need no progress display


@dataclass
class Request:
    paths: list[str]
    command: str | None
    output_format: str
    severity: str | None
    select: list[str] | None
    ignore: list[str] | None
    remote_shell: str | None
    encoding: Encoding
    config: Path | None
    no_config: bool
    colour: bool


@dataclass
class Input:
    display: str
    path: Path | None
    loaded: LoadedText


@dataclass
class PendingInput:
    """An input found but not read yet: ``check`` reads each one just before checking it, so
    a run over many large files holds one of them at a time, not all."""

    display: str
    path: Path | None
    read: Callable[[], LoadedText]


def _given(loaded: LoadedText) -> LoadedText:
    return loaded


def _read_stdin(stdin: TextIO, limit: int = MAX_INPUT_BYTES) -> LoadedText:
    data = stdin.buffer.read(limit + 1)  # `cat /dev/zero | quotecheck check -`
    if len(data) > limit:
        return LoadedText("", error=too_large("standard input", limit))
    return decode(data)


def pending_inputs(request: Request, stdin: TextIO,
                   settings: SettingsCache | None = None) -> list[PendingInput]:
    """Every input in order; one that cannot be read says so when it is read."""
    def max_size(path: Path | None) -> int:
        if settings is None:
            return MAX_INPUT_BYTES
        try:
            return settings.for_path(path).limits.max_file_size
        except ConfigError:
            return MAX_INPUT_BYTES  # the same error is reported when the file is checked

    inputs: list[PendingInput] = []
    if request.command is not None:
        inputs.append(PendingInput("<command>", None, partial(_given, LoadedText(request.command))))
    for raw in request.paths:
        if raw == "-":
            inputs.append(PendingInput("<stdin>", None,
                                       partial(_read_stdin, stdin, max_size(None))))
            continue
        path = Path(raw)
        if not path.exists():
            missing = LoadedText("", error=f"{raw}: no such file or directory")
            inputs.append(PendingInput(raw, None, partial(_given, missing)))
            continue
        for found in discover([path]):
            inputs.append(PendingInput(str(found), found,
                                       partial(read_text_file, found, max_size(found))))
    return inputs


def collect_inputs(request: Request, stdin: TextIO, errors: list[str]) -> list[Input]:
    inputs: list[Input] = []
    for pending in pending_inputs(request, stdin):
        loaded = pending.read()
        if loaded.error:
            errors.append(loaded.error)
            continue
        inputs.append(Input(pending.display, pending.path, loaded))
    return inputs


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


def load_notes(item: Input) -> list[Diagnostic]:
    notes: list[Diagnostic] = []
    if item.loaded.undecodable is not None:
        at = item.loaded.undecodable
        notes.append(Diagnostic(
            "QC002", "not-analysed", "warning",
            "the file is not valid UTF-8 here; it was decoded with replacement characters "
            "(U+FFFD), so values containing these bytes are not exact", (at, at + 1)))
    return notes


def run_check(request: Request, stdout: TextIO, stderr: TextIO, stdin: TextIO) -> int:
    from quotecheck.output.check_json import document, file_entry
    from quotecheck.output.check_text import render_text
    from quotecheck.output.github import render_github
    from quotecheck.output.style import Style

    errors: list[str] = []
    if request.command is None and not request.paths:
        stderr.write("quotecheck: error: nothing to check: give files or directories, - for "
                     "standard input, or --command 'CMD'\n")
        return EXIT_ERROR
    try:
        settings = SettingsCache(request)
    except ConfigError as exc:
        stderr.write(f"quotecheck: error: {exc}\n")
        return EXIT_ERROR
    inputs = pending_inputs(request, stdin, settings)
    style = Style(request.colour)
    files_json: list[dict[str, Any]] = []
    sarif_results: list[dict[str, Any]] = []
    reported = 0
    show_progress = len(inputs) > PROGRESS_AFTER and stderr.isatty()
    for n, pending in enumerate(inputs, 1):
        if show_progress:
            stderr.write(f"\rquotecheck: {n}/{len(inputs)} files")
            stderr.flush()
        # Read now, not all up front: a file that went away or became unreadable since the run
        # started is an error for that file (every other file is still checked).
        loaded = pending.read()
        if loaded.error:
            errors.append(loaded.error)
            continue
        item = Input(pending.display, pending.path, loaded)
        try:
            options = options_for(request, settings.for_path(item.path), item)
        except ConfigError as exc:
            errors.append(str(exc))
            continue
        index = LineIndex(item.loaded.text)
        if item.loaded.binary:
            diagnostics = [Diagnostic("QC002", "not-analysed", "warning",
                                      "binary file (it holds NUL bytes): not analysed", (0, 0))]
        else:
            try:
                result = check_source(item.loaded.text, options,
                                      str(item.path) if item.path else None)
            except Exception as exc:  # a bug must not stop the other files
                # check_source is meant never to raise; if it does, the traceback would end the
                # run with status 1 (which means "findings") and skip every later file.
                errors.append(f"{item.display}: internal error, not analysed "
                              f"({type(exc).__name__}: {exc}); please report it")
                continue
            diagnostics = load_notes(item) + result.diagnostics
        reported += len(diagnostics)
        uri = item.path.resolve().as_uri() if item.path else f"untitled:{item.display}"
        if request.output_format == "text":
            if show_progress and diagnostics:
                stderr.write("\r\x1b[K")
            stdout.write(render_text(item.display, index, diagnostics, style))
        elif request.output_format == "github":
            stdout.write(render_github(item.display, index, diagnostics))
        elif request.output_format == "json":
            files_json.append(file_entry(uri, item.display, index, diagnostics,
                                         request.encoding))
        else:
            from quotecheck.output.sarif import result as sarif_result

            rel = item.display if item.path else uri
            sarif_results.extend(sarif_result(d, rel, index) for d in diagnostics)
    if show_progress:
        stderr.write("\r\x1b[K")
    if request.output_format == "json":
        stdout.write(json.dumps(document(files_json, request.encoding), ensure_ascii=False,
                                indent=2) + "\n")
    elif request.output_format == "sarif":
        from quotecheck.output.sarif import document as sarif_document
        from quotecheck.rules.registry import all_rules, doc_path

        rules = []
        for code, rule in all_rules().items():
            try:
                doc: str | None = doc_path(code).read_text()
            except OSError:
                doc = None
            rules.append((rule, doc))
        stdout.write(json.dumps(sarif_document(rules, sarif_results), indent=2) + "\n")
    for e in errors:
        stderr.write(f"quotecheck: error: {e}\n")
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if reported else EXIT_OK


def default_stdin() -> TextIO:
    return sys.stdin
