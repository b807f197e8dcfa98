"""``quotecheck fix``: print, diff or write the corrected scripts.

Exit status: 0 when no finding is left at or above the chosen severity after fixing, 1 when some
remain (their unapplied fixes are shown as suggestions on stderr), 2 on a usage, configuration or
input error. ``--write`` rewrites files in place, as pre-commit's fixer convention expects (the
hook fails when a file changed, so the author reviews the change).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import TextIO

from quotecheck.commands.inputs import collect_inputs
from quotecheck.commands.request import Request
from quotecheck.commands.settings import SettingsCache, codes_option, options_for
from quotecheck.commands.status import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from quotecheck.config import ConfigError
from quotecheck.fixer import fix_source
from quotecheck.positions import LineIndex


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
    if request.command is None and not request.paths:
        stderr.write("quotecheck: error: nothing to fix: give files, - for standard input, or "
                     "--command 'CMD'\n")
        return EXIT_ERROR
    try:
        settings = SettingsCache(request)
    except ConfigError as exc:
        stderr.write(f"quotecheck: error: {exc}\n")
        return EXIT_ERROR
    from quotecheck.output.terminal import printable

    errors: list[str] = []
    notes: list[str] = []
    inputs = collect_inputs(request, stdin, errors, settings.walk_rules, notes)
    for note in notes:
        stderr.write(f"quotecheck: {printable(note)}\n")
    if len(inputs) > 1 and not (diff or write):
        stderr.write("quotecheck: error: several inputs: use --diff or --write\n")
        return EXIT_ERROR
    remaining = 0
    for item in inputs:
        if item.loaded.binary:
            errors.append(f"{item.display}: binary file, not fixed")
            continue
        try:
            options = options_for(request, settings.for_path(item.path), item)
        except ConfigError as exc:
            errors.append(str(exc))
            continue
        result = fix_source(item.loaded.text, options, unsafe=unsafe,
                            path=str(item.path) if item.path else None)
        changed = result.text != item.loaded.text
        if write and item.path is not None:
            if changed:
                item.path.write_text(result.text, encoding="utf-8", errors="surrogateescape")
                stderr.write(f"fixed {item.display} ({len(result.applied)} fix"
                             f"{'es' if len(result.applied) != 1 else ''})\n")
        elif diff:
            stdout.writelines(difflib.unified_diff(
                item.loaded.text.splitlines(keepends=True),
                result.text.splitlines(keepends=True),
                fromfile=f"a/{item.display}", tofile=f"b/{item.display}"))
        else:
            stdout.write(result.text)
            if item.path is None and not result.text.endswith("\n"):
                stdout.write("\n")  # a command line: end it for the terminal
        index = LineIndex(result.text)
        for d, fix in result.suggestions():
            line, col = index.position(d.span[0])
            how = ("needs --unsafe-fixes" if fix.applicability == "unsafe"
                   else "shown only")
            stderr.write(f"{item.display}:{line + 1}:{col + 1}: suggestion {d.code}: "
                         f"{fix.title} ({how})\n")
        remaining += len(result.remaining)
    for e in dict.fromkeys(errors):  # one configuration error is said once
        stderr.write(f"quotecheck: error: {e}\n")
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if remaining else EXIT_OK
