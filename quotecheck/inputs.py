"""Reading inputs: any bytes become text, and what could not be read is said, not raised."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LoadedText:
    text: str
    error: str | None = None  # the file could not be read at all
    undecodable: int | None = None  # offset of the first byte that was not UTF-8
    binary: bool = False  # holds NUL bytes: not a shell script


def decode(data: bytes) -> LoadedText:
    """UTF-8 with replacement characters, remembering where the first bad byte was."""
    try:
        return LoadedText(data.decode("utf-8"), binary=b"\0" in data)
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        # Offset in the decoded text of the first bad byte: decode the prefix before it.
        offset = len(data[: exc.start].decode("utf-8", errors="replace"))
        return LoadedText(text, undecodable=offset, binary=b"\0" in data)


def read_text_file(path: Path) -> LoadedText:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return LoadedText("", error=f"{path}: no such file")
    except IsADirectoryError:
        return LoadedText("", error=f"{path}: is a directory")
    except PermissionError:
        return LoadedText("", error=f"{path}: permission denied")
    except OSError as exc:
        return LoadedText("", error=f"{path}: cannot read ({exc.strerror or exc})")
    return decode(data)
