"""QC301 host-key-checking-off; `ssh -G` confirms how OpenSSH reads each spelling."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
CODE = "QC301"
found = Finder(CODE)


def resolved(*options: str) -> dict[str, str]:
    ssh = shutil.which("ssh")
    if ssh is None:
        pytest.skip("no ssh client")
    out = subprocess.run([ssh, "-F", "/dev/null", "-G", *options, "example.invalid"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


def test_seed_line_1_and_the_accept_new_fix() -> None:
    src = SEED.read_text()
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 8)
    assert src[d.span[0]:d.span[1]] == "StrictHostKeyChecking=no"
    assert d.message.kind == "checking-off" and "accept-new" in d.message.explanation
    assert d.message.value("setting") == "StrictHostKeyChecking=no"
    [fix] = d.fixes
    assert fix.applicability == "unsafe"
    [edit] = fix.edits
    fixed = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    assert fixed.startswith("ssh -o StrictHostKeyChecking=accept-new -p 10638")
    assert found(fixed) == []


@pytest.mark.parametrize(("option", "checking"), [
    ("StrictHostKeyChecking=no", "false"),
    ("StrictHostKeyChecking=off", "false"),
    ("stricthostkeychecking=no", "false"),
    ("StrictHostKeyChecking no", "false"),
    ("StrictHostKeyChecking=accept-new", "accept-new"),
    ("StrictHostKeyChecking=yes", "true"),
    ("StrictHostKeyChecking=ask", "ask"),
])
def test_reported_exactly_when_ssh_turns_checking_off(option: str, checking: str) -> None:
    assert resolved("-o", option)["stricthostkeychecking"] == checking
    got = found(f"ssh -o '{option}' h true")
    assert bool(got) == (checking == "false")


@pytest.mark.parametrize(("src", "text"), [
    ("ssh -oStrictHostKeyChecking=no h true", "StrictHostKeyChecking=no"),
    ("scp -o StrictHostKeyChecking=no f h:/tmp/", "StrictHostKeyChecking=no"),
    ('rsync -a -e "ssh -o StrictHostKeyChecking=no" src/ h:dst/', "StrictHostKeyChecking=no"),
    ('export GIT_SSH_COMMAND="ssh -o UserKnownHostsFile=/dev/null"',
     "UserKnownHostsFile=/dev/null"),
    ("echo 'StrictHostKeyChecking no' >> ~/.ssh/config", "StrictHostKeyChecking no"),
    ("cat >> ~/.ssh/config <<'EOF'\nHost *\n  StrictHostKeyChecking no\nEOF\n",
     "StrictHostKeyChecking no"),
    ("cat >> ~/.ssh/config <<EOF\nHost $h\n  UserKnownHostsFile /dev/null\nEOF\n",
     "UserKnownHostsFile /dev/null"),
])
def test_written_anywhere(src: str, text: str) -> None:
    [(_, _, d)] = found(src)
    assert src[d.span[0]:d.span[1]] == text


def test_one_finding_per_place_from_the_innermost_layer() -> None:
    src = "sh -c 'ssh -o StrictHostKeyChecking=no h true'"
    [(_, col, d)] = found(src)
    assert col == src.index("Strict") + 1
    assert d.layers == ("local bash", "local sh")
    src = "ssh a 'ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null b true'"
    got = found(src)
    assert len(got) == 2 and all(d.layers[-1] == "remote shell" for _, _, d in got)


def test_known_hosts_dev_null_has_no_fix() -> None:
    [(_, _, d)] = found("ssh -o UserKnownHostsFile=/dev/null h true")
    assert d.fixes == ()
    assert d.message.kind == "known-hosts-discarded"


@pytest.mark.parametrize("src", [
    "ssh -o StrictHostKeyChecking=accept-new h true",
    "ssh -o UserKnownHostsFile=~/.ssh/known_hosts_ci h true",
    "ssh -o \"$OPTS\" h true",
    "# ssh -o StrictHostKeyChecking=no h",
    "ssh h 'echo StrictHostKeyChecking=yes'",
    "ssh -o StrictHostKeyChecking=\"$MODE\" h true",
    "ssh -o GlobalKnownHostsFile=/dev/null h true",  # the user's known_hosts still counts
])
def test_not_reported(src: str) -> None:
    assert found(src) == []


def test_odd_inputs() -> None:
    for src in ["StrictHostKeyChecking", "ssh -o", "x=StrictHostKeyChecking=no", "<<E\nE",
                "ssh -o 'StrictHostKeyChecking =  \"no\"' h"]:
        found(src)
