"""Exit 0 when this Python refuses `pip install` outside a virtual environment (PEP 668: an
EXTERNALLY-MANAGED file in its standard library directory, as on Debian 12 and Ubuntu 23.04
and later), 1 when pip may install into it. `.ci/run` creates its own venv on 0."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path


def externally_managed(stdlib: Path, prefix: str, base_prefix: str) -> bool:
    """PEP 668: the marker applies to the base interpreter only; inside a venv pip may install."""
    in_venv = prefix != base_prefix
    return not in_venv and (stdlib / "EXTERNALLY-MANAGED").is_file()


def main() -> int:
    stdlib = Path(sysconfig.get_path("stdlib"))
    return 0 if externally_managed(stdlib, sys.prefix, sys.base_prefix) else 1


if __name__ == "__main__":
    raise SystemExit(main())
