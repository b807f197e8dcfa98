"""Fixes never break a working script (issue 13 item 4, issue 12): property tests over every
fix quotecheck offers, on the rule documents' examples, the fixture scripts, generated scripts
that put those in real surroundings, and (by hand) the real-world precision corpus. What is
checked is described in tests/fix_safety.py; what the fixed scripts do when run is
tests/test_fix_safety_runs.py.
"""

from __future__ import annotations

import os

import pytest
from fix_safety import (
    FixReport,
    Snippet,
    corpus_files,
    doc_examples,
    fix_problems,
    fixture_scripts,
    options_for,
    scripts_in_context,
)
from harness.shells import bash_words
from hypothesis import HealthCheck, given, settings

from quotecheck.checker import check_source
from quotecheck.fixer import fix_source
from quotecheck.rules.registry import all_rules

SCRIPTS = doc_examples() + fixture_scripts()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.label)
def test_every_fix_keeps_the_script_working(script: Snippet) -> None:
    report = fix_problems(script.text, script.options(), script.path)
    assert not report.problems, "\n".join(report.problems)


def test_every_rule_with_a_fix_is_exercised() -> None:
    """The examples and fixtures reach every rule's fix, so the property covers them all."""
    total = FixReport()
    for script in SCRIPTS:
        total.add(fix_problems(script.text, script.options(), script.path))
    # (a host rule's fix is shell-free text of a Makefile or a Python file: its own tests run
    # it through the host's program, tests/rules/test_qc401.py)
    with_fix = {code for code, rule in all_rules().items()
                if rule.fix in ("safe", "unsafe") and "host" not in rule.tags}
    assert with_fix <= set(total.exercised), sorted(with_fix - set(total.exercised))


GENERATED = int(os.environ.get("QC_FIX_SAFETY_EXAMPLES", "60"))


@settings(max_examples=GENERATED, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scripts_in_context())
def test_fixes_in_surrounding_code(case: tuple[str, Snippet]) -> None:
    text, seed = case
    # A `#!` line put in front decides the dialect, as it would for the file.
    dialect = None if text.startswith("#!") else seed.dialect
    options = options_for(text, None, dialect, seed.remote_shell)
    report = fix_problems(text, options)
    assert not report.problems, "\n".join(report.problems)


@pytest.mark.skipif(not corpus_files(), reason="the precision corpus is not assembled "
                    "(benchmarks/precision/README.md); run by hand")
def test_fixes_on_the_precision_corpus() -> None:
    total = FixReport()
    for path in corpus_files():
        data = path.read_bytes()
        if b"\0" in data:
            continue
        text = data.decode("utf-8", "replace")
        report = fix_problems(text, options_for(text, str(path)), str(path))
        report.problems = [f"{path}: {p}" for p in report.problems]
        total.add(report)
    print("fixes exercised per rule:", dict(sorted(total.exercised.items())))
    assert not total.problems, "\n".join(total.problems)


# -- regressions: fixes that changed a value the author set (now refused) -----------------------

AUTHOR_VALUES = [
    # issue 12: the remote `ls` listed the wrong directory after `\$DATA_DIR`.
    "DATA_DIR=/data/x\nssh web1 <<EOF\nls $DATA_DIR\nEOF\n",
    "D=/srv/app\nssh web1 bash <<EOF\ncd $D && ls\nEOF\n",
    # issue 13: `timeout N bash <<EOF` on the same machine with the script's own variables.
    "n=3\ntimeout 5 bash <<EOF\necho $n\nEOF\n",
    "f() {\n  local n=$1\n  timeout 5 bash <<EOF\necho $n\nEOF\n}\n",
    # The inner script sets it too, but so does the outer one: which was meant is a guess.
    'x=1\nssh h "x=2; echo $x"\n',
    'for x in a b; do sh -c "x=1; echo $x"; done\n',
    # A heredoc shell with no arguments has an empty $1: the fix would empty it.
    "ssh web1 <<EOF\necho $1\nEOF\n",
    # `$$` as a unique name shared by both sides (issue 13).
    'echo $$ > /tmp/job.$$\nssh web1 "cat /tmp/job.$$"\n',
    # The author escaped `\$ID` and `\$(...)` for the inner shell and left `$VIRT_DRIVER` and
    # `$REGION_NAME` to the local one (openstack/devstack functions, wait_for_compute).
    'timeout 60 bash -x <<EOF || rval=$?\nwhile [[ "\\$ID" == "" ]]; do\n'
    '  if [[ "$VIRT_DRIVER" = fake ]]; then ID=\\$(openstack --os-region "$REGION_NAME"); fi\n'
    'done\nEOF\n',
    'awk "/$PAT/ {print \\$1}" access.log\n',
    # A shell on this machine that does not set it: unless exported, escaping empties it.
    "timeout 5 bash <<EOF\necho $n\nEOF\n",
]


@pytest.mark.parametrize("text", AUTHOR_VALUES)
def test_no_fix_changes_a_value_the_author_set(text: str) -> None:
    # The finding may stay (its message explains) or go (a value the script sets before the
    # hand-off is meant to be expanded there: quotecheck.values); no fix touches the value.
    found = check_source(text).diagnostics
    assert all(not f.edits for d in found for f in d.fixes if f.applicability != "display-only")
    assert fix_source(text, unsafe=True).text == text


# What the same fixes still do where the outer script does not set the value.
STILL_FIXED = [
    ("ssh web1 <<EOF\nls $D\nEOF\n", "ssh web1 <<EOF\nls \\$D\nEOF\n"),
    ("timeout 5 bash <<EOF\nx=1\necho $x\nEOF\n", "timeout 5 bash <<EOF\nx=1\necho \\$x\nEOF\n"),
    ('ssh h "x=2; echo $x"\n', 'ssh h "x=2; echo \\$x"\n'),
    ("ssh h bash -s -- a b <<EOF\necho $1\nEOF\n", "ssh h bash -s -- a b <<EOF\necho \\$1\nEOF\n"),
    ('ssh h "echo $$ > /tmp/pid"\n', 'ssh h "echo \\$$ > /tmp/pid"\n'),
]


@pytest.mark.parametrize(("text", "fixed"), STILL_FIXED)
def test_the_escape_fix_stays_where_no_value_is_set(text: str, fixed: str) -> None:
    assert fix_source(text, unsafe=True).text == fixed


# -- regressions: fixes inside another layer's quotes ----------------------------------------


def test_escape_fix_is_written_in_the_outer_quoting() -> None:
    """`$HOME` expanded by an `sh -c` shell whose script is double-quoted in the file: the
    backslash must reach that shell, so it is written `\\\\` in the outer double quotes (the
    fix used to write a single `\\`, which the outer shell ate, leaving `$HOME` to it)."""
    text = 'sh -c "ssh h \\"echo \\$HOME\\""\n'
    fixed = fix_source(text, unsafe=True).text
    assert fixed == 'sh -c "ssh h \\"echo \\\\\\$HOME\\""\n'
    # What the sh layer receives, by bash itself.
    script = fixed[len("sh -c "):-1]
    assert bash_words(script) == ['ssh h "echo \\$HOME"']


def test_joined_words_fix_is_not_offered_inside_another_layer() -> None:
    """The QC102 replacement is quoted for the file's shell: inside `sh -c '...'` its
    double quotes ended the outer string (the fixed file no longer parsed)."""
    text = "sh -c 'ssh files-host rec \"my file\"\n'\n"
    assert any(d.code == "QC102" for d in check_source(text).diagnostics)
    assert fix_source(text, unsafe=True).text == text


@pytest.mark.parametrize("text", [
    'ssh "${SSH_OPTS[@]}" web1 mkdir -p "/srv/my app"\n',  # issue 12: the array's split
    'ssh $OPTS web1 ls "my file"\n',
])
def test_joined_words_fix_is_not_offered_when_the_split_is_a_guess(text: str) -> None:
    """The QC102 fix joined from the guessed start of the command, so the destination became
    `web1 mkdir -p '/srv/my app'` and ssh tried to reach a host of that name."""
    assert any(d.code == "QC102" for d in check_source(text).diagnostics)
    assert fix_source(text, unsafe=True).text == text


@pytest.mark.parametrize(("text", "fixed"), [
    ('ssh "$host" ls "my file"\n', 'ssh "$host" "ls \'my file\'"\n'),
    ('ssh -p "$PORT" "$host" ls "my file"\n', 'ssh -p "$PORT" "$host" "ls \'my file\'"\n'),
])
def test_joined_words_fix_with_a_known_split(text: str, fixed: str) -> None:
    assert fix_source(text, unsafe=True).text == fixed
