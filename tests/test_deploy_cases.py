"""Realistic deploy, cluster start/stop and CI script cases (tests/deploy_cases/, sources in
its SOURCE.md): defects reachable only through the script's own variables, arrays, command
variables and wrapper functions are found at the right line; correct idioms whose values the
script sets itself are clean.

Each case says on its `# expect:` line the warnings and errors `check` must report, as
`CODE@LINE` (or `none`); info findings are not held to it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source
from quotecheck.positions import LineIndex

CASES = Path(__file__).parent / "deploy_cases"
EXPECT = re.compile(r"^# expect: (.*)$", re.M)


def reported(path: Path) -> set[str]:
    text = path.read_text()
    result = check_source(text, Options(), str(path))
    index = LineIndex(text)
    return {f"{d.code}@{index.position(d.span[0])[0] + 1}" for d in result.diagnostics
            if d.severity in ("warning", "error")}


def expected(path: Path) -> set[str]:
    m = EXPECT.search(path.read_text())
    assert m is not None, f"{path.name} has no `# expect:` line"
    words = m.group(1).split()
    return set() if words == ["none"] else set(words)


@pytest.mark.parametrize("path", sorted(CASES.glob("*.sh")), ids=lambda p: p.name)
def test_case(path: Path) -> None:
    assert reported(path) == expected(path)
