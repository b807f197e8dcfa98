"""QC111 redirect-in-wrong-layer: redirections and state changes that stay in the outer layer."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support import Finder, fixture_test

from quotecheck.checker import Options, check_source

CODE = "QC111"
found = Finder(CODE, severity="hint")


# The fixtures' expectations are at the default threshold (hints are not shown).
test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text) if d.severity != "hint"])


def test_real_shell_opens_the_redirect_before_the_wrapper_runs(tmp_path: Path) -> None:
    """The calling shell creates the file even when the wrapper never starts: the redirect
    belongs to it, not to the command after the wrapper."""
    target = tmp_path / "out"
    subprocess.run(["bash", "-c", f"no-such-wrapper-qc111 echo 1 > {target}"],
                   capture_output=True, timeout=10)
    assert target.exists() and target.read_text() == ""


def test_sudo_redirect_to_a_root_only_file() -> None:
    src = "sudo echo 1 > /proc/sys/vm/drop_caches"
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 13) and d.severity == "warning"
    said = d.message
    assert said.kind == "opened-as-you" and said.value("target") == "/proc/sys/vm/drop_caches"
    assert "`echo 1 | sudo tee /proc/sys/vm/drop_caches > /dev/null`" in said.value("instead")
    assert "`sudo sh -c 'echo 1 > /proc/sys/vm/drop_caches'`" in said.value("instead")
    [(_, _, d)] = found("sudo echo x >> /etc/hosts")
    assert "tee -a" in d.message.value("instead")
    [(_, _, d)] = found("sudo sh -c 'echo x' > /etc/motd")
    assert d.message.value("instead").startswith("put the redirection inside the script")
    assert len(found("sudo cat < /root/.ssh/id_rsa")) == 1


def test_sudo_redirects_that_are_fine() -> None:
    for src in ["sudo make install > build.log", "sudo cmd > /tmp/x 2>&1",
                "echo 1 | sudo tee /proc/sys/vm/drop_caches > /dev/null",
                "sudo sh -c 'echo 1 > /proc/sys/vm/drop_caches'", 'sudo cmd > "$LOG"',
                "sudo cmd 2>/dev/null", "sudo cat /etc/shadow > ~/shadow.txt"]:
        assert found(src) == [], src


def test_ssh_redirect_with_the_path_in_the_remote_command() -> None:
    src = 'ssh h "mkdir -p /srv/app/logs && run" > /srv/app/logs/out.log'
    [(_, col, d)] = found(src)
    assert src[col - 1] == ">" and d.severity == "warning"
    assert d.message.kind == "redirect-stays-local"
    assert d.message.value("evidence") == ("its directory `/srv/app/logs` appears in the remote "
                                           "command")
    assert d.message.value("inside") == ("`ssh h 'mkdir -p /srv/app/logs && run > "
                                         "/srv/app/logs/out.log'`")
    [(_, _, d)] = found("ssh h 'touch /data/x.lock; cat /data/x' > /data/x")
    assert d.message.value("evidence").startswith("the same path")


def test_ssh_capture_into_a_local_file() -> None:
    assert found("ssh h cat /etc/hosts > hosts.txt") == []
    [(_, _, d)] = found("ssh h uptime > /var/log/uptime.log")
    assert d.severity == "hint"  # below the default threshold
    shown = check_source("ssh h uptime > /var/log/uptime.log", Options(select=[CODE]))
    assert shown.diagnostics == []
    # A common directory in both commands is no evidence.
    [(_, _, d)] = found("ssh h 'cat /var/log/syslog' > /var/log/remote-syslog")
    assert d.severity == "hint"


def test_remote_shell_that_only_changes_directory() -> None:
    src = "ssh h cd /srv && make"
    [(_, col, d)] = found(src)
    assert col == 7 and d.message.kind == "state-not-kept"
    assert d.message.value("next") == "`make`"
    assert d.related and src[d.related[0].span[0]:d.related[0].span[1]] == "make"
    src = "ssh h cd /srv\nssh h make"
    [(_, _, d)] = found(src)
    assert d.message.value("where").startswith("starts a fresh remote shell")
    assert found("ssh h cd /srv") == []
    assert found("ssh h 'cd /srv && make'; echo done") == []


def test_interactive_session_followed_by_commands() -> None:
    [(line, col, d)] = found("sudo -i\napt-get update")
    assert (line, col) == (1, 1) and d.message.kind == "interactive-session"
    assert d.message.value("next") == "`apt-get update`"
    assert len(found("ssh host\nls")) == 1
    assert len(found("su - bob\nls")) == 1
    for src in ["sudo -i <<'EOF'\nls\nEOF\necho done", "ssh h bash -s < job.sh\necho ok",
                "cat job.sh | sudo bash\necho ok", "ssh -N -L 8080:localhost:80 h &\ncurl x",
                "sudo -i", "ssh h bash -s <<'EOF'\ncd /x\nEOF\necho done"]:
        assert found(src) == [], src


def test_must_not_fire_on_correct_code() -> None:
    for src in ["ssh h 'echo '\\''a'\\'''", "sh -c 'cmd \"$1\"' sh \"$x\"",
                "ps aux | grep '[p]ython' > procs.txt", "awk \"{print \\$2}\" f > out"]:
        assert found(src) == [], src


@pytest.mark.parametrize("src", ["sudo > /etc/x", "ssh > /srv/x", "> /etc/x", "ssh h >",
                                 "sudo echo > \"$f\"", "ssh h cd", "sudo -i\n", "ssh\nls",
                                 "docker exec c > /x"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


@pytest.mark.parametrize("src", [
    'c=db\ndocker exec "$c" mkdir -p /dbdata\ndocker exec "$c" echo x > /dbdata/marker',
    "ssh web1 mkdir -p /srv/app\nssh web1 'date' > /srv/app/deployed-at",
])
def test_a_path_the_script_uses_on_the_other_side(src: str) -> None:
    last = src.count("\n") + 1
    [d] = [d for line, _, d in found(src) if line == last]
    assert d.severity == "warning" and "the script uses that path on" in d.text
    assert "(line " in d.message.value("evidence")


def test_the_same_path_on_another_container_is_no_evidence() -> None:
    src = "docker exec a mkdir -p /dbdata\ndocker exec b echo x > /dbdata/marker"
    assert [d.severity for _, _, d in found(src)] == []


def test_a_container_redirect_opens_the_file_on_the_host(tmp_path: Path) -> None:
    """A stub `docker` stands in for the container: the shell opens the target before it runs
    docker, so the file is made (or fails) on this machine."""
    stub = tmp_path / "bin" / "docker"
    stub.parent.mkdir()
    stub.write_text("#!/bin/sh\nshift 2\nexec \"$@\"\n")
    stub.chmod(0o755)
    out = tmp_path / "marker"
    r = subprocess.run(["bash", "-c", f"docker exec c echo x > {tmp_path}/nodir/marker"],
                       env={"PATH": f"{stub.parent}:/usr/bin:/bin"}, capture_output=True,
                       text=True, timeout=10)
    assert r.returncode != 0 and "No such file or directory" in r.stderr
    subprocess.run(["bash", "-c", f"docker exec c echo x > {out}"],
                   env={"PATH": f"{stub.parent}:/usr/bin:/bin"}, check=True, timeout=10)
    assert out.read_text() == "x\n"  # written here, by this shell


def test_a_session_in_one_branch_is_not_followed_by_the_other_branch(tmp_path: Path) -> None:
    # trafodion's sqssh: `then ... ssh $MYNODE; else echo ...; fi` opens the session on
    # purpose; the else branch never runs after it
    src = ('if [ -n "$NODE" ]; then\n  echo "ssh to $NODE"\n  ssh "$NODE"\nelse\n'
           "  echo 'no node given'\nfi\n")
    assert found(src) == []
    case = 'case "$1" in\n  login) su - bob ;;\n  *) echo usage ;;\nesac\n'
    assert found(case) == []
    # still found: a command after the session in the same branch, or after the `fi`
    assert len(found(src.replace('"$NODE"\nelse', '"$NODE"\n  ls\nelse'))) == 1
    assert len(found(src + "ls\n")) == 1
    # real bash: with the then-branch taken, the else branch's command does not run
    stub = tmp_path / "ssh"
    stub.write_text("#!/bin/sh\necho SESSION\n")
    stub.chmod(0o755)
    res = subprocess.run(["bash", "-c", src], capture_output=True, text=True, timeout=10,
                         env={"PATH": f"{tmp_path}:/usr/bin:/bin", "NODE": "n1"})
    assert res.stdout == "ssh to n1\nSESSION\n"
