"""Every host fixture (fixtures/hosts/<format>/*) gets exactly the findings its `# expect:` line
lists, read as its format. (Their whole `check` output is a snapshot like every fixture's:
tests/test_fixtures_check.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from host_fixtures import host_fixtures

from quotecheck.checker import Options, check_source
from quotecheck.positions import LineIndex

EXPECT = re.compile(r"^# expect: (.*)$", re.M)


def _reported(text: str, diagnostics: list) -> list[str]:  # type: ignore[type-arg]
    index = LineIndex(text)
    out = []
    for d in diagnostics:
        line, col = index.position(d.span[0])
        out.append(f"{d.code}@{line + 1}:{col + 1}")
    return sorted(out)


@pytest.mark.parametrize(("path", "format"), host_fixtures(),
                         ids=[p.name for p, _ in host_fixtures()])
def test_host_fixture_expectations(path: Path, format: str) -> None:
    text = path.read_text()
    m = EXPECT.search(text)
    assert m is not None, "a fixture says what it expects on a `# expect:` line"
    wanted = [] if m.group(1).strip() == "none" else sorted(m.group(1).split())
    result = check_source(text, Options(host=format), str(path))
    assert _reported(text, result.diagnostics) == wanted, [d.text for d in result.diagnostics]
    assert result.trace.root.kind == "host" and result.trace.root.format == format
