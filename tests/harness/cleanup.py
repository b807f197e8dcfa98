"""What the tests started and must stop, even when the run is killed.

A process started in a session of its own (sshd, so that a Ctrl-C aimed at pytest does not hit
it first) gets none of the signals sent to pytest's process group, and a SIGTERM kills Python
without running fixture teardowns, ``finally`` blocks or ``atexit``. So whatever starts such a
process registers how to stop it (:func:`on_exit`, by pid: only what the tests started), and
:func:`install` (called from ``pytest_configure``, in every xdist worker as well) makes sure it
runs: at a normal exit (``atexit``, and ``pytest_unconfigure``), and on SIGTERM and SIGINT,
before the signal takes its course (SIGTERM: the process dies of it as it would have; SIGINT:
pytest's KeyboardInterrupt, whose teardowns find everything stopped already).
"""

from __future__ import annotations

import atexit
import itertools
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

__all__ = ["forget", "install", "on_exit", "stop_all"]

_stoppers: dict[int, Callable[[], None]] = {}
_tokens = itertools.count(1)
# Tests register from threads too (run_shell in a pool); re-entrant: the signal handler runs
# in the main thread, which may hold it already.
_lock = threading.RLock()
_previous: dict[int, object] = {}
_installed = False
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def alive(pid: int) -> bool:
    """``pid`` exists and is not a zombie (a zombie has stopped; only its parent's wait is due)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2:].split()[0] != b"Z"


def on_exit(stop: Callable[[], None]) -> int:
    """Run ``stop`` when the run ends or is killed, unless :func:`forget` is called first
    with the token returned."""
    with _lock:
        token = next(_tokens)
        _stoppers[token] = stop
    return token


def forget(token: int) -> None:
    with _lock:
        _stoppers.pop(token, None)


def stop_all() -> None:
    """Run every registered stop, the newest first; one failing does not keep the others
    from running."""
    while True:
        with _lock:
            if not _stoppers:
                return
            stop = _stoppers.pop(max(_stoppers))
        try:
            stop()
        except Exception as exc:  # a cleanup that fails must not stop the next one
            print(f"harness cleanup: {exc!r}", file=sys.stderr)


def _forked() -> None:
    """A forked child (a multiprocessing worker of the code under test) owns none of it: a
    SIGTERM from its pool must not stop the parent's sshd."""
    global _lock
    _lock = threading.RLock()  # (another thread may have held it at the fork)
    _stoppers.clear()


os.register_at_fork(after_in_child=_forked)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    stop_all()
    previous = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)  # SIGINT: pytest's KeyboardInterrupt
        return
    if previous == signal.SIG_IGN:
        return
    # As if the handler had never been there: the process dies of the signal.
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install() -> None:
    """Stop what was registered at exit and on SIGTERM/SIGINT (once per process; signal
    handlers only from the main thread, where Python runs them)."""
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(stop_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _SIGNALS:
        _previous[signum] = signal.getsignal(signum)
        signal.signal(signum, _on_signal)
