"""QC211 status-of-ssh-ambiguous, with the 255 ambiguity reproduced against a real sshd."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from quotecheck.positions import LineIndex

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _support import Finder
from harness.shells import run_shell
from harness.sshd import SshServer
from harness.stubs import StubDir

CODE = "QC211"
found = Finder(CODE)


def status(remote: SshServer, stubs: StubDir, remote_cmd: str) -> int:
    res = run_shell("bash", f"ssh h {remote_cmd}", remote.client_env(stubs), timeout=30)
    return res.returncode


# -- the fact -------------------------------------------------------------------------------------


def test_255_means_three_things(remote: SshServer, stubs: StubDir) -> None:
    # The remote command's own status passes through ...
    assert status(remote, stubs, "'exit 3'") == 3
    # ... a remote shell killed by a signal gives 255 ...
    assert status(remote, stubs, "'kill -TERM $$; echo not reached'") == 255
    # ... and so does a remote `exit 255` ...
    assert status(remote, stubs, "'exit 255'") == 255
    # ... and a connection that cannot be made at all.
    ssh = shutil.which("ssh")
    assert ssh is not None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once the socket is closed
    res = subprocess.run([ssh, "-F", "/dev/null", "-o", "BatchMode=yes", "-o",
                          "ConnectTimeout=5", "-p", str(port), "127.0.0.1", "true"],
                         capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert res.returncode == 255 and "refused" in res.stderr


# -- what is a decision on ssh's status -----------------------------------------------------------


@pytest.mark.parametrize(("src", "kind"), [
    ("ssh h test -f /etc/app.conf && echo present", "`&&`"),
    ("ssh h ./deploy.sh || echo unreachable", "`||`"),
    ("if ssh h test -f /etc/app.conf; then echo yes; fi", "`if`"),
    ("if ! ssh h 'test -x ./check'; then echo missing; fi", "`if`"),
    ("if out=$(ssh h grep -c err /var/log/x); then echo \"$out\"; fi", "`if`"),
    ("{ ssh h ./x; } || echo 'cannot connect to h'", "`||`"),
    ("(ssh h 'grep -q ready /run/state') && echo ok", "`&&`"),
    ("ssh h a; ssh h 'pgrep -x app' && echo running", "`&&`"),
])
def test_branch_on_ssh_status(src: str, kind: str) -> None:
    [(_, _, d)] = found(src)
    assert src[d.span[0]:d.span[1]] == "ssh"
    assert d.message.kind == "branch-on-status" and f"`{d.message.value('how')}`" == kind
    assert "255" in d.summary and "killed by a signal" in d.message.explanation


@pytest.mark.parametrize("src", [
    "until ssh h './deploy.sh'; do sleep 5; done",
    "while ! ssh h ./deploy.sh; do sleep 5; done",
    "for i in 1 2 3; do ssh h ./deploy.sh && break; sleep 5; done",
])
def test_retry_loops(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.message.kind == "retry-loop"
    assert "./deploy.sh" in d.message.value("sends")


def test_status_read_after_ssh_with_255_is_a_retry_on_255() -> None:
    src = "ssh h ./deploy.sh\nrc=$?\nif [ \"$rc\" -eq 255 ]; then ssh h ./deploy.sh; fi\n"
    got = found(src)
    assert [(line, col) for line, col, _ in got] == [(1, 1)]
    d = got[0][2]
    assert d.message.kind == "retry-on-255"
    [related] = d.related  # the `[ "$rc" -eq 255 ]` test
    assert LineIndex(src).position(related.span[0]) == (2, 3)


def test_status_read_after_ssh() -> None:
    src = "ssh h ./deploy.sh\nif [ $? -ne 0 ]; then echo failed; fi\n"
    [(_, _, d)] = found(src)
    assert d.message.kind == "status-read"


@pytest.mark.parametrize("src", [
    "ssh h ./deploy.sh; echo done",
    "ssh h ./deploy.sh | tee log && echo ok",
    "ssh h ./deploy.sh & wait",
    "if ssh -o BatchMode=yes h true; then echo up; fi",
    "ssh h exit && echo up",
    "ssh h 'exit 0' || echo down",
    "ssh h uptime || echo '(no answer)'",
    "ssh h hostname && echo reachable",
    "ssh -O check h && echo master",
    "ssh -N -L 8080:localhost:80 h || echo tunnel closed",
    "ssh -f h sleep 60 && echo started",
    "x=$(ssh h cat /etc/hostname); echo $x",
    "ssh h ./deploy.sh\necho finished\nif [ $? -eq 0 ]; then :; fi",
])
def test_not_reported(src: str) -> None:
    assert found(src) == []


def test_exit_with_a_code_is_not_a_probe() -> None:
    assert len(found("ssh h 'exit 3' || echo unreachable")) == 1
    assert len(found("ssh h 'echo a; test -d /tmp/x' && echo ok")) == 1


@pytest.mark.parametrize("src", [
    # Both kinds of failure lead to the same branch, which names no cause: nothing to tell
    # apart (issue 25: `if ! ssh ...; then echo failed; fi` treats 255 and a remote failure
    # alike, and rightly).
    "if ! ssh h ./deploy.sh; then echo failed; fi",
    "if ! ssh h 'systemctl restart app'; then echo 'restart failed' >&2; exit 1; fi",
    "ssh h ./deploy.sh || { echo 'deploy failed' >&2; exit 1; }",
    "if ssh h ./deploy.sh; then echo deployed; else echo 'deploy failed'; fi",
    # `&&` runs the next step on success only: any failure skips it alike
    'ssh h "systemctl restart app" && echo ok',
    "ssh h 'echo a; rm -rf /tmp/x' && echo ok",
    "ssh h ./migrate && ssh h ./restart",
    "if out=$(ssh h cat /etc/x); then echo \"$out\"; fi",
])
def test_failures_that_end_alike_are_not_reported(src: str) -> None:
    assert not found(src)


@pytest.mark.parametrize("src", [
    "ssh h 'test -f /srv/flag' || echo absent",  # a remote "no" and 255 read alike
    "if ! ssh h 'systemctl is-active app'; then echo down; fi",
    "ssh h ./deploy.sh || echo 'h is unreachable'",  # the branch names one cause
    "ssh h ./deploy.sh || { echo failed; ssh h ./rollback.sh; }",  # the branch acts
])
def test_failures_that_the_branch_tells_apart_are_reported(src: str) -> None:
    assert len(found(src)) == 1


def test_options_array_taken_for_the_destination() -> None:
    # The trace takes "${opts[@]}" for the destination; the evidence skips the host word.
    src = "until ssh \"${opts[@]}\" store-01 'rsync -a /a/ /b/'; do sleep 30; done"
    [(_, _, d)] = found(src)
    assert d.message.value("sends") == "rsync -a /a/ /b/"
    assert found("ssh \"${opts[@]}\" store-01 true && echo up") == []


def test_odd_inputs() -> None:
    for src in ["ssh && x", "if ssh; then :; fi", "! ssh", "until ssh h; do :; done",
                "ssh h '' || x", "$(ssh h x) && y", "ssh h x\n$?"]:
        found(src)


@pytest.mark.parametrize("src", [
    # Issue 13's corpus: `ssh ... || true` drops the status on purpose (a best-effort stop).
    'ssh -o BatchMode=yes "$host" "pkill -f worker.py" || true',
    'ssh "$host" "rm -f /tmp/job.lock" || :',
])
def test_a_status_dropped_with_or_true_decides_nothing(src: str) -> None:
    assert found(src) == []


def test_or_true_with_more_after_it_still_decides() -> None:
    [_] = found('ssh "$host" "pkill -f worker.py" || echo "no worker on $host"')


def test_a_failure_branch_through_the_scripts_own_reporter() -> None:
    """acme.sh's `_err "... failed"; return 1`: a reporting helper, both failures alike."""
    assert not found('if ! ssh h ./install; then _err "install failed"; return 1; fi')
    assert len(found('if ! ssh h ./install; then log_error "host unreachable"; fi')) == 1


# -- issue 25: both outcomes lead to the same end ----------------------------------------------

# mailcow-dockerized helper-scripts/_cold-standby.sh:76: `if ! ssh ... which ${bin}; then >&2
# echo "Cannot find ${bin} in remote PATH, exiting..."; exit 1; fi`.
_EXITS = ("if ! ssh h {cmd} > /dev/null; then\n  >&2 echo \"Cannot find rsync in remote PATH\"\n"
          "  exit 1\nfi\necho continued\n")


def test_a_branch_that_reports_and_exits_ends_the_run_alike(remote: SshServer,
                                                            stubs: StubDir) -> None:
    # Real sshd: a remote "not found" (1) and a killed remote shell (255) end the run alike.
    for cmd in ("'which no-such-program-qc211'", "'kill -TERM $$'"):
        res = run_shell("bash", _EXITS.format(cmd=cmd), remote.client_env(stubs), timeout=30)
        assert res.returncode == 1 and "continued" not in res.stdout, (cmd, res.stderr)
        assert "Cannot find rsync" in res.stderr
    [(_, _, d)] = found(_EXITS.format(cmd="which rsync"))
    assert d.severity == "info" and "end the run alike" in d.message.explanation
    # Without the exit, the script goes on believing rsync is missing: a warning.
    [(_, _, d)] = found(_EXITS.format(cmd="which rsync").replace("  exit 1\n", ""))
    assert d.severity == "warning"
    # A retry loop is no end: still a warning.
    [(_, _, d)] = found("until ssh h 'test -f /ready'; do echo 'not yet'; exit 1; done")
    assert d.severity == "warning"


# mailcow-dockerized helper-scripts/_cold-standby.sh:168: the message names what the remote
# step creates (Docker networks), not the connection.
_REPORTS_ONLY = ("if ! ssh h 'cd /srv/app && {step}'; then\n"
                 "  >&2 echo \"Could not create {what} on remote\"\nfi\necho continued\n")


def test_a_thing_the_step_makes_is_no_cause(remote: SshServer, stubs: StubDir) -> None:
    # Real sshd: a remote failure and a killed remote shell print the same line and go on.
    outs = []
    for step in ("false", "kill -TERM $$"):
        res = run_shell("bash", _REPORTS_ONLY.format(step=step, what="networks, volumes"),
                        remote.client_env(stubs), timeout=30)
        outs.append((res.stdout, res.stderr.splitlines()[-1]))
    assert outs[0] == outs[1] == ("continued\n", "Could not create networks, volumes on remote")
    src = _REPORTS_ONLY.format(step="docker compose create", what="networks, volumes")
    assert found(src) == []
    # A message that puts the failure down to the network still names a cause.
    assert len(found(src.replace("Could not create networks, volumes on remote",
                                 "network error, is the host up?"))) == 1
    assert len(found(src.replace("Could not create networks, volumes on remote",
                                 "could not connect"))) == 1


# -- fifth set: a login probe whose remote command cannot fail ----------------------------------

# apache/trafodion core/sqf/sql/scripts/install_apache_hadoop:145 (and :213, install_local_hadoop
# :130): the ssh only checks that a login works; its echo prints a word the local shell fills in.
_TRAFODION = ('ssh -o PasswordAuthentication=no -o KbdInteractiveDevices=none ${MY_HOST_1} '
              'echo "testing ssh ${MY_HOST_1}"\nif [ $? -ne 0 ]; then\n  SSH_FAILED=yes\nfi\n')


def test_a_remote_echo_cannot_fail(remote: SshServer, stubs: StubDir) -> None:
    # Real sshd: the remote echo succeeds whatever the local side does with ssh's output (read,
    # closed, a reader that left before the echo ran), so ssh's status is 0 ...
    env = remote.client_env(stubs)
    for src in ('MY_HOST_1=h; ssh h echo "testing ssh ${MY_HOST_1}"; echo "rc=$?" >&2',
                'ssh h echo "testing ssh h" >&-; echo "rc=$?" >&2',
                "ssh h 'sleep 1; echo testing ssh h' | true; echo \"rc=${PIPESTATUS[0]}\" >&2",
                "ssh h 'printf \"%s\\n\" testing' | true; echo \"rc=${PIPESTATUS[0]}\" >&2"):
        res = run_shell("bash", src, env, timeout=30)
        assert res.stderr.splitlines()[-1] == "rc=0", (src, res.stderr)
    # ... while a printf format that converts can fail on the remote side: no probe.
    assert status(remote, stubs, "'printf %d abc'") == 1
    assert status(remote, stubs, "'echo hi > /no/such/dir/x'") == 1
    # So a nonzero status of the probe is ssh's own, which is what SSH_FAILED records.
    assert found(_TRAFODION) == []


@pytest.mark.parametrize("src", [
    'ssh h "echo up; true" || echo "h is unreachable"',
    "ssh h 'echo \"$HOSTNAME\" ok; exit 0' || echo unreachable",
    "ssh h 'printf \"%s\\n\" up' || echo unreachable",
    'ssh h echo "$USER@$(hostname)" || echo unreachable',  # local values: text to the echo
])
def test_probes_that_cannot_fail_are_not_reported(src: str) -> None:
    assert found(src) == []


@pytest.mark.parametrize("src", [
    "ssh h 'echo hi > /tmp/probe' || echo unreachable",  # a redirection can fail
    "ssh h 'printf %d abc' || echo unreachable",  # a conversion can fail
    "ssh h 'echo ${x:?unset}' || echo unreachable",  # a parameter operator can fail
    "ssh h 'echo $(cat /etc/flag)' || echo unreachable",  # the remote runs a command
    "ssh h 'echo up; hostname -f' || echo unreachable",  # hostname -f can fail (no DNS name)
    "ssh h 'echo up; exit 3' || echo unreachable",
])
def test_echo_with_a_step_that_can_fail_is_reported(src: str) -> None:
    assert len(found(src)) == 1
