"""QC201 kills-itself, the pattern translator it relies on, and the runtime fixtures.

The facts are checked with the real tools, never by killing anything: grep runs on printed
lines, `ps`/`pgrep -P <this test>` look at a child that exits by itself, and bash/dash run
`sh -c 'echo $PPID'` to show whether the shell exec'd its last command in place.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.files import local_dialect
from quotecheck.positions import LineIndex
from quotecheck.rules import _runtime as rt
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
FIXTURES = sorted((ROOT / "fixtures" / "runtime").glob("*.sh"))
MINE = ("QC201", "QC202", "QC203", "QC204", "QC205", "QC206")
CODE = "QC201"


def found(src: str, code: str = CODE, *, remote_shell: str | None = None,
          path: str | None = None) -> list[tuple[int, int, Diagnostic]]:
    result = check_source(src, Options(select=[code], remote_shell=remote_shell), path=path)
    index = LineIndex(src)
    out = []
    for d in result.diagnostics:
        assert d.code == code, d.message
        line, col = index.position(d.span[0])
        out.append((line + 1, col + 1, d))
    return out


def where(src: str, offset: int) -> tuple[int, int]:
    line, col = LineIndex(src).position(offset)
    return line + 1, col + 1


# -- the regex translator against the real grep ----------------------------------------------

LINES = [
    "python3 train_dflash_online.py", "grep [p]ython3.*train_dflash", "a+b", "a{2}", "aab",
    "x*y", "^caret", "dollar$", "ab|cd", "(paren)", "a.b", "ABC", "abab", "a\\b", "[x]",
    "", "a-b", "aaaa", "b{1,2}", "digits 123", "tab\there",
]


def grep_lines(pattern: str, flags: list[str], lines: list[str]) -> list[int] | None:
    """1-based numbers of the lines real grep selects (None if grep rejects the pattern)."""
    res = subprocess.run(["grep", "-n", *flags, "-e", pattern], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=10,
                         env={**os.environ, "LC_ALL": "C"})
    if res.returncode not in (0, 1) or res.stderr:
        return None
    return [int(x.split(":", 1)[0]) for x in res.stdout.splitlines()]


def mine(pattern: str, syntax: rt.Syntax, lines: list[str], **kw: bool) -> list[int] | None:
    try:
        regex = rt.translate(pattern, syntax, **kw)
    except rt.UnsupportedPattern:
        return None
    return [i + 1 for i, line in enumerate(lines) if regex.search(line)]


@pytest.mark.parametrize(("pattern", "syntax"), [
    ("[p]ython3.*train_dflash", "basic"), ("a\\+b", "basic"), ("a+b", "basic"),
    ("a+b", "extended"), ("a\\{2\\}", "basic"), ("a{2}", "basic"), ("a{2}", "extended"),
    ("*y", "basic"), ("^caret", "basic"), ("a^c", "basic"), ("$$", "basic"),
    ("ab\\|cd", "basic"), ("ab|cd", "extended"), ("(paren)", "basic"), ("\\(ab\\)\\1", "basic"),
    ("(ab)\\1", "extended"), ("[[:upper:]]\\{3\\}", "basic"), ("[^a-z ]", "basic"),
    ("[]a]", "basic"), ("a.b", "fixed"), ("\\<b", "basic"), ("(a|b)+*", "extended"),
    ("[[:digit:]]+", "extended"), ("[a\\]", "basic"), ("b{1,2}", "extended"),
    ("^$", "basic"), ("x\\?y", "basic"), ("[.]", "basic"), ("\\[x]", "basic"),
])
def test_translator_agrees_with_grep(pattern: str, syntax: rt.Syntax) -> None:
    flag = {"basic": "-G", "extended": "-E", "fixed": "-F", "perl": "-P"}[syntax]
    real = grep_lines(pattern, [flag], LINES)
    assert real is not None
    assert mine(pattern, syntax, LINES) == real


ATOMS = ["a", "b", ".", "*", "+", "?", "|", "^", "$", "(", ")", "{", "}", "{1,2}", "\\",
         "[", "]", "[ab]", "[^a]", "[[:alpha:]]", "-", "\\(", "\\)", "\\|", "\\{2\\}", "\\+",
         "\\.", "x", "B", "\\1", "\\<", "\\>", "\\b", "\\B", "\\w", "\\s", "[[:space:]]",
         "[a-c]", "[]x]", "\\$"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=6), st.sampled_from(
    ["basic", "extended", "fixed"]), st.booleans(),
    st.lists(st.text(alphabet="ab.x*+?|^$(){}[]-B\\ ", max_size=8), min_size=1, max_size=8))
def test_translator_agrees_with_grep_on_generated_patterns(
        atoms: list[str], syntax: rt.Syntax, icase: bool, lines: list[str]) -> None:
    pattern = "".join(atoms)
    flags = [{"basic": "-G", "extended": "-E", "fixed": "-F"}[syntax]] + (["-i"] if icase else [])
    ours = mine(pattern, syntax, lines, ignore_case=icase)
    assume(ours is not None)
    real = grep_lines(pattern, flags, lines)
    assume(real is not None)
    assert ours == real, (pattern, syntax, icase)


def test_translator_supports_most_generated_patterns() -> None:
    """Coverage guard: the property above must not pass by skipping everything."""
    import random

    rnd = random.Random(201)
    supported = 0
    for _ in range(400):
        p = "".join(rnd.choice(ATOMS) for _ in range(rnd.randint(1, 5)))
        if mine(p, rnd.choice(["basic", "extended"]), ["x"]) is not None:
            supported += 1
    assert supported > 150


def test_word_and_line_flags_agree_with_grep() -> None:
    lines = ["foo", "foobar", "a foo b", "foo_x", "x-foo"]
    for flags, kw in ((["-w"], {"word": True}), (["-x"], {"line": True})):
        assert mine("foo", "basic", lines, **kw) == grep_lines("foo", flags, lines)


# -- command lines as ps and pgrep see them --------------------------------------------------


def test_render_cmdline_matches_ps_and_pgrep() -> None:
    """A child with a newline, a tab and a CR in its argv, exiting once stdin closes."""
    argv = [sys.executable, "-c", "import sys; sys.stdin.read()", "qc201 one\ntwo\tthree\rfour"]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    try:
        time.sleep(0.3)
        # ps cuts lines at $COLUMNS when it is set (pytest may set it); a script's ps has none.
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        shown = subprocess.run(["ps", "-o", "args=", "-p", str(child.pid)], capture_output=True,
                               text=True, timeout=10, env=env).stdout.rstrip("\n")
        assert shown == rt.render_cmdline(argv)
        assert "qc201 one two?three?four" in shown
        me = str(os.getpid())
        for pattern in ("one two", "one.two", "two\\?three", "two three", "^python", "four$"):
            sel = rt.Selector("pgrep", [], [], pgrep=rt.PgrepCall(
                "pgrep", pattern, 0, True, False, False, False, False, False, False, False,
                "TERM"))
            sel.filters.append(rt.Filter("pgrep", pattern, rt.translate(pattern, "extended"),
                                         False, "extended regex", None, None))  # type: ignore[arg-type]
            real = subprocess.run(["pgrep", "-P", me, "-f", pattern], capture_output=True,
                                  text=True, timeout=10).stdout.split()
            assert (str(child.pid) in real) == (sel.match(argv) is not None), pattern
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)


@pytest.mark.parametrize("args", [["aux"], ["-ef"], ["-eo", "pid,args"], ["-e"],
                                  ["-eo", "pid,comm"], ["axo", "pid,command"], ["-e", "-o", "cmd="],
                                  ["x"], ["-A"]])
def test_ps_formats_show_the_command_line_or_only_the_name(args: list[str]) -> None:
    argv = [sys.executable, "-c", "import sys; sys.stdin.read()", "qc201_ps_marker"]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    try:
        time.sleep(0.3)
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        out = subprocess.run(["ps", *args], capture_output=True, text=True, timeout=30,
                             env=env).stdout
        call = rt.parse_ps(["ps", *args])
        assert call is not None and not call.restricted
        assert ("qc201_ps_marker" in out) == (call.shows == "args")
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


def test_pgrep_sees_its_own_shell_unless_told_to_ignore_ancestors() -> None:
    """The fact QC201 is about, shown with pgrep (which only lists): the shell running the
    script matches a pattern found in its own text; `-A` leaves the caller's ancestors out."""
    script = "pgrep -f qc201_own_marker; echo end"
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert len(res.stdout.split()) == 2  # the shell's pid, then `end`
    res = subprocess.run(["bash", "-c", script.replace("-f", "-A -f")], capture_output=True,
                         text=True, timeout=60)
    assert res.stdout.split() == ["end"]
    assert len(found(f"ssh h {_sq(script.replace('pgrep', 'pkill'))}")) == 1
    assert found(f"ssh h {_sq(script.replace('pgrep', 'pkill -A'))}") == []


# -- bash execs the last simple command of a -c string; dash never does ------------------------

EXEC_CASES = [
    'pkill_stand_in', 'true; pkill_stand_in', 'true\npkill_stand_in', 'true && pkill_stand_in',
    'false || pkill_stand_in', 'pkill_stand_in 2>/dev/null', 'true; pkill_stand_in 2>/dev/null',
    'pkill_stand_in | cat', '{ true; pkill_stand_in; }', 'true; true && pkill_stand_in',
    'pkill_stand_in\n', 'pkill_stand_in\n\n', 'pkill_stand_in # c', 'pkill_stand_in\n# c',
    'trap "echo t" EXIT; pkill_stand_in', 'true & pkill_stand_in', 'x=1 pkill_stand_in',
    'pkill_stand_in;', 'true && true; pkill_stand_in',
]
STAND_IN = 'sh -c "echo \\$PPID"'


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("script", EXEC_CASES)
def test_exec_in_place_model_matches_the_shell(shell: str, script: str) -> None:
    real_script = script.replace("pkill_stand_in", STAND_IN)
    res = subprocess.run([shell, "-c", real_script], capture_output=True, text=True, timeout=60)
    lines = res.stdout.split()
    assert lines, res.stderr
    exec_d = lines[-1] == str(os.getpid())
    trace = build_trace(f"{shell} -c {_sq(script)}")
    layer = trace.layers[1]
    view = next(v for v in layer.commands if v.argv and v.values[0] == "pkill_stand_in")
    assert rt.exec_in_place(layer, view) == ("yes" if exec_d else "no")


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# -- the founding case -----------------------------------------------------------------------


def test_seed_kills_its_own_remote_shell() -> None:
    src = SEED.read_text()
    hits = found(src, path="fixtures/dflash/restart.sh")
    assert [(line, col) for line, col, _ in hits] == [(2, 15)]
    d = hits[0][2]
    assert d.severity == "error"
    assert d.layers == ("local bash", "ssh", "remote shell")
    msg = d.message
    assert "grep '[p]ython3.*train_dflash'" in msg
    assert "`python3 train_dflash` at 9:56" in msg
    assert "<login-shell> -c" in msg
    assert '`echo "Old killed"` (4:1)' in msg
    assert "ssh exits 255 with no output at all" in msg
    assert "bash -s" in msg
    # The related location is the matched text in the file: `python3 train_dflash` on line 9.
    rel = d.related[0]
    assert where(src, rel.span[0]) == (9, 56)
    assert src[rel.span[0]:rel.span[1]] == "python3 train_dflash"


def test_seed_expected_findings_of_runtime_rules() -> None:
    src = SEED.read_text()
    result = check_source(src, Options(select=list(MINE)), path="fixtures/dflash/restart.sh")
    got = sorted((d.code, *where(src, d.span[0])) for d in result.diagnostics)
    assert got == [("QC201", 2, 15), ("QC205", 4, 1), ("QC205", 6, 1), ("QC206", 7, 1),
                   ("QC206", 18, 43)]
    by = {(d.code, where(src, d.span[0])): d.message for d in result.diagnostics}
    assert "xargs -r kill" in by[("QC205", (4, 1))] and "(2:1)" in by[("QC205", (4, 1))]
    assert "errors go to /dev/null" in by[("QC205", (4, 1))]
    assert "grep -c" in by[("QC205", (6, 1))] and "(5:1)" in by[("QC205", (6, 1))]
    assert "source /root/venv/bin/activate" in by[("QC206", (7, 1))]
    assert "`cd /root` (8:1)" in by[("QC206", (7, 1))]


def test_seed_with_grep_v_grep_would_not_kill_the_shell() -> None:
    """`grep -v grep` drops every line holding `grep`, the shell's own included."""
    src = SEED.read_text().replace('| awk "{print', '| grep -v grep | awk "{print', 1)
    assert found(src) == []


def test_bracket_pattern_without_its_match_in_the_script_is_fine() -> None:
    assert found("ssh gpu 'ps aux | grep \"[p]ython3 train\" | awk \"{print \\$2}\" | "
                 "xargs -r kill'") == []
    # ... but once the script also starts `python3 train...`, it matches the shell.
    hits = found("ssh gpu 'ps aux | grep \"[p]ython3 train\" | awk \"{print \\$2}\" | "
                 "xargs -r kill; nohup python3 train.py > log 2>&1 &'")
    assert [(line, col) for line, col, _ in hits] == [(1, 24)]


# -- shapes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("script", [
    "pkill -f foo.py; python3 foo.py",
    "pgrep -f foo.py | xargs kill; python3 foo.py",
    "pgrep -f foo.py | xargs -r kill -9\npython3 foo.py",
    "kill $(pgrep -f foo.py); python3 foo.py",
    "kill `pgrep -f foo.py`; python3 foo.py",
    "ps aux | grep foo.py | awk '{print $2}' | xargs kill -9; python3 foo.py",
    "ps -ef | grep -E 'foo\\.py' | sort | awk '{print $2}' | xargs kill; python3 foo.py",
    "ps aux | awk '/foo.py/ {print $2}' | xargs kill; python3 foo.py",
    "ps -eo pid,args | grep foo.py | awk '{print $1}' | xargs kill; python3 foo.py",
    "for p in $(pgrep -f foo.py); do kill $p; done; python3 foo.py",
    "P=$(pgrep -f foo.py)\nkill $P\npython3 foo.py",
    "ps aux | grep foo.py | while read u p rest; do kill $p; done",
    "sudo pkill -f foo.py; python3 foo.py",
])
def test_kill_shapes_that_hit_the_remote_shell(script: str) -> None:
    hits = found("ssh h " + _sq(script), remote_shell="bash")
    assert len(hits) == 1, script
    assert "remote shell" in hits[0][2].message


@pytest.mark.parametrize("script", [
    "pkill -x foo.py; python3 foo.py",  # the process name, not the command line
    "pkill -A -f foo.py; python3 foo.py",  # ancestors excluded
    "pkill -f '^python3 foo'; python3 foo.py",  # anchored at the target's own argv
    "pkill -0 -f foo.py; echo",  # signal 0 only tests
    "kill -0 $(pgrep -f foo.py) && echo up; python3 foo.py",
    "pgrep -f foo.py; python3 foo.py",  # lists, does not kill
    "ps aux | grep [f]oo.py | awk '{print $2}' | xargs kill",
    "ps -ef | grep -E 'foo\\.py' | awk '{print $2}' | xargs kill",  # `foo\.py` is not `foo.py`
    "ps -C python3 -o pid= | xargs kill; python3 foo.py",  # selected by name
    "ps -e | grep foo | awk '{print $1}' | xargs kill; python3 foo.py",  # names only
    "pkill -f \"$NAME\"; python3 foo.py",  # known only at run time
])
def test_kills_that_do_not_hit_the_remote_shell(script: str) -> None:
    assert found("ssh h " + _sq(script), remote_shell="bash") == [], script


def test_lone_pkill_depends_on_the_remote_shell() -> None:
    cmd = "ssh h 'pkill -f myapp'"
    unknown = found(cmd)
    assert len(unknown) == 1 and unknown[0][2].severity == "warning"
    assert "dash never does" in unknown[0][2].message
    assert "--remote-shell" in unknown[0][2].message
    assert found(cmd, remote_shell="bash") == []
    dash = found(cmd, remote_shell="dash")
    assert len(dash) == 1 and dash[0][2].severity == "error"
    # A redirection stops bash from exec'ing it: the shell stays and is killed.
    assert len(found("ssh h 'pkill -f myapp 2>/dev/null'", remote_shell="bash")) == 1


def test_script_file_kills_itself_only_when_run_from_a_file() -> None:
    src = "#!/bin/bash\npkill -f deploy.sh\necho stopped\n"
    hits = found(src, path="deploy.sh")
    assert [(line, col) for line, col, _ in hits] == [(2, 10)]
    assert "the shell running this script file" in hits[0][2].message
    assert "bash deploy.sh" in hits[0][2].message
    assert found(src) == []  # a command line has no file of its own


def test_every_live_ancestor_on_the_same_machine_is_checked() -> None:
    src = "sh -c 'pkill -f deploy.sh; echo old deploys stopped'\n"
    hits = found(src, path="deploy.sh")
    assert len(hits) == 1
    msg = hits[0][2].message
    assert "`sh -c` shell" in msg and "also matches the shell running this script file" in msg


def test_ancestors_on_another_machine_are_not_killed() -> None:
    src = "ssh h 'pkill -f restart_gpu; sleep 1; ./restart_gpu --now'\n"
    hits = found(src, path="restart_gpu.sh", remote_shell="bash")
    assert len(hits) == 1
    assert "also matches" not in hits[0][2].message


def test_ancestor_replaced_by_exec_is_not_alive() -> None:
    """`bash -c 'sh -c "..."'`: bash execs sh, so only sh's own command line counts."""
    inner = "bash -c 'sh -c \"pkill -f marker_zz; echo ok\"'"
    hits = found(inner)
    assert len(hits) == 1 and "also matches" not in hits[0][2].message
    kept = "bash -c 'sh -c \"pkill -f marker_zz; echo ok\"; echo after'"
    hits = found(kept)
    assert len(hits) == 1 and "also matches" in hits[0][2].message


@pytest.mark.parametrize("src", [
    "", "pkill", "pkill -f", "$CMD -f foo", "kill $(", "ssh h 'pkill -f \"unterminated'",
    "ps aux | grep '[' | xargs kill", "ps aux | grep -f pats | xargs kill",
    "pgrep -f 'a{99999}' | xargs kill", "ps | grep x | xargs", "xargs kill",
    "ssh h \"$(cat script)\"", "kill -s", "kill -l", "ps aux | awk '{' | xargs kill",
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=list(MINE)))
    assert not any("failed on this input" in d.message for d in result.diagnostics), [
        d.message for d in result.diagnostics]


# -- correct code stays clean of every runtime rule ------------------------------------------

CLEAN = [
    "echo 'it'\\''s'",
    "echo 'it'\"'\"'s'",
    "ssh h \"awk '{print \\$2}' /etc/hosts\"",
    "ssh h \"$(printf '%q ' \"$@\")\"",
    "sh -c 'cmd \"$1\"' sh \"$x\"",
    "ssh gpu 'ps aux | grep \"[p]ython3 train\" | awk \"{print \\$2}\" | xargs -r kill'",
    "ssh h bash -s <<'EOF'\npkill -f '^python3 train\\.py'\nnohup python3 train.py > t.log "
    "2>&1 &\necho \"pid $!\"\nEOF\n",
    "python3 -c 'import shlex, sys; print(shlex.quote(sys.argv[1]))' \"$v\"",
]


@pytest.mark.parametrize("src", CLEAN)
def test_correct_code_is_not_reported(src: str) -> None:
    result = check_source(src, Options(select=list(MINE)))
    assert result.diagnostics == [], [d.message for d in result.diagnostics]


# -- fixtures --------------------------------------------------------------------------------

_EXPECT = re.compile(r"^# expect: (.*)$", re.M)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_fixture_expectations(fixture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    src = fixture.read_text()
    m = _EXPECT.search(src)
    assert m, "each fixture says what it expects"
    expected = [] if m.group(1).strip() == "none" else sorted(m.group(1).split())
    rel = fixture.relative_to(ROOT).as_posix()
    # as `quotecheck check FILE` does: the #! line chooses the local dialect
    result = check_source(src, Options(select=list(MINE), dialect=local_dialect(src)), path=rel)
    got = sorted(f"{d.code}@{where(src, d.span[0])[0]}:{where(src, d.span[0])[1]}"
                 for d in result.diagnostics)
    assert got == expected, [d.message for d in result.diagnostics]


def test_fixtures_cover_every_runtime_rule_and_clean_code() -> None:
    codes: set[str] = set()
    clean = 0
    for fixture in FIXTURES:
        m = _EXPECT.search(fixture.read_text())
        assert m
        if m.group(1).strip() == "none":
            clean += 1
        codes.update(x.split("@")[0] for x in m.group(1).split() if "@" in x)
    assert codes == set(MINE)
    assert clean >= 3
    assert len(FIXTURES) >= 10
