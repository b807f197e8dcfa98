"""A kill or grep pattern the matcher gives up on, or does not model, is reported (QC002, info)
on its own word, once, naming what was not evaluated and why; an evaluable one is not."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.limits import Limits
from quotecheck.rules.runtime.regex import BACKTRACKING_LINE_MAX

RULES = ["QC002", "QC201", "QC202", "QC210"]
NESTED = "repetition inside a repetition"
LIMIT = f"at most {BACKTRACKING_LINE_MAX} characters"


def check(src: str, path: str | None = None, select: list[str] | None = None
          ) -> list[Diagnostic]:
    # A rule time well under pytest's patience: a pattern run unbounded would show up as a
    # QC002 about the time, not as a hang.
    options = Options(select=select or RULES, limits=Limits(rule_time=30.0))
    return check_source(src, options, path=path).diagnostics


def notes(src: str, path: str | None = None, select: list[str] | None = None
          ) -> list[Diagnostic]:
    return [d for d in check(src, path, select) if d.code == "QC002"]


def word(src: str, d: Diagnostic) -> str:
    return src[d.span[0]:d.span[1]]


# (script, file name, the pattern's word, what the message says about the limit, the rule)
GIVE_UPS = [
    pytest.param("ssh h \"pkill -f '(a+)+'; nohup python3 x.py &\"\n", None, "'(a+)+'",
                 (NESTED, LIMIT, "remote shell that runs this script on h"), "QC201",
                 id="remote-pkill-nested-repeat"),
    pytest.param('#!/bin/bash\npkill -f "(a+)+"\n', "/srv/deploy.sh", '"(a+)+"',
                 (NESTED, LIMIT, "shell running this script file"), "QC201",
                 id="local-pkill-nested-repeat"),
    pytest.param("ssh h \"pkill -f '(p)\\1ython'; nohup python3 x.py &\"\n", None,
                 "'(p)\\1ython'", ("a back-reference", LIMIT), "QC201",
                 id="back-reference"),
    pytest.param("ssh h \"pkill -f '(ab|a)+c'; nohup python3 x.py &\"\n", None, "'(ab|a)+c'",
                 ("an alternation inside a repetition", LIMIT), "QC201",
                 id="alternation-in-repeat"),
    pytest.param("ssh h \"pkill -f 'pyth[[:foo:]]'; nohup python3 x.py &\"\n", None,
                 "'pyth[[:foo:]]'", ("does not model it", "unknown class [:foo:]"), "QC201",
                 id="unknown-class"),
    pytest.param("#!/bin/bash\nps aux | grep 'pyth\\B' | awk '{print $2}' | xargs kill\n",
                 "/srv/deploy.sh", "'pyth\\B'", ("does not model it", "\\B"), "QC201",
                 id="grep-backslash-B"),
    pytest.param("#!/bin/bash\nps aux | awk '/pyth[[:foo:]]/ {print $2}' | xargs kill\n",
                 "/srv/deploy.sh", "'/pyth[[:foo:]]/ {print $2}'",
                 ("does not model it", "unknown class [:foo:]"), "QC201", id="awk-pattern"),
    pytest.param("#!/bin/bash\nps aux | grep -E '(a+)+x(b|c)*' | wc -l\n", None,
                 "'(a+)+x(b|c)*'", (NESTED, LIMIT, "the pipeline's own `grep`"), "QC202",
                 id="grep-counts-itself"),
    pytest.param("pkill -f '(a+)+b'; nohup " + "a" * 40 + " &\n", None, "'(a+)+b'",
                 (NESTED, LIMIT, "started on line 1"), "QC210", id="relaunch-long-line"),
    pytest.param("pkill -f '*python'; nohup python3 x.py &\n", None, "'*python'",
                 ("Python's `re` rejects it", "nothing to repeat"), "QC210",
                 id="relaunch-pattern-python-rejects"),
]


@pytest.mark.parametrize(("src", "path", "pattern", "says", "rule"), GIVE_UPS)
def test_a_pattern_given_up_is_reported_once_on_its_word(
        src: str, path: str | None, pattern: str, says: tuple[str, ...], rule: str) -> None:
    found = notes(src, path)
    assert len(found) == 1, [d.text for d in found]
    d = found[0]
    assert word(src, d) == pattern
    assert d.severity == "info"
    assert "was not evaluated" in d.text and f"({rule})" in d.text, d.text
    for phrase in says:
        assert phrase in d.text, (phrase, d.text)


@pytest.mark.parametrize(("src", "path", "pattern", "says", "rule"), GIVE_UPS)
def test_the_note_does_not_depend_on_which_rules_run(
        src: str, path: str | None, pattern: str, says: tuple[str, ...], rule: str) -> None:
    """QC002 runs before the rules whose matching it reports, alone or with them."""
    alone = notes(src, path, ["QC002"])
    assert [(d.span, d.text) for d in alone] == [(d.span, d.text) for d in notes(src, path)]
    assert notes(src, path, [rule]) == []  # QC002 not selected: not reported


@pytest.mark.parametrize(("src", "path"), [
    ("ssh h \"pkill -f 'python3 x'; nohup python3 x.py &\"\n", None),
    ("ssh h \"pkill -f '^python3 x\\.py'; nohup python3 x.py &\"\n", None),
    ("ssh h \"pkill -f '(de)+ploy'; nohup python3 x.py &\"\n", None),
    ("#!/bin/bash\nps aux | grep '[p]ython3' | wc -l\n", None),
    ("#!/bin/bash\nps aux | grep -E '(a+)+' | grep -v grep | wc -l\n", None),
    ("pkill -f 'python3 (x|y)\\.py'; nohup python3 x.py &\n", None),
    # A short line is matched whatever the pattern: nothing given up.
    ("pkill -f '(a+)+b'; nohup aab &\n", None),
])
def test_an_evaluable_pattern_gets_no_note(src: str, path: str | None) -> None:
    assert notes(src, path) == []


def test_a_pattern_other_filters_decide_gets_no_note_for_that_process() -> None:
    """`grep nomatch` already drops the script's own shell: the `\\B` filter after it decides
    nothing there (only whether the pipeline's own `grep nomatch` is listed, QC202)."""
    src = ("#!/bin/bash\nps aux | grep nomatch | grep -v 'pyth\\B' | awk '{print $2}' "
           "| xargs kill\n")
    found = notes(src, "/srv/deploy.sh")
    assert len(found) == 1, [d.text for d in found]
    assert "(QC202)" in found[0].text and "(QC201)" not in found[0].text
    assert "`grep nomatch`, the pipeline's own `grep`" in found[0].text


def test_the_kill_of_a_normal_self_matching_pattern_still_fires() -> None:
    src = "ssh h \"pkill -f 'python3 x'; nohup python3 x.py &\"\n"
    found = check(src)
    kills = [d for d in found if d.code == "QC201"]
    assert len(kills) == 1 and word(src, kills[0]) == "'python3 x'"
    assert not [d for d in found if d.code == "QC002"]
    script = '#!/bin/bash\npkill -f "(de)+ploy"\n'
    assert [d.code for d in check(script, "/srv/deploy.sh")] == ["QC201"]


def test_a_pattern_tried_on_several_shells_is_reported_once_naming_each() -> None:
    src = "bash -c \"bash -c \\\"pkill -f '(a+)+'; echo x\\\"; echo y\"\n"
    found = notes(src, "/srv/run.sh")
    assert len(found) == 1, [d.text for d in found]
    assert found[0].text.count("it was not matched against") >= 2, found[0].text


def test_one_pattern_two_rules_one_note() -> None:
    src = "#!/bin/bash\nps aux | grep 'pyth\\B' | awk '{print $2}' | xargs kill\n"
    found = notes(src, "/srv/deploy.sh")
    assert len(found) == 1
    assert "(QC201)" in found[0].text and "(QC202)" in found[0].text


def test_the_relaunch_check_is_bounded_on_a_pattern_that_backtracks() -> None:
    """Python's `re` needs minutes for `(a+)+b` on forty `a`s: the check does not try."""
    src = "pkill -f '(a+)+b'; nohup " + "a" * 40 + " &\n"
    found = check(src)
    assert all("rule-time" not in d.text for d in found), [d.text for d in found]


def _wait_for_exec(pid: int, text: bytes) -> None:
    """Until the child's command line is the one it was started with (not Python's)."""
    for _ in range(200):
        if text in Path(f"/proc/{pid}/cmdline").read_bytes():
            return
        time.sleep(0.05)


def test_real_pgrep_does_match_the_shell_the_note_is_about(tmp_path: Path) -> None:
    """What quotecheck leaves open, the real tool decides: procps `pgrep -f '(a+)+'` selects
    a shell whose command line holds the script (as the remote shell's does), so the note is
    about a kill that may well hit that shell."""
    script = "pkill -f '(a+)+'; nohup python3 x.py &"
    # `exit` before the script: this shell only carries it on its command line, never runs it.
    proc = subprocess.Popen(["bash", "-c", f"sleep 60; exit; {script}"], cwd=tmp_path)
    try:
        _wait_for_exec(proc.pid, b"exit; pkill")
        res = subprocess.run(["pgrep", "-f", "(a+)+"], capture_output=True, text=True,
                             timeout=30)
        assert str(proc.pid) in res.stdout.split()
    finally:
        proc.kill()
        proc.wait(timeout=30)
    src = f'ssh h "{script}"\n'
    found = check(src)
    assert [d.code for d in found if d.code in ("QC002", "QC201")] == ["QC002"]


def test_a_grep_pattern_two_rules_give_up_on_is_one_note_naming_both() -> None:
    src = ("pids=$(ps aux | grep -E '(a+)+b' | awk '{print $2}')\nkill $pids\nnohup "
           + "a" * 40 + " &\n")
    found = notes(src)
    assert len(found) == 1, [d.text for d in found]
    assert word(src, found[0]) == "'(a+)+b'"
    assert "(QC202)" in found[0].text and "(QC210)" in found[0].text
