"""The run-time fixes (QC201, QC205, QC206, QC210) do what their rules promise, in real shells.

Each case runs the script before and after ``fix --unsafe-fixes`` with real bash and dash and
real processes, and asserts the difference the rule document describes: the "before" run shows
the silent failure, the "after" run does not. The DFlash seed, the founding case, is proven
against a real sshd in tests/test_dflash_e2e.py; here the emitted launch is pinned byte for
byte to fixtures/dflash/restart.fixed.sh.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from harness.shells import resolve_shell, run_shell

from quotecheck.checker import Options, check_source
from quotecheck.files import local_dialect
from quotecheck.fixer import fix_source

ROOT = Path(__file__).resolve().parent.parent
SEED_COPIES = [ROOT / "fixtures" / "dflash" / "restart.sh",
               ROOT.parent / "shared" / "seed" / "dflash_restart.sh"]
FIXED = ROOT / "fixtures" / "dflash" / "restart.fixed.sh"


def fixed(text: str, path: str = "script.sh") -> str:
    """``quotecheck fix --unsafe-fixes`` of ``text`` as the script file ``path``."""
    return fix_source(text, Options(dialect=local_dialect(text)), unsafe=True, path=path).text


@pytest.mark.parametrize("seed", [p for p in SEED_COPIES if p.exists()],
                         ids=lambda p: p.parent.name)
def test_fix_emits_the_checked_in_corrected_launch(seed: Path) -> None:
    emitted = fixed(seed.read_text(), str(seed))
    assert emitted == FIXED.read_text()
    assert not [d for d in check_source(emitted).diagnostics if d.at_least("warning")]
    for shell in ("bash", "dash"):
        assert subprocess.run([resolve_shell(shell), "-n", str(FIXED)]).returncode == 0


def test_seed_fix_pieces() -> None:
    """What each rule contributed to the corrected launch (so a regression names its rule)."""
    text = FIXED.read_text()
    seed = SEED_COPIES[0].read_text()
    result = fix_source(seed, Options(), unsafe=True, path=str(SEED_COPIES[0]))
    assert {d.code for d, _ in result.applied} == {
        "QC201", "QC205", "QC206", "QC208", "QC210", "QC301"}
    assert " bash -s <<'EOF'\n" in text  # QC201: the script is not on any command line
    assert "pgrep -f -- '^([^ ]*/)?python3 train_dflash_online\\.py( |$)'" in text  # QC210
    assert "/root/train_dflash_online.py || { echo \"FAILED" in text  # QC205
    assert "cd /root || {" in text  # QC206
    assert '|| { echo "DEAD"; exit 1; }\n' in text  # QC206, the last step's status
    assert "2>&1 < /dev/null &\n" in text  # QC201: no job reads the script from stdin


# -- QC210: the relaunch waits for the old process ------------------------------------------

WORKER = """#!/bin/sh
# A worker that takes a while to shut down, as a trainer releasing its GPUs does.
echo "start $2 $$ $(date +%s.%N)" >> "$WORKER_LOG"
trap 'sleep 1.5; echo "exit $2 $$ $(date +%s.%N)" >> "$WORKER_LOG"; exit 0' TERM
while :; do sleep 0.1; done
"""

RELAUNCH = """pkill -f "worker --id"
sleep 0.3
nohup worker --id new > worker.out 2>&1 &
echo "worker restarted"
"""


def _events(log: Path) -> list[tuple[str, str, int, float]]:
    out = []
    for line in log.read_text().splitlines() if log.exists() else []:
        kind, ident, pid, when = line.split()
        out.append((kind, ident, int(pid), float(when)))
    return out


def _wait_for(predicate: object, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("version", ["before", "after"])
def test_qc210_fix_waits_for_the_old_process(tmp_path: Path, shell: str, version: str) -> None:
    script = RELAUNCH if version == "before" else fixed(RELAUNCH)
    if version == "after":
        assert "pkill" not in script and "sleep 0.3" not in script
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "worker").write_text(WORKER)
    (bin_dir / "worker").chmod(0o755)
    log = tmp_path / "workers.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "WORKER_LOG": str(log), "HOME": str(tmp_path)}
    old = subprocess.Popen(["worker", "--id", "old"], env=env, cwd=tmp_path,
                           start_new_session=True, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: any(e[0] == "start" for e in _events(log)))
        # From a file: run as `sh -c SCRIPT`, the pkill would match that shell too (QC201).
        (tmp_path / "restart.sh").write_text(script)
        run = subprocess.run([resolve_shell(shell), "restart.sh"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        _wait_for(lambda: any(e[:2] == ("start", "new") for e in _events(log)))
        _wait_for(lambda: any(e[:2] == ("exit", "old") for e in _events(log)))
        events = _events(log)
        old_exit = next(e[3] for e in events if e[:2] == ("exit", "old"))
        new_start = next(e[3] for e in events if e[:2] == ("start", "new"))
        assert run.returncode == 0, run
        if version == "before":
            # A fixed sleep is not a wait: the new worker starts while the old one still runs.
            assert new_start < old_exit
        else:
            assert new_start > old_exit
            # It said which process it stopped, once it was really gone.
            assert run.stdout == f"Stopped worker --id (pid {old.pid})\nworker restarted\n"
    finally:
        pids = [e[2] for e in _events(log) if e[0] == "start"]
        for pid in {old.pid, *pids}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        old.wait()


def test_qc210_fix_says_when_there_was_nothing_to_stop(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "worker").write_text(WORKER)
    (bin_dir / "worker").chmod(0o755)
    log = tmp_path / "workers.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "WORKER_LOG": str(log)}
    (tmp_path / "restart.sh").write_text(fixed(RELAUNCH))
    try:
        run = subprocess.run([resolve_shell("dash"), "restart.sh"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        assert run.returncode == 0, run
        assert run.stdout == "No worker --id running: nothing to stop\nworker restarted\n"
        _wait_for(lambda: any(e[:2] == ("start", "new") for e in _events(log)))
    finally:
        for pid in {e[2] for e in _events(log) if e[0] == "start"}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


# -- QC205 / QC206: a failed step stops the script with a message --------------------------

INNER = """sh -c 'cd /nonexistent-quotecheck-dir
touch marker
echo "marker created"
kill -0 999999 2>/dev/null && echo "ALIVE" || echo "DEAD"'
"""


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_failed_steps_stop_the_inner_script(tmp_path: Path, shell: str) -> None:
    before = run_shell(shell, INNER, {"PATH": "/usr/bin:/bin"}, timeout=30, cwd=tmp_path)
    # The silent failure: cd failed, the marker lands in the wrong directory, success claimed,
    # and the status says all is well.
    assert before.returncode == 0
    assert "marker created\n" in before.stdout and "DEAD\n" in before.stdout
    assert (tmp_path / "marker").exists()
    (tmp_path / "marker").unlink()

    script = fixed(INNER)
    codes = {d.code for d in check_source(INNER).diagnostics}
    assert {"QC205", "QC206"} <= codes
    after = run_shell(shell, script, {"PATH": "/usr/bin:/bin"}, timeout=30, cwd=tmp_path)
    assert after.returncode == 1, after
    assert after.stdout == ""
    assert after.stderr.endswith(
        "FAILED (exit status 2): cd /nonexistent-quotecheck-dir\n"), after.stderr
    assert not (tmp_path / "marker").exists()


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_reported_failure_ends_with_a_failing_status(tmp_path: Path, shell: str) -> None:
    text = "sh -c 'true\nkill -0 999999 2>/dev/null && echo \"ALIVE\" || echo \"DEAD\"'\n"
    assert [d.code for d in check_source(text).diagnostics] == ["QC206"]
    before = run_shell(shell, text, {"PATH": "/usr/bin:/bin"}, timeout=30, cwd=tmp_path)
    after = run_shell(shell, fixed(text), {"PATH": "/usr/bin:/bin"}, timeout=30, cwd=tmp_path)
    assert (before.returncode, before.stdout) == (0, "DEAD\n")
    assert (after.returncode, after.stdout) == (1, "DEAD\n")
    alive = fixed(text).replace("999999", "$$")
    ok = run_shell(shell, alive, {"PATH": "/usr/bin:/bin"}, timeout=30, cwd=tmp_path)
    assert (ok.returncode, ok.stdout) == (0, "ALIVE\n")
