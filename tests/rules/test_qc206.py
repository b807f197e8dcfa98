"""QC206 failures-ignored."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support import Finder

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
CODE = "QC206"
found = Finder(CODE)


def run(shell: str, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([shell, "-c", script], capture_output=True, text=True, timeout=10,
                          cwd="/")


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_a_failed_cd_does_not_stop_the_next_steps(shell: str) -> None:
    res = run(shell, "cd /nonexistent/qc206; pwd; true")
    assert res.stdout == "/\n" and res.returncode == 0  # went on, in the wrong place, status 0
    res = run(shell, "set -e; cd /nonexistent/qc206; pwd")
    assert res.stdout == "" and res.returncode != 0


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_a_status_test_on_the_next_line_stops_the_script(shell: str) -> None:
    res = run(shell, "cd /nonexistent/qc206\nrc=$? ; if [ $rc -ne 0 ]; then exit $rc; fi;\npwd")
    assert res.stdout == "" and res.returncode != 0


@pytest.mark.parametrize("src", [
    # what follows fails by itself outside the directory, so the status shows the failure
    # unless the login directory has a Makefile, a repository...: information
    "ssh h 'cd /srv/app; make up'",
    "ssh h 'cd app; git fetch --depth 1; git checkout -qf main'",
    "ssh h '[ -d app ] || git clone https://x.example/a.git app; cd app; git pull'",
    "ssh h 'cd /srv/app; echo building; ./build.sh'",
    "ssh h 'cd /srv/app; docker compose up -d'",
    # aws-samples/awsome-distributed-training, 3.test_cases/pytorch/verl/hyperpod-eks/rlvr/
    # setup/load_data_dapo.sh lines 8-17 (MIT-0): what follows the clone runs only if `cd`
    # into the clone succeeds.
    "kubectl exec -it \"$POD\" -- /bin/bash -c \"\nif [ ! -d verl ]; then\n"
    "    git clone https://github.com/volcengine/verl\nfi\ncd verl && \\\n"
    "export VERL_HOME=/fsx/verl && \\\nbash recipe/dapo/prepare_dapo_data.sh\n\"",
])
def test_a_failure_the_next_steps_show_is_information(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "info" and "fail by themselves" in d.message.explanation, src


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_an_and_chain_after_a_failed_cd_does_not_run(shell: str, tmp_path: Path) -> None:
    res = subprocess.run([shell, "-c", "false; cd verl && export A=1 && echo RAN"],
                         capture_output=True, text=True, timeout=10, cwd=tmp_path)
    assert res.returncode != 0 and "RAN" not in res.stdout


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_a_project_step_after_a_failed_cd_fails_by_itself(shell: str, tmp_path: Path) -> None:
    res = subprocess.run([shell, "-c", "cd /nonexistent/qc206; make up"], capture_output=True,
                         text=True, timeout=10, cwd=tmp_path)
    assert res.returncode != 0 and "No rule to make target" in res.stderr + res.stdout


@pytest.mark.parametrize("src", [
    "ssh h 'cd /srv/app; make up; echo done'",  # the status is echo's
    "ssh h 'cd /srv/app; rm -rf build; make'",  # rm works anywhere
    "ssh h 'cd /srv/app; make -C /srv/other'",  # make is pointed elsewhere
])
def test_a_step_that_works_anywhere_keeps_it_reported(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "warning", src


@pytest.mark.parametrize("src", [
    "ssh h 'cd /srv/app; echo $?; make'",  # reads the status and goes on
    "ssh h 'set +e; set -e; set +x; cd /srv/app\n make'",  # set -e is in effect: quiet too
])
def test_a_status_read_without_stopping_is_no_check(src: str) -> None:
    hits = found(src)
    assert len(hits) == (0 if "set -e;" in src else 1), src


def test_tee_hides_the_failure_unless_pipefail() -> None:
    assert run("bash", "set -e; false | tee /dev/null; echo survived").stdout == "survived\n"
    assert run("bash", "set -eo pipefail; false | tee /dev/null; echo survived").stdout == ""


def test_seed_points_at_source_and_lists_cd() -> None:
    hits = found(SEED.read_text())
    assert [(line, col) for line, col, _ in hits] == [(7, 1), (18, 43)]
    # The last line reports DEAD and ends with echo's status, 0.
    dead = hits[1][2].text
    assert dead.startswith('`echo "DEAD"` (18:43) reports that `kill -0 $! 2>/dev/null && echo '
                           '"ALIVE"` failed'), dead
    assert "ssh's exit status says success whatever happened" in dead
    msg = hits[0][2].text
    assert "`source /root/venv/bin/activate` (7:1)" in msg
    assert "`cd /root` (8:1)" in msg
    assert "ssh's exit status is only that of the last command" in msg
    assert '`kill -0 $! 2>/dev/null && echo "ALIVE" || echo "DEAD"` (18:1)' in msg
    assert "0 even when everything before it failed" in msg
    assert "set -e" in msg
    assert hits[0][2].layers == ("local bash", "ssh", "remote shell")


@pytest.mark.parametrize(("src", "pos", "what"), [
    ("ssh h 'cd /srv/app; git pull; make'", (1, 8), "wrong directory (the login directory)"),
    ("ssh h '\nmkdir /data/run\ncp cfg /data/run/\n'", (2, 1), "writes into that directory"),
    ("sh -c 'kill $(cat app.pid); ./app &'", (1, 8), "still be running"),
    ("ssh h bash -s <<'EOF'\n. ./env.sh\n./job\nEOF\n", (2, 1), "environment"),
    ("su deploy -c 'cd /srv; ./deploy.sh'", (1, 15), "wrong directory"),
])
def test_reported(src: str, pos: tuple[int, int], what: str) -> None:
    hits = found(src)
    assert [(line, col) for line, col, _ in hits] == [pos], src
    assert hits[0][2].message.kind == "steps-unchecked"
    assert what in hits[0][2].message.value("effect")


@pytest.mark.parametrize("src", [
    "cd /srv/app; make",  # the top level: the author sees it
    "ssh h 'cd /srv/app && git pull && make'",
    "ssh h 'set -e; cd /srv/app; make'",
    "ssh h 'set -eu; cd /srv/app; make'",
    "sh -ec 'cd /srv/app; make'",
    "ssh h 'cd /srv/app || exit 1; make'",
    "ssh h 'cd /srv/app'",  # one step
    "ssh h 'make; cd /srv/app'",  # nothing after it
    "ssh h 'kill -0 $PID; echo checked'",
    "ssh h 'if cd /srv/app; then make; fi'",
    "ssh h 'cd; ls'",  # cd to home does not fail
    # the script says it goes on after failures
    "ssh h 'set +e  # go on\ncd /srv/app\nmake prune'",
    # the next lines test the status and stop (drone-ssh's script_stop writes these)
    "ssh h 'cd /srv/app\nrc=$? ; if [ $rc -ne 0 ]; then exit $rc; fi;\nmake'",
    "ssh h 'cd /srv/app; [ $? -eq 0 ] || exit 1; make'",
])
def test_not_reported(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize(("src", "why"), [
    ("set -e\nmake | tee build.log", "`set -e` does not stop"),
    ("if make | tee build.log; then echo ok; fi", "the test sees success"),
    ("ssh h 'make | tee build.log'", "the caller sees success"),
    ("make 2>&1 | tee -a log && deploy", "the test sees success"),
])
def test_tee_reported(src: str, why: str) -> None:
    hits = found(src)
    [(_, _, d)] = hits
    assert d.message.kind == "tee-hides-failure" and d.message.value("why").startswith(why)
    assert "pipefail" in d.message.explanation


@pytest.mark.parametrize("src", [
    "make | tee build.log",  # nothing looks at the status
    "set -eo pipefail\nmake | tee build.log",
    "set -e\nset -o pipefail\nmake | tee build.log",
    "ssh h 'set -o pipefail; make | tee build.log'",
    "set -e\necho 1 | sudo tee /proc/sys/vm/overcommit_memory > /dev/null",  # tee is the step
])
def test_tee_not_reported(src: str) -> None:
    assert found(src) == [], src


# alibaba/Pai-Megatron-Patch a098ca5acbdeaf7172ce0393fa309b39a77506db,
# examples/deepseek_v3/run_mcore_deepseek_lite.sh lines 2 and 209 (Apache-2.0), shortened; the
# qwen3_next, qwen3_omni and qwen3_vl run scripts end the same way.
PAI_MEGATRON_RUN = ('set -e\ncmd="torchrun pretrain.py"\n'
                    'eval $cmd 2>&1 | tee log_new.txt ; exit ${PIPESTATUS[0]}\n')


def test_pipestatus_read_at_once_is_the_check() -> None:
    # The statuses the command right after the pipeline reads are the pipeline's.
    assert run("bash", "false | tee /dev/null; exit ${PIPESTATUS[0]}").returncode == 1
    assert run("bash", "false | tee /dev/null; true; exit ${PIPESTATUS[0]}").returncode == 0


@pytest.mark.parametrize("src", [
    PAI_MEGATRON_RUN,
    'set -e\nmake | tee build.log\nrc=${PIPESTATUS[0]}\n[ "$rc" -eq 0 ] || exit "$rc"\n',
    'set -e\nmake | tee build.log\nif [ "${PIPESTATUS[0]}" -ne 0 ]; then exit 1; fi\n',
    'set -e\nmake | tee build.log\nstatus=("${PIPESTATUS[@]}")\n',
    'set -e\nmake | tee build.log\ncase ${PIPESTATUS[0]} in 0) ;; *) exit 1 ;; esac\n',
    "ssh h 'make | tee build.log; exit ${PIPESTATUS[0]}'",
])
def test_tee_status_read_from_pipestatus(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize("src", [
    # Another command runs first: PIPESTATUS is then its status.
    'set -e\nmake | tee build.log\necho built\nexit ${PIPESTATUS[0]}\n',
    # `$?` is tee's status.
    'set -e\nmake | tee build.log\nexit $?\n',
])
def test_tee_status_read_too_late(src: str) -> None:
    assert len(found(src)) == 1, src


# pyenv/pyenv bec9a562a59e48a730fe3320fe90c6999c82886c, plugins/python-build/bin/python-build
# line 1938 (MIT): the step is `.` in an `sh -c` script.
PYENV_TCL_DEFS = ('if sh -c \'. \'"$tcltk_prefix"\'/lib/tclConfig.sh; echo "$TCL_DEFS"\' | '
                  "grep -qwFe '-DTCL_WITH_EXTERNAL_TOMMATH=1'; then\n"
                  '  tcltk_cflags="-DTCL_WITH_EXTERNAL_TOMMATH=1"\nfi\n')


def test_a_failed_dot_ends_posix_sh() -> None:
    assert found(PYENV_TCL_DEFS) == []
    # The fact: dash exits when `.` cannot read its file; bash (not in POSIX mode) goes on.
    res = run("dash", ". /nonexistent/qc206.sh; echo went-on")
    assert res.stdout == "" and res.returncode != 0
    res = run("bash", ". /nonexistent/qc206.sh; echo went-on")
    assert res.stdout == "went-on\n"
    [_] = found("bash -c '. /nonexistent/env.sh; make'")


def test_a_best_effort_script_whose_status_is_dropped() -> None:
    # Issue 13: `ssh ... || true` decides nothing on how the remote script ends.
    src = 'ssh -o BatchMode=yes -o ConnectTimeout=5 h "cd /srv/app; git pull; make" || true\n'
    assert found(src) == []
    assert found(src.replace(" || true", " || echo 'update failed' >&2"))


@pytest.mark.parametrize("path, src, fails", [
    # make stops at a failed recipe line; `| tee` hands it tee's success instead
    ("Makefile", "SHELL := /bin/bash\nall:\n\tfalse |& tee build.log\n\techo next step\n",
     ["make", "-s", "-f", "Makefile"]),
])
def test_a_host_that_acts_on_the_status_makes_it_a_warning(path: str, src: str,
                                                           fails: list[str],
                                                           tmp_path: Path) -> None:
    [d] = Finder(CODE, path=path, severity="info", host="make").diagnostics(src)
    assert d.severity == "warning"
    (tmp_path / path).write_text(src)
    r = subprocess.run(fails, cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "next step" in r.stdout  # make never saw the failure
    fixed = src.replace("SHELL := /bin/bash\n",
                        "SHELL := /bin/bash\n.SHELLFLAGS := -o pipefail -c\n")
    (tmp_path / path).write_text(fixed)
    r = subprocess.run(fails, cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "next step" not in r.stdout
    assert not Finder(CODE, path=path, severity="info", host="make").diagnostics(fixed)


def test_a_dockerfile_run_script_is_a_warning() -> None:
    src = ("FROM debian\nRUN <<EOF\ncd /opt/app\ncurl -fsSLo app.tgz https://example.org/a.tgz\n"
           "tar xzf app.tgz\nEOF\n")
    [d] = Finder(CODE, path="Dockerfile", severity="info", host="dockerfile").diagnostics(src)
    assert d.severity == "warning"
    # a script run on this machine, by hand: info
    [d] = Finder(CODE, path="x.sh", severity="info").diagnostics(
        "sh -c 'cd /opt/app; tar xzf app.tgz; ./install'")
    assert d.severity == "info"


def test_cd_to_the_root_cannot_fail() -> None:
    """ambari's kerberos-setup.sh: `ssh root@h "cd /;tar xvf ..."`: `/` is always there."""
    assert not found('ssh h "cd /;tar xvf keytabs.tar --no-overwrite-dir"')
    assert found('ssh h "cd /srv/app;tar xvf keytabs.tar"')
