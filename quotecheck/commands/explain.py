"""``quotecheck explain``: the layer trace of one command line or script."""

from __future__ import annotations

import sys
from pathlib import Path

from quotecheck.analysis import analyse
from quotecheck.commands.destination import writing_to
from quotecheck.commands.status import EXIT_OK, UsageProblem
from quotecheck.config import ConfigError, Overrides, build_options, nearest_settings
from quotecheck.diagnostics import Severity
from quotecheck.inputs import (
    BINARY_NOTE,
    MAX_INPUT_BYTES,
    LoadedText,
    decode,
    read_text_file,
    too_large,
)
from quotecheck.output.explain_json import explain_document
from quotecheck.output.explain_text import render_explain
from quotecheck.output.json_text import dumps
from quotecheck.output.lsp import lsp_diagnostic
from quotecheck.output.style import Style, want_colour
from quotecheck.positions import LineIndex

# explain shows every finding, the notes too, unless the configuration sets a severity.
EXPLAIN_SEVERITY: Severity = "info"


def read_input(command: str | None, file: Path | None) -> tuple[str, str | None]:
    """The text to analyse and its path: a command argument, ``-`` for stdin, or --file."""
    if file is not None and command is not None:
        raise UsageProblem("give either a command or --file, not both")
    if file is not None:
        return _text(read_text_file(file), str(file)), str(file)
    if command is None:
        raise UsageProblem("nothing to explain: give a command, - for standard input, or --file")
    if command == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)  # `explain - < /dev/zero`
        if len(data) > MAX_INPUT_BYTES:
            raise UsageProblem(too_large("standard input"))
        return _text(decode(data), "standard input"), None
    return command, None


def _text(loaded: LoadedText, name: str) -> str:
    """The text read, or UsageProblem if it could not be read or is binary (what `check`
    reports as QC002: its NUL bytes are no script's, and no trace of them is meaningful)."""
    if loaded.error:
        raise UsageProblem(loaded.error)
    if loaded.binary:
        raise UsageProblem(f"{name}: {BINARY_NOTE}")
    return loaded.text


def run(*, command: str | None, file: Path | None, output_format: str, remote_shell: str | None,
        shell: str | None, color: str, external_sources: bool) -> int:
    """``quotecheck explain``, with the command line's values."""
    text, path = read_input(command, file)
    where = Path(path) if path else None
    try:
        # The configuration `check` reads for this file (for a command: the working
        # directory's), so that explain shows the findings check reports.
        settings = nearest_settings(where if where is not None else Path.cwd())
    except ConfigError as exc:
        raise UsageProblem(str(exc)) from exc
    options = build_options(settings, text, where, EXPLAIN_SEVERITY, Overrides(
        remote_shell=remote_shell, shell=shell, external_sources=external_sources or None))
    result = analyse(text, options, path)
    if output_format == "json":
        index = LineIndex(text)
        uri = Path(path).resolve().as_uri() if path else "untitled:command"
        diags = [lsp_diagnostic(d, index, "utf-16", uri) for d in result.diagnostics]
        shown = dumps(explain_document(result.trace, diags), indent=2) + "\n"
    else:
        style = Style(want_colour(sys.stdout, color))
        shown = render_explain(result.trace, result.diagnostics, style)
    with writing_to("standard output", sys.stdout):
        sys.stdout.write(shown)
        sys.stdout.flush()  # a write error said here, not when the interpreter exits
    return EXIT_OK
