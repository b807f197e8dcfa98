"""QC203 ssh-waits-for-background, checked against a real sshd.

Each remote script starts `sleep 4` in the background and nothing else, so ssh returns at
once unless the session waits for the job. The rule must fire exactly for the scripts that
made ssh wait, with bash and with dash as the login shell. This is where the rule's facts come
from: stdout and stderr matter, stdin does not, and bash keeps a subshell (holding the channel)
for a compound background job while dash does not.
"""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from _support import Finder
from harness.sshd import SshServer

CODE = "QC203"
SLEEP = 4.0

# script, waits under bash, waits under dash (the expectations are the measured truth)
CASES: list[tuple[str, bool, bool]] = [
    ("sleep 4 &", True, True),
    ("sleep 4 > /dev/null &", True, True),
    ("sleep 4 2> /dev/null &", True, True),
    ("sleep 4 > /dev/null 2>&1 &", False, False),
    ("sleep 4 < /dev/null &", True, True),
    ("nohup sleep 4 > /dev/null 2>&1 &", False, False),
    ("setsid sleep 4 &", True, True),
    ("sleep 4 2>&1 > /dev/null &", True, True),
    ("exec 3<&0; sleep 4 <&3 > /dev/null 2>&1 &", False, False),  # stdin held: no wait
    ("{ sleep 4; } > /dev/null 2>&1 &", False, False),
    ("exec > /dev/null 2>&1; sleep 4 &", False, False),
    ("sleep 4 > /dev/null 2>&1 & wait", True, True),  # waits on purpose: not reported
    ("cd /tmp && sleep 4 > /dev/null 2>&1 &", True, False),
    # the recall set's accepted fixes b012/b014 (each stream redirected, after `cd ... &&`)
    ("cd /tmp && nohup sleep 4 > /dev/null 2> /dev/null < /dev/null &", True, False),
    ("cd /tmp && nohup sleep 4 < /dev/null > /dev/null 2>&1 &", True, False),
    ("cd /tmp && exec sleep 4 > /dev/null 2>&1 &", False, False),
    ("( sleep 4 > /dev/null 2>&1 ) &", False, False),
    ("( cd /tmp; sleep 4 > /dev/null 2>&1 ) &", True, False),
    ("if true; then sleep 4 > /dev/null 2>&1; fi &", True, False),
    ("cd /tmp && { sleep 4; } > /dev/null 2>&1 &", True, True),
    ("{ cd /tmp && sleep 4; } > /dev/null 2>&1 &", False, False),
    ("sleep 4 > /dev/null 2>&1 | cat > /dev/null 2>&1 &", False, False),
    ("sh -c 'sleep 4 &'", True, True),
    ("sh -c 'sleep 4 &' > /dev/null 2>&1", False, False),
]
# Scripts that wait on purpose are not reported even though ssh waits.
INTENDED = {"sleep 4 > /dev/null 2>&1 & wait"}


found = Finder(CODE)


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _time_ssh(remote: SshServer, script: str) -> float:
    start = time.monotonic()
    subprocess.run(remote.ssh_command("h", script), stdin=subprocess.PIPE, capture_output=True,
                   timeout=30)
    return time.monotonic() - start


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_rule_fires_exactly_when_sshd_waits(remote: SshServer, shell: str) -> None:
    remote.set_login_shell(shell)
    with ThreadPoolExecutor(max_workers=len(CASES)) as pool:
        times = list(pool.map(lambda c: _time_ssh(remote, c[0]), CASES))
    remote.kill_sessions()
    for (script, waits_bash, waits_dash), took in zip(CASES, times, strict=True):
        waits = waits_bash if shell == "bash" else waits_dash
        # A waiting ssh lasts at least the whole sleep; one that does not wait returns long
        # before it, even with every case connecting at once.
        assert (took > SLEEP - 0.4) == waits, (script, took)
        reported = bool(found(f"ssh h {_sq(script)}", remote_shell=shell))
        assert reported == (waits and script not in INTENDED), (shell, script)


def test_unknown_login_shell_reports_the_bash_only_case_with_a_condition() -> None:
    hits = found("ssh h 'cd /srv && nohup ./server > log 2>&1 &'")
    assert len(hits) == 1
    said = hits[0][2].message
    assert said.kind == "ssh-waits-for-job"
    assert said.value("cond").startswith("if the shell is bash")
    assert "exec" in said.explanation


def test_message_names_the_open_streams_and_points_at_the_job() -> None:
    src = "ssh app1 '\ncd /srv/app\nnohup ./server --port 80 > server.log &\necho ok\n'\n"
    hits = found(src, remote_shell="bash")
    assert [(line, col) for line, col, _ in hits] == [(3, 1)]
    msg = hits[0][2].text
    assert "its stderr still goes to the ssh channel" in msg
    assert "`nohup` does not change" in msg
    assert "2>&1" in msg and "/dev/null" in msg
    assert hits[0][2].layers == ("local bash", "ssh", "remote bash")
    msg = found("ssh h 'sleep 9 2>&1 > log &'")[0][2].text
    assert "`2>&1` comes before `>`" in msg


@pytest.mark.parametrize("src", [
    "sleep 100 &",  # local: no ssh session waits
    "ssh -t h 'sleep 100 &'",  # a pty: the session does not wait (QC204's business)
    "ssh h 'echo hi &'",  # over at once
    "ssh -N -L 80:localhost:80 h",
    "ssh -f h 'sleep 100 &'",  # ssh goes to the background itself
    "ssh h bash -s <<'EOF'\nnohup ./server > log 2>&1 < /dev/null &\nEOF\n",
])
def test_not_reported(src: str) -> None:
    assert found(src) == [], src


def test_nested_layers_inherit_the_channel() -> None:
    assert len(found("ssh h 'sudo sh -c \"./server &\"'")) == 1
    assert found("ssh h 'sudo sh -c \"./server &\" > log 2>&1'") == []
    hits = found("ssh h bash -s <<'EOF'\n./server > log &\nEOF\n")
    assert [(line, col) for line, col, _ in hits] == [(2, 1)]
