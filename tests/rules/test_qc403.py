"""QC403 expansion-without-shell; real python3 shows the program gets the characters."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _support import Finder
from harness.stubs import StubDir

CODE = "QC403"
python = Finder(CODE, host="python")
docker = Finder(CODE, host="dockerfile")
systemd = Finder(CODE, host="systemd")


def test_the_program_gets_the_dollar_name(tmp_path: Path) -> None:
    stubs = StubDir(tmp_path, names=["backup"])
    program = 'import subprocess\nsubprocess.run(["backup", "$HOME/data", "~/logs"])\n'
    (tmp_path / "app.py").write_text(program)
    subprocess.run([sys.executable, "app.py"], cwd=tmp_path,
                   env=stubs.env({**os.environ, "HOME": str(tmp_path)}), timeout=30, check=True)
    assert stubs.records() == [["backup", "$HOME/data", "~/logs"]]
    [(line, col, d)] = python(program)  # one per launch, at the first
    assert (line, col) == (2, 28) and d.message.value("shown") == "$HOME"
    assert d.severity == "warning"


@pytest.mark.parametrize(("finder", "source"), [
    (docker, 'FROM debian\nCMD ["python3", "app.py", "--out", "${OUT_DIR}"]\n'),
    (docker, 'FROM debian\nENTRYPOINT ["./run", "--user", "$(id -u)"]\n'),
    (systemd, "[Service]\nExecStart=/usr/bin/app --pid `cat /run/x.pid`\n"),
    (systemd, "[Service]\nExecStart=/usr/bin/app --dir ~/data\n"),
    (python, 'import os\nos.execvp("app", ["app", "--home", "~/x"])\n'),
])
def test_found(finder: Finder, source: str) -> None:
    assert len(finder(source)) == 1


@pytest.mark.parametrize(("finder", "source"), [
    (systemd, "[Service]\nExecStart=/usr/bin/app --home ${HOME} $OPTS\n"),  # systemd's own
    (docker, 'FROM debian\nCMD ["sh", "-c", "exec app --out $OUT_DIR"]\n'),
    (docker, "FROM debian\nCMD app --out $OUT_DIR\n"),
    (python, 'import subprocess\nsubprocess.run(["ssh", "h", "ls $HOME"])\n'),
    (python, 'import subprocess\nsubprocess.run(["awk", "{print $1}", "f"])\n'),
    (python, 'import subprocess\nsubprocess.run(["grep", "-E", "^\\\\$[A-Z]+", "f"])\n'),
    (python, 'import subprocess\nsubprocess.run(["git", "log", "--format=$H"])\n'),
])
def test_not_found(finder: Finder, source: str) -> None:
    assert finder(source) == []
