"""QC204 tty-kills-background, checked against a real sshd with `ssh -tt`.

Each job sleeps a second and then creates a marker file in the remote home: the marker exists
later only if the job survived the terminal's hangup. The rule must fire exactly for the jobs
that died (bash and dash login shells). Every job is started by the test's own sshd session and
any leftover is cleaned up by the harness (by session id).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from _support import Finder
from harness.sshd import SshServer

from quotecheck.positions import LineIndex

CODE = "QC204"
JOB = 'sh -c "sleep 1; touch M_{n}" > /dev/null 2>&1'

# remote script (with {job}), what happens to the job: "dies", "survives", or "race" for
# nohup/setsid as the last step, which lost every time on an idle machine but can win under
# load (the rule reports them: the job may die).
CASES: list[tuple[str, str]] = [
    ("{job} &", "dies"),
    ("nohup {job} &", "race"),
    ("setsid {job} < /dev/null &", "race"),
    ("cd /tmp && nohup {job} &", "race"),
    ("trap '' HUP; {job} &", "survives"),
    ("nohup {job} & sleep 1.5", "survives"),  # the shell keeps working: nohup had time to run
    ("{job} & sleep 0.3", "dies"),  # a plain job dies whenever the shell exits
    ("{job} & wait", "survives"),
    ("(trap '' HUP; exec {job}) &", "race"),  # the trap comes late, inside the job
]


found = Finder(CODE)


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_rule_fires_exactly_when_the_hangup_kills_the_job(remote: SshServer, shell: str) -> None:
    remote.set_login_shell(shell)
    scripts = [case.format(job=JOB.format(n=i)) for i, (case, _) in enumerate(CASES)]

    def run(script: str) -> None:
        subprocess.run(remote.ssh_command("-tt", "h", script), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=30)

    with ThreadPoolExecutor(max_workers=len(scripts)) as pool:
        list(pool.map(run, scripts))
    # Survivors write their marker a second after they start; give them time, then a margin
    # in which a job wrongly counted dead would have written its marker too.
    markers = [remote.home / f"M_{i}" for i in range(len(CASES))]
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline and not all(
            m.exists() for m, (_, fate) in zip(markers, CASES, strict=True) if fate == "survives"):
        time.sleep(0.1)
    time.sleep(1.0)
    survived = [m.exists() for m in markers]
    remote.kill_sessions()
    race_lost = 0
    for (case, fate), script, alive in zip(CASES, scripts, survived, strict=True):
        if fate == "race":
            race_lost += not alive
        else:
            assert alive == (fate == "survives"), (shell, case)
        reported = bool(found(f"ssh -tt h {_sq(script)}", remote_shell=shell))
        assert reported == (fate != "survives"), (shell, case)
    # The races are real: at least one of them is lost here too.
    assert race_lost >= 1


def test_without_a_terminal_the_job_survives(remote: SshServer) -> None:
    script = JOB.format(n="notty") + " &"
    subprocess.run(remote.ssh_command("h", script), stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=30)
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline and not (remote.home / "M_notty").exists():
        time.sleep(0.1)
    assert (remote.home / "M_notty").exists()
    assert found(f"ssh h {_sq(script)}") == []


def test_message_and_position() -> None:
    src = "ssh -t -o ConnectTimeout=5 box '\ncd /srv\nnohup ./collector > c.log 2>&1 &\n'\n"
    hits = found(src)
    assert [(line, col) for line, col, _ in hits] == [(3, 1)]
    d = hits[0][2]
    assert d.message.kind == "tty-hangup-kills-job" and d.message.value("flag") == "-t"
    assert "trap '' HUP" in d.message.explanation
    assert d.message.value("nohup").startswith(" `nohup` does not save it")
    # the related location is the -t word on line 1
    assert d.related and LineIndex(src).position(d.related[0].span[0]) == (0, 4)


@pytest.mark.parametrize("src", [
    "ssh -o RequestTTY=force h 'app > log 2>&1 &'",
    "ssh -o requesttty=yes h 'app > log 2>&1 &'",
    "ssh -tt h 'cd /x; app &'",
])
def test_tty_requests(src: str) -> None:
    assert len(found(src)) == 1


@pytest.mark.parametrize("src", [
    "ssh -t h 'top'",
    "ssh -T h 'app > log 2>&1 &'",
    "ssh -t -T h 'app > log 2>&1 &'",  # the last of -t/-T wins: no terminal
    "ssh h 'app > log 2>&1 &'",
    "ssh -t h 'trap \"\" HUP; app > log 2>&1 &'",
])
def test_not_reported(src: str) -> None:
    assert found(src) == [], src


NODE_JOB = ("node -e 'setTimeout(() => require(\"fs\").writeFileSync(\"N_{n}\", \"\"), 2500)' "
            "> /dev/null 2>&1 < /dev/null")
# remote script (with {job}), whether the node job survives the hangup a second later
NODE_CASES: list[tuple[str, bool]] = [
    ("nohup {job} & sleep 1", False),
    ("trap '' HUP; {job} & sleep 1", False),
    ("setsid {job} & sleep 1", True),
    ("setsid nohup {job} & sleep 1", True),
]


@pytest.mark.skipif(shutil.which("node") is None, reason="no node")
def test_node_sets_sighup_back_so_only_setsid_saves_it(remote: SshServer) -> None:
    """openshift/origin-server#5520: `nohup supervisor server.js & date > stamp` under `ssh -t`
    and the supervisor dies with the terminal. node restores an ignored SIGHUP to its default
    when it starts, so neither nohup nor `trap '' HUP` keeps it alive; setsid does."""
    scripts = [case.format(job=NODE_JOB.format(n=i)) for i, (case, _) in enumerate(NODE_CASES)]

    def run(script: str) -> None:
        subprocess.run(remote.ssh_command("-tt", "h", script), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=30)

    with ThreadPoolExecutor(max_workers=len(scripts)) as pool:
        list(pool.map(run, scripts))
    deadline = time.monotonic() + 8
    markers = [remote.home / f"N_{i}" for i in range(len(NODE_CASES))]
    while time.monotonic() < deadline and not all(
            m.exists() for m, (_, lives) in zip(markers, NODE_CASES, strict=True) if lives):
        time.sleep(0.1)
    time.sleep(1.0)
    survived = [m.exists() for m in markers]
    remote.kill_sessions()
    for (case, lives), script, alive in zip(NODE_CASES, scripts, survived, strict=True):
        assert alive == lives, case
        assert bool(found(f"ssh -tt h {_sq(script)}")) == (not lives), case


@pytest.mark.parametrize(("src", "reported"), [
    ("ssh -t n 'nohup supervisor /opt/proxy/server.js > /tmp/p.log 2>&1 < /dev/null & "
     "date > /tmp/p.stamp'", True),
    ("ssh -t n 'setsid nohup supervisor /opt/proxy/server.js > /tmp/p.log 2>&1 < /dev/null & "
     "date > /tmp/p.stamp'", False),
    ("ssh -tt n 'trap \"\" HUP; npm start > log 2>&1 & sleep 5'", True),
    ("ssh -tt n 'nohup ./server > log 2>&1 & sleep 5'", False),  # keeps SIGHUP ignored
    ("ssh n 'nohup node app.js > log 2>&1 &'", False),  # no terminal
])
def test_nohup_does_not_save_a_node_program(src: str, reported: bool) -> None:
    hits = found(src)
    assert bool(hits) is reported, src
    if reported:
        assert "runs on node" in hits[0][2].text and "setsid" in hits[0][2].text
