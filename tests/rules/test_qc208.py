"""QC208 ssh-may-prompt-or-hang: BatchMode and ConnectTimeout in unattended ssh.

`ssh -G` (which resolves the configuration without connecting) confirms the defaults the rule
relies on and how OpenSSH reads the option spellings the rule accepts.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from _support import Finder

CODE = "QC208"
found = Finder(CODE, path="deploy.sh")


def ssh_config(*args: str) -> dict[str, str]:
    """What `ssh -G` resolves for these arguments (no connection is made)."""
    ssh = shutil.which("ssh")
    if ssh is None:
        pytest.skip("no ssh client")
    out = subprocess.run([ssh, "-F", "/dev/null", "-G", *args, "example.invalid"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    pairs = (line.split(" ", 1) for line in out.splitlines() if " " in line)
    return {k: v for k, v in pairs}


def test_defaults_are_interactive_and_without_timeout() -> None:
    cfg = ssh_config()
    assert cfg["batchmode"] == "no"
    assert cfg["connecttimeout"] == "none"
    [(line, col, d)] = found("ssh web-01 uptime")
    assert (line, col) == (1, 1)
    assert d.message.kind == "may-prompt-or-hang"
    assert d.message.value("missing") == "`BatchMode=yes` and `ConnectTimeout`"
    assert d.message.value("options") == "-o BatchMode=yes -o ConnectTimeout=10"


@pytest.mark.parametrize("options", [
    ("-o", "BatchMode=yes", "-o", "ConnectTimeout=10"),
    ("-oBatchMode=yes", "-oConnectTimeout=10"),
    ("-o", "batchmode yes", "-o", "connecttimeout=10"),
    ("-o", "BatchMode = yes", "-o", "ConnectTimeout 10"),
])
def test_spellings_ssh_accepts_are_accepted(options: tuple[str, ...]) -> None:
    cfg = ssh_config(*options)
    assert (cfg["batchmode"], cfg["connecttimeout"]) == ("yes", "10")
    words = " ".join(f"'{o}'" for o in options)
    assert found(f"ssh {words} web-01 uptime") == []


def test_first_value_wins_as_in_ssh() -> None:
    # OpenSSH keeps the first value it reads for an option: BatchMode stays `no` here.
    assert ssh_config("-o", "BatchMode=no", "-o", "BatchMode=yes")["batchmode"] == "no"
    [(_, _, d)] = found("ssh -o BatchMode=no -o BatchMode=yes -o ConnectTimeout=5 h true")
    assert d.message.value("missing") == "`BatchMode=yes`"


def test_one_finding_names_only_what_is_missing() -> None:
    [(_, _, a)] = found("ssh -o BatchMode=yes h true")
    assert a.message.value("missing") == "`ConnectTimeout`" and "password" not in a.text
    [(_, _, b)] = found("ssh -o ConnectTimeout=5 h true")
    assert b.message.value("missing") == "`BatchMode=yes`" and "SYN" not in b.text


def test_command_typed_at_a_prompt_is_left_alone_unless_backgrounded() -> None:
    assert found("ssh web-01 uptime", path=None) == []
    [(_, _, d)] = found("ssh web-01 'tar czf - /srv' > srv.tgz &", path=None)
    assert d.message.value("why") == "it runs in the background"
    # A shebang makes it a script even without a path.
    assert len(found("#!/bin/sh\nssh web-01 uptime\n", path=None)) == 1


def test_ssh_on_the_remote_side_has_no_terminal() -> None:
    src = "ssh -o BatchMode=yes -o ConnectTimeout=5 bastion 'ssh lab-01 df -h'"
    [(line, col, d)] = found(src, path=None)
    assert (line, col) == (1, src.index("ssh lab-01") + 1)
    assert d.message.value("why") == "it runs on `bastion`, with no terminal"
    assert d.layers == ("local bash", "ssh", "remote shell", "ssh")


@pytest.mark.parametrize("src", [
    "timeout 30 ssh web-01 uptime",
    "ssh -F ~/.ssh/deploy_config web-01 uptime",
    "ssh $SSH_OPTS web-01 uptime",
    'ssh "${SSH_ARGS[@]}" web-01 uptime',
    "ssh -G web-01",
    "ssh -O check web-01",
    "ssh -V",
])
def test_not_reported(src: str) -> None:
    assert found(src) == []


def test_fix_inserts_the_options_after_ssh() -> None:
    src = "set -e\nssh -p 2222 deploy@web-01 'systemctl restart app'\n"
    [(_, _, d)] = found(src)
    [fix] = d.fixes
    assert fix.applicability == "unsafe"
    [edit] = fix.edits
    out = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    assert out.splitlines()[1] == (
        "ssh -o BatchMode=yes -o ConnectTimeout=10 -p 2222 deploy@web-01 'systemctl restart app'")
    assert found(out) == []


def test_odd_inputs() -> None:
    for src in ["ssh", "ssh -o", "ssh -o BatchMode", "ssh ''", "ssh -- h", "x=$(ssh h)",
                "ssh -oConnectTimeout= -oBatchMode= h"]:
        found(src)


# -- issue 13: who can answer a prompt --------------------------------------------------------

def test_a_script_in_the_foreground_is_info() -> None:
    # apache/bookkeeper 9590a97f67c81a2964c79a92c7c58976894588f3, bin/bookkeeper-cluster.sh
    # lines 64-67 (Apache-2.0): a cluster start an administrator runs at a terminal.
    src = ('start() {\n  for B in `cat $CLUSTER`; do\n    echo "Starting bookie on $B"\n'
           '    ssh $B $BINDIR/bookkeeper-daemon.sh start bookie\n  done\n}\n')
    [(_, _, d)] = found(src)
    assert d.severity == "info"


@pytest.mark.parametrize("src", ["ssh web-01 uptime &\nwait",
                                 "ssh -o BatchMode=yes -o ConnectTimeout=5 gw 'ssh db-01 id'"])
def test_nobody_can_answer_in_the_background_or_on_another_machine(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "warning"


@pytest.mark.parametrize("path, src, why", [
    (".github/scripts/deploy.sh", "#!/bin/bash\nssh web1 'systemctl restart app'\n",
     "it is in `.github/`: a GitHub Actions job, with no terminal"),
    ("tools/ci/release.sh", "#!/bin/bash\nssh web1 uptime\n", "it is in `ci/`"),
    ("deploy.sh", '#!/bin/bash\n[ -n "${GITLAB_CI:-}" ] && set -x\nssh web1 uptime\n',
     "it reads `$GITLAB_CI`"),
])
def test_a_script_that_ci_runs_is_a_warning(path: str, src: str, why: str) -> None:
    [d] = Finder(CODE, path=path).diagnostics(src)
    assert d.severity == "warning"
    assert why in d.message.value("why")


@pytest.mark.parametrize("path, src", [
    ("deploy.sh", "#!/bin/bash\n# works on CI too: see $CI\nssh web1 uptime\n"),
    ("scripts/deploy.sh", "#!/bin/bash\nCIPHER=aes\nssh -c \"$CIPHER\" web1 uptime\n"),
    ("bin/circle.sh", "#!/bin/bash\nssh web1 uptime\n"),
])
def test_a_script_that_only_mentions_ci_stays_info(path: str, src: str) -> None:
    assert [d.severity for d in Finder(CODE, path=path).diagnostics(src)] == ["info"]


# kubernetes/kops, tests/e2e/scenarios/bare-metal/run-test lines 22-23 and 76 (Apache-2.0):
# the script sets CI itself, so reading it says nothing about who runs the script.
@pytest.mark.parametrize("setting", ["export CI=1", "CI=true", "declare -x CI=1"])
def test_a_ci_variable_the_script_sets_itself_is_no_evidence(setting: str) -> None:
    src = (f'#!/usr/bin/env bash\n{setting}\necho "Running with CI=${{CI:-}}"\n'
           'ssh -o StrictHostKeyChecking=accept-new root@${VM0_IP} uptime\n')
    [d] = Finder(CODE, path="tests/e2e/run-test").diagnostics(src)
    assert d.severity == "info" and d.message.value("why") == "it is in a script"


@pytest.mark.parametrize("path, src, system", [
    ("bin/jenkins/run-tests.sh", "#!/bin/bash\nssh -n gw 'echo ok'\n", "Jenkins"),
    ("deploy.sh", '#!/bin/bash\necho "$GITHUB_RUN_ID"\nssh web1 uptime\n', "GitHub Actions"),
    ("deploy.sh", '#!/bin/bash\n[ -n "$JENKINS_URL" ] && set -x\nssh web1 uptime\n', "Jenkins"),
])
def test_a_ci_that_gives_no_terminal_needs_only_the_timeout(path: str, src: str,
                                                           system: str) -> None:
    """Jenkins, GitHub Actions and GitLab run a job's commands with no terminal: a question
    fails at once, so only the missing ConnectTimeout is reported (apache/impala,
    bin/jenkins/dockerized-impala-run-tests.sh line 66, Apache-2.0)."""
    [d] = Finder(CODE, path=path).diagnostics(src)
    assert d.severity == "warning" and d.message.value("missing") == "`ConnectTimeout`"
    assert f"a {system} job, with no terminal" in d.message.value("why")


def test_a_ci_that_may_give_a_terminal_needs_both() -> None:
    # A bare `ci/` folder or `$CI` does not say which system runs it (Buildkite gives a pty).
    for path, src in [("tools/ci/release.sh", "#!/bin/bash\nssh web1 uptime\n"),
                      ("deploy.sh", '#!/bin/bash\n[ -n "${CI:-}" ] && set -x\nssh web1 ls\n')]:
        [d] = Finder(CODE, path=path).diagnostics(src)
        assert d.message.value("missing") == "`BatchMode=yes` and `ConnectTimeout`", path


@pytest.mark.parametrize("path, src, why", [
    ("etc/cron.daily/backup", "#!/bin/sh\nssh db1 pg_dumpall > /srv/all.sql\n",
     "it is in `cron.daily/`: cron runs it"),
    ("backup.sh", "#!/bin/sh\n# 0 3 * * * /opt/backup.sh\nssh db1 pg_dumpall > /srv/a.sql\n",
     "its comments say that cron runs it"),
    ("sync.sh", "#!/bin/bash\n# Run from cron every hour.\nrsync -e ssh a b:\nssh b ls\n",
     "its comments say that cron runs it"),
    ("sync.sh", "#!/bin/bash\n# add this to the crontab of root\nssh b ls\n",
     "its comments say that cron runs it"),
])
def test_a_script_that_cron_runs_is_a_warning(path: str, src: str, why: str) -> None:
    [d] = Finder(CODE, path=path).diagnostics(src)
    assert d.severity == "warning"
    assert why in d.message.value("why")


@pytest.mark.parametrize("path, src", [
    ("sync.sh", "#!/bin/bash\n# usage: sync.sh HOST (needs cronie on the host)\nssh b ls\n"),
    ("sync.sh", "#!/bin/bash\n# 3 nodes, 2 disks\nssh b ls\n"),
    ("cron/setup.sh", "#!/bin/bash\nssh b ls\n"),  # a folder about cron, not run by it
])
def test_a_script_that_only_mentions_cron_stays_info(path: str, src: str) -> None:
    assert [d.severity for d in Finder(CODE, path=path).diagnostics(src)] == ["info"]


@pytest.mark.parametrize("line", [
    "ssh -l root -i ~/.ssh/id_deploy web1 uptime",  # a run-time value, of -i: still known
    'ssh -p "$PORT" -i "$KEY" web1 uptime',
])
def test_a_run_time_option_value_does_not_hide_the_missing_options(line: str) -> None:
    [d] = Finder(CODE, path="deploy.sh").diagnostics("#!/bin/bash\n" + line + "\n")
    assert d.message.value("missing") == "`BatchMode=yes` and `ConnectTimeout`"


@pytest.mark.parametrize("line", [
    'ssh -o "$SSH_OPTION" web1 uptime',  # -o can set either
    "ssh $SSH_OPTS web1 uptime",
    'ssh -F "$CONFIG" web1 uptime',
])
def test_options_that_may_set_them_leave_it_unknown(line: str) -> None:
    assert not Finder(CODE, path="deploy.sh").diagnostics("#!/bin/bash\n" + line + "\n")


@pytest.mark.parametrize(("format", "src", "who"), [
    ("github-actions", "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
     "      - run: ssh gpu1 uptime\n", "GitHub Actions job"),
    ("crontab", "*/5 * * * * ssh gpu1 uptime\n", "cron job"),
    ("compose", "services:\n  a:\n    image: x\n    command: sh -c 'ssh gpu1 uptime'\n",
     "container"),
])
def test_a_host_file_whose_commands_have_no_terminal(format: str, src: str, who: str) -> None:
    from quotecheck.checker import Options, check_source

    [d] = [x for x in check_source(src, Options(host=format, severity="info")).diagnostics
           if x.code == CODE]
    assert d.severity == "warning" and who in d.text


def test_batch_mode_says_nobody_answers_so_a_missing_timeout_is_a_warning() -> None:
    [d] = Finder(CODE, path="check.sh").diagnostics(
        "#!/bin/bash\nfor h in r1 r2; do ssh -o BatchMode=yes \"root@$h\" uptime; done\n")
    assert d.severity == "warning" and d.message.value("why").startswith("its `BatchMode=yes`")
    assert d.message.value("missing") == "`ConnectTimeout`"


def test_an_ssh_argv_a_python_file_runs() -> None:
    src = ('import subprocess\nSSH = ["ssh", "-oBatchMode=yes"]\n'
           'subprocess.run(SSH + ["web1", "uptime"])\n')
    [d] = Finder(CODE, host="python").diagnostics(src)
    assert d.severity == "warning" and src[d.span[0]:d.span[1]] == "ssh"
    assert d.fixes == ()  # a Python string: no shell words to add there
    assert not Finder(CODE, host="python").diagnostics(
        src.replace('"-oBatchMode=yes"', '"-oBatchMode=yes", "-oConnectTimeout=5"'))


@pytest.mark.parametrize("comment", ["# CI after_success hook: list the release",
                                     "# Runs on Travis after each merge",
                                     "# Jenkins job: nightly sync"])
def test_a_script_whose_comments_say_ci_runs_it(comment: str) -> None:
    [d] = Finder(CODE, path="hook.sh").diagnostics(f"#!/bin/bash\n{comment}\nssh web1 ls\n")
    assert d.severity == "warning" and "CI runs it" in d.message.value("why")


def test_with_no_terminal_at_all_only_the_timeout_is_missing() -> None:
    """Without a terminal ssh cannot ask: a password or host-key question fails at once. The
    handshake with a host that never completes it is what still holds ssh."""
    # a cron job: only the timeout
    [d] = Finder(CODE, path="etc/cron.daily/sync").diagnostics("#!/bin/sh\nssh db1 ls\n")
    assert d.message.value("missing") == "`ConnectTimeout`" and "handshake" in d.text
    # the far side of an ssh without -t: no terminal there either
    [(_, _, d)] = found("ssh -o BatchMode=yes -o ConnectTimeout=5 a 'ssh b ls'")
    assert d.message.value("missing") == "`ConnectTimeout`"
    # with -t the far side has a pty: a question there waits
    [(_, _, d)] = found("ssh -t -o BatchMode=yes -o ConnectTimeout=5 a 'ssh b ls'")
    assert d.message.value("missing") == "`BatchMode=yes` and `ConnectTimeout`"
    # a job that has a terminal, in the background: both
    [(_, _, d)] = found("ssh db1 ls &")
    assert d.message.value("missing") == "`BatchMode=yes` and `ConnectTimeout`"
