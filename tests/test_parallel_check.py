"""`quotecheck check --jobs N`: worker processes change nothing but the time.

The output (every format), the error messages and the exit status are the same as one process
checking the files one after another; a file that kills the process checking it is reported
and every other file is still checked; the progress display on a terminal still works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ["text", "json", "sarif", "github"]

SCRIPTS = {
    "bad.sh": 'echo ok\necho "unterminated\n',
    "good.sh": "echo 'fine'\n",
    "remote.sh": '#!/bin/sh\nssh host "kill $!"\nssh h echo $HOME\n',
    "kill.sh": "ssh gpu 'pkill -f train.py; nohup python3 train.py &'\n",
    "crlf.sh": "ssh h 'ls $x'\r\necho done\r\n",
    "latin.sh": "echo caf\xe9\nssh h echo $x\n",
    "binary.sh": "echo a\0b\n",
    "unicode.sh": "ssh h \"echo 'héllo ✓' $HOME\"\n",
}


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_bytes(text.encode("latin-1") if name == "latin.sh" else text.encode())
    return path


@pytest.fixture()
def scripts(tmp_path: Path) -> list[str]:
    """Fixture files, some with findings, some not, one big, plus inputs that are errors."""
    names = []
    for name, text in SCRIPTS.items():
        _write(tmp_path, name, text)
        names.append(name)
    # a file large enough to finish last, so that workers complete out of order
    big = "".join(f'ssh host{i} "echo $HOME; kill $!"\n' for i in range(400))
    _write(tmp_path, "big.sh", big)
    sub = tmp_path / "dir"
    sub.mkdir()
    for i in range(6):
        _write(sub, f"s{i}.sh", f"ssh h{i} 'echo $x{i}'\n" * (i + 1))
    (sub / "notes.txt").write_text("not a script\n")
    return ["big.sh", *names, "missing.sh", "dir", "good.sh"]


def quotecheck(cwd: Path, *args: str, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quotecheck", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.mark.parametrize("fmt", FORMATS)
def test_workers_give_the_serial_output(scripts: list[str], tmp_path: Path, fmt: str) -> None:
    args = ["check", "--no-config", "--color", "never", "--format", fmt, *scripts]
    serial = quotecheck(tmp_path, *args, "--jobs", "1")
    assert serial.returncode == 2  # missing.sh
    assert "missing.sh: no such file or directory" in serial.stderr
    for jobs in ("2", "3"):
        parallel = quotecheck(tmp_path, *args, "--jobs", jobs)
        assert (parallel.returncode, parallel.stdout, parallel.stderr) == (
            serial.returncode, serial.stdout, serial.stderr)


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_streamed_documents_are_what_json_dumps_writes(scripts: list[str], tmp_path: Path,
                                                       fmt: str) -> None:
    """The json and sarif documents are written a file at a time, byte for byte as the whole
    document would be, with and without any item in the list."""
    for paths in (scripts, ["good.sh"], ["missing.sh"]):
        out = quotecheck(tmp_path, "check", "--no-config", "--format", fmt, "-j", "2",
                         *paths).stdout
        document = json.loads(out)
        assert out == json.dumps(document, ensure_ascii=fmt == "sarif", indent=2) + "\n"
    files = json.loads(quotecheck(tmp_path, "check", "--no-config", "--format", "json",
                                  *scripts).stdout)["files"]
    assert [f["path"] for f in files][:3] == ["big.sh", "bad.sh", "good.sh"]


CRASHING = """
import os, signal, sys
from quotecheck.commands import check
original = check.check_source

def check_source(text, *args, **kwargs):
    if "CRASH-EXIT" in text:
        os._exit(3)
    if "CRASH-KILL" in text:
        os.kill(os.getpid(), signal.SIGKILL)
    return original(text, *args, **kwargs)

check.check_source = check_source
from quotecheck.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_file_that_kills_its_worker_does_not_stop_the_run(scripts: list[str],
                                                            tmp_path: Path) -> None:
    (tmp_path / "exit.sh").write_text("echo CRASH-EXIT\n")
    (tmp_path / "kill9.sh").write_text("echo CRASH-KILL\n")
    files = ["exit.sh", *scripts[:5], "kill9.sh", *scripts[5:]]
    args = ["check", "--no-config", "--color", "never", *files]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", CRASHING, *args, "--jobs", "2"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 2
    assert ("quotecheck: error: exit.sh: internal error, not analysed (the process checking "
            "it exited with status 3 before it was done); please report it") in proc.stderr
    assert ("quotecheck: error: kill9.sh: internal error, not analysed (the process checking "
            "it was killed by SIGKILL (out of memory?)); please report it") in proc.stderr
    # every other file is checked, and reported as without the two
    rest = quotecheck(tmp_path, *[a for a in args if a not in ("exit.sh", "kill9.sh")],
                      "--jobs", "1")
    assert proc.stdout == rest.stdout
    assert proc.stderr.replace(rest.stderr, "").count("internal error") == 2


def test_many_files_show_progress_on_a_terminal(tmp_path: Path) -> None:
    import pty

    for i in range(205):
        (tmp_path / f"f{i:03}.sh").write_text(f"ssh h 'echo $x{i}' &\n" if i % 50 == 0 else "ls\n")
    controller, terminal = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "quotecheck", "check", "--no-config", "-j", "2", "."],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the terminal is closed and drained
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    assert proc.returncode == 1
    text = shown.decode()
    assert "\rquotecheck: 1/205 files" in text and "\rquotecheck: 205/205 files" in text
    assert text.endswith("\r\x1b[K")
    # the findings, in file order
    named = [line.split(":")[0] for line in proc.stdout.splitlines()
             if line.startswith("f") and ".sh:" in line]
    assert named == sorted(named)
    assert set(named) == {f"f{i:03}.sh" for i in range(0, 205, 50)}


def test_few_small_files_are_checked_in_this_process(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Without --jobs, starting workers must pay: a couple of small files never start any."""
    from quotecheck import parallel
    from quotecheck.cli import main

    class NoWorkers:
        def __init__(self, *args: object) -> None:
            raise AssertionError("workers started for two small files")

    monkeypatch.setattr(parallel, "Workers", NoWorkers)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("ssh h 'echo $x' &\n")  # QC208: a warning in the background
    (tmp_path / "b.sh").write_text("ls\n")
    assert main(["check", "--no-config", "a.sh", "b.sh"]) == 1
    assert capsys.readouterr().out.startswith("a.sh:1:")


def test_ctrl_c_stops_the_workers_quietly(tmp_path: Path) -> None:
    import signal
    import time

    body = "".join(f"ssh h{i} \"echo $HOME; kill $!\"\nfor f in *; do echo \"$f\"; done\n"
                   for i in range(150))
    for i in range(300):
        (tmp_path / f"f{i:03}.sh").write_text(body)

    def default_interrupt() -> None:  # as a shell started in the background leaves it ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "-m", "quotecheck", "check", "--no-config", "-j", "2", "."],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=default_interrupt,
        start_new_session=True)
    time.sleep(3)
    if proc.poll() is not None:
        pytest.skip("the run was over before it could be interrupted")
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert "Traceback" not in err
    left = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True)
    assert left.stdout.split() == []


def _dies_on_odd(item: int) -> int:
    if item % 2:
        os._exit(3)
    return item * 10


def test_a_new_pool_that_breaks_while_tasks_are_resubmitted_loses_none() -> None:
    """Many tasks kill their workers: the pool that replaces a broken one can break again while
    the lost tasks are handed to it. Every task still ends in its result or WorkerDied."""
    from quotecheck.parallel import WorkerDied, Workers

    outcomes: dict[int, object] = {}
    with Workers(2, _dies_on_odd) as workers:
        handles = [workers.submit(i) for i in range(40)]
        for i, handle in enumerate(handles):
            try:
                outcomes[i] = workers.result(handle)
            except WorkerDied as exc:
                outcomes[i] = str(exc)
    assert outcomes == {i: (i * 10 if i % 2 == 0 else
                            "the process checking it exited with status 3 before it was done")
                        for i in range(40)}
