"""QC402 syntax-without-shell; real python3 shows the program gets the operator as an
argument (a stub program records its argv)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _support import Finder
from harness.stubs import StubDir

CODE = "QC402"
found = Finder(CODE, host="python")


def test_the_program_gets_the_operator_as_an_argument(tmp_path: Path) -> None:
    stubs = StubDir(tmp_path, names=["lister"])
    program = 'import subprocess\nsubprocess.run(["lister", "-l", "|", "grep", "x"])\n'
    (tmp_path / "app.py").write_text(program)
    subprocess.run([sys.executable, "app.py"], cwd=tmp_path, env=stubs.env(), timeout=30,
                   check=True)
    assert stubs.records() == [["lister", "-l", "|", "grep", "x"]]
    [(line, col, d)] = found(program)
    assert (line, col) == (2, 34) and d.message.value("word") == "|"
    assert d.severity == "warning" and "pipe" in d.message.explanation


@pytest.mark.parametrize("call", [
    'subprocess.run(["echo", "done", ">", "log"])',
    'subprocess.Popen(["./train.sh", "2>&1"])',
    'os.execvp("make", ["make", "all", "&&", "make", "install"])',
    'subprocess.check_call(["sudo", "systemctl", "restart", "app", ";", "echo", "ok"])',
])
def test_operators_in_argv_lists(call: str) -> None:
    assert len(found(f"import os, subprocess\n{call}\n")) == 1


@pytest.mark.parametrize("call", [
    'subprocess.run(["ssh", "h", "ls", "|", "wc"])',  # ssh's remote shell parses them
    'subprocess.run(["sh", "-c", "ls | wc"])',
    'subprocess.run(["bash", "-c", "ls", "|"])',
    'subprocess.run(["find", ".", "-exec", "rm", "{}", ";"])',
    'subprocess.run(["expr", "1", "<", "2"])',
    'subprocess.run("ls | wc", shell=True)',
    'subprocess.run(["echo", f"{x}"])',
])
def test_no_finding_where_something_parses_them(call: str) -> None:
    assert found(f"import os, subprocess\nx = input()\n{call}\n") == []


compose = Finder(CODE, host="compose")


def _compose(command: str) -> str:
    return f"services:\n  api:\n    image: graphile/migrate\n    command: {command}\n"


def test_compose_words_after_the_first_are_arguments_whatever_the_entrypoint(
        tmp_path: Path) -> None:
    # dockerize#73: `command: dockerize -wait tcp://db:5432 migrate && serve --watch`. The
    # image's ENTRYPOINT, which the file does not show, gets the words as its arguments: an
    # exec-form one (a stub here) gets `&&` as one of them, and a shell's -c (real dash) runs
    # only the first word as its script; neither starts `serve`.
    words = ["dockerize", "-wait", "tcp://db:5432", "migrate", "&&", "serve", "--watch"]
    stubs = StubDir(tmp_path, names=["dockerize", "serve"])
    subprocess.run(words, env=stubs.env(), timeout=30, check=True)
    assert stubs.records() == [words]
    dash = shutil.which("dash")
    if dash is not None:
        subprocess.run([dash, "-c", *words], env=stubs.env(), timeout=30, check=True)
        assert stubs.records() == [words, ["dockerize"]]
    [(line, col, d)] = compose(_compose(" ".join(words)))
    assert (line, col, d.severity) == (4, 52, "warning")
    assert "any one gets `&&` as one of its arguments" in d.message.explanation
    assert compose(_compose('dockerize -wait tcp://db:5432 sh -c "migrate && serve"')) == []

