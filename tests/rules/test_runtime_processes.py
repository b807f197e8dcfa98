"""quotecheck/rules/runtime/processes.py: bash execs the last simple command of a -c string in
place, dash never does (shown by `sh -c 'echo $PPID'`: nothing is killed)."""

from __future__ import annotations

import os
import subprocess

import pytest

from quotecheck.rules.runtime.processes import exec_in_place
from quotecheck.trace import build_trace

EXEC_CASES = [
    'pkill_stand_in', 'true; pkill_stand_in', 'true\npkill_stand_in', 'true && pkill_stand_in',
    'false || pkill_stand_in', 'pkill_stand_in 2>/dev/null', 'true; pkill_stand_in 2>/dev/null',
    'pkill_stand_in | cat', '{ true; pkill_stand_in; }', 'true; true && pkill_stand_in',
    'pkill_stand_in\n', 'pkill_stand_in\n\n', 'pkill_stand_in # c', 'pkill_stand_in\n# c',
    'trap "echo t" EXIT; pkill_stand_in', 'true & pkill_stand_in', 'x=1 pkill_stand_in',
    'pkill_stand_in;', 'true && true; pkill_stand_in',
]
STAND_IN = 'sh -c "echo \\$PPID"'


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("script", EXEC_CASES)
def test_exec_in_place_model_matches_the_shell(shell: str, script: str) -> None:
    real_script = script.replace("pkill_stand_in", STAND_IN)
    res = subprocess.run([shell, "-c", real_script], capture_output=True, text=True, timeout=60)
    lines = res.stdout.split()
    assert lines, res.stderr
    exec_d = lines[-1] == str(os.getpid())
    trace = build_trace(f"{shell} -c {_sq(script)}")
    layer = trace.layers[1]
    view = next(v for v in layer.commands if v.argv and v.values[0] == "pkill_stand_in")
    assert exec_in_place(layer, view) == ("yes" if exec_d else "no")


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
