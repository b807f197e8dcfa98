"""QC107 quote-closes-early: same-kind quotes do not nest; the idioms that do nest are fine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support import Finder, fixture_test

from quotecheck.diagnostics import Fix

CODE = "QC107"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


def argv_of(words: str, x: str = "") -> list[str]:
    """The argv bash really builds from ``words`` (printf only: nothing is run)."""
    out = subprocess.run(["bash", "-c", f"printf '%s\\0' {words}"], capture_output=True,
                         text=True, timeout=10, check=True, env={"x": x, "PATH": "/usr/bin:/bin"})
    return out.stdout.split("\0")[:-1]


def apply(src: str, fix: Fix) -> str:
    for edit in sorted(fix.edits, key=lambda e: e.span[0], reverse=True):
        src = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    return src


def test_real_bash_splits_the_nested_quote() -> None:
    assert argv_of("'echo 'a b''") == ["echo a", "b"]
    assert argv_of("'echo '\\''a b'\\'''") == ["echo 'a b'"]


def test_ssh_words_split_by_the_early_close() -> None:
    src = "ssh host 'echo 'a b''"
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 16)  # the quote that closes instead of nesting
    assert d.severity == "warning"
    assert "`echo a b`" in d.text  # what ssh sends
    assert "'\\''" in d.text


def test_the_fix_gives_the_inner_layer_its_quotes() -> None:
    src = "ssh host 'echo 'a b''"
    [(_, _, d)] = found(src)
    [fix] = d.fixes
    assert fix.applicability == "unsafe"
    fixed = apply(src, fix)
    assert fixed == "ssh host 'echo '\\''a b'\\'''"
    assert argv_of(fixed.removeprefix("ssh host ")) == ["echo 'a b'"]
    assert found(fixed) == []


def test_double_quotes_around_an_expansion() -> None:
    src = 'sh -c "echo "$x""'
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 13)
    assert "`$x`" in d.text and "splits" in d.text
    fixed = apply(src, d.fixes[0])
    assert fixed == 'sh -c "echo \\"$x\\""'
    # The local shell splits the unquoted value; with the fix the script quotes it.
    assert argv_of(src.removeprefix("sh -c "), x="a  b") == ["echo a", "b"]
    assert argv_of(fixed.removeprefix("sh -c "), x="a  b") == ['echo "a  b"']
    assert found(fixed) == []


def test_sh_c_cut_at_the_space_names_dollar_zero() -> None:
    [(_, _, d)] = found("sh -c 'echo 'a b'' sh")
    assert "`echo a`" in d.text and "$0" in d.text


def test_glob_between_quotes_is_a_warning_plain_word_information() -> None:
    [(_, _, d)] = found("ssh h 'ls '*.log' | wc -l'")
    assert d.severity == "warning"
    [(_, _, d)] = found("ssh h 'echo 'hello''")
    assert d.severity == "info"


def test_idioms_and_quote_switching_are_not_reported() -> None:
    for src in ["ssh h 'echo '\\''a b'\\'''", "ssh h 'echo '\"'\"'a b'\"'\"''",
                "ssh h 'cd /x && run --name '\"$n\"", "sh -c 'echo '\"$x\"' done'",
                "ssh h \"$(printf '%q ' \"$@\")\"", "ssh h 'a'\\''b'",
                "ssh h 'export PATH='$PATH':/opt/bin'", "echo 'a 'b' c'",
                "sh -c 'cmd \"$1\"' sh \"$x\"", "awk \"{print \\$2}\" f",
                "ssh h bash -s <<'EOF'\necho 'a b'\nEOF\n"]:
        assert found(src) == [], src


def test_inside_a_remote_layer_points_at_the_source() -> None:
    src = "ssh h \"sh -c 'echo 'a b''\""
    [(_, col, d)] = found(src)
    assert src[col - 1] == "'" and src[col - 2] == " "
    assert "remote" in " ".join(d.layers)
    assert d.fixes == ()  # only offered at the top layer


@pytest.mark.parametrize("src", ["ssh h '", "ssh h 'a'b'", "sh -c ''''", "ssh", "eval \"a \"$b\"\"",
                                 "watch \"ls \"*\"\"", "ssh h ''x'' ''", "$cmd 'a 'b c''"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


def run_with_stubs(script: str, tmp_path: Path, *args: str) -> str:
    """Real bash runs ``script`` with a stub on PATH for every program it names: each prints
    its name and argv, one `[word]` each; nothing else runs."""
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    for name in ("sake", "tool", "virt-install", "world", "b"):
        stub = stubs / name
        stub.write_text("#!/bin/sh\nprintf '%s:' \"${0##*/}\"\nfor a; do printf ' [%s]' \"$a\"; "
                        "done\necho\n")
        stub.chmod(0o755)
    return subprocess.run(["bash", "-c", script, "bash", *args], capture_output=True,
                          text=True, timeout=10, env={"PATH": f"{stubs}:/usr/bin:/bin"},
                          cwd=tmp_path).stdout


def test_a_command_argument_split_by_nested_quotes(tmp_path: Path) -> None:
    # sake exec runs its command on the servers; whatever the program, the argv differs from
    # the one word that was written, and `$1` was expanded by this shell.
    src = "sake exec -s web1 'uname -r|awk -v FS='-' '{print $1}''"
    assert run_with_stubs(src, tmp_path, "x") == (
        "sake: [exec] [-s] [web1] [uname -r|awk -v FS=- {print] [x}]\n")
    fixed = "sake exec -s web1 $'uname -r | awk -v FS=\\'-\\' \\'{print $1}\\''"
    assert run_with_stubs(fixed, tmp_path, "x") == (
        "sake: [exec] [-s] [web1] [uname -r | awk -v FS='-' '{print $1}']\n")
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 39)  # the quote after FS= closes the string
    assert d.severity == "warning" and d.message.kind == "closes-quote-opened-at"
    assert "`sake` gets 2 words" in d.text and "expansion" in d.text and d.fixes == ()
    assert found(fixed) == []
    src = "tool --arg='a 'b c''"
    assert run_with_stubs(src, tmp_path) == "tool: [--arg=a b] [c]\n"
    [(_, col, d)] = found(src)
    assert col == 15 and d.severity == "warning"


def test_an_assignment_cut_by_nested_quotes(tmp_path: Path) -> None:
    src = ('CFG=/srv/config.ign\n'
           'ARG="--qemu-commandline="-fw_cfg name=opt/config,file=${CFG}""\n'
           'virt-install --import ${ARG}\n')
    shown = 'declare -p ARG name'
    assert run_with_stubs(src + shown, tmp_path) == (
        "virt-install: [--import] [--qemu-commandline=-fw_cfg]\n"
        'declare -- ARG="--qemu-commandline=-fw_cfg"\n'
        'declare -- name="opt/config,file=/srv/config.ign"\n')
    [(line, col, d)] = found(src)
    assert (line, col) == (2, 25) and d.severity == "warning"
    assert d.message.kind == "assignment-cut" and d.message.value("name") == "ARG"
    assert "‹--qemu-commandline=-fw_cfg› alone" in d.text and "separate assignment" in d.text
    fixed = ('CFG=/srv/config.ign\n'
             'ARG=(--qemu-commandline="-fw_cfg name=opt/config,file=${CFG}")\n'
             'virt-install --import "${ARG[@]}"\n')
    assert run_with_stubs(fixed, tmp_path) == (
        "virt-install: [--import] [--qemu-commandline=-fw_cfg name=opt/config,file=/srv/"
        "config.ign]\n")
    assert found(fixed) == []
    # The rest of the line is a command when it is no assignment; declarations alike.
    src = 'MSG="say "hello world""'
    assert run_with_stubs(src, tmp_path) == "world:\n"  # run, with no arguments
    [(_, col, d)] = found(src)
    assert col == 10 and "‹world› is run as a command" in d.text
    for src, name in [('export OPTS="--opt="a b""', "OPTS"), ('f() { local v="x "y z""; }', "v")]:
        [(_, _, d)] = found(src)
        assert d.message.kind == "assignment-cut" and d.message.value("name") == name, src
    assert run_with_stubs('export OPTS="--opt="a b""; declare -p OPTS b', tmp_path) == (
        'declare -x OPTS="--opt=a"\ndeclare -x b\n')  # b is exported, unset


def test_quotes_that_only_switch_are_not_split_words() -> None:
    for src in ['A="foo" B="bar" tool', 'X="$dir"/bin PATH="$X:$PATH" tool',
                'FOO="a b"c tool --opt="d e"', "printf '%s\\n' 'it'\"'\"'s'",
                "tool 'a'\\''b c'\\'''", 'echo "Usage: "$0" [options]"',
                "tool '--name='\"$n\" 'x'", 'X="a"$b" c"']:
        assert found(src) == [], src


# containerd/containerd, script/setup/install-cni-windows line 40 (Apache-2.0): three parts
# joined on purpose, an array element assigned through eval.
SPLIT_IP = ('split_ip() {\n  local -r varname="$1"\n  local -r ip="$2"\n'
            '  for i in {0..3}; do\n'
            '    eval "$varname"[$i]="$( echo "$ip" | cut -d \'.\' -f $((i + 1)) )"\n'
            '  done\n}\nsplit_ip parts 10.1.2.3\necho "${parts[2]}"\n')


def test_parts_joined_where_no_side_reads_as_a_nested_quote() -> None:
    assert found(SPLIT_IP) == []
    out = subprocess.run(["bash", "-c", SPLIT_IP], capture_output=True, text=True,
                         timeout=10, check=True).stdout
    assert out == "2\n"
