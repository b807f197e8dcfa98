"""`fix` on host files: a shell rule's fix is written with the host's escaping, and the host's
own program then hands the shell the fixed text (real make; real python3's audit hook)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_python_oracle import _recorded

from quotecheck.checker import Options
from quotecheck.fixer import fix_source


def test_a_makefile_fix_reaches_the_shell_as_written(tmp_path: Path) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    src = ('HOST = gpu1\nlogs:\n\tssh -o StrictHostKeyChecking=no $(HOST) '
           '"tail $$PWD/log"\n')
    result = fix_source(src, Options(host="make"), unsafe=True)
    assert [d.code for d, _ in result.applied] == ["QC301", "QC101"]
    (tmp_path / "Makefile").write_text(result.text)
    shown = subprocess.run([make, "-n", "-s"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=30, check=True).stdout
    assert shown.strip() == 'ssh -o StrictHostKeyChecking=accept-new gpu1 "tail \\$PWD/log"'


def test_a_python_fix_stays_inside_its_string(tmp_path: Path) -> None:
    src = ('import os\nos.system("ssh -o StrictHostKeyChecking=no h \\"tail $PWD/log\\"")\n')
    result = fix_source(src, Options(host="python"), unsafe=True)
    assert [d.code for d, _ in result.applied] == ["QC301", "QC101"]
    event, got = _recorded(result.text, tmp_path)
    assert event == "os.system"
    assert got == 'ssh -o StrictHostKeyChecking=accept-new h "tail \\$PWD/log"'
