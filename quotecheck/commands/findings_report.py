"""What ``check`` and ``fix`` print of one input's findings: the report in each ``--format``
(text for people, or the items of the json and sarif documents, written as they come), and its
counts for the closing line and ``--statistics``."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from quotecheck.commands.request import Request
from quotecheck.diagnostics import Diagnostic
from quotecheck.positions import LineIndex
from quotecheck.records import Record, field


class FileReport(Record):
    """One input checked and rendered: all the parent process does with it is write it out."""

    error: str | None = None  # not read, not configured, or not analysed: exit status 2
    findings: int = 0
    text: str = ""  # the full, concise or github output
    items: list[dict[str, Any]] = field(default_factory=list)  # json file entry, sarif results
    severities: dict[str, int] = field(default_factory=dict)  # findings per severity
    codes: dict[str, int] = field(default_factory=dict)  # findings per code
    names: dict[str, str] = field(default_factory=dict)  # code -> rule name
    fixable: int = 0  # findings `quotecheck fix` fixes
    unsafe_fixable: int = 0  # findings only `quotecheck fix --unsafe-fixes` fixes


def counted(report: FileReport, diagnostics: list[Diagnostic]) -> FileReport:
    for d in diagnostics:
        report.severities[d.severity] = report.severities.get(d.severity, 0) + 1
        report.codes[d.code] = report.codes.get(d.code, 0) + 1
        report.names[d.code] = d.name
        kinds = {f.applicability for f in d.fixes}
        if "safe" in kinds:
            report.fixable += 1
        elif "unsafe" in kinds:
            report.unsafe_fixable += 1
    return report


def terminal_width(out: TextIO) -> int:
    """The columns to wrap explanations to: the terminal's, when writing to one; else
    ``COLUMNS`` if set; else DEFAULT_WIDTH (so a pipe or a file gets the same text anywhere)."""
    from quotecheck.output.check_text import DEFAULT_WIDTH

    isatty = getattr(out, "isatty", None)
    if isatty is not None and isatty():
        import shutil

        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else DEFAULT_WIDTH


def render_findings(request: Request, display: str, named: Path | None, index: LineIndex,
                    diagnostics: list[Diagnostic]) -> FileReport:
    """One input's findings in ``request.output_format`` (counted only, for --statistics):
    ``display`` is its name in the output, ``named`` its path (None: the command line or
    standard input), ``index`` the lines of the text the findings' spans point into."""
    # Each format's module is imported when it is the one asked for (start-up time).
    report = counted(FileReport(findings=len(diagnostics)), diagnostics)
    form = request.output_format
    if request.statistics:
        pass  # counts only
    elif form in ("full", "text", "concise"):
        from quotecheck.output.check_text import render_concise, render_text
        from quotecheck.output.style import Style

        report.text = render_text(display, index, diagnostics, Style(request.colour),
                                  request.width) if form != "concise" else \
            render_concise(display, index, diagnostics, Style(request.colour))
    elif form == "github":
        from quotecheck.output.github import render_github

        report.text = render_github(display, index, diagnostics)
    elif form == "json":
        from quotecheck.output.check_json import file_entry

        report.items = [file_entry(_uri(named, display), display, index, diagnostics,
                                   request.encoding)]
    else:
        from quotecheck.output.sarif import artifact_uri
        from quotecheck.output.sarif import result as sarif_result

        rel = artifact_uri(display) if named else _uri(named, display)
        report.items = [sarif_result(d, rel, index) for d in diagnostics]
    return report


def _uri(named: Path | None, display: str) -> str:
    return named.resolve().as_uri() if named else f"untitled:{display}"


class ItemWriter:
    """Writes ``json_text.dumps(document, indent=2)`` byte for byte, with one list of it (the json
    format's files, sarif's results) written one item at a time as the items come."""

    MARKER = "\0quotecheck: the items go here\0"

    def __init__(self, out: TextIO, document: Callable[[list[Any]], dict[str, Any]],
                 ensure_ascii: bool) -> None:
        self.out = out
        self.document = document  # builds the document around a list of items
        self.ensure_ascii = ensure_ascii
        self.count = 0
        self.pad = ""  # the indentation of the items
        self.tail = ""  # what follows the last item

    def _dumps(self, value: Any) -> str:
        from quotecheck.output.json_text import dumps

        return dumps(value, ensure_ascii=self.ensure_ascii, indent=2)

    def write(self, item: dict[str, Any]) -> None:
        if self.count == 0:
            text = self._dumps(self.document([self.MARKER]))
            marker = self._dumps(self.MARKER)
            at = text.index(marker)
            line_start = text.rindex("\n", 0, at) + 1
            self.pad = text[line_start:at]
            self.out.write(text[:line_start])
            self.tail = text[at + len(marker):]
        else:
            self.out.write(",\n")
        self.out.write("\n".join(self.pad + line for line in self._dumps(item).split("\n")))
        self.count += 1

    def close(self) -> None:
        if self.count == 0:
            self.out.write(self._dumps(self.document([])) + "\n")
        else:
            self.out.write(self.tail + "\n")


def _sarif_document() -> Callable[[list[Any]], dict[str, Any]]:
    from quotecheck.output.sarif import document as sarif_document
    from quotecheck.rules.registry import all_rules, doc_path

    rules = []
    for code, rule in all_rules().items():
        try:
            doc: str | None = doc_path(code).read_text()
        except OSError:
            doc = None
        rules.append((rule, doc))
    return partial(sarif_document, rules)


def item_writer(request: Request, out: TextIO) -> ItemWriter | None:
    """The writer of the json or sarif document to ``out``; None for the other formats."""
    from quotecheck.output.check_json import document

    if request.output_format == "json":
        return ItemWriter(out, partial(document, encoding=request.encoding), False)
    if request.output_format == "sarif":
        return ItemWriter(out, _sarif_document(), True)
    return None
