"""The watchdog: stop a rule that runs past its time or grows the process past its memory.

``Watchdog`` raises ``Stopped`` in the thread that entered it once its time is up or resident
memory (Linux: /proc/self/statm) has grown by more than its limit; one watcher thread serves
every watchdog. ``checker.run_rules`` runs the rules inside one.
"""

from __future__ import annotations

import os
import threading
import time

# queue.SimpleQueue and queue.Empty are these C types; the queue module itself (heapq, its Queue
# classes) costs start-up time on every check.
from _queue import Empty, SimpleQueue
from types import TracebackType


class Stopped(BaseException):
    """Raised in a rule still running when the rule time or memory is used up (a BaseException:
    no rule's ``except Exception`` swallows it)."""


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> bool:
    """Raise ``exc`` asynchronously in a thread (``None``: withdraw one not raised yet)."""
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
        set_async_exc(ctypes.c_ulong(thread_id),
                      ctypes.py_object(exc) if exc is not None else None)
    except Exception:  # not CPython: the time is only checked between rules
        return False
    return True


def _resident_bytes() -> int | None:
    """This process's resident memory now (Linux), or None."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


def _page_size() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 4096


_PAGE_SIZE = _page_size()
# How often the watchdog looks at the memory while rules run.
_MEMORY_POLL = 0.05


class Watchdog:
    """Raises Stopped in the thread that entered it once ``seconds`` have passed or the
    process has grown by more than ``max_growth`` bytes, unless it has been left by then.

    One watcher thread (``_WATCHER``) serves every watchdog: entering and leaving one costs a
    few microseconds, not a thread start. A thread rather than SIGALRM: it works in any thread
    and leaves the alarm to whoever else uses it (the parser's time limit, libFuzzer).

    The exception can arrive at any bytecode of the watched thread, so that thread takes no
    lock to hand the watchdog back: whichever of the two threads takes it out of the watcher's
    table first (one atomic ``dict.pop``) decides whether it fires. A lock taken there could be
    left held by an exception arriving just after it was acquired."""

    def __init__(self, seconds: float, max_growth: int) -> None:
        self.thread_id = threading.get_ident()
        self.deadline = time.monotonic() + max(seconds, 0.0)
        self.max_growth = max_growth
        self.base: int | None = None  # the memory when the watcher first looked
        self.reason: str | None = None  # set when the watcher takes it: "time" or "memory"
        self.fired = False  # the exception was raised in the thread (or is on its way)
        self.settled = False  # the watcher is done with it

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def __enter__(self) -> Watchdog:
        _WATCHER.add(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if _WATCHER.take(self) or isinstance(exc, Stopped):
            return  # it never fires now, or it has fired and the exception is here
        # The watcher took it first: its exception is on its way (or it could not be raised);
        # wait for it here, where it cannot land anywhere else (the caller catches it).
        while not self.settled:
            time.sleep(0.0005)
        for _ in range(2000):  # it arrives at once; give up after a second all the same
            if not self.fired:
                return
            time.sleep(0.0005)
        _raise_in(self.thread_id, None)


class _Watcher:
    """The thread that watches every running Watchdog; started on first use, and again in a
    forked child (threads do not survive a fork)."""

    def __init__(self) -> None:
        self.watching: dict[int, Watchdog] = {}
        # Wakes the watcher for a new dog: SimpleQueue.put is one C call, no Python-level lock
        # an exception could leave held (a threading.Event takes one).
        self.wake: SimpleQueue[None] = SimpleQueue()
        self.thread: threading.Thread | None = None

    def add(self, dog: Watchdog) -> None:
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, daemon=True,
                                           name="quotecheck-rule-watchdog")
            self.thread.start()
        self.watching[id(dog)] = dog
        self.wake.put(None)

    def take(self, dog: Watchdog) -> bool:
        """Take ``dog`` out of the table; False if the watcher has taken it (to fire)."""
        return self.watching.pop(id(dog), None) is not None

    def _sleep(self, seconds: float | None) -> None:
        """Until a dog is added, or ``seconds`` have passed (None: no time limit)."""
        try:
            self.wake.get(timeout=seconds)
            while True:
                self.wake.get_nowait()
        except Empty:
            pass

    def _run(self) -> None:
        while True:
            if not self.watching:
                self._sleep(None)
            now = time.monotonic()
            resident = _resident_bytes()
            for dog in list(self.watching.values()):
                if dog.base is None:
                    dog.base = resident
                if now >= dog.deadline:
                    reason = "time"
                elif resident is not None and dog.base is not None and \
                        resident - dog.base > dog.max_growth:
                    reason = "memory"
                else:
                    continue
                if self.watching.pop(id(dog), None) is None:
                    continue  # the thread took it back first
                dog.reason = reason
                dog.fired = _raise_in(dog.thread_id, Stopped)
                dog.settled = True
            deadlines = [dog.deadline for dog in list(self.watching.values())]
            if deadlines:
                self._sleep(max(min(min(deadlines) - now, _MEMORY_POLL), 0.001))


_WATCHER = _Watcher()


def _after_fork_in_child() -> None:
    global _WATCHER
    _WATCHER = _Watcher()  # the parent's watcher thread is not in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
