"""QC201's fix moves a remote script to ssh's stdin (`ssh h bash -s <<'EOF'`, the body after
the command's line). It must not change what runs: it is refused when the ssh command does not
end its line (a string, a heredoc or more commands follow it there) and when a command of the
script reads its standard input (it would eat the rest of the script). Checked by running the
original and the fixed script with real bash, argv-recording stubs, and an ssh stub that runs
the remote command with a local bash whose PATH has stubs of their own."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from harness.stubs import StubDir
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options
from quotecheck.fixer import fix_source

SYSTEM_PATH = "/usr/bin:/bin"
OPTIONS = Options(select=["QC201"])


def fixed(src: str) -> str:
    return fix_source(src, OPTIONS, unsafe=True).text


@pytest.mark.parametrize("src", [
    # the body would land in the local string, and its $(...) run locally
    "ssh h 'pkill -f worker; rec started'; echo \"local\ntwo\"\n",
    # the remote script would become cat's data
    "ssh h 'pkill -f worker; rec started'; cat <<DATA\nd\nDATA\n",
    "ssh h 'pkill -f worker; rec started' && rec after\n",
    "ssh h 'pkill -f worker; rec started' || rec failed\n",
    "ssh h 'pkill -f worker; rec started' \\\n  && rec after\n",
    "ssh h 'pkill -f worker; rec started' | rec piped\n",
    "ssh h 'pkill -f worker; rec started'; rec more\n",
    "if ssh h 'pkill -f worker; rec started'; then rec ok; fi\n",
])
def test_refused_unless_the_ssh_command_ends_its_line(src: str) -> None:
    assert fixed(src) == src


@pytest.mark.parametrize("reader", [
    "head -1", "x=$(head -1)", "cat", "cat -", "grep x", "grep -e x", "sed s/a/b/",
    "sed -n 1p", "awk 1", "read v", "while read l; do rec \"$l\"; done", "tail -n 1",
    "sort", "wc -l", "tr a b", "xargs rec", "ssh other rec", "jq .", "python3", "bash",
    "sudo cat", "echo $(cat)", "cut -d: -f1", "dd bs=1 count=1",
])
def test_refused_when_a_command_reads_the_script(reader: str) -> None:
    src = f"ssh h 'pkill -f worker; {reader}; rec started'\n"
    assert fixed(src) == src


@pytest.mark.parametrize("other", [
    "head -1 /etc/hosts", "grep x /etc/hosts", "sed s/a/b/ /etc/hosts", "cat /etc/hosts",
    "ssh -n other rec", "read v < /etc/hosts", "bash -c rec", "python3 -c pass",
    "awk 1 /etc/hosts", "echo x | head -1",
])
def test_applied_when_no_command_reads_the_script(other: str) -> None:
    src = f"ssh h 'pkill -f worker; {other}; rec started'\n"
    assert "bash -s <<'EOF'" in fixed(src)


@pytest.mark.parametrize("src", [
    "ssh h 'pkill -f worker; rec started'\n",
    "ssh h 'pkill -f worker; rec started';\n",
    "ssh h 'pkill -f worker; rec started'  # restart\n",
    "rec before; ssh h 'pkill -f worker; rec started'\n",
])
def test_applied_when_the_ssh_command_ends_its_line(src: str) -> None:
    assert "bash -s <<'EOF'" in fixed(src)


# -- running both: the fixed script runs what the original ran ----------------------------


SSH_STUB = """#!/bin/bash
# ssh [options] host command...: the command joined by spaces, run by a local "remote" bash.
while [ "$#" -gt 0 ]; do
  case $1 in
    -[oiplFJLRDWEBSbcemw]) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
shift
REMOTE_PATH={remote}:{system} exec bash -c "PATH=\\$REMOTE_PATH; $*"
"""


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> tuple[StubDir, StubDir]:
    base = tmp_path_factory.mktemp("qc201")
    local = StubDir(base, names=["rec", "pkill"])
    remote = StubDir(base, names=["rec", "pkill"])
    ssh = local.path / "ssh"
    ssh.write_text(SSH_STUB.format(remote=remote.path, system=SYSTEM_PATH))
    ssh.chmod(0o755)
    return local, remote


def run_both(script: str, local: StubDir, remote: StubDir, cwd: Path
             ) -> tuple[list[list[str]], list[list[str]], str]:
    local.clear()
    remote.clear()
    path = cwd / "script.sh"
    path.write_text(script)
    env = {"PATH": f"{local.path}:{SYSTEM_PATH}", "HOME": str(cwd), "LC_ALL": "C.UTF-8"}
    res = subprocess.run(["bash", str(path)], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    return local.records(), remote.records(), res.stdout


READERS = ["echo $(rec subst)", "head -1",
           "x=$(head -1); rec got \"$x\"", "cat", "grep x", "read v",
           "sed -n 1p", "while read l; do rec line \"$l\"; done", "ssh other rec inner",
           "cat /etc/hostname", "head -1 /etc/hostname", "ssh -n other rec inner"]
REMOTE_COMMANDS = st.lists(st.one_of(
    st.sampled_from(READERS), st.builds(lambda n: f"rec remote{n}", st.integers(0, 9))),
    max_size=3)
AFTER = st.sampled_from([
    "", ";", "  # note", "; echo \"local\n$(rec in-string)\"",
    "; cat <<DATA\nd $(rec in-heredoc)\nDATA", " && rec after", " \\\n  && rec continued",
    # The pipe's reader drains its input: a reader that exits first would kill the remote
    # shell's next `echo` with SIGPIPE, in one run and not the other.
    "; rec more", " | { cat >/dev/null; rec piped; }",
])
AROUND = st.lists(st.sampled_from([
    "rec local", "echo \"multi\nline $(rec multi)\"", "cat <<DATA\nbody $(rec doc)\nDATA",
    "cat <<'DATA'\nquoted $(rec not-run)\nDATA", "head -1 <<< x", "read v <<< x; rec \"$v\"",
    "x='a\nb'; rec \"$x\"",
]), max_size=2)


@st.composite
def scripts(draw: st.DrawFn) -> str:
    before = draw(AROUND)
    remote = ["pkill -f worker", *draw(REMOTE_COMMANDS), "rec started worker"]
    line = f"ssh h '{'; '.join(remote)}'{draw(AFTER)}"
    after = draw(AROUND)
    return "\n".join([*before, line, *after]) + "\n"


def test_the_ssh_stub_runs_the_remote_side(machines: tuple[StubDir, StubDir],
                                           tmp_path: Path) -> None:
    local, remote = machines
    src = "rec here\nssh h 'pkill -f worker; rec there'\n"
    moved = fixed(src)
    assert "bash -s <<'EOF'" in moved
    for text in (src, moved):
        assert run_both(text, local, remote, tmp_path)[:2] == (
            [["rec", "here"]], [["pkill", "-f", "worker"], ["rec", "there"]])


@settings(max_examples=int(os.environ.get("QC201_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=scripts())
@example(script="ssh h 'pkill -f worker; echo $(rec subst)'; echo \"local\ntwo\"\n")
@example(script="ssh h 'pkill -f worker; rec started'; cat <<DATA\nd\nDATA\n")
@example(script="ssh h 'pkill -f worker; head -1; rec started'\n")
@example(script="ssh h 'pkill -f worker; x=$(head -1); rec started'\n")
def test_the_fixed_script_runs_what_the_original_ran(script: str,
                                                     machines: tuple[StubDir, StubDir],
                                                     tmp_path: Path) -> None:
    local, remote = machines
    moved = fixed(script)
    before = run_both(script, local, remote, tmp_path)
    after = run_both(moved, local, remote, tmp_path)
    assert after == before, moved
