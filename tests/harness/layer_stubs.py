"""Recording stand-ins for the programs that open a layer: ``ssh`` and the shells.

They write to a :class:`~harness.stubs.StubDir`'s log in its format (argv byte exact, plus
``stdin`` when they read it), so one list of records shows the local commands, what each
layer was handed, and (when the layers run) what ran on the other side.

- ``ssh``: records its argv; reads its standard input as ssh does (all of it, unless ``-n``),
  recorded as ``stdin``. With ``run_inner`` it then does what sshd does with the command: the
  words after the destination joined with spaces and run by the remote login shell as
  ``SHELL -c COMMAND`` (with no command, the shell reads its script from the input), in the
  "remote" directory with ``HOME`` there and the stubs first on ``PATH``; its status is ssh's.
- ``sh``, ``bash``, ``dash``: record their argv (and their input when they read their script
  from it: ``-s`` or no script argument); with ``run_inner`` they then run as the real shell
  with that argv and input.

- ``sudo``, ``timeout``, ``nohup``, ``env``, ``nice``: record their argv; with ``run_inner``
  they then run the command they were given (found on ``PATH``: the stubs).

Without ``run_inner`` nothing behind the layer runs: the records then show exactly what each
layer received.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from harness.stubs import StubDir
from quotecheck.layers.ssh import SSH_GRAMMAR

__all__ = ["SSH_ARG_OPTIONS", "WRAPPERS", "install_layer_stubs", "split_ssh"]

#: ssh options that take an argument: quotecheck's one table of them (layers/ssh.py).
SSH_ARG_OPTIONS = SSH_GRAMMAR.short_values

_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"

_COMMON = r'''#!{python} -IS
import json, os, subprocess, sys

LOG = {log!r}
RUN_INNER = {run_inner!r}
REAL = {real!r}
REMOTE_DIR = {remote_dir!r}
REMOTE_SHELL = {remote_shell!r}
STUBS = {stubs!r}
ARG_OPTIONS = {arg_options!r}


def text(arg):
    return os.fsencode(arg).decode("utf-8", "surrogateescape")


def record(argv, stdin=None):
    rec = {{"argv": [text(a) for a in argv], "pid": os.getpid(), "ppid": os.getppid(),
            "cwd": text(os.getcwd())}}
    if stdin is not None:
        rec["stdin"] = stdin.decode("utf-8", "surrogateescape")
    line = (json.dumps(rec, ensure_ascii=True) + "\n").encode("ascii")
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read_stdin():
    try:
        return sys.stdin.buffer.read()
    except (OSError, AttributeError, ValueError):
        return b""
'''

_SSH = r'''

def split(args):
    """(options, destination index, command words) of ssh's arguments."""
    i = 0
    no_stdin = False
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        j = 1
        while j < len(a):
            if a[j] in ARG_OPTIONS:
                if j == len(a) - 1:
                    i += 1
                break
            if a[j] == "n":
                no_stdin = True
            j += 1
        i += 1
    return no_stdin, i, args[i + 1:]


def main():
    args = sys.argv[1:]
    no_stdin, dest, command = split(args)
    data = b"" if no_stdin else read_stdin()
    record(["ssh", *args], data)
    if not RUN_INNER or dest >= len(args):
        os._exit(0)
    env = {"PATH": STUBS, "HOME": REMOTE_DIR, "LC_ALL": "C.UTF-8", "USER": "remote"}
    argv = [REMOTE_SHELL, "-c", " ".join(command)] if command else [REMOTE_SHELL]
    run = subprocess.run(argv, input=data, cwd=REMOTE_DIR, env=env)
    os._exit(255 if run.returncode < 0 else run.returncode)


main()
'''

_SHELL = r'''

def reads_script_from_stdin(args):
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return i + 1 >= len(args)
        if a.startswith(("-", "+")) and len(a) > 1 and not a.startswith("--"):
            if "c" in a[1:]:
                return False
            if "s" in a[1:]:
                return True
            i += 2 if a[1:] in ("o", "O") else 1
            continue
        if a.startswith("--"):
            i += 1
            continue
        return False  # a script file
    return True


def main():
    args = sys.argv[1:]
    data = read_stdin() if reads_script_from_stdin(args) else None
    record([os.path.basename(sys.argv[0]), *args], data)
    if not RUN_INNER:
        os._exit(0)
    run = subprocess.run([REAL, *args], input=data,
                         stdin=None if data is not None else sys.stdin)
    os._exit(255 if run.returncode < 0 else run.returncode)


main()
'''


_WRAPPER = r'''

# Options that take an argument, and where the command starts, per wrapper.
TAKES = {"sudo": "uUgCDhprtT", "timeout": "sk", "nohup": "", "env": "uCS", "nice": "n"}


def command_start(name, args):
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return i + 1
        if name == "env" and "=" in a and not a.startswith("-"):
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            if name == "sudo" and a[1:2] in ("i", "s"):
                return None  # a login shell chosen by sudo: not modelled
            if not a.startswith("--") and a[-1] in TAKES[name] and len(a) == 2:
                i += 2
            else:
                i += 1
            continue
        break
    if name == "timeout":
        i += 1  # the duration
    return i


def main():
    name = os.path.basename(sys.argv[0])
    args = sys.argv[1:]
    # Not run, the command's input is what the wrapper was handed: keep it.
    record([name, *args], None if RUN_INNER else read_stdin())
    start = command_start(name, args)
    if not RUN_INNER or start is None or start >= len(args):
        os._exit(0)
    env = dict(os.environ)
    if name == "env":
        env.update(a.split("=", 1) for a in args[:start] if "=" in a and not a.startswith("-"))
    try:
        run = subprocess.run(args[start:], env=env)
    except OSError:
        os._exit(127)
    os._exit(255 if run.returncode < 0 else run.returncode)


main()
'''

#: Programs that run a command given as their arguments; with ``run_inner`` their stand-ins
#: record their argv and then run it.
WRAPPERS = ("sudo", "timeout", "nohup", "env", "nice")


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def install_layer_stubs(stubs: StubDir, remote_dir: Path, *, run_inner: bool,
                        remote_shell: str = "bash", posix_shell: str = "dash") -> None:
    """Put ``ssh``, ``sh``, ``bash``, ``dash`` and the :data:`WRAPPERS` stand-ins into
    ``stubs`` (see module doc)."""
    remote = shutil.which(remote_shell, path=_SYSTEM_PATH) or remote_shell
    # ``posix_shell``: the program behind `sh` and `dash` (bash, to ask what bash does).
    programs = [("ssh", _SSH, ""), ("sh", _SHELL, posix_shell), ("bash", _SHELL, "bash"),
                ("dash", _SHELL, posix_shell), *((w, _WRAPPER, "") for w in WRAPPERS)]
    for name, body, real in programs:
        program = shutil.which(real, path=_SYSTEM_PATH) if real else ""
        header = _COMMON.format(python=sys.executable, log=str(stubs.log), run_inner=run_inner,
                                real=program or "", remote_dir=str(remote_dir),
                                remote_shell=remote, stubs=str(stubs.path),
                                arg_options=SSH_ARG_OPTIONS)
        _write(stubs.path / name, header + body)


def split_ssh(argv: list[str]) -> tuple[list[str], list[str]]:
    """An ssh record's argv as (everything up to the destination, the command words)."""
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        for j in range(1, len(a)):
            if a[j] in SSH_ARG_OPTIONS:
                if j == len(a) - 1:
                    i += 1
                break
        i += 1
    return argv[:i + 2], argv[i + 2:]
