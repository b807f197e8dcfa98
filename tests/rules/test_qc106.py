"""QC106 awk-v-escapes: awk escape-processes -v values; the rule shows what awk really gets."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from _support import Finder, fixture_test

from quotecheck.layers.awk import awk_unescape

CODE = "QC106"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


def awk_value(awk: str, raw: str) -> str:
    """What a real awk makes of `-v x=RAW` (verified, never guessed)."""
    out = subprocess.run([awk, "-v", f"x={raw}", "BEGIN { printf \"%s\", x }"],
                         capture_output=True, text=True, timeout=10, check=True)
    return out.stdout


@pytest.mark.parametrize("awk", ["mawk", "gawk"])
def test_real_awk_changes_the_value_as_the_model_says(awk: str) -> None:
    if shutil.which(awk) is None:
        pytest.skip(f"{awk} not installed")
    for raw in ["C:\\new\\temp", "a\\\\b", "tab\\there", "a\\.b"]:
        assert awk_value(awk, raw) == awk_unescape(raw, "gawk" if awk == "gawk" else "mawk")
    # The path really is mangled: a newline and a tab appear.
    assert awk_value(awk, "C:\\new\\temp") == "C:\new\temp"


def test_environ_is_not_escape_processed() -> None:
    """The advice is right: ENVIRON passes the value through untouched."""
    out = subprocess.run(["awk", 'BEGIN { printf "%s", ENVIRON["x"] }'],
                         env={"x": "C:\\new\\temp", "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=10, check=True)
    assert out.stdout == "C:\\new\\temp"


def test_windows_path_shows_raw_and_processed_value() -> None:
    [(line, col, d)] = found("awk -v dir='C:\\new\\temp' 'BEGIN { print dir }'")
    assert (line, col) == (1, 8)
    assert d.severity == "warning"
    assert "`C:\\new\\temp`" in d.text  # raw
    assert "`C:<NL>ew<TAB>emp`" in d.text  # what awk gets
    assert "ENVIRON" in d.text
    assert d.layers == ("local bash", "awk")


def test_unknown_escape_shows_that_mawk_and_gawk_differ() -> None:
    [(_, _, d)] = found("awk -v re='a\\.b' '$0 ~ re' f")
    assert "mawk" in d.text and "gawk" in d.text
    assert "`a\\.b`" in d.text and "`a.b`" in d.text


def test_operand_assignment_and_attached_forms() -> None:
    assert [(ln, c) for ln, c, _ in found("awk '{ print x }' x='a\\tb' f")] == [(1, 19)]
    assert [(ln, c) for ln, c, _ in found("awk -vx='a\\qb' '{ print x }'")] == [(1, 5)]
    assert [(ln, c) for ln, c, _ in found("gawk --assign=p='\\d+' 1 f")] == [(1, 6)]


def test_intended_separator_escapes_are_not_reported() -> None:
    for src in ["awk -v OFS='\\t' '{print}'", "awk -v RS='\\n\\n' 1",
                "awk -v FS='\\\\|' '{print $2}'", "awk -v sep=', ' 1", "awk -v n=3 1"]:
        assert found(src) == [], src


def test_dynamic_values_are_information_numbers_are_not_reported() -> None:
    [(_, col, d)] = found('awk -v pat="$1" \'$0 ~ pat\' f')
    assert col == 8 and d.severity == "info"
    assert "`$1`" in d.text
    [(_, _, d)] = found('awk -v node="$node" \'{ print node, $1 }\' f')
    assert d.severity == "hint"  # a host name: only shown with --severity hint
    for src in ["awk -v n=$# 1", "awk -v n=$((x + 1)) 1", 'awk -v n="${#list}" 1',
                "awk -v pid=$$ 1"]:
        assert found(src) == [], src


def test_found_inside_a_remote_layer_with_the_right_position() -> None:
    src = "ssh h \"awk -v x='a\\\\qb' '{print x}' f\""
    [(_, col, d)] = found(src)
    assert src[col - 1:].startswith("x='a")
    assert d.layers[-1] == "awk" and "ssh" in d.layers


def test_through_exec_wrappers() -> None:
    assert len(found("sudo -u www awk -v d='C:\\x' 1 f")) == 1
    assert len(found("timeout 5 awk -v d='C:\\x' 1 f")) == 1


def test_must_not_fire_on_correct_code() -> None:
    for src in ['awk "{print \\$2}" f', "ps aux | grep '[p]ython' | awk '{print $2}'",
                "ssh h 'echo '\\''hi'\\'''", "sh -c 'cmd \"$1\"' sh \"$x\"",
                "ssh h bash -s <<'EOF'\nawk '{print $1}' f\nEOF\n",
                "d='C:\\x' awk 'BEGIN { print ENVIRON[\"d\"] }'"]:
        assert found(src) == [], src


@pytest.mark.parametrize("src", ["awk -v", "awk -v x", "awk -v =1 1", "awk -f p.awk -v x=\\\\",
                                 "$awk -v x='\\t' 1", "awk -v x=\"$(cat f)\\q\" 1", "awk"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


def test_a_value_built_to_hold_backslashes_is_a_warning() -> None:
    src = ("re=$(printf '%s' \"$host\" | sed 's/[.]/\\\\&/g')\n"
           "awk -v re=\"$re\" '$0 ~ re' hosts\n")
    [d] = found.diagnostics(src)
    assert d.severity == "warning" and d.message.kind == "built-with-backslashes"
    # Real awk (Debian's mawk): the escaped dot the sed wrote is lost, and `a.b` matches `axb`.
    script = ("host=a.b; re=$(printf '%s' \"$host\" | sed 's/[.]/\\\\&/g'); "
              "printf 'axb\\na.b\\n' | awk -v re=\"$re\" '$0 ~ re'")
    ran = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10,
                         check=True)
    assert ran.stdout.splitlines() == ["axb", "a.b"]
    safe = script.replace("awk -v re=\"$re\" '$0 ~ re'",
                          "re=\"$re\" awk 'BEGIN { re = ENVIRON[\"re\"] } $0 ~ re'")
    ran = subprocess.run(["bash", "-c", safe], capture_output=True, text=True, timeout=10,
                         check=True)
    assert ran.stdout.splitlines() == ["a.b"]


def test_a_value_from_a_sed_that_adds_no_backslash_stays_uncertain() -> None:
    src = "re=$(printf '%s' \"$host\" | sed 's/x/y/g')\nawk -v re=\"$re\" '$0 ~ re' hosts\n"
    assert all(d.message.kind != "built-with-backslashes" for d in found.diagnostics(src))
