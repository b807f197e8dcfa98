"""A stand-in "GPU box": a PID namespace that the test sshd's sessions run in.

Why: the DFlash restart command kills whatever ``ps aux | grep "[p]ython3.*train_dflash"``
finds. On the real box that is the remote machine's processes only. Here client and server
share one machine, so without isolation the remote ``ps aux`` would also see (and kill) the
local ``ssh`` client, whose argv holds the whole script, and any matching process of anyone
else on this machine. So every remote session enters a PID namespace of its own, with its own
``/proc``: the remote ``ps``/``pgrep`` list only the box's processes, ``kill`` cannot reach
anything outside it, and the box is torn down by killing its init, by pid.

:class:`RemoteMachine`:

- :meth:`start` runs ``unshare --pid --fork --mount-proc --kill-child`` with a small Python
  init (pid 1 of the box: it reaps orphans, as a real init does, so a killed trainer does not
  linger as a zombie that ``kill -0`` still finds). ``unshare`` dies with the test process
  (``PR_SET_PDEATHSIG``), and the init exits after :data:`INIT_LIFETIME` seconds anyway.
- :meth:`login_shell` writes an executable to give to :meth:`SshServer.set_login_shell`: sshd
  runs it as ``<name> -c <string>`` and it ``exec``\\ s ``nsenter ... -- bash -c <string>``,
  so inside the box the remote shell's command line is ``bash -c <string>``, exactly what sshd
  gives it, and ``nsenter`` passes on its exit status or the signal that killed it.
- :meth:`spawn` starts a process inside the box (the "old trainer").
- :meth:`processes` lists the box's live processes with their host and in-box pids;
  :meth:`settled` waits (bounded) for what a killed session leaves to exit.
- :meth:`close` SIGKILLs any trainer the test saw that is still alive, by pid, then the
  init (which takes everything else in the box with it).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

__all__ = ["INIT_LIFETIME", "BoxProcess", "RemoteMachine"]

#: Seconds after which the box's init exits (and the kernel kills the rest of the box).
INIT_LIFETIME = 900

_SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# pid 1 of the box. Must not mention the trainer: the seed command greps `ps aux` for it.
_INIT = f"""
import os, time
deadline = time.monotonic() + {INIT_LIFETIME}
while time.monotonic() < deadline:
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        time.sleep(0.05)
"""

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: unshare gets SIGKILL if pytest goes away,
    # and --kill-child passes that on to the box's init.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _which(name: str) -> str:
    found = shutil.which(name, path=_SYSTEM_PATH)
    if found is None:
        raise RuntimeError(f"{name} not found in {_SYSTEM_PATH}")
    return found


class BoxProcess(NamedTuple):
    host_pid: int
    box_pid: int
    argv: list[str]


def _stat_fields(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def alive(host_pid: int) -> bool:
    """True while ``host_pid`` exists and is not a zombie."""
    fields = _stat_fields(host_pid)
    return fields is not None and fields[0] not in (b"Z", b"X")


def wait_dead(host_pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(host_pid):
            return True
        time.sleep(0.02)
    return False


class RemoteMachine:
    """The stand-in GPU box (see the module docstring). A context manager."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._unshare: subprocess.Popen[bytes] | None = None
        self.init_pid = 0
        self._ns = ""
        self._seen_trainers: set[int] = set()
        self._spawned: list[subprocess.Popen[bytes]] = []

    # -- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> RemoteMachine:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> RemoteMachine:
        self._unshare = subprocess.Popen(
            [
                _which("unshare"),
                "--pid",
                "--fork",
                "--mount-proc",
                "--kill-child",
                sys.executable,
                "-IS",
                "-c",
                _INIT,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + 10
        while not self.init_pid:
            if self._unshare.poll() is not None:
                raise RuntimeError(f"unshare exited with status {self._unshare.returncode}")
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("the box's init did not start")
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    fields = _stat_fields(int(entry))
                    if fields is not None and int(fields[1]) == self._unshare.pid:
                        # Wait for the exec: /proc is mounted in the box by then.
                        with open(f"/proc/{entry}/cmdline", "rb") as f:
                            execed = f.read().startswith(os.fsencode(sys.executable) + b"\0-IS")
                        if execed:
                            self.init_pid = int(entry)
                            self._ns = os.readlink(f"/proc/{entry}/ns/pid")
            time.sleep(0.01)
        return self

    def close(self) -> None:
        """Kill, by pid, every trainer seen that is still alive, then the box's init."""
        for pid in sorted(self._seen_trainers):
            if self._is_box_trainer(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.init_pid and alive(self.init_pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.init_pid, signal.SIGKILL)
        if self._unshare is not None:
            try:
                self._unshare.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._unshare.kill()
                self._unshare.wait(timeout=10)
            self._unshare = None
        for proc in self._spawned:  # nsenter parents: their child died with the box
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self._spawned.clear()

    # -- entering the box ---------------------------------------------------------------

    def _nsenter(self, workdir: str | None) -> list[str]:
        argv = [_which("nsenter"), f"--target={self.init_pid}", "--pid", "--mount"]
        if workdir is not None:
            argv.append(f"--wd={workdir}")
        return argv

    def login_shell(self, directory: Path, shell: str = "bash") -> Path:
        """Write a login shell for the test sshd that runs ``shell -c STRING`` in the box.

        sshd runs it with argv ``[name, "-c", STRING]`` in the remote home directory; it keeps
        that working directory (entering a mount namespace would reset it to ``/``).
        """
        path = directory / f"box-{shell}"
        nsenter = " ".join(shlex.quote(a) for a in self._nsenter(None))
        path.write_text(
            "#!/bin/sh\n"
            "# Login shell of the quotecheck DFlash e2e test: the session runs inside the\n"
            "# stand-in GPU box (tests/dflash_e2e/machine.py).\n"
            f'exec {nsenter} --wd="$(pwd)" -- {shlex.quote(shell)} "$@"\n'
        )
        path.chmod(0o755)
        return path

    def spawn(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        stdout: Path,
    ) -> None:
        """Start ``argv`` in the box (``argv[0]`` looked up on ``env["PATH"]``), detached."""
        with stdout.open("ab") as out:
            proc = subprocess.Popen(
                [*self._nsenter(str(cwd)), "--", *argv],
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._spawned.append(proc)

    # -- looking inside -----------------------------------------------------------------

    def processes(self) -> list[BoxProcess]:
        """The box's live (non-zombie) processes."""
        out: list[BoxProcess] = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                if os.readlink(f"/proc/{pid}/ns/pid") != self._ns or not alive(pid):
                    continue
                with open(f"/proc/{pid}/status", "rb") as f:
                    status = f.read()
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue  # exited meanwhile
            nspid = next(line.split() for line in status.splitlines() if line.startswith(b"NSpid:"))
            argv = [a.decode("utf-8", "surrogateescape") for a in cmdline.split(b"\0")[:-1]]
            out.append(BoxProcess(pid, int(nspid[-1]), argv))
        return sorted(out)

    def settled(self, timeout: float = 10) -> list[BoxProcess]:
        """The box's processes once only its init is left, or as they are after ``timeout``.

        A killed session's pipeline members exit a moment after ssh has returned (they are
        orphans that finish writing or get SIGPIPE); the caller asserts on what stays.
        """
        deadline = time.monotonic() + timeout
        while True:
            found = self.processes()
            if [p.box_pid for p in found] == [1] or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def trainers(self) -> list[BoxProcess]:
        """Live processes whose argv starts ``python3 train_dflash_online.py``."""
        found = [p for p in self.processes() if p.argv[:2] == ["python3", "train_dflash_online.py"]]
        self._seen_trainers.update(p.host_pid for p in found)
        return found

    def _is_box_trainer(self, host_pid: int) -> bool:
        try:
            if os.readlink(f"/proc/{host_pid}/ns/pid") != self._ns:
                return False
            with open(f"/proc/{host_pid}/cmdline", "rb") as f:
                return f.read().startswith(b"python3\0train_dflash_online.py\0")
        except OSError:
            return False

    def host_pid(self, box_pid: int) -> int | None:
        """The host pid of the live box process ``box_pid``."""
        for p in self.processes():
            if p.box_pid == box_pid:
                return p.host_pid
        return None
