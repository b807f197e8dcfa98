"""QC108 bash-quoting-for-sh: $'...' and printf %q / ${x@Q} output reaching a POSIX sh."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder, fixture_test
from harness.shells import run_shell

from quotecheck.checker import Options, check_source

CODE = "QC108"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


def run(shell: str, script: str, *args: str) -> str:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} not installed")
    out = subprocess.run([shell, "-c", script, *args], capture_output=True, text=True,
                         timeout=10, check=True)
    return out.stdout


def test_dash_reads_dollar_quote_literally() -> None:
    """The fact the rule rests on: dash gives `$` + the quoted text, bash decodes it."""
    assert run("dash", "printf '%s|' $'a\\tb'") == "$a\\tb|"
    assert run("bash", "printf '%s|' $'a\\tb'") == "a\tb|"


def test_bash_printf_q_and_at_q_produce_dollar_quotes_for_control_characters() -> None:
    assert run("bash", 'printf "%q" "$1"', "sh", "a\tb") == "$'a\\tb'"
    assert run("bash", 'printf "%s" "${1@Q}"', "sh", "a\nb") == "$'a\\nb'"
    # ... and dash turns that quoting into something else than the value.
    quoted = run("bash", 'printf "%q" "$1"', "sh", "a\tb")
    assert run("dash", f"printf '%s' {quoted}") != "a\tb"
    # For an ordinary value the output is POSIX quoting dash reads back fine.
    quoted = run("bash", 'printf "%q" "$1"', "sh", "it's a file")
    assert run("dash", f"printf '%s' {quoted}") == "it's a file"


def test_sh_c_is_a_warning_dash_c_an_error_bash_c_nothing() -> None:
    [(line, col, d)] = found("sh -c \"printf $'a\\tb'\"")
    assert (line, col) == (1, 15) and d.severity == "warning"
    assert "`$a\\tb`" in d.text  # what dash makes of it
    [(_, _, d)] = found("dash -c \"printf $'a\\tb'\"")
    assert d.severity == "error"
    assert found("bash -c \"printf $'a\\tb'\"") == []
    assert found("printf $'a\\tb'") == []  # the local bash decodes it itself


def test_remote_shell_depends_on_what_is_known() -> None:
    src = "ssh h 'printf $'\"'\"'a\\tb'\"'\"''"
    [(_, col, d)] = found(src)
    assert src[col - 1] == "$" and d.severity == "warning"
    assert "--remote-shell bash" in d.text
    assert found(src, remote_shell="bash") == []
    [(_, _, d)] = found(src, remote_shell="dash")
    assert d.severity == "error"
    assert found("# quotecheck: remote-shell=bash\n" + src) == []


def test_locale_quotes() -> None:
    [(_, _, d)] = found("sh -c 'echo $\"hello\"'")
    assert "`$hello`" in d.text


def test_printf_v_variable_spliced_into_sh_c() -> None:
    src = 'printf -v q %q "$f"\nsh -c "rm -- $q"'
    [(line, col, d)] = found(src)
    assert (line, col) == (2, 14)
    assert d.severity == "warning"
    assert d.related and d.related[0].span[0] == 0  # where q was made


def test_command_substitution_and_at_q() -> None:
    [(_, _, d)] = found('sh -c "ls $(printf %q "$f")"')
    assert d.severity == "warning"
    [(_, _, d)] = found('q=${f@Q}; sh -c "ls $q"')
    assert d.severity == "warning"
    [(_, _, d)] = found('ssh h "ls ${f@Q}"')
    assert d.severity == "hint"  # a bash login shell reads it fine


def test_printf_q_for_ssh_is_never_a_warning() -> None:
    """`ssh h "$(printf '%q ' "$@")"` is the usual correct form for a bash login shell."""
    mine = [f"QC1{n:02d}" for n in range(6, 14)]
    result = check_source('ssh h "$(printf \'%q \' "$@")"', Options(select=mine))
    assert not [d for d in result.diagnostics if d.at_least("warning")], result.diagnostics
    assert found('ssh h "$(printf \'%q \' "$@")"', remote_shell="bash") == []


def test_not_reported() -> None:
    for src in ['eval "$(printf %q "$x")"', 'bash -c "rm $(printf %q "$f")"',
                "printf -v q %q \"$f\"; echo \"$q\"", "sh -c 'printf \"a\\tb\"'",
                'q=$(printf %q "$f"); sh -c \'echo "$1"\' sh "$q"',
                "ssh h bash -s <<'EOF'\nprintf $'a\\tb'\nEOF\n",
                "ssh h 'echo '\\''a'\\'''", "sh -c 'cmd \"$1\"' sh \"$x\""]:
        assert found(src) == [], src


@pytest.mark.parametrize("src", ["sh -c \"$'\"", "printf -v", "printf -v q", "sh -c $'a'",
                                 "ssh h $'\\t'", "x=${@Q}; sh -c \"$x\"", "sh -c '$\"'"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


SU = "cmd=$(printf '%q ' \"$@\")\ndocker exec -it devbox su dev -c \"cd /src && $cmd\"\n"


def test_printf_q_for_a_login_shell_that_su_starts_is_information() -> None:
    """su runs the user's passwd shell: the file shows neither that shell nor a control
    character in the arguments, so both are only possible; the message says so."""
    [d] = [x for x in check_source(SU, Options(select=[CODE], severity="hint")).diagnostics]
    assert d.severity == "info"
    assert SU[d.span[0]:d.span[1]] == "$cmd"
    assert "the login shell of `dev` that `su` starts" in d.text
    assert "does not show" in d.text and "inner `unknown`" not in d.text
    bash_s = SU.replace("su dev", "su -s /bin/bash dev")
    assert check_source(bash_s, Options(select=[CODE], severity="hint")).diagnostics == []


def test_what_su_gives_dash_and_bash() -> None:
    """Real bash quotes a tab as `$'a\\tb'`; real dash (a user's /bin/sh) passes the `$` and
    the backslash on, real bash gives the tab; and Debian's useradd gives new users /bin/sh."""
    q = run_shell("bash", "printf '%q' \"$(printf 'a\\tb')\"", None, timeout=10).stdout
    assert q == "$'a\\tb'"
    got = {sh: run_shell(sh, f"printf '[%s]' {q}", None, timeout=10).stdout
           for sh in ("dash", "bash")}
    assert got == {"dash": "[$a\\tb]", "bash": "[a\tb]"}
    if shutil.which("useradd") and Path("/etc/debian_version").exists():
        out = subprocess.run(["useradd", "-D"], capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            assert "SHELL=/bin/sh" in out.stdout
