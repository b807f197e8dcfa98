"""``quotecheck check``: inputs in, reports out, the exit status decided.

Exit status: 0 nothing reported, 1 findings at or above the chosen severity, 2 a usage,
configuration or input error (a file that does not parse is a finding, QC001, not an error).
Every file is checked even when an earlier one failed to load.

Many files are checked in worker processes (``--jobs``, default one per CPU): each worker reads,
checks and renders one file at a time, and the reports are written in input order, so the output
is the same whatever the number of workers. At most a few files per worker are in flight; no
state grows with the number of files (the json and sarif documents are written as they go).
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from collections.abc import Generator, Iterator
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from quotecheck.checker import check_source
from quotecheck.commands.findings_report import (
    FileReport,
    ItemWriter,
    item_writer,
    render_findings,
    terminal_width,
)
from quotecheck.commands.inputs import Input, PendingInput, check_stdin_filename
from quotecheck.commands.request import Request
from quotecheck.commands.settings import (
    SettingsCache,
    codes_option,
    globs_option,
    options_for,
    start_run,
)
from quotecheck.commands.status import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageProblem
from quotecheck.config import ConfigError
from quotecheck.diagnostics import Diagnostic
from quotecheck.positions import Encoding, LineIndex
from quotecheck.records import Record, field
from quotecheck.rules import notes as qc002_notes
from quotecheck.rules.api import not_analysed

if TYPE_CHECKING:
    from quotecheck.commands.destination import ReportFile
    from quotecheck.parallel import Handle

PROGRESS_AFTER = 200  # files; below this a run is quick enough to need no progress display
# Files handed out ahead per worker. Reports come back in input order, so a long file at the
# head of the window holds the others' results: with 4, the second worker sat idle behind it.
IN_FLIGHT_PER_WORKER = 32
# Without --jobs, files are checked in worker processes only if together they are at least this
# large (~400 lines, ~0.1 s to check): below it starting the workers costs what they save.
PARALLEL_MIN_BYTES = 16 * 1024


def load_notes(item: Input) -> list[Diagnostic]:
    notes: list[Diagnostic] = []
    if item.loaded.undecodable is not None:
        at = item.loaded.undecodable
        notes.append(not_analysed(qc002_notes.NOT_UTF8(), (at, at + 1)))
    return notes


def check_one(request: Request, settings: SettingsCache, pending: PendingInput) -> FileReport:
    """Read, check and render one input (in a worker process when there are many)."""
    # Read now, not all up front: a file that went away or became unreadable since the run
    # started is an error for that file (every other file is still checked).
    loaded = pending.read()
    if loaded.error:
        return FileReport(error=loaded.error)
    item = Input(pending.display, pending.path, loaded, pending.named)
    try:
        options = options_for(request, settings.for_path(item.config_path), item)
    except ConfigError as exc:
        return FileReport(error=str(exc))
    # A binary file's finding shows no line: its bytes are not worth printing.
    index = LineIndex("" if item.loaded.binary else item.loaded.text)
    if item.loaded.binary:
        diagnostics = [not_analysed(qc002_notes.BINARY())]
    else:
        try:
            result = check_source(item.loaded.text, options,
                                  str(item.config_path) if item.config_path else None)
        except Exception as exc:  # a bug must not stop the other files
            # check_source is meant never to raise; if it does, the traceback would end the
            # run with status 1 (which means "findings") and skip every later file.
            return FileReport(error=f"{item.display}: internal error, not analysed "
                                    f"({type(exc).__name__}: {exc}); please report it")
        diagnostics = load_notes(item) + result.diagnostics
    return render_findings(request, item.display, item.config_path, index, diagnostics)


def default_jobs() -> int:
    """One worker per CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# At most this many workers per CPU, whatever --jobs asks: each is a process of its own
# (`--jobs 99999999` on 1,000 files started 1,000 of them).
JOBS_PER_CPU = 4


def job_count(requested: int | None) -> int:
    """The workers to use: ``--jobs`` (default one per CPU), at most JOBS_PER_CPU per CPU."""
    cpus = default_jobs()
    return cpus if requested is None else max(1, min(requested, cpus * JOBS_PER_CPU))


def _regular_size(pending: PendingInput) -> int | None:
    """The size of an input that is a regular file; None for the others (the command line,
    stdin, FIFOs, missing files), which are read and checked in this process: a FIFO can be
    read only once, and only by a process that has it."""
    if pending.path is None:
        return None
    try:
        st = pending.path.stat()
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def reports(request: Request, settings: SettingsCache,
            inputs: list[PendingInput]) -> Generator[FileReport, None, None]:
    """Every input's report, in input order: checked here, or by worker processes when there
    are several files and either ``--jobs`` asks for it or there is enough to check to repay
    starting the workers."""
    jobs = job_count(request.jobs)
    sizes = [_regular_size(p) for p in inputs]
    pooled = sum(1 for s in sizes if s is not None)
    workers_pay = request.jobs is not None or sum(s or 0 for s in sizes) >= PARALLEL_MIN_BYTES
    if jobs < 2 or pooled < 2 or not workers_pay:
        for pending in inputs:
            yield check_one(request, settings, pending)
        return
    from quotecheck.parallel import WorkerDied, Workers

    # Everything a check needs is imported (and bashlex's tables loaded) once, here, before the
    # workers are forked: they start ready, and share those pages with this process.
    check_source("true")
    n = min(jobs, pooled)
    with Workers(n, partial(check_one, request, settings)) as workers:
        window: deque[tuple[PendingInput, Handle | None]] = deque()
        queue = zip(inputs, sizes, strict=True)
        while True:
            while len(window) < n * IN_FLIGHT_PER_WORKER:
                nxt = next(queue, None)
                if nxt is None:
                    break
                pending, size = nxt
                window.append((pending, workers.submit(pending) if size is not None else None))
            if not window:
                return
            pending, handle = window.popleft()
            if handle is None:
                yield check_one(request, settings, pending)
                continue
            try:
                yield workers.result(handle)
            except WorkerDied as died:
                yield FileReport(error=f"{pending.display}: internal error, not analysed "
                                       f"({died}); please report it")


def run(*, paths: list[str] | None, command: str | None, output_format: str,
        severity: str | None, select: list[str] | None, ignore: list[str] | None,
        remote_shell: str | None, position_encoding: str, config: Path | None, no_config: bool,
        color: str, jobs: int | None, shell: str | None, extend_select: list[str] | None,
        exclude: list[str] | None, extend_exclude: list[str] | None,
        no_respect_gitignore: bool, statistics: bool, quiet: bool, exit_zero: bool,
        stdin_filename: str | None, output_file: Path | None,
        external_sources: bool) -> int:
    """``quotecheck check``, with the command line's values."""
    from quotecheck.output.style import want_colour

    if jobs is not None and jobs < 1:
        raise UsageProblem(f"--jobs {jobs}: give a number of processes, 1 or more")
    if statistics and output_format not in ("full", "text", "concise", "json"):
        raise UsageProblem(f"--statistics is printed as text or json, not {output_format}")
    check_stdin_filename(stdin_filename, paths)
    from quotecheck.commands.destination import GuardedStream, ReportFile

    # The report file is opened only once the inputs are known, and written only once every
    # one of them has been read (destination.py): until then the report waits in a spool.
    destination = ReportFile(output_file) if output_file is not None else None
    out: TextIO = cast(TextIO, destination.stream if destination is not None
                       else GuardedStream(sys.stdout))
    try:
        request = Request(
            paths=paths or [],
            command=command,
            output_format=output_format,
            severity=severity,
            select=codes_option(select),
            ignore=codes_option(ignore),
            remote_shell=remote_shell,
            encoding=cast(Encoding, position_encoding),  # one of the three, by its choices
            config=config,
            no_config=no_config,
            colour=want_colour(out, color),
            jobs=jobs,
            shell=shell,
            extend_select=codes_option(extend_select),
            exclude=globs_option(exclude, "--exclude"),
            extend_exclude=globs_option(extend_exclude, "--extend-exclude"),
            respect_gitignore=False if no_respect_gitignore else None,
            stdin_filename=stdin_filename,
            width=terminal_width(out),
            statistics=statistics,
            external_sources=external_sources or None,
        )
        status = run_check(request, out, sys.stderr, sys.stdin, quiet=quiet,
                           destination=destination)
        if destination is not None:
            destination.commit()
        else:
            out.flush()  # a write error said here, not when the interpreter exits
    finally:
        if destination is not None:
            destination.close()
    return EXIT_OK if exit_zero and status == EXIT_FINDINGS else status


class Totals(Record):
    """What the closing summary line and ``--statistics`` count over the whole run."""

    files: int = 0
    severities: dict[str, int] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    fixable: int = 0
    unsafe_fixable: int = 0

    def add(self, report: FileReport) -> None:
        self.files += 1
        for table, counts in ((self.severities, report.severities), (self.codes, report.codes)):
            for key, n in counts.items():
                table[key] = table.get(key, 0) + n
        self.names.update(report.names)
        self.fixable += report.fixable
        self.unsafe_fixable += report.unsafe_fixable

    def line(self, skipped: list[str] | None = None) -> str:
        """``2 files checked: 9 findings (1 error, 8 warnings); fixable: 1 with ...``, and
        ``; 1 file skipped, not a shell script: app.py`` for the files named but not read."""
        def plural(n: int, word: str) -> str:
            return f"{n} {word}{'' if n == 1 else 's'}"

        tail = ""
        if skipped:
            from quotecheck.output.terminal import printable

            shown = ", ".join(printable(name) for name in skipped[:5])
            more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
            tail = (f"; {plural(len(skipped), 'file')} skipped, not "
                    f"{'a shell script' if len(skipped) == 1 else 'shell scripts'}: "
                    f"{shown}{more}")
        files = plural(self.files, "file") + " checked"
        total = sum(self.severities.values())
        if not total:
            return f"{files}: no findings{tail}"
        per = ", ".join(f"{self.severities['info']} info" if s == "info" else
                        plural(self.severities[s], s)
                        for s in ("error", "warning", "info", "hint") if self.severities.get(s))
        text = f"{files}: {plural(total, 'finding')} ({per})"
        fixes = []
        if self.fixable:
            fixes.append(f"{self.fixable} with `quotecheck fix`")
        if self.unsafe_fixable:
            fixes.append(f"{self.unsafe_fixable} more with --unsafe-fixes" if self.fixable else
                         f"{self.unsafe_fixable} with `quotecheck fix --unsafe-fixes`")
        return text + ("; fixable: " + ", ".join(fixes) if fixes else "") + tail

    def statistics(self) -> list[tuple[int, str, str]]:
        """(count, code, name) of every code found, the most frequent first."""
        return sorted(((n, code, self.names.get(code, "")) for code, n in self.codes.items()),
                      key=lambda row: (-row[0], row[1]))


def run_check(request: Request, stdout: TextIO, stderr: TextIO, stdin: TextIO, *,
              quiet: bool = False, destination: ReportFile | None = None) -> int:
    """Check every input, writing the reports to ``stdout``; the exit status. ``destination``
    (``--output-file``) is opened once the inputs are known (it may refuse them)."""
    errors: list[str] = []
    skipped: list[str] = []
    started = start_run(request, stdin, stderr, "nothing to check: give files or directories, "
                        "- for standard input, or --command 'CMD'", quiet=quiet,
                        skipped_files=skipped)
    if started is None:
        return EXIT_ERROR
    settings, inputs = started
    if destination is not None:
        destination.open(inputs, stdin)
    items = None if request.statistics else item_writer(request, stdout)
    totals = Totals()
    # closing(): whatever ends the loop (a closed pipe, Ctrl-C) stops the workers at once
    with closing(reports(request, settings, inputs)) as checked:
        reported = _write_reports(checked, len(inputs), stdout, stderr, items, errors, totals)
    if items is not None:
        items.close()
    if request.statistics:
        _write_statistics(request, totals, stdout)
    # One configuration error is every file's error: say it once.
    for e in dict.fromkeys(errors):
        stderr.write(f"quotecheck: error: {e}\n")
    # A clean run prints nothing (as a pre-commit hook should), unless a file it was given was
    # not read: the summary then lists it, so that a passing run never hides one; -q leaves
    # the line out too.
    if not quiet and (totals.codes or skipped) and \
            request.output_format in ("full", "text", "concise"):
        stdout.write(totals.line(skipped) + "\n")
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if reported else EXIT_OK


def _write_statistics(request: Request, totals: Totals, stdout: TextIO) -> None:
    rows = totals.statistics()
    if request.output_format == "json":
        from quotecheck.output.json_text import dumps

        stdout.write(dumps([{"code": code, "name": name, "count": n}
                            for n, code, name in rows], indent=2) + "\n")
        return
    width = max((len(str(n)) for n, _, _ in rows), default=1)
    for n, code, name in rows:
        stdout.write(f"{n:>{width}}  {code}  {name}\n")


def _write_reports(checked: Iterator[FileReport], total: int, stdout: TextIO, stderr: TextIO,
                   items: ItemWriter | None, errors: list[str], totals: Totals) -> int:
    """Write the reports out as they come; the number of findings reported."""
    reported = 0
    show_progress = total > PROGRESS_AFTER and stderr.isatty()
    for n, report in enumerate(checked, 1):
        if show_progress:
            stderr.write(f"\rquotecheck: {n}/{total} files")
            stderr.flush()
        if report.error is not None:
            errors.append(report.error)
            continue
        totals.add(report)
        reported += report.findings
        if report.text:
            if show_progress:
                stderr.write("\r\x1b[K")
            stdout.write(report.text)
        if items is not None:
            for item in report.items:
                items.write(item)
    if show_progress:
        stderr.write("\r\x1b[K")
    return reported
