"""Code that never runs draws no findings: what follows a script's top-level `exit`, or
`exec` of a program (layers/reachability.py). Real shells show that it never runs."""

from __future__ import annotations

import subprocess

import pytest

from quotecheck.checker import Options, check_source

LIVE_SSH = 'ssh -o BatchMode=yes -o ConnectTimeout=5 h echo "a b"\n'


def codes(src: str) -> list[str]:
    return [d.code for d in check_source(src, Options(severity="info")).diagnostics]


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("end", ["exit 0", "exec true"])
def test_nothing_after_a_top_level_exit_or_exec_runs(shell: str, end: str) -> None:
    run = subprocess.run([shell, "-c", f"echo before\n{end}\necho after\n"],
                         capture_output=True, text=True, timeout=10)
    assert run.stdout == "before\n"


@pytest.mark.parametrize("end", ["exit 0", "exit", "exec python3 app.py", "exit 0; "])
def test_findings_after_the_end_are_dropped(end: str) -> None:
    assert "QC102" in codes(LIVE_SSH)
    sep = "" if end.endswith("; ") else "\n"
    assert "QC102" not in codes(f"#!/bin/sh\necho start\n{end}{sep}{LIVE_SSH}")


@pytest.mark.parametrize("before", [
    "[ -n \"$1\" ] || exit 1\n",  # only when it fails
    "if [ -z \"$1\" ]; then exit 1; fi\n",
    "usage() { echo usage; exit 1; }\n",  # in a function
    "exec >log 2>&1\n",  # redirects the shell, which goes on
    "( exit 1 )\n",  # a subshell ends, not the script
    "exit 1 &\n",
])
def test_an_end_that_may_not_happen_keeps_them(before: str) -> None:
    assert "QC102" in codes(f"#!/bin/sh\n{before}{LIVE_SSH}")


def test_a_payload_after_exit_is_not_parsed_as_script() -> None:
    # a self-extracting script: its archive follows `exit 0`
    src = "#!/bin/sh\ntail -n +4 \"$0\" | tar xz\nexit 0\n\x1f\x8b(((\"'`{{ )) esac\n"
    assert [c for c in codes(src) if c in ("QC001", "QC107")] == []


def test_an_inner_script_ends_at_its_own_exit() -> None:
    src = ('ssh -o BatchMode=yes -o ConnectTimeout=5 h "exit 0; ls | xargs -I{} sh -c \'rm {}\'"\n'
           "ls | xargs -I{} sh -c 'rm {}'\n")
    found = check_source(src, Options(severity="info")).diagnostics
    lines = sorted({src.count("\n", 0, d.span[0]) + 1 for d in found if d.code == "QC103"})
    assert lines == [2]
