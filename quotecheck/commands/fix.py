"""``quotecheck fix``: print, diff or write the corrected scripts.

Exit status: 0 when no finding is left at or above the chosen severity after fixing, 1 when some
remain (their unapplied fixes are shown as suggestions on stderr; ``--exit-zero`` makes it 0),
2 on a usage, configuration or input error. ``--write`` rewrites files in place, as
pre-commit's fixer convention expects (the hook fails when a file changed, so the author
reviews the change).

Standard output carries the fixed text or the diff, nothing else. Standard error carries what
was done: the files fixed, the fixes not applied (as suggestions) and a closing line (``-q``
leaves out all but the suggestions); with ``--format``, also the findings left after fixing as
``check --format`` prints them for the fixed text (json and sarif: that document alone, the
fixes not applied attached to their findings).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from quotecheck.commands.destination import GuardedStream, WriteFailed, writing_to
from quotecheck.commands.findings_report import (
    ItemWriter,
    item_writer,
    render_findings,
    terminal_width,
)
from quotecheck.commands.inputs import Input, PendingInput, check_stdin_filename
from quotecheck.commands.request import Request
from quotecheck.commands.settings import SettingsCache, codes_option, options_for, start_run
from quotecheck.commands.status import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from quotecheck.config import ConfigError
from quotecheck.diagnostics import Diagnostic
from quotecheck.fixed_bytes import DecodedBytes, decode_bytes, encode_fixed, unified_patch
from quotecheck.fixer import fix_source
from quotecheck.inputs import BINARY_NOTE, LoadedText, is_binary
from quotecheck.positions import LineIndex
from quotecheck.records import Record, replace
from quotecheck.rules import notes as qc002_notes
from quotecheck.rules.api import not_analysed
from quotecheck.safe_write import NotWritten, Snapshot, read_snapshot, replace_contents

DOCUMENT_FORMATS = ("json", "sarif")  # stderr holds the document alone


def run(*, paths: list[str] | None, command: str | None, unsafe_fixes: bool, diff: bool,
        write: bool, output_format: str | None, severity: str | None,
        select: list[str] | None, ignore: list[str] | None, remote_shell: str | None,
        config: Path | None, no_config: bool, shell: str | None, quiet: bool,
        exit_zero: bool, stdin_filename: str | None) -> int:
    """``quotecheck fix``, with the command line's values."""
    from quotecheck.output.style import want_colour

    check_stdin_filename(stdin_filename, paths)
    request = Request(
        paths=paths or [], command=command, output_format=output_format or "full",
        severity=severity, select=codes_option(select), ignore=codes_option(ignore),
        remote_shell=remote_shell, encoding="utf-16", config=config, no_config=no_config,
        colour=output_format is not None and want_colour(sys.stderr), shell=shell,
        stdin_filename=stdin_filename, width=terminal_width(sys.stderr),
    )
    out = GuardedStream(sys.stdout)
    status = run_fix(request, unsafe=unsafe_fixes, diff=diff, write=write,
                     stdout=out,  # type: ignore[arg-type]
                     stderr=sys.stderr, stdin=sys.stdin, quiet=quiet,
                     report=output_format is not None)
    out.flush()  # a write error said here, not when the interpreter exits
    return EXIT_OK if exit_zero and status == EXIT_FINDINGS else status


def run_fix(request: Request, *, unsafe: bool, diff: bool, write: bool, stdout: TextIO,
            stderr: TextIO, stdin: TextIO, quiet: bool = False, report: bool = False) -> int:
    """Fix every input; the exit status. ``report``: also the findings left, in
    ``request.output_format``, on ``stderr``."""
    # A symbolic link met walking a directory may lead out of the tree: fix leaves it alone.
    started = start_run(request, stdin, stderr, "nothing to fix: give files, - for standard "
                        "input, or --command 'CMD'", walk_symlinks=False, quiet=quiet)
    if started is None:
        return EXIT_ERROR
    settings, pending = started
    if len(pending) > 1 and not (diff or write):
        stderr.write("quotecheck: error: several inputs: use --diff or --write\n")
        return EXIT_ERROR
    errors: list[str] = []
    tally = _Tally()
    said = _Said(request, stderr, quiet=quiet, report=report)
    for item in pending:
        try:
            _fix_one(request, settings, item, unsafe=unsafe, diff=diff, write=write,
                     stdout=stdout, said=said, tally=tally)
        except _InputError as exc:
            errors.append(str(exc))
        except WriteFailed:
            raise  # standard output is gone: so is every later file's output
        except Exception as exc:  # a bug must not stop the other files, nor exit 1
            errors.append(f"{item.display}: internal error, not fixed "
                          f"({type(exc).__name__}: {exc}); please report it")
    said.close()
    for e in dict.fromkeys(errors):  # one configuration error is said once
        stderr.write(f"quotecheck: error: {e}\n")
    if said.chatty:
        stderr.write(tally.summary(write) + "\n")
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if tally.remaining else EXIT_OK


class _Said:
    """What fix says on stderr, by --quiet and --format."""

    def __init__(self, request: Request, stderr: TextIO, *, quiet: bool, report: bool) -> None:
        self.request = request
        self.stderr = stderr
        self.report = report  # the findings left, in request.output_format
        document = report and request.output_format in DOCUMENT_FORMATS
        self.items: ItemWriter | None = item_writer(request, stderr) if document else None
        self.chatty = not (quiet or document)  # the files fixed, the closing line
        self.suggest = not document  # (json and sarif attach the fixes to the findings)

    def findings(self, display: str, named: Path | None, index: LineIndex,
                 diagnostics: list[Diagnostic]) -> None:
        if not self.report:
            return
        shown = render_findings(self.request, display, named, index, diagnostics)
        self.stderr.write(shown.text)
        if self.items is not None:
            for item in shown.items:
                self.items.write(item)

    def close(self) -> None:
        if self.items is not None:
            self.items.close()


class _InputError(Exception):
    """An input not read, not configured or not written (the message names it): exit 2."""


class _Tally(Record):
    files: int = 0  # files (or inputs) the fixes change
    applied: int = 0
    suggestions: int = 0
    remaining: int = 0  # findings left after fixing

    def summary(self, written: bool) -> str:
        files = _plural(self.files, "file")
        done = f"{files} fixed" if written else f"{files} to fix"
        return (f"quotecheck: {done}, {_plural(self.applied, 'fix', 'fixes')} applied, "
                f"{_plural(self.suggestions, 'fix', 'fixes')} left as suggestions")


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _read(settings: SettingsCache, item: PendingInput
          ) -> tuple[DecodedBytes, Snapshot | None]:
    """The input's bytes, and for a file what replace_contents needs to write it back."""
    if item.path is None:  # the command line, standard input, or a name that does not exist
        loaded = item.read()
        if loaded.error:
            raise _InputError(loaded.error)
        return decode_bytes(loaded.text.encode("utf-8", errors="surrogateescape")), None
    try:
        # Never through a symbolic link, never a FIFO or a device (which could block, or
        # be written to).
        snapshot = read_snapshot(item.path, settings.max_file_size(item.path))
    except NotWritten as exc:
        raise _InputError(str(exc)) from exc
    return decode_bytes(snapshot.data), snapshot


def _fix_one(request: Request, settings: SettingsCache, item: PendingInput, *, unsafe: bool,
             diff: bool, write: bool, stdout: TextIO, said: _Said, tally: _Tally) -> None:
    source, snapshot = _read(settings, item)
    named = item.path if item.path is not None else item.named  # --stdin-filename
    if is_binary(source.data):  # as `check` reports it: a finding, the file left alone
        tally.remaining += 1
        if said.report:
            said.findings(item.display, named, LineIndex(""), [not_analysed(qc002_notes.BINARY())])
        else:
            said.stderr.write(f"{item.display}:1:1: warning QC002 {BINARY_NOTE}: not fixed\n")
        if not (diff or write):
            _write_bytes(stdout, source.data)
        return
    loaded = LoadedText(source.text)
    try:
        configured = settings.for_path(named)
        options = options_for(request, configured, Input(item.display, item.path, loaded,
                                                         item.named))
    except ConfigError as exc:
        raise _InputError(str(exc)) from exc
    threshold = options.severity
    if request.severity is None and configured.severity is None:
        # No threshold asked for: the notes' fixes are applied too (as `check --severity info`
        # shows them); only warnings and errors left decide the exit status, as for `check`.
        options = replace(options, severity="info")
    result = fix_source(source.text, options, unsafe=unsafe,
                        path=str(named) if named else None)
    fixed = encode_fixed(source, result.text)
    changed = fixed != source.data
    if changed:
        tally.files += 1
    tally.applied += len(result.applied)
    if diff and changed:
        _write_bytes(stdout, unified_patch(item.display, source.data, fixed))
    if write and snapshot is not None:
        if changed:
            try:
                replace_contents(snapshot, fixed)
            except NotWritten as exc:
                raise _InputError(str(exc)) from exc
            n = len(result.applied)
            if said.chatty:
                said.stderr.write(f"fixed {item.display} ({n} fix{'es' if n != 1 else ''})\n")
    elif not diff:
        _write_bytes(stdout, fixed)
        if item.path is None and not fixed.endswith(b"\n"):
            stdout.write("\n")  # a command line: end it for the terminal
    index = LineIndex(result.text)
    left = [d for d in result.remaining if d.at_least(threshold)]
    said.findings(item.display, named, index, left)
    for d, fix in result.suggestions():
        tally.suggestions += 1
        if not said.suggest:
            continue
        line, col = index.position(d.span[0])
        how = ("needs --unsafe-fixes" if fix.applicability == "unsafe"
               else "shown only")
        said.stderr.write(f"{item.display}:{line + 1}:{col + 1}: suggestion {d.code}: "
                          f"{fix.title} ({how})\n")
    tally.remaining += len(left)


def _write_bytes(stream: TextIO, data: bytes) -> None:
    """Bytes as they are to a text stream (a file's bytes that are not UTF-8 included)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(data.decode("utf-8", errors="replace"))
        return
    stream.flush()
    with writing_to("standard output", buffer):
        buffer.write(data)
        buffer.flush()
