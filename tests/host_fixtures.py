"""The host-file fixtures (fixtures/hosts/<format>/*): each reads as its format by its name."""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# (hosts/kinds.py reads each by its name: `*.py` Python, `*.mk` a Makefile...)
HOST_FIXTURE_SUFFIXES = {".py": "python", ".mk": "make", ".Dockerfile": "dockerfile",
                         ".cron": "crontab", ".service": "systemd", ".yml": "github-actions",
                         ".yaml": "kubernetes"}


def host_fixtures(family: str = "hosts") -> list[tuple[Path, str]]:
    """Every host fixture under fixtures/<family> and its format."""
    from quotecheck.hosts.kinds import host_format

    out = []
    for p in sorted((FIXTURES / family).rglob("*")):
        if p.is_file() and (p.suffix in HOST_FIXTURE_SUFFIXES or p.parent.name == "cron.d"):
            format = host_format(p, p.read_text(errors="replace")[:4096])
            if format is not None:  # (not the snapshots beside them)
                out.append((p, format))
    return out


# A rule document's example: ```` ```sh bad L:C ````, or in a host format's own language
# (```` ```python ````, ```` ```make ````...), read as a file of that format.
DOC_BLOCK = re.compile(r"^```(sh|python|make|dockerfile|crontab|systemd|github-actions|"
                       r"compose) (bad|good)([^\n]*)\n(.*?)^```\s*$", re.M | re.S)
