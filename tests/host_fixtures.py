"""The host-file fixtures (fixtures/hosts/<format>/*): each reads as its format by its name."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# (hosts/kinds.py reads `*.py` as Python and `*.mk` as a Makefile)
HOST_FIXTURE_SUFFIXES = {".py": "python", ".mk": "make"}


def host_fixtures(family: str = "hosts") -> list[tuple[Path, str]]:
    """Every host fixture under fixtures/<family> and its format."""
    return [(p, HOST_FIXTURE_SUFFIXES[p.suffix])
            for p in sorted((FIXTURES / family).rglob("*"))
            if p.is_file() and p.suffix in HOST_FIXTURE_SUFFIXES]
