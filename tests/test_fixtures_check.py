"""Every fixture script's `check --format json` output equals its checked-in expectation."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("regenerate", ROOT / "fixtures" / "regenerate.py")
assert _spec and _spec.loader
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)

SCRIPTS = regenerate.scripts()


def test_there_are_fixtures_for_every_rule() -> None:
    from quotecheck.rules.registry import all_rules

    seen = set()
    for script in SCRIPTS:
        expected = json.loads(script.with_suffix(".check.json").read_text())
        seen.update(d["code"] for d in expected["diagnostics"])
    assert seen >= set(all_rules()) - {"QC002"}, sorted(set(all_rules()) - seen)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_fixture_output_is_unchanged(script: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    expected_file = script.with_suffix(".check.json")
    assert expected_file.exists(), "run python3 fixtures/regenerate.py"
    assert regenerate.expected_output(script) == json.loads(expected_file.read_text())
