"""Worker processes that survive the death of one of them.

``concurrent.futures.ProcessPoolExecutor`` does the work; what it lacks is the answer to "a
worker died": it then fails every task in flight and refuses new ones. Here the pool is replaced,
the task whose result was wanted is run again alone in a process of its own (so a task that
kills its process is told apart from the ones that were merely in flight with it), and the other
tasks in flight go to the new pool.

On Linux the workers are forked: they start with everything the parent has imported and loaded,
and share those pages with it.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any

_TASK: Callable[[Any], Any] | None = None  # in a worker: what to do with each item


class WorkerDied(Exception):
    """The process running a task ended without a result (a crash, a signal, os._exit)."""


def _quiet_interrupt() -> None:
    """Ctrl-C ends a worker without a traceback: the parent reports the interruption."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not if ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def _set_task(task: Callable[[Any], Any]) -> None:
    global _TASK
    _quiet_interrupt()
    _TASK = task


def _run(item: Any) -> Any:
    assert _TASK is not None
    return _TASK(item)


def _run_and_send(task: Callable[[Any], Any], item: Any, conn: Any) -> None:
    _quiet_interrupt()
    try:
        outcome: tuple[bool, Any] = (True, task(item))
    except BaseException as exc:  # sent back and raised there, as a pool would
        outcome = (False, exc)
    try:
        conn.send(outcome)
    except Exception:  # the exception does not pickle: send its traceback as text
        conn.send((False, RuntimeError("".join(traceback.format_exception(outcome[1])))))
    conn.close()


def _context() -> Any:
    if sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def why_it_died(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the process checking it was killed by {name}{hint}"
    return f"the process checking it exited with status {exitcode} before it was done"


class Handle:
    """A task handed to the workers."""

    def __init__(self, item: Any, future: Future[Any]) -> None:
        self.item = item
        self.future = future


class Workers:
    """``n`` processes running ``task(item)``; results are taken in any order by handle."""

    def __init__(self, n: int, task: Callable[[Any], Any]) -> None:
        self.n = n
        self.task = task
        self.context = _context()
        self.pending: dict[Handle, None] = {}  # in submission order
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.n, mp_context=self.context, initializer=_set_task,
                                   initargs=(self.task,))

    def _future(self, item: Any) -> Future[Any]:
        try:
            return self.pool.submit(_run, item)
        except BrokenProcessPool as exc:  # a worker died meanwhile: resubmitted by result()
            future: Future[Any] = Future()
            future.set_exception(exc)
            return future

    def submit(self, item: Any) -> Handle:
        future = self._future(item)
        handle = Handle(item, future)
        self.pending[handle] = None
        return handle

    def result(self, handle: Handle) -> Any:
        """The task's result (its exception is raised here); WorkerDied if it killed its
        process."""
        self.pending.pop(handle, None)
        try:
            return handle.future.result()
        except BrokenProcessPool:
            pass
        # Some task in flight killed a worker, this one or another: find out which by running
        # this one alone (forked before the new pool's threads exist), then carry on with a new
        # pool.
        self.pool.shutdown(wait=True)
        try:
            return self._alone(handle.item)
        finally:
            self.pool = self._new_pool()
            for other in self.pending:
                # the broken pool failed all its unfinished tasks; the finished keep their results
                lost = other.future.done() and (other.future.cancelled() or isinstance(
                    other.future.exception(), BrokenProcessPool))
                if lost:
                    # (the new pool may break too, by a task resubmitted just before: then
                    # this one's result() finds out as above)
                    other.future = self._future(other.item)

    def _alone(self, item: Any) -> Any:
        reader, writer = self.context.Pipe(duplex=False)
        process = self.context.Process(target=_run_and_send, args=(self.task, item, writer),
                                       daemon=True)
        process.start()
        writer.close()
        try:
            ok, value = reader.recv()
        except EOFError:
            process.join()
            raise WorkerDied(why_it_died(process.exitcode)) from None
        finally:
            reader.close()
        process.join()
        if not ok:
            raise value
        return value

    def close(self, at_once: bool = False) -> None:
        """Wait for the workers to finish; ``at_once`` (Ctrl-C, a closed pipe, an error):
        stop them first. Ctrl-C reaches the workers too, and one that dies holding the task
        queue's lock leaves the others, and a waiting shutdown, blocked for good."""
        if not at_once:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        # The pool keeps its processes by pid (CPython's ProcessPoolExecutor._processes).
        table = getattr(self.pool, "_processes", None) or {}
        running = list(table.values())
        for process in running:
            process.terminate()
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in running:
            process.join(timeout=5)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close(at_once=kind is not None)
