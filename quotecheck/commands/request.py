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
    jobs: int | None = None  # worker processes for many files; None: one per CPU
    shell: str | None = None  # --shell: read every input in this shell, whatever its type
    extend_select: list[str] | None = None
    exclude: list[str] | None = None  # glob patterns for the directory walk (walk.py)
    extend_exclude: list[str] | None = None
    respect_gitignore: bool | None = None  # None: the setting (default true)
    stdin_filename: str | None = None  # the path standard input stands for
    width: int = 100  # columns the text formats wrap explanations to
    statistics: bool = False  # counts per code instead of the findings
    external_sources: bool | None = None  # --external-sources; None: the setting (default off)
