"""Run real shells, bounded in time, and ask them for ground truth.

- :func:`run_shell` runs ``bash -c SCRIPT`` / ``dash -c SCRIPT`` in a new session (process
  group); on timeout the whole group is killed (only processes this call started) and
  :class:`subprocess.TimeoutExpired` is raised.
- :func:`bash_words` / :func:`dash_words` return the words a shell produces for
  ``printf '%s\\0' WORDS``: quote removal, expansions, field splitting, globbing, exactly as
  that shell does them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping

from . import cleanup

__all__ = [
    "ShellWordsError",
    "bash_words",
    "dash_words",
    "resolve_shell",
    "run_shell",
    "shell_words",
]

# Shells are looked up here, not on the test's PATH: a stub directory may shadow names.
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


class ShellWordsError(ValueError):
    """The shell rejected the words (syntax error) or wrote to stderr."""


def resolve_shell(shell: str) -> str:
    """Absolute path of ``shell`` (a name such as ``bash``/``dash``, or a path)."""
    if "/" in shell:
        return shell
    found = shutil.which(shell, path=_SYSTEM_PATH)
    if found is None:
        raise FileNotFoundError(f"shell not found: {shell}")
    return found


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    # The child leads its own process group (start_new_session), so this reaches it and
    # everything it started that stayed in the group, and nothing else.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_shell(
    shell: str,
    script: str,
    env: Mapping[str, str] | None,
    stdin: str | bytes | None = None,
    timeout: float = 20,
    *,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``SHELL -c SCRIPT`` (argv ``[shell, "-c", script]``) and capture its output.

    ``env=None`` inherits the test process's environment. ``stdin=None`` gives ``/dev/null``
    (never the terminal). stdout/stderr are decoded as UTF-8 with ``surrogateescape``. Any
    process still in the group when the shell exits is killed; it must not outlive the test.
    """
    argv = [shell, "-c", script]
    data = stdin.encode("utf-8", "surrogateescape") if isinstance(stdin, str) else stdin
    proc = subprocess.Popen(
        argv,
        executable=resolve_shell(shell),
        env=None if env is None else dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    # Its own group gets no signal sent to pytest's: a killed run stops it by its pid.
    token = cleanup.on_exit(lambda: _kill_group(proc))
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            # A descendant that left the group (setsid) still holds the pipes: give up on them.
            proc.kill()
            proc.wait()
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            out, err = b"", b""
        raise subprocess.TimeoutExpired(
            argv,
            timeout,
            output=out.decode("utf-8", "surrogateescape"),
            stderr=err.decode("utf-8", "surrogateescape"),
        ) from exc
    finally:
        if proc.poll() is None:  # only reached on an unexpected exception
            _kill_group(proc)
            proc.wait()
        # Background jobs left in the group (``cmd &`` with output redirected) die here.
        _kill_group(proc)
        cleanup.forget(token)
    return subprocess.CompletedProcess(
        argv,
        proc.returncode,
        out.decode("utf-8", "surrogateescape"),
        err.decode("utf-8", "surrogateescape"),
    )


def shell_words(shell: str, words_source: str, timeout: float = 10) -> list[str]:
    """What ``SHELL -c "printf '%s\\0' WORDS"`` prints, split at the NULs.

    ``words_source`` is shell text and is run as is, so it can expand variables, substitute
    commands or glob; to keep that harmless and deterministic it runs in a fresh empty
    directory with a minimal environment (``PATH`` is an empty directory, so no program can be
    found by name; ``HOME=/nonexistent``; ``LC_ALL=C.UTF-8``), stdin from ``/dev/null`` and
    a timeout. A fixed first word keeps "no words" apart from "one empty word".
    Raises :class:`ShellWordsError` if the shell fails or writes to stderr.
    """
    with tempfile.TemporaryDirectory(prefix="qc-words-") as tmp:
        empty_bin = os.path.join(tmp, "bin")
        cwd = os.path.join(tmp, "cwd")
        os.mkdir(empty_bin)
        os.mkdir(cwd)
        env = {"PATH": empty_bin, "HOME": "/nonexistent", "LC_ALL": "C.UTF-8"}
        script = "printf '%s\\0' qc-sentinel " + words_source
        res = run_shell(shell, script, env, timeout=timeout, cwd=cwd)
    if res.returncode != 0 or res.stderr:
        raise ShellWordsError(
            f"{shell} exited {res.returncode} for {words_source!r}: {res.stderr.strip()}"
        )
    if not res.stdout.endswith("\0"):
        raise ShellWordsError(f"{shell} printed no words for {words_source!r}: {res.stdout!r}")
    words = res.stdout[:-1].split("\0")
    if words[0] != "qc-sentinel":
        raise ShellWordsError(f"unexpected output for {words_source!r}: {res.stdout!r}")
    return words[1:]


def bash_words(words_source: str, timeout: float = 10) -> list[str]:
    """The words bash produces for ``printf '%s\\0' WORDS`` (see :func:`shell_words`)."""
    return shell_words("bash", words_source, timeout)


def dash_words(words_source: str, timeout: float = 10) -> list[str]:
    """The words dash produces for ``printf '%s\\0' WORDS`` (see :func:`shell_words`)."""
    return shell_words("dash", words_source, timeout)
