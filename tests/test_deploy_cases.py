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
EXPECT_SOURCED = re.compile(r"^# expect \(with --external-sources\): (.*)$", re.M)


def found_with_sources(path: Path) -> set[str]:
    text = path.read_text()
    result = check_source(text, Options(external_sources=True), str(path))
    index = LineIndex(text)
    return {f"{d.code}@{index.position(d.span[0])[0] + 1}" for d in result.diagnostics
            if d.severity in ("warning", "error")}


@pytest.mark.parametrize("path", sorted(p for p in (CASES / "sourced").glob("*.sh")
                                        if EXPECT_SOURCED.search(p.read_text())),
                         ids=lambda p: p.name)
def test_sourced_case(path: Path) -> None:
    """A case of sourced/ says what `check -x` reports on its `# expect (with
    --external-sources):` line, and what `check` reports on its `# expect:` line (none when it
    has none): the files it sources, beside it, hold its helpers and settings."""
    m = EXPECT_SOURCED.search(path.read_text())
    assert m is not None
    words = m.group(1).split()
    assert found_with_sources(path) == (set() if words == ["none"] else set(words))
    assert reported(path) == (expected(path) if EXPECT.search(path.read_text()) else set())


def test_sourced_helpers_are_read_only_when_asked() -> None:
    # Without --external-sources `remote` is an unknown command: nothing to say.
    assert reported(SOURCED) == set()
    assert found_with_sources(SOURCED) == {"QC201@5", "QC210@5"}
    result = check_source(SOURCED.read_text(), Options(external_sources=True), str(SOURCED))
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


def test_sourced_settings_are_known_values(tmp_path: Path) -> None:
    """The settings a deploy script sources: `-x` makes them known (a plain word is no finding,
    one with a blank is the definite error, named with the file's line); without it they are
    values not known before run time."""
    import subprocess
    import sys

    script = tmp_path / "deploy.sh"
    script.write_text('#!/bin/bash\n. ./config.sh\nssh $SSH_OPTS web1 "sudo systemctl restart '
                      '$APP"\n')
    config = tmp_path / "config.sh"
    config.write_text('# deploy settings\nSSH_OPTS="-o BatchMode=yes"\nAPP=shopfront\n')

    def run(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "quotecheck", "check", "--no-config",
                               "--severity", "info", "--color", "never", *args,
                               str(script)],
                              capture_output=True, text=True, cwd=tmp_path).stdout

    without = run()
    assert "info QC103" in without and "error" not in without
    assert "QC103" not in run("-x")
    config.write_text('# deploy settings\nSSH_OPTS="-o BatchMode=yes"\nAPP="shop front"\n')
    assert "error" not in run()
    found = run("-x")
    assert "error QC103" in found
    assert "`$APP` is `shop front` (config.sh line 3)" in found


def test_a_sourced_file_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import quotecheck.layers.sourced as sourced

    parsed: list[str] = []
    real = sourced.parse_script

    def counting(text: str, *args: object, **kwargs: object) -> object:
        parsed.append(text)
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sourced, "parse_script", counting)
    path = CASES / "sourced" / "deploy.sh"
    text = path.read_text() + '. "$(dirname "$0")/settings.sh"\nssh web1 "echo $APP"\n'
    result = check_source(text, Options(external_sources=True), str(path))
    assert any(d.code == "QC103" for d in result.diagnostics)
    assert len(parsed) == 1
