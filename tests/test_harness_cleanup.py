"""A test run that is killed or interrupted leaves no sshd and no ssh control master behind.

Each test runs a small pytest session in a subprocess, with this directory's conftest.py as
its plugin (so its session ``sshd`` fixture and its signal handling are the real ones). The
inner test opens a control master to that sshd (as tests/test_quote_roundtrip.py's ``mux``
does), writes both pids to a file and waits; the outer test then signals the session and
checks that both processes are gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness import cleanup
from harness.cleanup import alive

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

INNER = '''
import re
import subprocess
import time
from pathlib import Path


def test_holds_sshd_and_a_master(sshd, tmp_path):
    control = tmp_path / "cm"
    options = sshd.ssh_options()
    i = options.index("ControlPath=none")
    options[i - 1:i + 1] = ["-o", "ControlMaster=auto", "-o", f"ControlPath={control}",
                           "-o", "ControlPersist=300"]
    subprocess.run(["/usr/bin/ssh", *options, "h", "true"], check=True, timeout=60,
                   stdin=subprocess.DEVNULL, capture_output=True)
    check = subprocess.run(["/usr/bin/ssh", "-o", f"ControlPath={control}", "-O", "check",
                            "x"], capture_output=True, text=True, timeout=60)
    master = re.search(r"pid=([0-9]+)", check.stdout + check.stderr).group(1)
    tmp = Path(PIDS + ".tmp")
    tmp.write_text(f"{sshd.pid} {master}")
    tmp.rename(PIDS)
    time.sleep(300)
'''



def _gone(pid: int, within: float = 30) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _inner_run(tmp_path: Path, name: str, body: str, *extra: str
               ) -> tuple[list[str], Path, dict[str, str], Path]:
    """A pytest run of the test file ``name`` holding ``body``, with the real conftest: its
    command line, directory and environment, and the file its test writes pids to."""
    pids = tmp_path / "pids"
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / name).write_text(f"PIDS = {str(pids)!r}\n" + body)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
            "--rootdir", str(inner), *extra, str(inner / name)]
    return argv, inner, env, pids


def _session(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the inner session; its pytest process, and the pids of its sshd and master."""
    argv, inner, env, pids = _inner_run(tmp_path, "test_inner.py", INNER, *extra)
    proc = subprocess.Popen(
        argv, cwd=inner, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group: only this test signals it
    )
    deadline = time.monotonic() + 120
    while not pids.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            out = proc.communicate(timeout=30)[0].decode(errors="replace")
            pytest.fail(f"the inner session did not start its sshd:\n{out}")
        time.sleep(0.05)
    sshd, master = (int(p) for p in pids.read_text().split())
    assert "sshd" in _cmdline(sshd) and "[mux]" in _cmdline(master)
    return proc, sshd, master


def _finish(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        out = proc.communicate(timeout=60)[0]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, out.decode(errors="replace")


def _kill_leftovers(*pids: int) -> None:
    """Should the cleanup fail, the test still must not leave them running."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_sigterm_stops_sshd_and_the_master(tmp_path: Path) -> None:
    proc, sshd, master = _session(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGTERM)  # the pytest process only, as `kill PID` does
        code, out = _finish(proc)
        # The session dies of the signal as it would have without the handler.
        assert code == -signal.SIGTERM, out
        assert _gone(sshd), _cmdline(sshd)
        assert _gone(master), _cmdline(master)
    finally:
        _kill_leftovers(sshd, master)


def test_sigint_stops_sshd_and_the_master(tmp_path: Path) -> None:
    proc, sshd, master = _session(tmp_path)
    try:
        os.kill(proc.pid, signal.SIGINT)
        code, out = _finish(proc)
        assert code == pytest.ExitCode.INTERRUPTED, out
        assert _gone(sshd), _cmdline(sshd)
        assert _gone(master), _cmdline(master)
    finally:
        _kill_leftovers(sshd, master)


def test_sigterm_to_an_xdist_run_stops_the_workers_sshd(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    proc, sshd, master = _session(tmp_path, "-n", "1")
    try:
        # As a CI time-out or `timeout` does it: the whole process group, workers included.
        os.killpg(proc.pid, signal.SIGTERM)
        _finish(proc)
        assert _gone(sshd), _cmdline(sshd)
        assert _gone(master), _cmdline(master)
    finally:
        _kill_leftovers(sshd, master)


LEAK = '''
from pathlib import Path

from harness.sshd import SshServer


def test_starts_a_server_and_never_closes_it(tmp_path):
    server = SshServer(tmp_path).start()
    Path(PIDS).write_text(str(server.pid))
'''


def test_a_server_left_running_is_stopped_at_the_end_of_the_run(tmp_path: Path) -> None:
    argv, inner, env, pids = _inner_run(tmp_path, "test_leak.py", LEAK)
    done = subprocess.run(
        argv, cwd=inner, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    sshd = int(pids.read_text())
    try:
        assert _gone(sshd), _cmdline(sshd)
    finally:
        _kill_leftovers(sshd)


def test_a_forked_child_stops_nothing_of_the_parent(tmp_path: Path) -> None:
    # A multiprocessing worker forked from the test process, terminated by its pool, must not
    # stop the sshd of the tests.
    marker = tmp_path / "stopped"
    token = cleanup.on_exit(lambda: marker.write_text("stopped"))
    try:
        pid = os.fork()
        if pid == 0:
            try:
                cleanup.stop_all()
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        assert not marker.exists()
    finally:
        cleanup.forget(token)
