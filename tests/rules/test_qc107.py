"""QC107 quote-closes-early: same-kind quotes do not nest; the idioms that do nest are fine."""

from __future__ import annotations

import subprocess

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
