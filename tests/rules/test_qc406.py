"""QC406 make-state-lost; real make shows the next recipe line does not get the state."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder

CODE = "QC406"
found = Finder(CODE, host="make")


def test_the_next_line_runs_where_make_started(tmp_path: Path) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    (tmp_path / "build").mkdir()
    makefile = "all:\n\t@cd build\n\t@pwd\n\t@export X=1\n\t@echo \"x=$$X\"\n"
    (tmp_path / "Makefile").write_text(makefile)
    out = subprocess.run([make, "-s"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=30, check=True).stdout.splitlines()
    assert out == [str(tmp_path), "x="]
    found_at = [(line, col) for line, col, _ in found(makefile)]
    assert found_at == [(2, 3), (4, 3)]


@pytest.mark.parametrize("makefile", [
    "all:\n\tcd build && cmake ..\n\tmake\n",
    "all:\n\tcmake ..\n\tcd build\n",  # the last line: nothing after it
    ".ONESHELL:\nall:\n\tcd build\n\tcmake ..\n",
    "all:\n\tcd build; \\\n\tcmake ..\n",
    "a:\n\tcd x\nb:\n\tpwd\n",  # another recipe
])
def test_not_found(makefile: str) -> None:
    assert found(makefile) == []


def test_variables_alone_and_the_message() -> None:
    [(line, col, d)] = found("all:\n\tPATH=/opt/bin:$$PATH\n\ttool --version\n")
    assert (line, col) == (2, 2)
    assert "tool --version" in d.message.explanation
