"""QC112 inner-shell-args: the first word after `sh -c 'script'` is $0, not $1."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support import Finder, fixture_test

from quotecheck.diagnostics import Fix

CODE = "QC112"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


def apply(src: str, fix: Fix) -> str:
    for edit in sorted(fix.edits, key=lambda e: e.span[0], reverse=True):
        src = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    return src


@pytest.mark.parametrize("shell", ["sh", "bash", "dash"])
def test_real_shells_put_the_first_word_in_dollar_zero(shell: str) -> None:
    def run(*argv: str) -> str:
        return subprocess.run([shell, "-c", *argv], capture_output=True, text=True,
                              timeout=10, check=True).stdout

    assert run('printf "[%s]" "$0" "$1"', "x") == "[x][]"
    assert run('printf "[%s]" "$0" "$1"', "sh", "x") == "[sh][x]"
    # `sh -c ls -l /tmp`: the script is `ls`, the rest are $0 and $1.
    assert run('printf "[%s]" "$0" "$1"', "-l", "/tmp") == "[-l][/tmp]"


def test_first_word_taken_for_dollar_one() -> None:
    src = "sh -c 'echo $1' hello"
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 17) and d.severity == "warning"
    assert "`$0`" in d.text and "‹hello›" in d.text
    assert "`sh -c 'echo $1' sh hello`" in d.text
    assert d.related and src[d.related[0].span[0]:d.related[0].span[1]] == "$1"
    fixed = apply(src, d.fixes[0])
    assert fixed == "sh -c 'echo $1' sh hello" and found(fixed) == []
    # "$@" starts at $1: a file name in first place is lost from the loop.
    [(_, col, d)] = found("sh -c 'for f in \"$@\"; do gzip \"$f\"; done' ./a.log b.log")
    assert col == 43 and "$@" in d.text


def test_find_exec_and_xargs() -> None:
    src = "find . -name '*.log' -exec sh -c 'gzip \"$1\"' {} \\;"
    [(_, col, d)] = found(src)
    assert src[col - 1:col + 1] == "{}"
    assert found(apply(src, d.fixes[0])) == []
    src = "ls | xargs -n1 sh -c 'echo \"$1\"'"
    [(_, _, d)] = found(src)
    assert "xargs appends" in d.text
    fixed = apply(src, d.fixes[0])
    assert fixed.endswith("'echo \"$1\"' sh") and found(fixed) == []
    assert found("find . -exec sh -c 'gzip \"$0\"' {} \\;") == []


def test_missing_arguments() -> None:
    [(_, col, d)] = found("sh -c 'cp \"$1\" \"$2\"' sh a")
    assert col == 17 and "`$2`" in d.text  # points at the read of $2
    [(_, _, d)] = found("sh -c 'echo $1'")
    assert "no words follow" in d.text


def test_words_meant_for_the_command() -> None:
    [(_, col, d)] = found("sh -c ls -l /tmp")
    assert col == 10 and "`sh -c 'ls -l /tmp'`" in d.text


def test_su_reads_the_extra_words_itself() -> None:
    [(_, col, d)] = found("su -c ls -l /root")
    assert col == 10
    assert "‹-l› as its own option" in d.text and "‹/root› as the user name" in d.text
    assert found("su -c 'ls -l' root") == []
    assert found("su - postgres -c 'psql -l'") == []
    assert len(found("su root -c 'echo $1' x")) == 1  # su passes x to the shell as $0


def test_not_reported() -> None:
    for src in ["sh -c 'cmd \"$1\"' sh \"$x\"", "sh -c 'echo $0' x", "sh -c 'echo ${1:-none}'",
                "sh -c 'x=$1; shift; echo $x $1' sh a b", "sh -c 'for f; do echo $f; done' _ a b",
                "bash -c 'f() { echo $1; }; f a' sh", "sh -c \"echo $1\" sh",
                "bash -c \"$(cat job.sh)\" a b", "sh -c 'set -- a b; echo $2'",
                "sh -c 'echo \"$@\"' -- a b", "sh -c 'echo hi'",
                "ssh h bash -s -- a <<'EOF'\necho $1\nEOF\n", "ssh h 'echo '\\''a'\\'''",
                "sh -c 'echo \"$1\"' /bin/sh x", "sh -c 'echo \"$1\"' \"$0\" \"$@\"",
                "sh -c 'echo $1' \"${0##*/}\" x"]:
        assert found(src) == [], src


def test_inside_a_remote_layer() -> None:
    src = "ssh h \"sh -c 'echo \\$1' x\""
    [(_, col, d)] = found(src)
    assert src[col - 1] == "x" and d.fixes == ()


@pytest.mark.parametrize("src", ["sh -c", "sh -c ''", "sh -c '' a b", "su -c", "su",
                                 "xargs sh -c", "sh -c 'echo $9999999999999999' x",
                                 "find -exec sh -c '$1' {} +", "sh -c \"$x\" \"$@\""])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


@pytest.mark.parametrize("src, first", [
    ("sh -c 'cp \"$1\" \"$2\"' a.txt /backup", "a.txt"),
    ("bash -c 'tar xf \"$1\" -C \"$2\"' /srv/backup.tar /srv x", "/srv/backup.tar"),
])
def test_a_file_name_first_becomes_dollar_zero(src: str, first: str) -> None:
    # More words than the script reads, but the first is a file's name, not one chosen for $0.
    [(_, _, d)] = found(src)
    assert d.message.kind == "first-argument-is-dollar-zero"
    assert f"‹{first}›" in d.text
    fixed = apply(src, d.fixes[0])
    assert not found(fixed)
    # Real dash, the script replaced by one that prints what it reads: the file name is lost
    # before the fix and read as $1 after it.
    shown = "printf '<%s>' \"$1\" \"$2\""
    def reads(command: str) -> str:
        words = command.split("'", 2)[2].split()
        return subprocess.run(["dash", "-c", shown, *words], capture_output=True, text=True,
                              timeout=10, check=True).stdout
    assert f"<{first}>" not in reads(src)
    assert reads(fixed).startswith(f"<{first}>")


@pytest.mark.parametrize("src", [
    "sh -c 'echo \"$1\"' myprog hello",  # a name chosen for $0
    "sh -c 'echo \"$1\"' sh a.txt",
    "bash -c 'echo \"$0: $1\"' /usr/local/bin/tool x",  # the script reads $0 itself
])
def test_a_name_for_dollar_zero_is_left_alone(src: str) -> None:
    assert not found(src)


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_an_option_after_a_script_known_only_at_run_time_is_dollar_zero(
        shell: str, tmp_path: Path) -> None:
    # `bash -c "$(curl ... install.sh)" --no-install-kmd`: whatever the script is, it reads its
    # options from $1 on. Real shells, the installer replaced by one that prints what it gets.
    (tmp_path / "install.sh").write_text('printf "<%s>" "$0" "$@"\n')
    src = f'{shell} -c "$(cat install.sh)" --no-install-kmd'
    fixed = f'{shell} -c "$(cat install.sh)" -- --no-install-kmd'

    def gets(command: str) -> str:
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                              timeout=10, check=True, cwd=tmp_path).stdout

    assert gets(src) == "<--no-install-kmd>"  # $0 only: no option reaches the installer
    assert gets(fixed) == "<-->" + "<--no-install-kmd>"
    [(line, col, d)] = found(src)
    assert (line, col) == (1, len(src) - len("--no-install-kmd") + 1)
    assert d.severity == "warning" and d.message.kind == "first-argument-is-dollar-zero"
    assert "‹--no-install-kmd›" in d.text and "from `$1` on" in d.text
    assert gets(apply(src, d.fixes[0])) == f"<{shell}><--no-install-kmd>"
    assert found(fixed) == [] and found(apply(src, d.fixes[0])) == []
    # The same when the script is known and reads "$@", or comes from a variable.
    for other in ["sh -c 'exec prog \"$@\"' --verbose x", 'bash -c "$script" -x a']:
        [(_, _, d)] = found(other)
        assert d.message.kind == "first-argument-is-dollar-zero", other
    for quiet in ['bash -c "$(cat install.sh)" _ --no-install-kmd', 'bash -c "$s" -bash',
                  'bash -c "$(cat job.sh)" a b', "sh -c 'echo \"$0\"' --verbose"]:
        assert found(quiet) == [], quiet


@pytest.mark.parametrize("src", [
    'su -c "hdfs dfs -mkdir -p /apps/tez" "$exec_user"',  # su [options] [user]: the user
    'runuser -c "id" "${RUN_AS}"',
])
def test_su_c_then_a_user_held_by_a_variable(src: str) -> None:
    """util-linux su(1): `su [options] [-] [user [argument...]]`; after `-c CMD` the first
    operand is the user, whatever spells it (ranger's hive setup scripts)."""
    assert found(src) == []
