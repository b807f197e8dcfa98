"""The recall set (benchmarks/recall/): real failures from public threads stay found.

Every bad case is reported at warning or error and every good twin has no warning or error,
except the cases benchmarks/recall/known.txt lists with a reason; a listed case that passes
fails this test too, so that the list stays true.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import recall  # noqa: E402


@pytest.fixture(scope="module")
def cases() -> Iterator[list[recall.Case]]:
    found, problems = recall.load_cases()
    assert not problems, problems
    recall.run(found)
    yield found


def test_the_set_is_large_and_every_case_names_its_sources(cases: list[recall.Case]) -> None:
    assert len(cases) >= 120
    for c in cases:
        assert c.meta["source"].startswith(("https://", "http://")), c.id
        assert c.meta["fix_source"].startswith(("https://", "http://")), c.id
        assert c.meta["rule"].startswith("QC"), c.id


def test_every_case_is_found_and_every_fix_is_clean(cases: list[recall.Case]) -> None:
    known = recall.load_known()
    failing = {c.id: (c.outcome, c.found) for c in cases if not c.passes}
    assert {k: v for k, v in failing.items() if k not in known} == {}


def test_the_known_list_holds_only_cases_that_still_fail(cases: list[recall.Case]) -> None:
    known = recall.load_known()
    ids = {c.id for c in cases}
    assert set(known) <= ids, set(known) - ids
    assert all(reason for reason in known.values())
    assert [c.id for c in cases if c.passes and c.id in known] == []


def test_a_case_file_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    (tmp_path / "x1" / "bad").mkdir(parents=True)
    (tmp_path / "x1" / "case.toml").write_text('source = "https://example.org"\n')
    found, problems = recall.load_cases(tmp_path)
    assert found == [] and problems and "lacks" in problems[0]
