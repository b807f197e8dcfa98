"""The harness itself: each test checks something a broken harness would get wrong."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from harness.cleanup import alive
from harness.shells import ShellWordsError, bash_words, dash_words, run_shell
from harness.sshd import SshServer
from harness.stubs import StubDir

# Arguments that break naive quoting, splitting or encoding somewhere.
NASTY_ARGS = [
    "",
    "a b",
    "  two  spaces  ",
    "it's",
    '"double"',
    "back\\slash\\",
    "$HOME $(id) `id` ${x:-y}",
    "line1\nline2\n",
    "tab\there",
    "-n",
    "--",
    "-e",
    "*",
    "~",
    "ünïcødé ✓ 日本",
    "\udcff\udcfe",  # bytes 0xff 0xfe: not UTF-8, must still round-trip
    "!event",
    "{a,b}",
    "x=1",
    ";|&<>()",
    "",
]



def _wait_dead(pid: int, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


# -- stubs --------------------------------------------------------------------------------


def test_stub_records_exact_argv_without_a_shell(stubs: StubDir) -> None:
    subprocess.run([str(stubs.path / "rec"), *NASTY_ARGS], check=True)
    assert stubs.records() == [["rec", *NASTY_ARGS]]


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_stub_records_exact_argv_through_a_shell(stubs: StubDir, shell: str) -> None:
    script = "rec " + " ".join(shlex.quote(a) for a in NASTY_ARGS) + "\nrec\nrec ''"
    res = run_shell(shell, script, stubs.env())
    assert res.returncode == 0, res.stderr
    assert stubs.records() == [["rec", *NASTY_ARGS], ["rec"], ["rec", ""]]
    # the record is the bytes the kernel passed
    assert os.fsencode(stubs.records()[0][16]) == b"\xff\xfe"


def test_stub_named_python3_does_not_find_itself(stubs: StubDir) -> None:
    stubs.add("python3", stdout="from stub\n", exit_code=3)
    res = run_shell("bash", "python3 -c 'print(1)'", stubs.env())
    assert (res.returncode, res.stdout) == (3, "from stub\n")
    assert stubs.records() == [["python3", "-c", "print(1)"]]


def test_stub_stdout_exit_code_and_stdin(tmp_path: Path) -> None:
    st = StubDir(
        tmp_path,
        ["ps", "awk"],
        stdout={"ps": "root 42 python3 train.py\n"},
        exit_codes={"awk": 1},
        capture_stdin=["awk"],
    )
    res = run_shell("bash", "ps aux | awk '{print $2}'; echo \"rc=$?\"", st.env())
    assert res.stdout == "rc=1\n"
    assert st.records_for("awk") == [["awk", "{print $2}"]]
    (awk,) = [e for e in st.entries() if e["argv"][0] == "awk"]
    assert awk["stdin"] == "root 42 python3 train.py\n"


def test_concurrent_stubs_never_interleave(stubs: StubDir) -> None:
    # Records far above PIPE_BUF (4096), written by 24 processes at once.
    big = ["x" * 70_000, "y\n" * 20_000]
    procs = [subprocess.Popen([str(stubs.path / "rec"), str(i), *big]) for i in range(24)]
    for p in procs:
        assert p.wait(timeout=20) == 0
    recs = stubs.records()
    assert sorted(r[1] for r in recs) == sorted(str(i) for i in range(24))
    assert all(r[2:] == big for r in recs)


def test_bash_builtins_recorded_dash_cannot(stubs: StubDir) -> None:
    env = stubs.env(record_builtins=["echo", "cd", "kill", "eval", "[", "."])
    script = "echo 'a  b' ''; cd /; kill -0 $$; eval 'x=1'; [ \"$x\" = 1 ] && echo ok"
    res = run_shell("bash", script, env)
    # the builtins still do their job
    assert res.stdout == "a  b \nok\n"
    recs = stubs.records()
    assert recs[0] == ["echo", "a  b", ""]
    assert recs[1] == ["cd", "/"]
    assert recs[2][:2] == ["kill", "-0"] and recs[2][2].isdigit()
    assert recs[3:] == [["eval", "x=1"], ["[", "1", "=", "1", "]"], ["echo", "ok"]]
    assert all(e.get("builtin") for e in stubs.entries())
    stubs.clear()
    # dash ignores BASH_ENV: nothing can be recorded
    assert run_shell("dash", script, env).stdout == "a  b \nok\n"
    assert stubs.records() == []


# -- shells -------------------------------------------------------------------------------


def test_shell_words_ground_truth() -> None:
    assert bash_words("\"a b\" c\\ d '' \"$'x'\"") == ["a b", "c d", "", "$'x'"]
    assert bash_words("") == []
    assert bash_words("''") == [""]
    # bash-only syntax: dash leaves $'...' to plain quote removal
    assert bash_words("$'a\\tb'") == ["a\tb"]
    assert dash_words("$'a\\tb'") == ["$a\\tb"]
    assert bash_words("{a,b}") == ["a", "b"]
    assert dash_words("{a,b}") == ["{a,b}"]
    # runs in an empty directory: globs do not match anything
    assert bash_words("*") == ["*"]
    # no program can be found by name
    with pytest.raises(ShellWordsError):
        bash_words("$(id)")
    with pytest.raises(ShellWordsError):
        dash_words("'unterminated")


def test_run_shell_timeout_kills_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = f"sleep 30 & echo $! > {pidfile}; sleep 30"
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_shell("bash", script, None, timeout=0.5)
    assert time.monotonic() - start < 5
    assert _wait_dead(int(pidfile.read_text()))


def test_run_shell_passes_stdin_and_argv0() -> None:
    res = run_shell("dash", 'read -r l; printf "%s|%s" "$0" "$l"', None, stdin="in put\n")
    assert res.stdout == "dash|in put"


# -- sshd -----------------------------------------------------------------------------------


def _ssh(remote: SshServer, stubs: StubDir, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a local bash whose PATH starts with the ssh wrapper and the stubs."""
    return run_shell("bash", script, remote.client_env(stubs))


def test_ssh_joins_words_with_spaces(remote: SshServer, stubs: StubDir) -> None:
    stubs.add("ls")
    res = _ssh(remote, stubs, 'ssh -p 10638 root@127.0.0.1 ls "my file"')
    assert res.returncode == 0, res.stderr
    assert remote.ssh_records() == ["ls my file"]
    assert stubs.records() == [["ls", "my", "file"]]


def test_remote_stub_receives_exact_argv(remote: SshServer, stubs: StubDir) -> None:
    res = _ssh(remote, stubs, "ssh h \"rec 'a b' c\"")
    assert res.returncode == 0, res.stderr
    assert remote.ssh_records() == ["rec 'a b' c"]
    assert stubs.records() == [["rec", "a b", "c"]]
    # the remote side is the throw-away home, not the local cwd
    assert stubs.entries()[0].get("cwd") == str(remote.home)


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_nasty_argv_survive_two_quoting_layers(
    remote: SshServer, stubs: StubDir, shell: str
) -> None:
    remote.set_login_shell(shell)
    remote_cmd = "rec " + " ".join(shlex.quote(a) for a in NASTY_ARGS)
    res = _ssh(remote, stubs, "ssh localhost " + shlex.quote(remote_cmd))
    assert res.returncode == 0, res.stderr
    assert remote.ssh_records() == [remote_cmd]
    assert stubs.records() == [["rec", *NASTY_ARGS]]


def test_login_shell_is_selectable(remote: SshServer, stubs: StubDir) -> None:
    res = _ssh(remote, stubs, "ssh h 'echo $0'; ssh h '[[ 1 ]] && echo bash-only'")
    assert res.stdout == "bash\nbash-only\n"
    remote.set_login_shell("dash")
    res = _ssh(remote, stubs, "ssh h 'echo $0'; ssh h '[[ 1 ]] && echo bash-only'")
    assert res.stdout == "dash\n"
    assert "[[: not found" in res.stderr


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_remote_shell_cmdline_is_shell_c_string(
    remote: SshServer, stubs: StubDir, shell: str
) -> None:
    remote.set_login_shell(shell)
    # `; :` keeps bash from exec'ing cat in place of itself (see the next test)
    res = _ssh(remote, stubs, "ssh h 'cat /proc/$$/cmdline; :'")
    (sent,) = remote.ssh_records()
    assert sent == "cat /proc/$$/cmdline; :"
    assert res.stdout.split("\0") == [shell, "-c", sent, ""]


@pytest.mark.parametrize(("shell", "execs_in_place"), [("bash", True), ("dash", False)])
def test_lone_command_exec_in_place(
    remote: SshServer, stubs: StubDir, shell: str, execs_in_place: bool
) -> None:
    remote.set_login_shell(shell)
    res = _ssh(remote, stubs, "ssh h 'cat /proc/$$/cmdline'")
    argv = res.stdout.split("\0")[:-1]
    assert (argv[0] == "cat") is execs_in_place, argv


def test_heredoc_script_on_stdin(remote: SshServer, stubs: StubDir) -> None:
    script = (
        "ssh -n -p 1 h true\n"  # -n: must not eat the heredoc of the next line
        "ssh h bash -s <<'EOF'\n"
        'rec "x y" "$0" $HOME\n'
        "echo done\n"
        "EOF\n"
    )
    res = _ssh(remote, stubs, script)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "done\n"
    # the script never appears on a command line
    assert remote.ssh_records() == ["true", "bash -s"]
    assert stubs.records() == [["rec", "x y", "bash", str(remote.home)]]


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_no_command_gives_login_shell_reading_stdin(
    remote: SshServer, stubs: StubDir, shell: str
) -> None:
    remote.set_login_shell(shell)
    # An empty command string is no command at all: sshd starts a login shell.
    res = _ssh(remote, stubs, "ssh h <<'EOF'\necho \"$0\"\nrec login\nEOF\nssh h '' < /dev/null")
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"-{shell}\n"
    assert remote.ssh_sessions() == [None, None]
    assert remote.ssh_records() == []
    # /etc/profile resets PATH; the generated ~/.profile puts the stubs back
    assert stubs.records() == [["rec", "login"]]


def test_remote_builtins_recorded_under_bash(remote: SshServer, stubs: StubDir) -> None:
    remote.use_stubs(stubs, record_builtins=["echo"])
    # top-level remote bash (reads ~/.bashrc, not BASH_ENV) and a nested one (BASH_ENV)
    res = _ssh(remote, stubs, 'ssh h \'echo "a  b"; bash -c "echo c; :"; :\'')
    assert res.stdout == "a  b\nc\n"
    assert stubs.records() == [["echo", "a  b"], ["echo", "c"]]


def test_wrapper_options_win_and_stay_on_loopback(remote: SshServer, stubs: StubDir) -> None:
    # A port, user, host and host key policy from the command are all overridden.
    res = _ssh(
        remote,
        stubs,
        "ssh -p 1 -l nobody -o StrictHostKeyChecking=no ubuntu@gpu-box.invalid 'echo $USER'",
    )
    assert (res.returncode, res.stdout) == (0, f"{remote.user}\n"), res.stderr


def test_first_port_option_wins(sshd: SshServer) -> None:
    opts = sshd.ssh_options()
    assert opts[-2] == "-p"
    without_port = opts[:-2]
    base = ["/usr/bin/ssh", *without_port]
    ok = subprocess.run(
        [*base, "-p", str(sshd.port), "-p", "1", "h", "true"], capture_output=True, timeout=20
    )
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        [*base, "-p", "1", "-p", str(sshd.port), "h", "true"], capture_output=True, timeout=20
    )
    assert bad.returncode == 255


def test_records_are_numbered_per_connection(remote: SshServer, stubs: StubDir) -> None:
    cmds = [f"rec {i}" for i in range(8)]
    with ThreadPoolExecutor(8) as pool:
        results = list(
            pool.map(
                lambda c: subprocess.run(
                    remote.ssh_command("h", c),
                    capture_output=True,
                    timeout=20,
                    env=remote.client_env(stubs),
                ),
                cmds,
            )
        )
    assert all(r.returncode == 0 for r in results)
    assert sorted(remote.ssh_records()) == sorted(cmds)
    assert sorted(stubs.records()) == sorted([["rec", str(i)] for i in range(8)])
    remote.clear_records()
    assert remote.ssh_records() == []


def test_server_stops_by_pid_and_reaps_leftovers(tmp_path: Path) -> None:
    with SshServer(tmp_path) as server:
        pid = server.pid
        assert alive(pid)
        # A background job that outlives its connection (stdio redirected, so ssh returns).
        res = subprocess.run(
            server.ssh_command("h", "sleep 300 >/dev/null 2>&1 </dev/null & echo $!"),
            capture_output=True,
            text=True,
            timeout=20,
        )
        job = int(res.stdout)
        assert alive(job)
    assert not alive(pid)
    assert _wait_dead(job)


def test_hanging_ssh_is_bounded_and_cleaned_up(remote: SshServer, stubs: StubDir) -> None:
    # Without redirections sshd waits for the background job's pipes: ssh hangs.
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_shell(
            "bash", "ssh h 'sleep 300 & echo $! > job.pid'", remote.client_env(stubs), timeout=1
        )
    assert time.monotonic() - start < 6
    job = int((remote.home / "job.pid").read_text())
    assert alive(job)  # killing the local ssh did not stop the remote job
    assert job in remote.kill_sessions()
    assert _wait_dead(job)
