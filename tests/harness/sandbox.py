"""Run a command where it can write only one directory, see only its own processes and reach
no network: for running scripts the tests did not write (rule examples, generated scripts)
whose redirections or `kill` could otherwise touch the machine.

It uses Linux namespaces (``unshare``: a private mount namespace in which ``/`` is remounted
read-only and the work directory bound writable on top, a new PID namespace so `kill` reaches
only the sandbox's processes, and a new network namespace). Where that is not allowed (an
unprivileged CI container), :func:`available` says so and the tests that need it skip.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["available", "sandboxed"]

# Inside the new namespaces: make the work directory its own writable mount, then the root
# read-only; refuse to go on if the root is still writable. Then run the command and wait for
# what it left running in the background.
_SETUP = r"""set -e
W=$1; shift
P=$PATH
PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount --make-rprivate /
mount --bind "$W" "$W"
mount -o remount,ro,bind /
if ( : > /.qc-sandbox-probe ) 2>/dev/null; then rm -f /.qc-sandbox-probe; exit 97; fi
PATH=$P
"$@"
status=$?
# This shell is the namespace's init: when it exits, every process left is killed. Give
# background jobs of the command a moment (at most 5 s) to finish first.
i=0
while [ "$i" -lt 100 ]; do
  set -- /proc/[0-9]*
  [ "$#" -gt 1 ] || break
  /bin/sleep 0.05  # by path: PATH may hold a stub of that name
  i=$((i + 1))
done
exit "$status"
"""


def sandboxed(argv: list[str], writable: Path) -> list[str]:
    """``argv`` wrapped so that it runs in the sandbox with ``writable`` as its only
    writable directory (everything else read-only; /dev stays as it is)."""
    unshare = shutil.which("unshare", path="/usr/bin:/bin")
    if unshare is None:
        raise FileNotFoundError("unshare")
    return [unshare, "--mount", "--net", "--pid", "--fork", "--mount-proc",
            "/bin/sh", "-c", _SETUP, "sandbox", str(writable), *argv]


@functools.cache
def available() -> bool:
    """Whether this machine lets the tests build the sandbox (checked once)."""
    if shutil.which("unshare", path="/usr/bin:/bin") is None:
        return False
    with tempfile.TemporaryDirectory(prefix="qc-sandbox-") as tmp:
        try:
            run = subprocess.run(sandboxed(["/bin/sh", "-c", f": > {tmp}/ok"], Path(tmp)),
                                 capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return run.returncode == 0 and (Path(tmp) / "ok").exists()
