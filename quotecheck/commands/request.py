"""What one ``check`` or ``fix`` run was asked to do, from its command line."""

from __future__ import annotations

from pathlib import Path

from quotecheck.positions import Encoding
from quotecheck.records import Record


class Request(Record):
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
    jobs: int | None  # worker processes for many files; None: one per CPU
    shell: str | None  # --shell: read every input in this shell, whatever its type
    extend_select: list[str] | None
    exclude: list[str] | None  # glob patterns for the directory walk (walk.py)
    extend_exclude: list[str] | None
    respect_gitignore: bool | None  # None: the setting (default true)
    stdin_filename: str | None  # the path standard input stands for
    width: int  # columns the text formats wrap explanations to
    statistics: bool  # counts per code instead of the findings
    external_sources: bool | None  # --external-sources; None: the setting (default off)

    def __init__(self, paths: list[str], command: str | None, output_format: str,
                 severity: str | None, select: list[str] | None, ignore: list[str] | None,
                 remote_shell: str | None, encoding: Encoding, config: Path | None, no_config: bool,
                 colour: bool, jobs: int | None = None, shell: str | None = None,
                 extend_select: list[str] | None = None, exclude: list[str] | None = None,
                 extend_exclude: list[str] | None = None,
                 respect_gitignore: bool | None = None, stdin_filename: str | None = None,
                 width: int = 100, statistics: bool = False,
                 external_sources: bool | None = None) -> None:
        self.paths = paths
        self.command = command
        self.output_format = output_format
        self.severity = severity
        self.select = select
        self.ignore = ignore
        self.remote_shell = remote_shell
        self.encoding = encoding
        self.config = config
        self.no_config = no_config
        self.colour = colour
        self.jobs = jobs
        self.shell = shell
        self.extend_select = extend_select
        self.exclude = exclude
        self.extend_exclude = extend_exclude
        self.respect_gitignore = respect_gitignore
        self.stdin_filename = stdin_filename
        self.width = width
        self.statistics = statistics
        self.external_sources = external_sources
