"""A value the script itself set, put in by the local shell, is part of the exact text the next
layer receives: ssh sends it, the remote shell parses it, and the rules judge it as exact, as if
it had been written there (issue 27: `APP=train_dflash; ssh h "pkill -f $APP; ..."` was silent,
while the same command written with `train_dflash` is QC201's seed).

What ssh sends is checked against real bash running the command with a stub `ssh` on PATH that
records the argv it was given. Where the value is not certain (set in one branch, read from
input), the words stay dynamic and nothing loud is said about them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from harness.stubs import StubDir
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import check_source
from quotecheck.cli import main
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parent.parent
SEED_VAR = ('APP=train_dflash; ssh -o BatchMode=yes -o ConnectTimeout=10 gpu1 '
            '"pkill -f $APP; sleep 3; nohup python3 $APP.py >log 2>&1 &"')
SEED_LITERAL = ('ssh -o BatchMode=yes -o ConnectTimeout=10 gpu1 '
                '"pkill -f train_dflash; sleep 3; nohup python3 train_dflash.py >log 2>&1 &"')


def findings(src: str) -> list[tuple[str, str]]:
    return sorted((d.code, d.severity) for d in check_source(src).diagnostics)


def explain_json(capsys: pytest.CaptureFixture[str], src: str) -> dict[str, Any]:
    assert main(["explain", "--format", "json", src]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def inner_shell(doc: dict[str, Any]) -> dict[str, Any]:
    [layer] = [x for x in doc["layers"] if x["kind"] == "shell" and x["parent"] is not None]
    return layer


def test_seed_through_a_variable_is_the_seed() -> None:
    got = findings(SEED_VAR)
    assert ("QC201", "error") in got
    # Judged as the literal command is judged: the same findings.
    assert got == findings(SEED_LITERAL)


def test_qc201_points_at_the_expansion() -> None:
    [d] = [d for d in check_source(SEED_VAR).diagnostics if d.code == "QC201"]
    first = SEED_VAR.index("$APP")
    assert d.span == (first, first + len("$APP"))
    assert "`pkill -f train_dflash`" in d.text


def test_guard_blocks_it() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "quotecheck", "guard", "--command", SEED_VAR],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2, proc
    assert any(line.startswith("  QC201 1:") for line in proc.stderr.splitlines()), proc.stderr


def test_explain_shows_the_exact_inner_argv(capsys: pytest.CaptureFixture[str]) -> None:
    doc = explain_json(capsys, SEED_VAR)
    [ssh] = [x for x in doc["layers"] if x["kind"] == "ssh"]
    sends = "pkill -f train_dflash; sleep 3; nohup python3 train_dflash.py >log 2>&1 &"
    assert ssh["sends"] == sends and ssh["sends_dynamic"] == []
    assert not ssh.get("dynamic_text")
    remote = inner_shell(doc)
    assert remote["text"] == sends and not remote.get("dynamic_text")
    assert [(c["argv"], c["dynamic"]) for c in remote["commands"]] == [
        (["pkill", "-f", "train_dflash"], []),
        (["sleep", "3"], []),
        (["nohup", "python3", "train_dflash.py"], []),
    ]
    [nohup] = [x for x in doc["layers"] if x["kind"] == "exec"]
    assert (nohup["argv"], nohup["dynamic"]) == (["python3", "train_dflash.py"], [])


@pytest.mark.parametrize("src", [
    'APP=train_dflash; sh -c "pkill -f $APP; sleep 3; nohup python3 $APP.py >log 2>&1 &"',
    'APP=train_dflash; bash -c "pkill -f $APP; python3 $APP.py"',
    'APP=train_dflash; ssh gpu1 "pkill -f ${APP}; python3 ${APP}.py"',
    'APP=train_dflash; ssh gpu1 "pkill -f \\"$APP\\"; python3 $APP.py"',
    'APP=train_dflash; ssh gpu1 pkill -f $APP\\; python3 $APP.py',
    'APP=train_dflash\nrestart() { ssh gpu1 "pkill -f $APP; python3 $APP.py"; }\nrestart\n',
    'APP=train_dflash\nrestart() { ssh gpu1 "pkill -f $1; python3 $1.py"; }\nrestart "$APP"\n',
])
def test_local_variants_kill_themselves(src: str) -> None:
    assert ("QC201", "error") in findings(src)


def test_a_plain_value_in_a_word_with_blanks_is_exact() -> None:
    # The word's own blank is the local shell's literal text; only the value is put in.
    src = 'd=/srv/jobs; watch ls -l "$d/running jobs"'
    trace = build_trace(src)
    [join] = [x for x in trace.layers if x.kind == "join"]
    assert join.text == "ls -l /srv/jobs/running jobs" and not join.dynamic_ranges


@pytest.mark.parametrize("src", [
    # Set in one branch only: unset when the test fails.
    'if [ -n "$X" ]; then APP=train_dflash; fi; ssh gpu1 "pkill -f $APP; python3 $APP.py"',
    'read -r APP; ssh gpu1 "pkill -f $APP; python3 $APP.py"',
    'APP=$1; ssh gpu1 "pkill -f $APP; python3 $APP.py"',
])
def test_an_uncertain_value_stays_dynamic(capsys: pytest.CaptureFixture[str], src: str) -> None:
    remote = inner_shell(explain_json(capsys, src))
    pkill = remote["commands"][0]
    assert (pkill["argv"], pkill["dynamic"]) == (["pkill", "-f", "$APP"], [2])
    assert all(sev != "error" for _, sev in findings(src)), findings(src)


def test_a_value_that_reads_as_code_keeps_its_expansion() -> None:
    # A blank in the value itself: the remote shell splits it, which QC103 says as an error;
    # the remote layer keeps `$APP` so that QC103 judges it (its value known).
    src = 'APP="train dflash"; ssh gpu1 "pkill -f $APP"'
    [remote] = [x for x in build_trace(src).layers if x.kind == "shell" and x.parent]
    assert remote.text == "pkill -f $APP"
    assert ("QC103", "error") in findings(src)


# -- what ssh sends, against real bash ---------------------------------------------------------

def recorded_ssh(stubs: StubDir, src: str) -> list[str]:
    stubs.add("ssh")
    env = {**os.environ, "PATH": f"{stubs.path}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(["bash", "-c", src], env=env, timeout=60, check=True, capture_output=True)
    [argv] = stubs.records_for("ssh")
    stubs.clear()
    return argv


def assert_sends_what_ssh_receives(stubs: StubDir, src: str) -> None:
    received = recorded_ssh(stubs, src)
    trace = build_trace(src)
    [ssh] = [x for x in trace.layers if x.kind == "ssh"]
    view = ssh.opened_by
    assert view is not None
    assert [a.value for a in view.argv] == received, src
    host = received.index("gpu1")
    assert ssh.sends == " ".join(received[host + 1:]), src
    assert not ssh.sends_dynamic
    # The remote shell parses exactly that text, every word of it exact.
    [remote] = [x for x in trace.layers if x.kind == "shell" and x.parent == ssh.id]
    assert remote.text == ssh.sends and not remote.dynamic_ranges, src
    assert all(not a.dynamic for c in remote.commands for a in c.argv), src


@pytest.mark.parametrize("src", [
    SEED_VAR,
    'APP=train_dflash; ssh gpu1 "pkill -f ${APP}; python3 ${APP}.py"',
    'APP=train_dflash; ssh gpu1 "pkill -f \\"$APP\\"; python3 $APP.py"',
    'APP=train_dflash; ssh gpu1 pkill -f $APP\\; python3 $APP.py',
    'H=gpu1; APP=a.b; ssh -o BatchMode=yes "$H" \'cd /srv;\' "pkill -f $APP-x; $APP"',
    'd=/srv/jobs; ssh gpu1 ls -l "$d/running jobs" "$d/failed jobs"',
])
def test_sends_is_what_ssh_receives(stubs: StubDir, src: str) -> None:
    assert_sends_what_ssh_receives(stubs, src)


TEMPLATES = ['"pkill -f $V; sleep 1; python3 $V.py"', '"cd ${V}/x && ls"', 'pkill -f $V',
             '"echo a$V b ${V}c"', "'echo $V;' \"echo $V\""]


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet="abz_./:-019", min_size=1, max_size=10).filter(
    lambda v: not v.startswith("-")), st.sampled_from(TEMPLATES))
def test_plain_values_are_sent_exactly(tmp_path_factory: pytest.TempPathFactory, value: str,
                                       template: str) -> None:
    stubs = StubDir(tmp_path_factory.mktemp("stubs"), names=[])
    src = f"V={value}; ssh gpu1 {template}"
    if "'" in template:
        # `'echo $V;'` is sent as written: the remote shell expands its own `$V` there.
        received = recorded_ssh(stubs, src)
        [ssh] = [x for x in build_trace(src).layers if x.kind == "ssh"]
        assert ssh.sends == " ".join(received[2:])
        return
    assert_sends_what_ssh_receives(stubs, src)
