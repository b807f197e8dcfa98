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


@pytest.mark.parametrize(("args", "dynamic"), [
    (["-o", "pgid", "PID"], {3}),  # `ps -o pgid "$pid"`: one pid, no command column
    (["-o", "pid,args", "PID"], {3}),
    (["-o", "pid,args", "-p", "PID"], set()),
    (["PID"], set()),  # a bare pid
    (["-e", "-o", "pid,user,pgid"], set()),  # every process, but not its command
    (["-e", "-o", "pid="], set()),
])
def test_ps_for_one_pid_or_without_the_command_cannot_list_the_marker(
        args: list[str], dynamic: set[int]) -> None:
    argv = [sys.executable, "-c", "import sys; sys.stdin.read()", "qc202_ps_marker"]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    try:
        time.sleep(0.3)
        real = [str(os.getpid()) if a == "PID" else a for a in args]
        out = subprocess.run(["ps", *real], capture_output=True, text=True, timeout=30).stdout
        assert "qc202_ps_marker" not in out
        # As written in a script: the pid is a literal number, or `"$pid"` (one value).
        written = ["$pid" if i + 1 in dynamic else a for i, a in enumerate(real)]
        call = parse_ps(["ps", *written], 0, {i + 1 for i in dynamic}, {i + 1 for i in dynamic})
        assert call is not None and (call.restricted or call.shows == "none")
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)
