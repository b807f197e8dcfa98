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


SOURCED = CASES / "sourced" / "restart.sh"


def test_sourced_helpers_are_read_only_when_asked() -> None:
    # Without --external-sources `remote` is an unknown command: nothing to say.
    assert reported(SOURCED) == set()
    text = SOURCED.read_text()
    result = check_source(text, Options(external_sources=True), str(SOURCED))
    index = LineIndex(text)
    found = {f"{d.code}@{index.position(d.span[0])[0] + 1}" for d in result.diagnostics
             if d.severity in ("warning", "error")}
    assert found == {"QC201@5", "QC210@5"}
    [d] = [d for d in result.diagnostics if d.code == "QC201"]
    assert "remote() in common.sh" in d.layers


def test_external_sources_option_and_setting(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "restart.sh"
    script.write_text(SOURCED.read_text())
    (tmp_path / "common.sh").write_text((CASES / "sourced" / "common.sh").read_text())

    def run(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "quotecheck", "check", *args, str(script)],
                              capture_output=True, text=True, cwd=tmp_path).stdout

    assert "QC201" not in run("--no-config")
    assert "QC201" in run("--no-config", "--external-sources")
    assert "QC201" in run("--no-config", "-x")
    (tmp_path / ".quotecheck.toml").write_text("external-sources = true\n")
    assert "QC201" in run()
