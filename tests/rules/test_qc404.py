"""QC404 shell-stays-pid-1. Real dash shows the fact the rule stands on: `dash -c 'prog'`
keeps dash as the parent of prog (it does not replace itself), where bash does."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest
from _support import Finder

from quotecheck.checker import Options
from quotecheck.fixer import fix_source

CODE = "QC404"
found = Finder(CODE, host="dockerfile")


def _parent_of_sleep(shell: str, script: str) -> str:
    """The command name of the process whose child `sleep` is, under ``shell -c script``."""
    exe = shutil.which(shell)
    if exe is None:
        pytest.skip(f"no {shell}")
    proc = subprocess.Popen([exe, "-c", script])
    try:
        for _ in range(100):
            out = subprocess.run(["ps", "-o", "pid=,ppid=,comm=", "--ppid", str(proc.pid)],
                                 capture_output=True, text=True, timeout=10).stdout
            if "sleep" in out:
                return shell  # sleep is the shell's child: the shell stayed
            own = subprocess.run(["ps", "-o", "comm=", "-p", str(proc.pid)],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
            if own == "sleep":
                return "sleep"  # the shell replaced itself
            time.sleep(0.05)
        raise AssertionError("sleep did not start")
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_dash_stays_bash_replaces_itself_with_a_lone_command() -> None:
    assert _parent_of_sleep("dash", "sleep 30") == "dash"
    assert _parent_of_sleep("bash", "sleep 30") == "sleep"
    assert _parent_of_sleep("bash", "cd / && sleep 30") == "sleep"  # the last of a list too
    assert _parent_of_sleep("bash", "sleep 30 | cat") == "bash"
    assert _parent_of_sleep("dash", "exec sleep 30") == "sleep"


def test_busybox_ash_replaces_itself_since_1_28() -> None:
    # busybox is not among the programs .ci/run installs: where one is on the PATH (1.28 or
    # later, as every distribution ships now), its ash execs the last simple command of -c,
    # as bash does. (Older busybox, in Alpine before 3.8, ran it as a child: busybox's history,
    # "ash: [SHELL] Optimize dash -c "command" to avoid a fork", first in 1_28_0.)
    busybox = shutil.which("busybox")
    if busybox is None:
        pytest.skip("no busybox")
    version = subprocess.run([busybox], capture_output=True, text=True, timeout=10).stdout
    major, minor = (int(x) for x in version.split()[1].lstrip("v").split(".")[:2])
    assert (major, minor) >= (1, 28)
    assert _parent_of_sleep_in(busybox, ["sh", "-c", "sleep 30"]) == "sleep"
    assert _parent_of_sleep_in(busybox, ["sh", "-c", "cd / && sleep 30"]) == "sleep"
    assert _parent_of_sleep_in(busybox, ["sh", "-c", "sleep 30 | cat"]) == "busybox"


def _parent_of_sleep_in(exe: str, args: list[str]) -> str:
    proc = subprocess.Popen([exe, *args])
    try:
        for _ in range(100):
            out = subprocess.run(["ps", "-o", "comm=", "--ppid", str(proc.pid)],
                                 capture_output=True, text=True, timeout=10).stdout
            own = subprocess.run(["ps", "-o", "comm=", "-p", str(proc.pid)],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
            if "sleep" in out:
                return own
            if own == "sleep":
                return "sleep"
            time.sleep(0.05)
        raise AssertionError("sleep did not start")
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.parametrize(("image", "severity"), [
    ("alpine:3.4", "warning"),
    ("alpine:3.7.3", "warning"),
    ("python:3.6-alpine3.7", "warning"),
    ("gliderlabs/alpine:3.4", "info"),  # named Alpine, not the official image
    ("alpine:3.8", None),
    ("alpine:3.20", None),
    ("alpine", None),
    ("node:8-alpine", None),  # which Alpine release: not shown
])
def test_alpine_before_3_8_keeps_ash(image: str, severity: str | None) -> None:
    got = [d.severity for _l, _c, d in found(f"FROM {image}\nCMD nginx -g 'daemon off;'\n")]
    assert got == ([severity] if severity else [])


@pytest.mark.parametrize(("source", "severity"), [
    # the stage that holds the CMD decides, not the file's first FROM
    ("FROM alpine:3.20 AS build\nRUN make\nFROM debian:12\nCMD ./server\n", "warning"),
    ("FROM debian:12 AS build\nRUN make\nFROM alpine:3.20\nCMD ./server\n", None),
    ("# syntax=docker/dockerfile:1\nFROM alpine:3.20\nCMD ./server\n", None),
    # a stage built on an earlier one: that one's image
    ("FROM alpine:3.20 AS core\nRUN make\nFROM core AS prod\nCMD ./server\n", None),
    ("FROM debian:12 AS core\nFROM core AS prod\nCMD ./server\n", "warning"),
])
def test_the_image_of_the_stage(source: str, severity: str | None) -> None:
    assert [d.severity for _l, _c, d in found(source)] == ([severity] if severity else [])


def test_shell_form_cmd_and_its_exec_fix() -> None:
    src = "FROM python:3.11-slim\nCMD python3 train.py --epochs 3\n"
    [(line, col, d)] = found(src)
    assert (line, col) == (2, 5) and d.severity == "warning"
    assert "SIGTERM" in d.message.explanation
    fixed = fix_source(src, Options(host="dockerfile")).text
    assert fixed == "FROM python:3.11-slim\nCMD exec python3 train.py --epochs 3\n"
    assert found(fixed) == []


@pytest.mark.parametrize("source", [
    'FROM debian\nCMD ["python3", "train.py"]\n',
    "FROM debian\nCMD exec python3 train.py\n",
    'FROM debian\nSHELL ["/bin/bash", "-c"]\nCMD python3 train.py\n',
    "FROM debian\nRUN python3 setup.py\n",
    'FROM debian\nENTRYPOINT ["/tini", "--"]\nCMD python3 train.py\n',
])
def test_not_found(source: str) -> None:
    assert found(source) == []


def test_bash_list_and_busybox_images() -> None:
    bash = 'FROM debian\nSHELL ["/bin/bash", "-c"]\nENTRYPOINT ./server | tee log\n'
    [(_, _, d)] = found(bash)
    assert d.severity == "warning"
    assert found('FROM debian\nSHELL ["/bin/bash", "-c"]\nCMD cd /srv && ./server\n') == []
    # busybox's ash replaces itself with the last command of `sh -c` (the judge of the
    # precision round ran busybox 1.35): nothing to say on Alpine
    assert found("FROM node:26-alpine\nCMD npm start\n") == []
    # an image whose shell the Dockerfile does not show: information, and it says why
    [(_, _, other)] = found("FROM myorg/base:1\nCMD ./server\n")
    assert other.severity == "info" and "may set a SHELL of its own" in other.text
