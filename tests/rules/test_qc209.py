"""QC209 ssh-eats-stdin, with the behaviour checked against a real sshd on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _support import Finder
from harness.shells import run_shell
from harness.sshd import SshServer
from harness.stubs import StubDir

CODE = "QC209"
found = Finder(CODE)


def client(remote: SshServer, stubs: StubDir, script: str) -> subprocess.CompletedProcess[str]:
    return run_shell("bash", script, remote.client_env(stubs), timeout=30)


# -- the facts ------------------------------------------------------------------------------------

LOOP = 'while read -r h; do ssh{n} h "echo seen $h"; done <<\'EOF\'\none\ntwo\nthree\nEOF\n'


def test_real_ssh_swallows_the_loops_input(remote: SshServer, stubs: StubDir) -> None:
    eaten = client(remote, stubs, LOOP.format(n=""))
    assert eaten.stdout == "seen one\n", eaten.stderr
    fixed = client(remote, stubs, LOOP.format(n=" -n"))
    assert fixed.stdout == "seen one\nseen two\nseen three\n", fixed.stderr
    # ... and the rule sees exactly that difference.
    assert [(line, col) for line, col, _ in found(LOOP.format(n=""))] == [
        (1, LOOP.index("ssh") + 1)]
    assert found(LOOP.format(n=" -n")) == []


def test_real_ssh_swallows_the_rest_of_a_stdin_script(remote: SshServer,
                                                      stubs: StubDir) -> None:
    # The remote side's `ssh` must reach the test server too: the wrapper, first on its PATH.
    (stubs.path / "ssh").symlink_to(remote.ssh_wrapper)
    script = "ssh a bash -s <<'EOF'\nssh b true\necho after\nEOF\n"
    res = client(remote, stubs, script)
    assert res.returncode == 0 and "after" not in res.stdout, (res.stdout, res.stderr)
    fixed = client(remote, stubs, script.replace("ssh b", "ssh -n b"))
    assert fixed.stdout == "after\n", fixed.stderr
    [(line, col, d)] = found(script)
    assert (line, col, d.severity) == (2, 1, "error")
    assert (d.message.kind, d.message.value("name")) == ("reads-script-stdin", "`bash`")


def test_dash_reads_a_stdin_script_ahead() -> None:
    # Why the finding is only a warning when the reader may be dash: dash reads in blocks.
    script = "cat > /dev/null\necho after\n"
    assert run_shell("bash", "bash -s", None, stdin=script).stdout == ""
    assert run_shell("bash", "dash -s", None, stdin=script).stdout == "after\n"
    [(_, _, d)] = found("ssh a <<'EOF'\nssh b true\necho after\nEOF\n")
    assert d.severity == "warning" and d.message.value("name") == "the login shell"


# -- what counts as the loop's input --------------------------------------------------------------


@pytest.mark.parametrize("src", [
    "while read -r h; do ssh $h uptime; done < hosts",
    "cat hosts | while read -r h; do ssh $h uptime; done",
    "while read -r h; do x=$(ssh $h uptime); echo $x; done < hosts",
    "while read -r h; do if ssh $h true; then echo $h; fi; done < hosts",
    "while read -r h; do timeout 9 ssh $h up; done < hosts",
    "while true; do read -r h || break; ssh $h up; done < hosts",
    "while read -r h; do sh -c \"ssh $h uptime\"; done < hosts",
    "while IFS=: read -r h p; do ssh -p $p $h up | tee -a log; done < hosts",
])
def test_reported(src: str) -> None:
    [(line, c, d)] = found(src)
    assert (line, c) == (1, src.index("ssh ") + 1)
    assert d.severity == "error"
    assert d.related and "reads its standard input" in d.related[0].message


@pytest.mark.parametrize("src", [
    "while read -r h; do ssh -n $h uptime; done < hosts",
    "while read -r h; do ssh -f $h sleep 1; done < hosts",
    "while read -r h; do ssh $h uptime < /dev/null; done < hosts",
    "while read -r h; do ssh $h 'cat > f' < local.txt; done < hosts",
    "while read -r h; do ssh $h bash -s <<'EOF'\nuptime\nEOF\ndone < hosts",
    "while read -r h; do echo x | ssh $h cat; done < hosts",
    "while read -r h; do { ssh $h up; } < /dev/null; done < hosts",
    "while read -r h <&3; do ssh $h up; done 3< hosts",
    "while read -u 3 -r h; do ssh $h up; done 3< hosts",
    "for h in a b; do ssh $h up; done",
    "while ssh h test -f /tmp/lock; do sleep 1; done",
    "ssh h uptime",
    "ssh h bash -s <<'EOF'\nssh -n b true\necho after\nEOF\n",
    "ssh -G h",
])
def test_not_reported(src: str) -> None:
    assert found(src) == []


def test_message_names_the_loop_input_and_the_fix_adds_n() -> None:
    src = "while read -r host; do\n  ssh \"$host\" 'systemctl is-active app'\ndone < hosts.txt\n"
    [(line, col, d)] = found(src)
    assert (line, col) == (2, 3)
    assert d.message.kind == "loop-input-swallowed"
    assert d.message.value("source") == " (`< hosts.txt`)" and "`-n`" in d.message.explanation
    [fix] = d.fixes
    [edit] = fix.edits
    out = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    assert "  ssh -n \"$host\"" in out
    assert found(out) == []


def test_odd_inputs() -> None:
    for src in ["while read; do ssh; done", "while :; do ssh h; done <", "cat | while read",
                "while read x; do $ssh h; done < f", "until read x; do ssh h x; done < f"]:
        found(src)
