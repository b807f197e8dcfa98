"""The DFlash restart, end to end against a real sshd: the seed's failure and the corrected launch.

The remote side is a stand-in GPU box (:mod:`dflash_e2e.machine`): a PID namespace with its own
``/proc`` that every ssh session of these tests enters. The remote ``ps aux`` and ``pgrep`` see
only the box, so the seed's machine-wide ``xargs kill`` cannot reach the local ``ssh`` client
(whose argv holds the script) or anyone else's process on this machine.

In the box, ``/root/train_dflash_online.py`` is a stand-in trainer that logs how it was started
(``dflash_e2e/trainer_standin.py``) and ``/root/venv/bin/activate`` a stand-in activate script
that puts the venv's ``bin/python3`` (a symlink to the real interpreter) first on ``PATH``, as
a real venv does. Both commands are run as written, with only the absolute paths
``/root``, ``/workspace`` and ``/dev/shm`` moved into a temporary directory by string
replacement (checked: removing that prefix again gives the fixture byte for byte). Host, port
and ``StrictHostKeyChecking`` stay as written; the harness' ``ssh`` wrapper puts its own
options first, and the first value of an ssh option wins, so every command reaches the test
server.

Trainers are looked up in the box by argv; every one seen is killed by pid at teardown if it is
still alive, then the box's init (which takes anything else in the box with it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from dflash_e2e.machine import BoxProcess, RemoteMachine, alive, wait_dead
from harness.shells import run_shell
from harness.sshd import SshServer

ROOT = Path(__file__).resolve().parent.parent
DFLASH = ROOT / "fixtures" / "dflash"
SEED = (DFLASH / "restart.sh").read_text()
FIXED = (DFLASH / "restart.fixed.sh").read_text()
HELPERS = Path(__file__).resolve().parent / "dflash_e2e"

ALLOC_CONF = "expandable_segments:True"
# The trainer's arguments in the seed, with its paths as on the real box.
TRAINER_ARGS = [
    "--target-model", "/dev/shm/Qwen3.6-27B",
    "--data-dir", "/workspace/tokenized_completions",
    "--output-dir", "/workspace/checkpoints",
    "--epochs", "6", "--lr", "6e-4", "--max-anchors", "512", "--token-budget", "8192",
    "--block-size", "16", "--dp-pairs", "2", "--log-interval", "10", "--save-interval", "5000",
]  # fmt: skip

# The absolute paths the commands use on the GPU box; moved under the test's box directory.
_BOX_PATHS = re.compile(r"(?<![\w@.-])(/root|/workspace|/dev/shm)(?![\w.-])")

# Generous: the point is that the fixed command does not wait for the trainer.
RETURNS_WITHIN = 60.0


def trainer_args_in(text: str) -> list[str]:
    """The trainer's arguments as a shell would split them (the lines after `nohup python3`)."""
    start = text.index("train_dflash_online.py \\\n") + len("train_dflash_online.py")
    end = text.index(" \\\n  > /workspace/train.log", start)
    return shlex.split(text[start:end].replace("\\\n", " "))


def test_fixed_keeps_the_seeds_launch_and_sends_the_script_on_stdin() -> None:
    """restart.fixed.sh is what `quotecheck fix --unsafe-fixes` emits for the seed
    (tests/test_fix.py checks that byte for byte): same host, port, trainer arguments and
    environment; the script on stdin through a quoted heredoc; no host key check turned off."""
    assert trainer_args_in(SEED) == TRAINER_ARGS
    assert trainer_args_in(FIXED) == TRAINER_ARGS
    for text in (SEED, FIXED):
        assert f"PYTORCH_CUDA_ALLOC_CONF={ALLOC_CONF} nohup python3 " in text
        assert "-p 10638 " in text and "root@[REDACTED_IP]" in text
    # The one command of the fixed file: ssh with the script on stdin from a quoted heredoc.
    (ssh_line,) = [line for line in FIXED.splitlines() if line.startswith("ssh ")]
    assert shlex.split(ssh_line) == [
        "ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
        "-o", "StrictHostKeyChecking=accept-new", "-p", "10638", "root@[REDACTED_IP]",
        "bash", "-s", "<<EOF",
    ]  # fmt: skip
    assert ssh_line.endswith(" bash -s <<'EOF'")
    assert FIXED.endswith("\nEOF\n") and FIXED.count("\nEOF\n") == 1
    assert "StrictHostKeyChecking=no" not in FIXED


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


@dataclass
class GpuBox:
    """The stand-in box's files, its namespace and the test sshd."""

    dir: Path
    machine: RemoteMachine
    server: SshServer
    local_cwd: Path

    @property
    def root(self) -> Path:
        return self.dir / "root"

    @property
    def venv(self) -> Path:
        return self.root / "venv"

    @property
    def train_log(self) -> Path:
        return self.dir / "workspace" / "train.log"

    @property
    def runs_log(self) -> Path:
        return self.root / "trainer-runs.jsonl"

    def expected_args(self) -> list[str]:
        return [_BOX_PATHS.sub(lambda m: f"{self.dir}{m[1]}", a) for a in TRAINER_ARGS]

    def expected_argv(self) -> list[str]:
        return ["python3", "train_dflash_online.py", *self.expected_args()]

    def rewrite(self, text: str) -> str:
        """``text`` with the box paths moved into :attr:`dir`; nothing else changes."""
        out = _BOX_PATHS.sub(lambda m: f"{self.dir}{m[1]}", text)
        assert out.replace(str(self.dir), "") == text
        return out

    def set_exit_delay(self, seconds: float) -> None:
        """How long a stand-in trainer takes to exit after SIGTERM."""
        (self.root / "train_dflash_online.exit_delay").write_text(f"{seconds}\n")

    def runs(self) -> list[dict[str, Any]]:
        if not self.runs_log.exists():
            return []
        return [json.loads(line) for line in self.runs_log.read_text().splitlines()]

    def starts(self) -> list[dict[str, Any]]:
        return [r for r in self.runs() if r["event"] == "start"]

    def events(self, box_pid: int) -> dict[str, dict[str, Any]]:
        return {r["event"]: r for r in self.runs() if r["pid"] == box_pid}

    def start_old_trainer(self) -> BoxProcess:
        """Start a trainer in the box as a previous launch would have: same argv and env."""
        env = {
            "PATH": f"{self.venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.root),
            "PYTORCH_CUDA_ALLOC_CONF": ALLOC_CONF,
            "DFLASH_STANDIN_VENV_ACTIVE": "1",
            "VIRTUAL_ENV": str(self.venv),
        }
        before = len(self.starts())
        self.machine.spawn(
            self.expected_argv(),
            env=env,
            cwd=self.root,
            stdout=self.dir / "workspace" / "previous-train.log",
        )
        deadline = time.monotonic() + 20
        while len(self.starts()) == before:
            assert time.monotonic() < deadline, "the old trainer did not start"
            time.sleep(0.02)
        (trainer,) = self.machine.trainers()
        assert trainer.box_pid == self.starts()[-1]["pid"]
        assert trainer.argv == self.expected_argv()
        return trainer

    def run(self, text: str, timeout: float = 120) -> Run:
        """Run ``text`` in a local bash whose ``ssh`` is the test server's wrapper."""
        start = time.monotonic()
        res = run_shell("bash", text, self.server.client_env(), timeout=timeout, cwd=self.local_cwd)
        return Run(res.returncode, res.stdout, res.stderr, time.monotonic() - start)


@pytest.fixture
def box(remote: SshServer, tmp_path: Path) -> Iterator[GpuBox]:
    base = tmp_path / "box"
    # Spliced into shell text unquoted, and must not look like the trainer to `grep`.
    assert re.fullmatch(r"[\w/.-]+", str(base)) and "train_dflash" not in str(base), base
    for d in ("root/venv/bin", "workspace/tokenized_completions", "dev/shm/Qwen3.6-27B"):
        (base / d).mkdir(parents=True)
    shutil.copyfile(HELPERS / "trainer_standin.py", base / "root" / "train_dflash_online.py")
    venv = base / "root" / "venv"
    activate = (HELPERS / "activate_standin.sh").read_text()
    (venv / "bin" / "activate").write_text(activate.replace("@VENV@", shlex.quote(str(venv))))
    (venv / "bin" / "python3").symlink_to(sys.executable)
    local_cwd = tmp_path / "local"  # empty: the unquoted `[REDACTED_IP]` glob matches nothing
    local_cwd.mkdir()
    with RemoteMachine(tmp_path) as machine:
        remote.set_login_shell(str(machine.login_shell(tmp_path)))
        yield GpuBox(base, machine, remote, local_cwd)


def seed_remote_script(text: str) -> str:
    """The single-quoted remote script of the seed (what ssh sends)."""
    return text[text.index("'") + 1 : text.rindex("'")]


# -- the seed ---------------------------------------------------------------------------------


def test_seed_restart_kills_its_own_remote_shell(box: GpuBox) -> None:
    old = box.start_old_trainer()
    command = box.rewrite(SEED)

    run = box.run(command)

    # Silence and 255, which looks like a network failure...
    assert run.stdout == ""
    assert run.returncode == 255, run
    assert run.stderr == ""
    # ...but the connection worked: the server received the whole script, byte for byte.
    (sent,) = box.server.ssh_records()
    assert sent == seed_remote_script(command)
    # The remote shell ran as `bash -c <script>`, so its own command line contains the
    # trainer's, which `grep "[p]ython3.*train_dflash"` matches.
    assert "nohup python3 train_dflash_online.py" in sent
    # The old trainer got SIGTERM and is gone...
    assert wait_dead(old.host_pid)
    assert "sigterm" in box.events(old.box_pid)
    # ...and so is the remote shell: nothing after the kill ran. No "Old killed", no new
    # trainer, no train.log, and nothing of the session is left in the box but its init.
    assert box.machine.trainers() == []
    assert [r["pid"] for r in box.starts()] == [old.box_pid]
    assert not box.train_log.exists()
    left = box.machine.settled()
    assert [p.box_pid for p in left] == [1], left


def test_seed_kill_line_alone_kills_only_the_trainer(box: GpuBox) -> None:
    """Control: the seed's own kill pipeline, in a session whose command line does not
    mention the trainer, kills the trainer and nothing else; the next line runs."""
    old = box.start_old_trainer()
    lines = SEED.splitlines(keepends=True)
    assert lines[1].startswith("ps aux | grep") and lines[3] == 'echo "Old killed"\n'
    command = box.rewrite(lines[0] + lines[1] + lines[3] + lines[-1])

    run = box.run(command)

    assert (run.returncode, run.stdout, run.stderr) == (0, "Old killed\n", "")
    assert wait_dead(old.host_pid)
    assert "sigterm" in box.events(old.box_pid)


# -- the corrected launch ---------------------------------------------------------------------


def check_new_trainer(box: GpuBox, run: Run) -> BoxProcess:
    """The fixed command's run left exactly one trainer, as the seed meant to start it."""
    (trainer,) = box.machine.trainers()
    # The PID the script printed is the one running, and it says so.
    m = re.search(r"^PID=(\d+)$", run.stdout, re.M)
    assert m is not None, run.stdout
    assert int(m[1]) == trainer.box_pid
    assert run.stdout.endswith(f"PID={trainer.box_pid}\nALIVE\n"), run.stdout
    # Exact argv and environment variable, from the kernel and from the trainer itself.
    with open(f"/proc/{trainer.host_pid}/cmdline", "rb") as f:
        assert f.read().split(b"\0")[:-1] == [a.encode() for a in box.expected_argv()]
    with open(f"/proc/{trainer.host_pid}/environ", "rb") as f:
        environ = f.read().split(b"\0")
    assert f"PYTORCH_CUDA_ALLOC_CONF={ALLOC_CONF}".encode() in environ
    start = box.events(trainer.box_pid)["start"]
    assert start["argv"] == ["train_dflash_online.py", *box.expected_args()]
    assert start["cmdline"] == box.expected_argv()
    assert start["PYTORCH_CUDA_ALLOC_CONF"] == ALLOC_CONF
    assert start["venv_active"] == "1"
    assert start["cwd"] == str(box.root)
    # Detached: stdin from /dev/null, stdout and stderr to train.log.
    assert start["fds"] == ["/dev/null", str(box.train_log), str(box.train_log)]
    assert "Pre-loading dataset" in box.train_log.read_text()
    # The script never appeared on a command line: ssh sent `bash -s` and nothing else.
    assert box.server.ssh_records()[-1] == "bash -s"
    return trainer


# grep -c prints the count of matching lines, then the seed's own message.
FEATURES_LINE = re.compile(r"^[1-9]\d*\nNew features confirmed$", re.M)
NOTHING_TO_STOP = "No python3 train_dflash_online.py running: nothing to stop\n"


def test_fixed_restart_replaces_the_old_trainer_twice(box: GpuBox) -> None:
    old = box.start_old_trainer()
    box.set_exit_delay(1.5)  # a real trainer takes a while to release the GPUs
    command = box.rewrite(FIXED)

    first = box.run(command)

    assert first.returncode == 0, first
    assert first.stderr == ""
    assert first.seconds < RETURNS_WITHIN
    assert FEATURES_LINE.search(first.stdout), first.stdout
    # "Old killed" is printed once the old trainer has exited, and only then.
    assert first.stdout.startswith("Old killed\n"), first.stdout
    assert not alive(old.host_pid)
    new = check_new_trainer(box, first)
    # It waited: the old trainer had exited before the new one started.
    old_events = box.events(old.box_pid)
    assert old_events["exit"]["time"] <= box.events(new.box_pid)["start"]["time"]
    assert old_events["exit"]["time"] - old_events["sigterm"]["time"] >= 1.5

    # Again: the trainer the first run started is replaced in turn.
    box.set_exit_delay(0)
    second = box.run(command)

    assert second.returncode == 0, second
    assert second.seconds < RETURNS_WITHIN
    assert second.stdout.startswith("Old killed\n"), second.stdout
    assert wait_dead(new.host_pid)
    new_events = box.events(new.box_pid)
    assert "sigterm" in new_events and "exit" in new_events
    newer = check_new_trainer(box, second)
    assert newer.host_pid != new.host_pid
    assert len(box.starts()) == 3


@pytest.mark.parametrize("login_shell", ["bash", "dash"])
def test_fixed_restart_with_no_old_trainer_says_so(box: GpuBox, login_shell: str) -> None:
    # The remote script names its interpreter (`bash -s`): the login shell does not matter.
    box.server.set_login_shell(str(box.machine.login_shell(box.dir.parent, login_shell)))
    run = box.run(box.rewrite(FIXED))

    assert run.returncode == 0, run
    assert run.seconds < RETURNS_WITHIN
    assert run.stdout.startswith(NOTHING_TO_STOP), run.stdout
    assert "Old killed" not in run.stdout
    check_new_trainer(box, run)
    assert len(box.starts()) == 1


def test_fixed_restart_with_missing_venv_fails_and_starts_nothing(box: GpuBox) -> None:
    old = box.start_old_trainer()
    shutil.rmtree(box.venv)

    run = box.run(box.rewrite(FIXED))

    assert run.returncode == 1, run
    # bash's own complaint, then the step that failed, and nothing after it ran.
    assert run.stderr.endswith(
        f"FAILED (exit status 1): source {box.venv}/bin/activate\n"), run.stderr
    assert FEATURES_LINE.search(run.stdout), run.stdout
    assert "PID=" not in run.stdout and "ALIVE" not in run.stdout
    # The old trainer was stopped (the seed's order: stop, check, start), no new one started.
    assert run.stdout.startswith("Old killed\n"), run.stdout
    assert wait_dead(old.host_pid)
    assert box.machine.trainers() == []
    assert len(box.starts()) == 1
    assert not box.train_log.exists()


def test_fixed_restart_without_the_new_features_fails_and_starts_nothing(box: GpuBox) -> None:
    script = box.root / "train_dflash_online.py"
    script.write_text(
        re.sub(r"overlap_pool|build_batches_from_preloaded|Pre-loading", "x", script.read_text())
    )

    run = box.run(box.rewrite(FIXED))

    assert run.returncode == 1, run
    assert run.stdout == NOTHING_TO_STOP + "0\n"
    assert run.stderr.startswith("FAILED (exit status 1): grep -c "), run.stderr
    assert "New features confirmed" not in run.stdout
    assert box.machine.trainers() == []
    assert not box.train_log.exists()


def test_fixed_restart_gives_up_when_the_old_trainer_does_not_exit(box: GpuBox) -> None:
    old = box.start_old_trainer()
    box.set_exit_delay(30)
    # The wait bound is 60 s in the fixture; 2 s here so the test does not take a minute.
    assert FIXED.count('[ "$waited" -ge 60 ]') == 1
    fixed = FIXED.replace('[ "$waited" -ge 60 ]', '[ "$waited" -ge 2 ]')

    run = box.run(box.rewrite(fixed))

    assert run.returncode == 1, run
    assert run.stderr == (
        f"FAILED: python3 train_dflash_online.py (pid {old.box_pid}) still running 2 s after "
        "kill\n"
    )
    assert run.stdout == ""
    assert "sigterm" in box.events(old.box_pid)
    assert 2 <= run.seconds < RETURNS_WITHIN
    assert box.machine.trainers() == [old]  # still shutting down; no second trainer
    assert not box.train_log.exists()


# -- what makes ssh return at once ------------------------------------------------------------

LAUNCH = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True nohup python3"
REDIRECTIONS = "  > /workspace/train.log 2>&1 < /dev/null &\n"


@pytest.mark.parametrize(
    ("redirections", "keep_stdin", "ssh_waits", "fds"),
    [
        pytest.param(REDIRECTIONS, False, False, ("null", "log", "log"), id="as-fixed"),
        # Without `< /dev/null` the shell itself gives a background command /dev/null as stdin
        # (POSIX, job control off): the redirection changes nothing here.
        pytest.param(
            "  > /workspace/train.log 2>&1 &\n", False, False, ("null", "log", "log"),
            id="stdin-redirection-dropped",
        ),
        # The trainer really holding the session's stdin (saved on fd 3 first): no wait either.
        pytest.param(
            "  > /workspace/train.log 2>&1 <&3 &\n", True, False, ("channel", "log", "log"),
            id="stdin-is-the-session",
        ),
        pytest.param(
            "  > /workspace/train.log < /dev/null &\n", False, True, ("null", "log", "channel"),
            id="stderr-is-the-session",
        ),
        pytest.param(
            "  < /dev/null &\n", False, True, ("null", "channel", "channel"),
            id="stdout-stderr-are-the-session",
        ),
    ],
)  # fmt: skip
def test_which_redirections_let_ssh_return(
    box: GpuBox,
    tmp_path: Path,
    redirections: str,
    keep_stdin: bool,
    ssh_waits: bool,
    fds: tuple[str, str, str],
) -> None:
    """sshd ends the session once the shell has exited and nothing holds its stdout or stderr.

    The trainer holding the session's stdin (the channel the heredoc came through) does not
    keep ssh waiting; holding its stdout or stderr does, for as long as the trainer runs.
    """
    assert FIXED.count(REDIRECTIONS) == 1 and FIXED.count(LAUNCH) == 1
    fixed = FIXED.replace(REDIRECTIONS, redirections)
    if keep_stdin:
        fixed = fixed.replace(LAUNCH, "exec 3<&0\n" + LAUNCH)
    command = box.rewrite(fixed)
    out = tmp_path / "ssh.out"
    with out.open("wb") as f:
        local = subprocess.Popen(
            ["bash", "-c", command],
            env=box.server.client_env(),
            cwd=box.local_cwd,
            stdin=subprocess.DEVNULL,
            stdout=f,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killed below by that id
        )
    try:
        # Until the remote script's last line has been printed...
        deadline = time.monotonic() + RETURNS_WITHIN
        while "ALIVE\n" not in out.read_text() and local.poll() is None:
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.05)
        # ...and a while longer: does ssh return, or wait for the trainer?
        try:
            returncode: int | None = local.wait(timeout=5)
        except subprocess.TimeoutExpired:
            returncode = None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(local.pid, signal.SIGKILL)
        local.wait()
    assert "ALIVE\n" in out.read_text()
    assert returncode == (None if ssh_waits else 0), out.read_text()
    # Either way the trainer runs, with the standard streams the variant meant to give it.
    (trainer,) = box.machine.trainers()
    targets = box.events(trainer.box_pid)["start"]["fds"]
    kinds = [
        "null" if t == "/dev/null" else "log" if t == str(box.train_log) else
        "channel" if t.startswith(("pipe:", "socket:")) else t
        for t in targets
    ]  # fmt: skip
    assert tuple(kinds) == fds, targets
