"""Fixed scripts do what the rule's document says and nothing else, run for real (issue 13 item
4): every fix offered on the rule documents' examples and the fixture scripts, run before and
after in a sandbox with argv-recording stubs (tests/fix_runs.py). Needs Linux namespaces
(harness/sandbox.py); skipped where they are not allowed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fix_runs import SKIP, Case, difference, program_names, run_script
from fix_safety import (
    Snippet,
    doc_examples,
    fixture_scripts,
    offered,
    scripts_in_context,
    syntax_error,
)
from harness import sandbox
from hypothesis import HealthCheck, given, settings

from quotecheck.checker import check_source
from quotecheck.fixer import apply_edits

pytestmark = pytest.mark.skipif(not sandbox.available(),
                                reason="no Linux namespaces for the sandbox here")

SHELLS = {"bash": "bash", "sh": "dash"}
SCRIPTS = [s for s in doc_examples(("bad",)) + fixture_scripts()
           if any(True for _ in offered(check_source(s.text, s.options(), s.path)))]


def cases(script: Snippet) -> list[Case]:
    options = script.options()
    result = check_source(script.text, options, script.path)
    shell = SHELLS.get(options.dialect)
    if shell is None or syntax_error(options.dialect, script.text) is not None:
        return []
    remote = options.remote_shell if options.remote_shell in ("sh", "dash", "bash") else "bash"
    return [Case(script.text, apply_edits(script.text, list(fix.edits)), d, fix, shell,
                 "dash" if remote == "sh" else remote)
            for d, fix in offered(result)]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.label)
def test_fixed_script_differs_only_as_the_rule_says(script: Snippet, tmp_path: Path) -> None:
    names = program_names(check_source(script.text, script.options(), script.path))
    problems = []
    for case in cases(script):
        found = difference(case, tmp_path, names)
        if found not in (None, SKIP):
            problems.append(f"{case.finding.code} {case.fix.title}: {found}")
    assert not problems, "\n".join(problems)


GENERATED = int(os.environ.get("QC_FIX_SAFETY_RUN_EXAMPLES", "8"))


@settings(max_examples=GENERATED, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(case=scripts_in_context())
def test_fixes_in_surrounding_code_run_as_the_rule_says(case: tuple[str, Snippet],
                                                        tmp_path: Path) -> None:
    text, seed = case
    script = Snippet("generated", text, None if text.startswith("#!") else seed.dialect,
                     seed.remote_shell)
    names = program_names(check_source(text, script.options()))
    problems = []
    for one in cases(script):
        found = difference(one, tmp_path, names)
        if found not in (None, SKIP):
            problems.append(f"{one.finding.code} {one.fix.title}: {found}")
    assert not problems, "\n".join(problems)


def test_escape_inside_double_quoted_inner_script_reaches_it(tmp_path: Path) -> None:
    """Regression: the `\\` the QC101 fix wrote inside `sh -c "..."` was eaten by the outer
    shell. Run with the layers running: the innermost `sh -c` sets x=1, and with the fix
    its `rec` gets that value; with the old edit it did not."""
    text = 'sh -c "sh -c \\"x=1; rec \\\\\\"\\$x\\\\\\"\\""\n'
    found = cases(Snippet("regression", text, "bash"))
    assert [c.finding.code for c in found] == ["QC101"]
    at = found[0].finding.span[0]
    old_edit = text[:at] + "\\" + text[at:]
    names = program_names(check_source(text))
    fixed = run_script(tmp_path, found[0].fixed, "bash", names, deep=True)
    broken = run_script(tmp_path, old_edit, "bash", names, deep=True)
    assert [r["argv"] for r in fixed.records if r["argv"][0] == "rec"] == [["rec", "1"]]
    assert [r["argv"] for r in broken.records if r["argv"][0] == "rec"] != [["rec", "1"]]
