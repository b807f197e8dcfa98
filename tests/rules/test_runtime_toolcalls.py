"""quotecheck/rules/runtime/toolcalls.py: what the options of ps and friends mean, checked
with the real tools on a child of this test that exits by itself."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from quotecheck.rules.runtime.toolcalls import parse_ps


@pytest.mark.parametrize("args", [["aux"], ["-ef"], ["-eo", "pid,args"], ["-e"],
                                  ["-eo", "pid,comm"], ["axo", "pid,command"], ["-e", "-o", "cmd="],
                                  ["x"], ["-A"]])
def test_ps_formats_show_the_command_line_or_only_the_name(args: list[str]) -> None:
    argv = [sys.executable, "-c", "import sys; sys.stdin.read()", "qc201_ps_marker"]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    try:
        time.sleep(0.3)
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        out = subprocess.run(["ps", *args], capture_output=True, text=True, timeout=30,
                             env=env).stdout
        call = parse_ps(["ps", *args])
        assert call is not None and not call.restricted
        assert ("qc201_ps_marker" in out) == (call.shows == "args")
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)
