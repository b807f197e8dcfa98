"""Stand-in for train_dflash_online.py (quotecheck DFlash end-to-end test).

Copied to ``<box>/root/train_dflash_online.py`` and started as
``python3 train_dflash_online.py --target-model ...``, like the real trainer. It appends one
JSON line per event to ``trainer-runs.jsonl`` next to itself:

- ``start``: pid (as seen in the box's PID namespace), argv, /proc/self/cmdline,
  PYTORCH_CUDA_ALLOC_CONF, the venv marker, cwd, where fds 0/1/2 point, time;
- ``sigterm`` and ``exit`` when it is asked to stop.

On SIGTERM it waits ``exit_delay`` seconds (from ``train_dflash_online.exit_delay`` next to it,
default 0) before exiting: a real trainer takes a while to release its GPUs. It never runs
longer than ten minutes, so a leaked stand-in goes away by itself.

The restart command greps this file for its "new features"; they are named here so the
count is not zero: overlap_pool, build_batches_from_preloaded, Pre-loading dataset.
"""

import json
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "trainer-runs.jsonl")
DELAY_FILE = os.path.join(HERE, "train_dflash_online.exit_delay")
MAX_LIFETIME = 600.0


def log(event, **fields):
    record = {"event": event, "pid": os.getpid(), "time": time.time(), **fields}
    line = (json.dumps(record) + "\n").encode()
    fd = os.open(RUNS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def fd_target(fd):
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def on_sigterm(signum, frame):
    try:
        with open(DELAY_FILE) as f:
            delay = float(f.read().strip() or 0)
    except FileNotFoundError:
        delay = 0.0
    log("sigterm", exit_delay=delay)
    time.sleep(delay)
    log("exit")
    os._exit(128 + signal.SIGTERM)


def main():
    with open("/proc/self/cmdline", "rb") as f:
        cmdline = f.read().split(b"\0")[:-1]
    log(
        "start",
        ppid=os.getppid(),
        argv=sys.argv,
        cmdline=[a.decode("utf-8", "surrogateescape") for a in cmdline],
        PYTORCH_CUDA_ALLOC_CONF=os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
        venv_active=os.environ.get("DFLASH_STANDIN_VENV_ACTIVE"),
        cwd=os.getcwd(),
        fds=[fd_target(0), fd_target(1), fd_target(2)],
    )
    signal.signal(signal.SIGTERM, on_sigterm)
    print(f"Pre-loading dataset (stand-in trainer, pid {os.getpid()})", flush=True)
    deadline = time.monotonic() + MAX_LIFETIME
    while time.monotonic() < deadline:
        time.sleep(0.5)


main()
