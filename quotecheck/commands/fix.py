"""``quotecheck fix``: print, diff or write the corrected scripts.

Exit status: 0 when no finding is left at or above the chosen severity after fixing, 1 when some
remain (their unapplied fixes are shown as suggestions on stderr), 2 on a usage, configuration or
input error. ``--write`` rewrites files in place, as pre-commit's fixer convention expects (the
hook fails when a file changed, so the author reviews the change).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from quotecheck.commands.inputs import Input, PendingInput
from quotecheck.commands.request import Request
from quotecheck.commands.settings import SettingsCache, codes_option, options_for, start_run
from quotecheck.commands.status import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from quotecheck.config import ConfigError
from quotecheck.fixed_bytes import DecodedBytes, decode_bytes, encode_fixed, unified_patch
from quotecheck.fixer import fix_source
from quotecheck.inputs import LoadedText
from quotecheck.positions import LineIndex
from quotecheck.records import replace
from quotecheck.safe_write import NotWritten, Snapshot, read_snapshot, replace_contents


def run(*, paths: list[str] | None, command: str | None, unsafe_fixes: bool, diff: bool,
        write: bool, severity: str | None, select: list[str] | None, ignore: list[str] | None,
        remote_shell: str | None, config: Path | None, no_config: bool,
        shell: str | None) -> int:
    """``quotecheck fix``, with the command line's values."""
    request = Request(
        paths=paths or [], command=command, output_format="text", severity=severity,
        select=codes_option(select), ignore=codes_option(ignore), remote_shell=remote_shell,
        encoding="utf-16", config=config, no_config=no_config, colour=False, shell=shell,
    )
    return run_fix(request, unsafe=unsafe_fixes, diff=diff, write=write, stdout=sys.stdout,
                   stderr=sys.stderr, stdin=sys.stdin)


def run_fix(request: Request, *, unsafe: bool, diff: bool, write: bool, stdout: TextIO,
            stderr: TextIO, stdin: TextIO) -> int:
    # A symbolic link met walking a directory may lead out of the tree: fix leaves it alone.
    started = start_run(request, stdin, stderr, "nothing to fix: give files, - for standard "
                        "input, or --command 'CMD'", walk_symlinks=False)
    if started is None:
        return EXIT_ERROR
    settings, pending = started
    if len(pending) > 1 and not (diff or write):
        stderr.write("quotecheck: error: several inputs: use --diff or --write\n")
        return EXIT_ERROR
    errors: list[str] = []
    tally = _Tally()
    for item in pending:
        try:
            _fix_one(request, settings, item, unsafe=unsafe, diff=diff, write=write,
                     stdout=stdout, stderr=stderr, tally=tally)
        except _InputError as exc:
            errors.append(str(exc))
        except Exception as exc:  # a bug must not stop the other files, nor exit 1
            errors.append(f"{item.display}: internal error, not fixed "
                          f"({type(exc).__name__}: {exc}); please report it")
    for e in dict.fromkeys(errors):  # one configuration error is said once
        stderr.write(f"quotecheck: error: {e}\n")
    stderr.write(tally.summary(write) + "\n")
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if tally.remaining else EXIT_OK


class _InputError(Exception):
    """An input not read, not configured or not written (the message names it): exit 2."""


@dataclass
class _Tally:
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
             diff: bool, write: bool, stdout: TextIO, stderr: TextIO, tally: _Tally) -> None:
    source, snapshot = _read(settings, item)
    if b"\0" in source.data:  # as `check` reports it: a finding, the file left alone
        stderr.write(f"{item.display}:1:1: warning QC002 binary file, not analysed "
                     "(it holds NUL bytes), not fixed\n")
        tally.remaining += 1
        if not (diff or write):
            _write_bytes(stdout, source.data)
        return
    loaded = LoadedText(source.text)
    try:
        configured = settings.for_path(item.path)
        options = options_for(request, configured, Input(item.display, item.path, loaded))
    except ConfigError as exc:
        raise _InputError(str(exc)) from exc
    threshold = options.severity
    if request.severity is None and configured.severity is None:
        # No threshold asked for: the notes' fixes are applied too (as `check --severity info`
        # shows them); only warnings and errors left decide the exit status, as for `check`.
        options = replace(options, severity="info")
    result = fix_source(source.text, options, unsafe=unsafe,
                        path=str(item.path) if item.path else None)
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
            stderr.write(f"fixed {item.display} ({n} fix{'es' if n != 1 else ''})\n")
    elif not diff:
        _write_bytes(stdout, fixed)
        if item.path is None and not fixed.endswith(b"\n"):
            stdout.write("\n")  # a command line: end it for the terminal
    index = LineIndex(result.text)
    for d, fix in result.suggestions():
        line, col = index.position(d.span[0])
        how = ("needs --unsafe-fixes" if fix.applicability == "unsafe"
               else "shown only")
        stderr.write(f"{item.display}:{line + 1}:{col + 1}: suggestion {d.code}: "
                     f"{fix.title} ({how})\n")
        tally.suggestions += 1
    tally.remaining += sum(1 for d in result.remaining if d.at_least(threshold))


def _write_bytes(stream: TextIO, data: bytes) -> None:
    """Bytes as they are to a text stream (a file's bytes that are not UTF-8 included)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(data.decode("utf-8", errors="replace"))
        return
    stream.flush()
    buffer.write(data)
    buffer.flush()
