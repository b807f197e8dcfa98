"""QC110 exec-gets-shell-text: exec-style wrappers run argv, not shell text or builtins."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from _support import Finder, fixture_test

CODE = "QC110"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


def status(*argv: str) -> int:
    """Exit status of a wrapper given a program that cannot exist (nothing is run)."""
    return subprocess.run(list(argv), capture_output=True, timeout=10).returncode


def test_real_wrappers_fail_with_127() -> None:
    assert status("timeout", "5", "cd /nonexistent-qc110 && true") == 127
    assert status("env", "cd /nonexistent-qc110") == 127
    if shutil.which("cd") is None:
        assert status("env", "cd", "/") == 127
        assert status("nohup", "cd", "/") == 127
    if shutil.which("source") is None:
        assert status("env", "X=1", "source", "/dev/null") == 127


def test_shell_text_as_the_program() -> None:
    [(line, col, d)] = found('timeout 5 "cd d && x"')
    assert (line, col) == (1, 11) and d.severity == "error"
    assert "`cd d && x`" in d.text and "127" in d.text
    assert "`timeout 5 sh -c 'cd d && x'`" in d.text
    [(_, col, d)] = found("kubectl exec p -- 'ls /usr'")
    assert col == 19
    assert "`kubectl exec p -- ls /usr`" in d.text  # plain words: split them


def test_builtins() -> None:
    for src, col in [("sudo cd /root", 6), ("env X=1 source f", 9), ("nohup cd", 7),
                     ("ls | xargs cd", 12), ("find . -exec cd {} \\;", 14), ("exec cd /x", 6),
                     ("sudo -u bob export X=1", 13)]:
        [(_, c, d)] = found(src)
        assert c == col, src
        assert "builtin" in d.text


def test_dynamic_word_only_when_its_written_part_is_shell_text() -> None:
    assert found('sudo "$cmd"') == []
    assert found('sudo "$HOME/bin/run" x') == []
    [(_, _, d)] = found('sudo "cd $dir && make"')
    assert "`sudo sh -c 'cd \"$1\" && make' sh \"$dir\"`" in d.text


def test_not_reported() -> None:
    for src in ['sudo "/opt/My App/bin/run"', "command cd /x", "builtin cd /x", "time cd /x",
                'timeout 5 sh -c "cd d && x"', "env FOO=1 bar", "nice -n 5 make",
                "xargs -I{} cp {} /tmp", "find . -exec rm -f {} +", "sudo -s cd /root",
                "env -S 'cd x' y", "sh -c 'cmd \"$1\"' sh \"$x\"",
                "ssh h bash -s <<'EOF'\ncd /x\nEOF\n", "ssh h 'echo '\\''a'\\'''"]:
        assert found(src) == [], src


def test_inside_a_remote_layer() -> None:
    src = "ssh h 'timeout 5 \"cd /srv && ./probe\"'"
    [(_, col, d)] = found(src)
    assert src[col - 1] == '"'
    assert "ssh" in d.layers


@pytest.mark.parametrize("src", ["sudo", "timeout", "timeout 5", "env", "xargs", "nohup",
                                 "kubectl exec p --", "sudo ''", "find . -exec ';'", "sudo -u"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


# -- sudo -s / sudo -i: one word of shell text is one command name for sudo's shell ------------

@pytest.mark.parametrize("src", ["sudo -s 'cd /x && make'", 'sudo -i "cd $d && make"',
                                 'sudo -u bob -i "echo hi"'])
def test_one_word_of_shell_text_after_sudo_s(src: str) -> None:
    [(_, _, d)] = found(src)
    assert "command not found" in d.text and "sudo sh -c" in d.text


@pytest.mark.parametrize("src", ["sudo -s cd /x", 'sudo -s "$cmd"', "sudo -s /opt/my\\ app/run",
                                 "sudo -i make -C /srv/app"])
def test_words_sudo_s_can_run(src: str) -> None:
    assert found(src) == []


def test_real_sudo_s_runs_one_word_as_a_command_name() -> None:
    if shutil.which("sudo") is None or subprocess.run(
            ["sudo", "-n", "true"], capture_output=True, timeout=20).returncode != 0:
        pytest.skip("sudo not installed, or it asks for a password")
    # A harmless command as the fixture: `echo hi && echo there` as one word.
    res = subprocess.run(["sudo", "-n", "-s", "echo hi && echo there"], capture_output=True,
                         text=True, timeout=20, check=False)
    assert res.returncode == 127 and "command not found" in res.stderr and res.stdout == ""


def test_a_wrapper_given_the_command_builtin(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`command` is a builtin; Debian has no program of that name, so timeout fails with 127."""
    if shutil.which("command") is None:
        assert status("timeout", "5", "command", "true") == 127
    [(_, col, d)] = found("timeout 60 command claude -p x")
    assert col == 12 and d.severity == "warning"
    assert "`timeout 60 claude -p x`" in d.text
    assert status("timeout", "5", "true") == 0  # the advice runs
    [(_, _, d)] = found("timeout 5 command -v ls")
    assert "`timeout 5 sh -c 'command -v ls'`" in d.text
    assert subprocess.run(["timeout", "5", "sh", "-c", "command -v ls"], capture_output=True,
                          timeout=10).returncode == 0
    assert found("command timeout 5 ls") == []  # the shell's own builtin runs timeout


def test_timelimit_is_an_exec_wrapper() -> None:
    [(_, col, d)] = found("timelimit -q -s 9 -t 1 -T 2 cd /srv")
    assert col == 29 and "builtin" in d.text
    assert found("timelimit -t 60 make -C /srv") == []


def test_a_glob_in_the_program_word_is_the_outer_shells() -> None:
    """`sudo ./STAR-CCM+*.sh`: bash expands the pattern before sudo sees a file name."""
    assert found("sudo ./STAR-CCM+*.sh -q") == []
    assert found("sudo 'cd /x && ./run*.sh'") != []  # (quoted: shell text, no expansion here)
