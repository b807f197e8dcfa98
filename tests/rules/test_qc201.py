"""QC201 kills-itself, and the fixtures of the runtime rules (QC201-QC206).

The fact is checked with the real pgrep, which only lists: the shell running a `-c` script
matches a pattern found in its own text. The helpers QC201 relies on are tested with the real
tools in tests/rules/test_runtime_*.py (the pattern translator, ps and pgrep command lines,
bash's exec of a last command).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest
from _support import EXPECT, Finder, fixture_test, fixtures

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.files import local_dialect
from quotecheck.positions import LineIndex

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
FIXTURES = fixtures("runtime")
MINE = ("QC201", "QC202", "QC203", "QC204", "QC205", "QC206")
CODE = "QC201"
found = Finder(CODE)


def where(src: str, offset: int) -> tuple[int, int]:
    line, col = LineIndex(src).position(offset)
    return line + 1, col + 1


# -- the fact --------------------------------------------------------------------------------


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
    msg = d.text
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
    by = {(d.code, where(src, d.span[0])): d.text for d in result.diagnostics}
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
    assert hits[0][2].message.kind == "matches-itself"
    assert hits[0][2].message.value("who").startswith("the remote shell")


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


# -- a pattern from a variable the script sets --------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_loop_over_patterns_kills_its_shell_with_the_first_one(shell: str) -> None:
    """solana-labs/solana#7603: `for p in a b; do pkill -f "$p"; done` in a `-c` script. The
    loop's words are in the shell's own command line, so the first pkill kills the shell: the
    other patterns and the steps after the loop never run (status 143, SIGTERM)."""
    tag = f"qc201_loop_{os.getpid()}"
    script = (f"for p in {tag}_validator {tag}_leader; do echo \"killing $p\"; pkill -f \"$p\"; "
              "done; echo cleaned")
    res = subprocess.run([shell, "-c", script], capture_output=True, text=True, timeout=60)
    assert res.returncode == -15 or res.returncode == 143, res
    assert res.stdout == f"killing {tag}_validator\n"
    hits = found("ssh h " + _sq(script), remote_shell=shell)
    col = len("ssh h '") + script.index('"$p"; done') + 1
    assert [(line, col) for line, col, _ in hits] == [(1, col)]
    d = hits[0][2]
    assert d.severity == "error"
    assert f"`pkill -f {tag}_validator`" in d.text
    assert "takes each of" in d.text and "the `for` loop at 1:8" in d.text


@pytest.mark.parametrize("script", [
    "for p in worker.py server.py; do pkill -f \"$p\"; done; ./server.py",
    "for p in worker.py server.py; do pkill -f $p; done\necho done",
    "for p in worker.py server.py; do pgrep -f \"$p\" | xargs -r kill; done; echo done",
    "for p in worker.py server.py; do kill $(pgrep -f \"$p\"); done; echo done",
    "for p in worker server; do ps aux | grep \"$p\" | awk '{print $2}' | xargs kill; done; "
    "echo done",
    "if [ -n \"$X\" ]; then P=worker.py; else P=server.py; fi; pkill -f \"$P\"; echo done",
])
def test_pattern_values_the_script_gives(script: str) -> None:
    hits = found("ssh h " + _sq(script), remote_shell="bash")
    assert len(hits) == 1, script
    assert hits[0][2].severity == "error", script


def test_pattern_values_of_which_only_some_match_are_a_warning() -> None:
    """`^python3 app` cannot match `bash -c ...`; `app.py` does: which one runs is not known."""
    script = ("if [ -n \"$X\" ]; then P='^python3 app'; else P=app.py; fi; pkill -f \"$P\"; "
              "echo done")
    hits = found("ssh h " + _sq(script), remote_shell="bash")
    assert len(hits) == 1
    assert hits[0][2].severity == "warning"
    assert "when it is `app.py`" in hits[0][2].text


@pytest.mark.parametrize("script", [
    "for p in '^python3 a' '^python3 b'; do pkill -f \"$p\"; done; echo done",  # anchored
    "for p in $PATTERNS; do pkill -f \"$p\"; done; echo done",  # not known
    "for p in a.py b.py; do pkill -A -f \"$p\"; done; echo done",  # ancestors left out
    "pkill -f \"$1\"; echo done",
])
def test_pattern_values_that_do_not_hit_the_shell(script: str) -> None:
    assert found("ssh h " + _sq(script), remote_shell="bash") == [], script


def test_a_loop_that_may_stop_early_is_one_of_its_values() -> None:
    # `break` may end the loop before `b.py`: only `^x` is sure to run, and it cannot match.
    script = "for p in '^x' b.py; do pkill -f \"$p\" && break; done; echo done"
    hits = found("ssh h " + _sq(script), remote_shell="bash")
    assert len(hits) == 1 and hits[0][2].severity == "warning"


def test_pgrep_test_over_loop_values_finds_the_shell() -> None:
    src = "ssh h 'for p in trainer server; do pgrep -f \"$p\" > /dev/null && echo \"$p up\"; done'"
    hits = found(src, "QC202", remote_shell="bash")
    assert len(hits) == 1


def test_lone_pkill_depends_on_the_remote_shell() -> None:
    cmd = "ssh h 'pkill -f myapp'"
    unknown = found(cmd)
    assert len(unknown) == 1 and unknown[0][2].severity == "warning"
    assert unknown[0][2].message.value("holds").endswith("dash never does")
    assert "--remote-shell" in unknown[0][2].message.explanation
    assert found(cmd, remote_shell="bash") == []
    dash = found(cmd, remote_shell="dash")
    assert len(dash) == 1 and dash[0][2].severity == "error"
    # A redirection stops bash from exec'ing it: the shell stays and is killed.
    assert len(found("ssh h 'pkill -f myapp 2>/dev/null'", remote_shell="bash")) == 1


def test_script_file_kills_itself_only_when_run_from_a_file() -> None:
    src = "#!/bin/bash\npkill -f deploy.sh\necho stopped\n"
    hits = found(src, path="deploy.sh")
    assert [(line, col) for line, col, _ in hits] == [(2, 10)]
    assert hits[0][2].message.value("who") == "the shell running this script file"
    assert "bash deploy.sh" in hits[0][2].message.value("evidence")
    assert found(src) == []  # a command line has no file of its own


def test_every_live_ancestor_on_the_same_machine_is_checked() -> None:
    src = "sh -c 'pkill -f deploy.sh; echo old deploys stopped'\n"
    hits = found(src, path="deploy.sh")
    assert len(hits) == 1
    said = hits[0][2].message
    assert said.value("who").startswith("the `sh -c` shell")
    assert said.value("others") == "the shell running this script file"


def test_ancestors_on_another_machine_are_not_killed() -> None:
    src = "ssh h 'pkill -f restart_gpu; sleep 1; ./restart_gpu --now'\n"
    hits = found(src, path="restart_gpu.sh", remote_shell="bash")
    assert len(hits) == 1
    assert hits[0][2].message.value("others") == ""


def test_ancestor_replaced_by_exec_is_not_alive() -> None:
    """`bash -c 'sh -c "..."'`: bash execs sh, so only sh's own command line counts."""
    inner = "bash -c 'sh -c \"pkill -f marker_zz; echo ok\"'"
    hits = found(inner)
    assert len(hits) == 1 and hits[0][2].message.value("others") == ""
    kept = "bash -c 'sh -c \"pkill -f marker_zz; echo ok\"; echo after'"
    hits = found(kept)
    assert len(hits) == 1 and hits[0][2].message.value("others") != ""


@pytest.mark.parametrize("src", [
    "", "pkill", "pkill -f", "$CMD -f foo", "kill $(", "ssh h 'pkill -f \"unterminated'",
    "ps aux | grep '[' | xargs kill", "ps aux | grep -f pats | xargs kill",
    "pgrep -f 'a{99999}' | xargs kill", "ps | grep x | xargs", "xargs kill",
    "ssh h \"$(cat script)\"", "kill -s", "kill -l", "ps aux | awk '{' | xargs kill",
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=list(MINE)))
    assert not any("failed on this input" in d.text for d in result.diagnostics), [
        d.text for d in result.diagnostics]


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
    assert result.diagnostics == [], [d.text for d in result.diagnostics]


# -- fixtures --------------------------------------------------------------------------------


def _check_as_the_cli_does(path: Path, text: str) -> list[Diagnostic]:
    # as `quotecheck check FILE` does: the #! line chooses the local dialect
    with contextlib.chdir(ROOT):
        return check_source(text, Options(select=list(MINE), dialect=local_dialect(text)),
                            path=path.relative_to(ROOT).as_posix()).diagnostics


test_fixture_expectations = fixture_test("runtime", None, _check_as_the_cli_does)


def test_fixtures_cover_every_runtime_rule_and_clean_code() -> None:
    codes: set[str] = set()
    clean = 0
    for fixture in FIXTURES:
        m = EXPECT.search(fixture.read_text())
        assert m
        if m.group(1).strip() == "none":
            clean += 1
        codes.update(x.split("@")[0] for x in m.group(1).split() if "@" in x)
    assert codes == set(MINE)
    assert clean >= 3
    assert len(FIXTURES) >= 10
