"""What one ``check`` or ``fix`` run was asked to do, from its command line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quotecheck.positions import Encoding


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
    jobs: int | None = None  # worker processes for many files; None: one per CPU
