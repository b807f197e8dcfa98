"""Run one check in a process of its own, from the server's event loop, and stop it at will.

A check takes the CPU for up to seconds (a 10,000-line script) and, on hostile input, the
limits' minutes; in a forked child it neither holds the server's interpreter (other documents
are served meanwhile, on another core) nor takes the server down if it dies. A newer edit
cancels the task awaiting a stale check, and that kills its child at once.

The child is a bare ``os.fork``: it computes, writes the pickled result to a pipe and leaves
with ``os._exit``. It never touches ``sys.stdin``/``sys.stdout`` (the server's reader thread may
hold their locks at the fork; multiprocessing's child start-up closes stdin and would wait on
them) and points file descriptors 0 and 1 at /dev/null, so nothing it does reaches the
protocol stream. Where there is no fork, the check runs in a thread (not stoppable).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import traceback
import warnings
from collections.abc import Callable
from typing import Any

READ_CHUNK = 1 << 16


class CheckFailed(Exception):
    """The check raised, its process died, or it ran out of time."""


def _child(task: Callable[..., Any], args: tuple[Any, ...], write_fd: int) -> None:
    status = 0
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        try:
            outcome: tuple[bool, Any] = (True, task(*args))
            payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:
            text = "".join(traceback.format_exception(exc))
            payload = pickle.dumps((False, text), protocol=pickle.HIGHEST_PROTOCOL)
        view = memoryview(payload)
        while view:
            written = os.write(write_fd, view)
            view = view[written:]
    except BaseException:
        status = 70
    finally:
        os._exit(status)


def _died(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the process checking it was killed by {name}{hint}"
    return f"the process checking it exited with status {os.waitstatus_to_exitcode(status)}"


class Child:
    """A forked process computing ``task(*args)``."""

    def __init__(self, task: Callable[..., Any], args: tuple[Any, ...]) -> None:
        read_fd, write_fd = os.pipe()
        with warnings.catch_warnings():  # Python 3.12+ warns on fork with threads: see above
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(task, args, write_fd)
        os.close(write_fd)
        self.pid = pid
        self.fd = read_fd
        self.status: int | None = None

    def kill(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def reap(self) -> int:
        if self.status is None:
            while True:
                try:
                    _, self.status = os.waitpid(self.pid, 0)
                    break
                except InterruptedError:
                    continue
                except ChildProcessError:
                    self.status = 0
                    break
        return self.status


async def _in_child(task: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
    loop = asyncio.get_running_loop()
    child = Child(task, args)
    chunks: list[bytes] = []
    finished: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        try:
            data = os.read(child.fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            chunks.append(data)
        elif not finished.done():
            finished.set_result(None)

    os.set_blocking(child.fd, False)
    loop.add_reader(child.fd, readable)
    try:
        try:
            await asyncio.wait_for(finished, timeout)
        except TimeoutError:
            raise CheckFailed(f"the check took longer than {timeout:g} s and was stopped"
                              ) from None
    finally:
        loop.remove_reader(child.fd)
        os.close(child.fd)
        if not finished.done() or not chunks:
            child.kill()
        status = child.reap()
    if not chunks:
        raise CheckFailed(_died(status))
    try:
        ok, value = pickle.loads(b"".join(chunks))
    except Exception as exc:
        raise CheckFailed(f"{_died(status)} (its answer was cut: {exc})") from None
    if not ok:
        raise CheckFailed(f"the check raised an exception:\n{value}")
    return value


async def run(task: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """``task(*args)`` in a child process (a thread where there is no fork); raises
    CheckFailed if it fails, asyncio.CancelledError (the child killed) if cancelled."""
    if hasattr(os, "fork"):
        return await _in_child(task, args, timeout)
    try:
        return await asyncio.wait_for(asyncio.to_thread(task, *args), timeout)
    except TimeoutError:
        raise CheckFailed(f"the check took longer than {timeout:g} s") from None
    except Exception as exc:
        raise CheckFailed(f"the check raised {type(exc).__name__}: {exc}") from exc
