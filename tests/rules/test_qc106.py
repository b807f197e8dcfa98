"""QC106 awk-v-escapes: awk escape-processes -v values; the rule shows what awk really gets."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

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


ESCAPED = ("esc=$(printf '%s' \"$term\" | sed 's/\\./\\\\./g')\n"
           "awk -v pat=\"$esc\" '$0 ~ pat { n++ } END { print n + 0 }' review.log\n")


def test_a_sed_that_escapes_with_a_backslash_before_a_character_is_a_warning(
        tmp_path: Path) -> None:
    """`s/\\./\\\\./g` writes `\\.` for each dot: gawk (the awk here) drops the backslash
    and counts `fooXbar` too, mawk keeps it; ENVIRON keeps it in both."""
    [d] = found.diagnostics(ESCAPED)
    assert d.severity == "warning" and d.message.kind == "built-with-backslashes"
    assert "gawk turns `\\.` into `.`" in d.text
    counts = {}
    for awk in ("gawk", "mawk"):
        script = ("term=foo.bar; printf 'foo.bar\\nfooXbar\\n' > review.log; "
                  + ESCAPED.replace("awk -v", f"{awk} -v").replace("\n", "; "))
        ran = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                             timeout=10, check=True, cwd=tmp_path)
        counts[awk] = ran.stdout.strip()
    assert counts == {"gawk": "2", "mawk": "1"}
    env = ("term=foo.bar; esc=$(printf '%s' \"$term\" | sed 's/\\./\\\\./g'); "
           "printf 'foo.bar\\nfooXbar\\n' | pat=\"$esc\" gawk '$0 ~ ENVIRON[\"pat\"]'")
    ran = subprocess.run(["bash", "-c", env], capture_output=True, text=True, timeout=10,
                         check=True)
    assert ran.stdout == "foo.bar\n"


@pytest.mark.parametrize(("sed", "writes"), [
    ("sed \"s/\\./\\\\\\\\./g\"", True),  # the shell's double quotes leave `\\` for sed
    ("sed \"s/\\./\\\\./g\"", False),  # sed gets `\.`: a plain dot, no backslash
    ("sed -e 's/[][\\.*^$]/\\\\&/g'", True),
    ("sed 's|/|\\\\/|g'", True),
    ("sed 's/a/b/;s/c/\\n/'", False),
    ("sed '/class/d'", False),
])
def test_which_sed_writes_a_backslash(sed: str, writes: bool) -> None:
    src = f"v=$(printf '%s' \"$1\" | {sed})\nawk -v re=\"$v\" '$0 ~ re' f\n"
    kinds = [d.message.kind for d in found.diagnostics(src)]
    assert ("built-with-backslashes" in kinds) is writes, kinds
    # real bash and sed agree on which of them put a backslash in `a.b/c`
    out = subprocess.run(["bash", "-c", f"printf '%s' 'a.b/c' | {sed}"], capture_output=True,
                         text=True, timeout=10, check=True).stdout
    assert ("\\" in out) is writes, out


def test_backquotes_lose_a_backslash_first() -> None:
    src = "v=`printf '%s' \"$1\" | sed 's/[.]/\\\\\\\\&/g'`\nawk -v re=\"$v\" '$0 ~ re' f\n"
    out = subprocess.run(["bash", "-c", src.split("\n")[0] + "; printf %s \"$v\"", "x", "a.b"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    assert out == "a\\.b"
    [d] = found.diagnostics(src)
    assert d.message.kind == "built-with-backslashes"
    single = "v=`printf '%s' \"$1\" | sed 's/[.]/\\\\&/g'`\nawk -v re=\"$v\" '$0 ~ re' f\n"
    out = subprocess.run(["bash", "-c", single.split("\n")[0] + "; printf %s \"$v\"", "x", "a.b"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    assert out == "a&b"  # `\\&` in backquotes reaches sed as `\&`: a literal `&`
    assert all(d.message.kind != "built-with-backslashes" for d in found.diagnostics(single))


def test_the_scripts_own_arguments_are_only_possibly_changed() -> None:
    """`-v list="$paths"` with paths from "$@": real gawk and mawk change a path only when it
    holds a backslash (a systemd unit name escapes `-` as `\\x2d`), which the file does not
    show: information, saying so."""
    script = ("paths=$(printf '%s|' \"$@\"); awk -v list=\"$paths\" 'BEGIN { print list }'")
    for awk in ("gawk", "mawk"):
        ran = [subprocess.run(["bash", "-c", script.replace("awk -v", f"{awk} -v"), "x", arg],
                              capture_output=True, text=True, timeout=10, check=True).stdout
               for arg in ("/srv/a b", "netctl@wlan0\\x2dprofile.service")]
        assert ran == ["/srv/a b|\n", "netctl@wlan0-profile.service|\n"]
    src = "paths=$(printf '%s|' \"$@\")\nawk -v list=\"$paths\" 'BEGIN { print list }'\n"
    [d] = found.diagnostics(src)
    assert d.severity == "info" and "If the value may hold a backslash" in d.text


def test_mawk_named_by_the_command_keeps_an_unknown_escape() -> None:
    # DietPi's dietpi-banner: `mawk -v ip="$IP_re"` with IP_re holding `\.`
    src = ('IP_re="^[0-9]+\\\\.[0-9]+$"\n'
           "printf '1x2\\n1.2\\n' | {awk} -v ip=\"$IP_re\" '$0 ~ ip'\n")
    assert [line for line, _, _ in found(src.format(awk="mawk"))] == []
    assert [line for line, _, _ in found(src.format(awk="awk"))] == [2]
    assert [line for line, _, _ in found(src.format(awk="gawk"))] == [2]
    # what the exception rests on: real mawk keeps `\.`, so only 1.2 matches; gawk makes it
    # `.`, which matches 1x2 too
    mawk = subprocess.run(["bash", "-c", src.format(awk="mawk")], capture_output=True,
                          text=True, timeout=10)
    gawk = subprocess.run(["bash", "-c", src.format(awk="gawk")], capture_output=True,
                          text=True, timeout=10)
    assert mawk.stdout == "1.2\n" and gawk.stdout == "1x2\n1.2\n"
    # a `\\` is halved by mawk as well: still reported
    assert found(src.format(awk="mawk").replace("\\\\.", "\\\\\\\\")) != []
