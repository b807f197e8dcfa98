"""What every rule's tests share: running a rule on a source, and the fixtures' `# expect:` test.

A rule's test module says once how its rule is run, ``found = Finder("QC106", severity="hint")``,
and then ``found(src)`` is the rule's findings on ``src`` as ``(line, column, diagnostic)``,
1-based. The fixture scripts of a family (``fixtures/<family>/*.sh``) each say on one
``# expect: QC101@3:5 ...`` line (or ``# expect: none``) where their findings are;
``fixture_test`` makes the test that holds them to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from host_fixtures import host_fixtures

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic, Severity
from quotecheck.positions import LineIndex

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
# The rules whose fixtures live together in fixtures/crosslayer (QC102's fixtures too).
CROSSLAYER = ("QC101", "QC102", "QC103", "QC104", "QC105")
EXPECT = re.compile(r"^# expect: (.*)$", re.M)

Located = tuple[int, int, Diagnostic]


class _Unset:
    """No value given: the Finder's own applies."""


_UNSET = _Unset()


def at(src: str, d: Diagnostic) -> tuple[int, int]:
    """The 1-based line and column where ``d`` starts in ``src``."""
    line, col = LineIndex(src).position(d.span[0])
    return line + 1, col + 1


@dataclass(frozen=True)
class Finder:
    """How one rule's tests run it.

    Alone, anything but the rule's findings fails the test (it would be a QC002: a rule that
    failed, a limit); with ``others="drop"`` only a rule that failed does. Run with its
    ``group`` (the rules it is checked with), the other rules' findings are dropped."""

    code: str
    group: tuple[str, ...] = ()
    severity: Severity = "info"
    path: str | None = None  # the name the source is checked under (a script file's)
    others: Literal["fail", "drop"] = "fail"
    host: str | None = None  # the sources are host files of this format (python, make)

    def diagnostics(self, src: str, code: str | None = None, *,
                    remote_shell: str | None = None, path: str | _Unset | None = _UNSET,
                    dialect: str = "bash") -> list[Diagnostic]:
        """The rule's findings on ``src`` (``code``: another rule, run the same way)."""
        code = code or self.code
        result = check_source(src, Options(select=list(self.group or [code]),
                                           severity=self.severity, remote_shell=remote_shell,
                                           dialect=dialect, host=self.host),
                              path=self.path if isinstance(path, _Unset) else path)
        out = []
        for d in result.diagnostics:
            if d.code == code:
                out.append(d)
            elif self.group:
                continue
            elif self.others == "drop":
                assert d.code != "QC002" or "failed on this input" not in d.text, d.text
            else:
                raise AssertionError(d.text)  # a crash would show up as QC002
        return out

    def __call__(self, src: str, code: str | None = None, *, remote_shell: str | None = None,
                 path: str | _Unset | None = _UNSET, dialect: str = "bash") -> list[Located]:
        """The rule's findings on ``src`` with their line and column."""
        index = LineIndex(src)
        out = []
        for d in self.diagnostics(src, code, remote_shell=remote_shell, path=path,
                                  dialect=dialect):
            line, col = index.position(d.span[0])
            out.append((line + 1, col + 1, d))
        return out


# -- fixtures ------------------------------------------------------------------------------------


def fixtures(family: str) -> list[Path]:
    """The fixture scripts of a family: fixtures/<family>/*.sh (host files: fixtures/hosts/
    <format>/*, each read as its format)."""
    if family.startswith("hosts"):
        return [p for p, _ in host_fixtures(family)]
    return sorted((FIXTURES / family).glob("*.sh"))


def expected(text: str, codes: Iterable[str] | None = None) -> list[str]:
    """The `CODE@L:C` items of a fixture's `# expect:` line (of ``codes`` only, if given)."""
    m = EXPECT.search(text)
    assert m, "a fixture says what it expects on a `# expect:` line"
    items = [] if m.group(1).strip() == "none" else m.group(1).split()
    wanted = None if codes is None else tuple(f"{c}@" for c in codes)
    return sorted(i for i in items if wanted is None or i.startswith(wanted))


def reported(text: str, diagnostics: Iterable[Diagnostic],
             codes: Iterable[str] | None = None) -> list[str]:
    """The diagnostics as `CODE@L:C` items (of ``codes`` only, if given), sorted."""
    index = LineIndex(text)
    wanted = None if codes is None else set(codes)
    out = []
    for d in diagnostics:
        if wanted is None or d.code in wanted:
            line, col = index.position(d.span[0])
            out.append(f"{d.code}@{line + 1}:{col + 1}")
    return sorted(out)


Run = Callable[[Path, str], Iterable[Diagnostic]]


def fixture_test(family: str, codes: Sequence[str] | None, run: Run) -> Callable[[Path], None]:
    """The test that each script of ``family`` gets the findings of ``codes`` (None: of every
    rule ``run`` runs) its `# expect:` line lists. ``run(path, text)`` checks one script."""

    @pytest.mark.parametrize("path", fixtures(family), ids=lambda p: p.name)
    def test_fixture_expectations(path: Path) -> None:
        text = path.read_text()
        found = list(run(path, text))
        assert reported(text, found, codes) == expected(text, codes), [
            d.text for d in found]

    return test_fixture_expectations
