"""QC408 compose-interpolates. A real `sh -c` shows what the container's shell runs once
Compose has put the host's value in, and what it runs after the fix."""

from __future__ import annotations

import subprocess

import pytest
from _support import Finder

from quotecheck.checker import Options, check_source
from quotecheck.fixer import fix_source

CODE = "QC408"
found = Finder(CODE, host="compose")

SRC = ("services:\n  trainer:\n    image: x\n    environment:\n      OUT_DIR: /out\n"
       "    command: sh -c 'echo \"out=$OUT_DIR\"'\n")


def _container_runs(source: str, host_value: str) -> str:
    """The sh -c text with Compose's interpolation done (the stand-in replaced by the host's
    value), run by a real sh with the container's own OUT_DIR."""
    trace = check_source(source, Options(host="compose", select=["QC001"])).trace
    [shell] = [x for x in trace.layers if x.kind == "shell"]
    assert shell.text is not None
    text = shell.text.replace("{OUT_DIR}", host_value)
    return subprocess.run(["sh", "-c", text], env={"OUT_DIR": "/out", "PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=30).stdout


def test_the_container_gets_the_hosts_value_and_the_fix_gives_it_its_own() -> None:
    assert _container_runs(SRC, "") == "out=\n"  # unset where compose runs
    [(line, col, d)] = found(SRC)
    assert (line, col) == (6, 31) and d.severity == "warning"
    fixed = fix_source(SRC, Options(host="compose")).text
    assert "$$OUT_DIR" in fixed and found(fixed) == []
    assert _container_runs(fixed, "") == "out=/out\n"


@pytest.mark.parametrize("command", [
    'command: ["--tag", "${TAG}"]',  # an argv word: Compose's value is the one meant
    "command: sh -c 'run --tag ${TAG:-dev}'",  # Compose's own syntax
    "command: sh -c 'echo $$OUT_DIR'",
])
def test_not_found(command: str) -> None:
    assert found(f"services:\n  a:\n    image: x\n    {command}\n") == []
