"""QC301 host-key-checking-off; `ssh -G` confirms how OpenSSH reads each spelling."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder

from quotecheck.checker import Options, check_source
from quotecheck.cli import main

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


@pytest.mark.parametrize(("src", "why"), [
    ("cat >> ~/.ssh/config <<EOF\nHost node*\n  StrictHostKeyChecking no\nEOF\n", "Host node*"),
    ("printf 'Match exec \"test -f /etc/lab\"\\n  StrictHostKeyChecking no\\n' >> ~/.ssh/config\n",
     "Match exec"),
    ("ssh -o StrictHostKeyChecking=no -o BatchMode=yes -o ConnectTimeout=5 localhost true\n",
     "loopback"),
    ("ssh -o StrictHostKeyChecking=no -o BatchMode=yes -o ConnectTimeout=5 ci@127.0.0.1 true\n",
     "loopback"),
    # A probe: the session runs `exit 0` and cannot be typed into; nothing to intercept.
    ("ssh -oPasswordAuthentication=no -o StrictHostKeyChecking=no $host 'exit 0'\n",
     "only probes the login (`exit 0`)"),
    ("ssh -o BatchMode=yes -o StrictHostKeyChecking=no gpu1 true\n", "only probes"),
])
def test_a_setting_the_text_scopes_is_information(src: str, why: str) -> None:
    from quotecheck.checker import Options, check_source

    [d] = [x for x in check_source(src, Options(severity="info")).diagnostics
           if x.code == "QC301"]
    assert d.severity == "info" and why in d.text, src


@pytest.mark.parametrize("src", [
    "cat >> ~/.ssh/config <<EOF\nHost *\n  StrictHostKeyChecking no\nEOF\n",
    "echo 'StrictHostKeyChecking no' >> ~/.ssh/config\n",
    "ssh -o StrictHostKeyChecking=no -o BatchMode=yes -o ConnectTimeout=5 gpu1 nvidia-smi\n",
    # Not probes: a password may be typed in, the agent is forwarded, a tunnel is opened.
    "ssh -o StrictHostKeyChecking=no gpu1 true\n",
    "ssh -A -o BatchMode=yes -o StrictHostKeyChecking=no gpu1 true\n",
    "ssh -L 5432:db:5432 -o BatchMode=yes -o StrictHostKeyChecking=no gpu1 'exit 0'\n",
    "ssh -o ForwardAgent=yes -o BatchMode=yes -o StrictHostKeyChecking=no gpu1 true\n",
])
def test_a_setting_for_every_host_stays_a_warning(src: str) -> None:
    from quotecheck.checker import Options, check_source

    [d] = [x for x in check_source(src, Options(severity="info")).diagnostics
           if x.code == "QC301"]
    assert d.severity == "warning", src


def test_a_host_block_holds_only_for_its_hosts(tmp_path: Path) -> None:
    """Real OpenSSH (`ssh -G` resolves a config without connecting): the setting of a
    `Host node*` block is off for node1 only."""
    config = tmp_path / "config"
    config.write_text("Host node*\n  StrictHostKeyChecking no\n")

    def strict(host: str) -> str:
        out = subprocess.run(["ssh", "-G", "-F", str(config), host], capture_output=True,
                             text=True, timeout=10, check=True).stdout
        return next(line.split()[1] for line in out.splitlines()
                    if line.startswith("stricthostkeychecking "))

    assert strict("node1") == "false"
    assert strict("gpu1") != "false"


def test_in_an_argv_a_python_file_runs(tmp_path: Path) -> None:
    """No shell holds the setting: it is one element of the argv subprocess.run gets."""
    src = ('import subprocess\nFLAGS = ["-o", "StrictHostKeyChecking=no", "-o", "BatchMode=yes"]\n'
           'subprocess.run(["ssh", *FLAGS, "web1", "uptime"], check=True)\n')
    result = check_source(src, Options(select=[CODE], host="python"), path="deploy.py")
    [d] = result.diagnostics
    assert d.severity == "warning" and src[d.span[0]:d.span[1]] == "StrictHostKeyChecking=no"
    path = tmp_path / "deploy.py"
    path.write_text(src)
    assert main(["fix", "--write", "--unsafe-fixes", "--no-config", str(path)]) in (0, 1)
    fixed = path.read_text()
    flags = ast.literal_eval(fixed.split("FLAGS = ", 1)[1].split("\n", 1)[0])
    assert flags == ["-o", "StrictHostKeyChecking=accept-new", "-o", "BatchMode=yes"]
    again = check_source(fixed, Options(select=[CODE], host="python"), path="deploy.py")
    assert not again.diagnostics
    local = ('import subprocess\n'
             'subprocess.run(["ssh", "-o", "StrictHostKeyChecking=no", "localhost", "true"])\n')
    [d] = check_source(local, Options(select=[CODE], severity="info", host="python"),
                       path="t.py").diagnostics
    assert d.severity == "info"


# -- issue 25: a throw-away CI test guest --------------------------------------------------------

# openpbs/openpbs, ci/etc/install-system-packages lines 222-249 (custom licence, shortened): the
# CI container that runs it becomes an ssh server for its sibling test containers.
CI_GUEST = (
    "#!/bin/bash\n"
    "ssh-keygen -t rsa -N '' -f ~/.ssh/id_rsa\n"
    "cp ~/.ssh/id_rsa.pub ~/.ssh/authorized_keys\n"
    "echo 'root:pbs' | chpasswd\n"
    "echo 'Host *' >>/etc/ssh/ssh_config\n"
    "echo '  StrictHostKeyChecking no' >>/etc/ssh/ssh_config\n"
    "echo 'PermitRootLogin yes' >>/etc/ssh/sshd_config\n"
    "ssh-keygen -A\n")


def test_a_fresh_guest_has_new_host_keys(tmp_path: Path) -> None:
    """Real ssh-keygen -A, as the guest runs it at its start: two fresh machines get
    different host keys, so a CI job's guests have no key anyone could have known."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("no ssh-keygen")
    keys = []
    for guest in ("one", "two"):
        (tmp_path / guest / "etc" / "ssh").mkdir(parents=True)
        subprocess.run(["ssh-keygen", "-A", "-f", str(tmp_path / guest)], check=True,
                       capture_output=True, timeout=60)
        keys.append((tmp_path / guest / "etc/ssh/ssh_host_ed25519_key.pub").read_text()
                    .split()[1])
    assert keys[0] != keys[1]


@pytest.mark.parametrize(("src", "path"), [
    (CI_GUEST, "ci/etc/install-system-packages"),
    (CI_GUEST, ".github/scripts/start-node.sh"),
    # CI named by a job variable the script reads; the server side made by a redirect only
    (CI_GUEST.replace("cp ~/.ssh/id_rsa.pub ~/.ssh/authorized_keys", 'echo "$GITLAB_CI"')
     .replace("ssh-keygen -A\n", ""), "tests/node.sh"),
])
def test_a_ci_test_guest_is_information(src: str, path: str) -> None:
    [d] = [x for x in check_source(src, Options(severity="info"), path=path).diagnostics
           if x.code == CODE]
    assert d.severity == "info" and "throw-away test guest" in d.text, path


@pytest.mark.parametrize(("src", "path"), [
    # not run by CI: a cluster node's setup (Azure/azurehpc scripts/join_domain.sh is one)
    (CI_GUEST, "scripts/join_domain.sh"),
    # run by CI, but it makes no ssh server: a CI deploy that reaches a real host
    ("#!/bin/bash\necho 'Host *' >> ~/.ssh/config\n"
     "echo '  StrictHostKeyChecking no' >> ~/.ssh/config\nrsync -a site/ deploy@web-01:/srv\n",
     "ci/deploy.sh"),
    # the authorized_keys it writes is another machine's
    ("#!/bin/bash\nssh -o StrictHostKeyChecking=no h 'cat >> ~/.ssh/authorized_keys' < k.pub\n",
     "ci/push-key.sh"),
])
def test_a_ci_script_that_makes_no_test_guest_stays_a_warning(src: str, path: str) -> None:
    found_here = [x for x in check_source(src, Options(severity="info"), path=path).diagnostics
                  if x.code == CODE]
    assert found_here and {d.severity for d in found_here} == {"warning"}, path
