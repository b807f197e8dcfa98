"""From a rule's code alone, a maintainer finds its code, document, tests and fixtures.

For a code QCnnn of the registry:

- the rule is ``quotecheck/rules/qcnnn_<name>.py``, ``<name>`` its name with ``_`` for ``-``;
- its document is ``rules/QCnnn.md`` (tests/test_rule_docs.py runs its examples);
- its tests are ``tests/rules/test_qcnnn.py``, except QC001 and QC002, which report what the
  parser and the checker leave (a parse error, a part not analysed): they are tested where
  that is produced (``ELSEWHERE``);
- its fixtures are the scripts under ``fixtures/`` whose ``# expect:`` line lists ``QCnnn@``
  (every rule but QC001 and QC002 has one), and its fix pairs ``fixtures/fixes/QCnnn/``.

The helpers the rules share are tested in ``tests/rules/test_<module>.py``, named for the
module: ``test_api.py`` for ``rules/api.py``, ``test_handoffs.py`` for ``rules/_handoffs.py``,
``test_runtime_regex.py`` for ``rules/runtime/regex.py``. And the package stays one a newcomer
can read: no module over 1,200 lines, no import cycle between its modules.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from host_fixtures import host_fixtures

from quotecheck.rules.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "quotecheck" / "rules"
ELSEWHERE = {
    "QC002": ("tests/test_hostile_inputs.py", "tests/test_check_cli.py"),
}
_ITEM = re.compile(r"(QC\d{3})@\d+:\d+")
MAX_LINES = 1200


def _number(code: str) -> str:
    return code[2:]


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_the_rule_is_the_module_named_for_its_code_and_name(code: str) -> None:
    rule = all_rules()[code]
    module = sys.modules[rule.check.__module__]
    assert module.__file__ is not None
    name = rule.name.replace("-", "_")
    assert Path(module.__file__).resolve() == RULES / f"qc{_number(code)}_{name}.py"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_the_rule_has_its_document(code: str) -> None:
    assert (ROOT / "rules" / f"{code}.md").is_file()


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_the_rule_has_its_tests(code: str) -> None:
    own = ROOT / "tests" / "rules" / f"test_qc{_number(code)}.py"
    if code in ELSEWHERE:
        assert not own.exists(), f"{own.name} exists: take {code} out of ELSEWHERE"
        for name in ELSEWHERE[code]:
            assert code in (ROOT / name).read_text(), name
    else:
        assert own.is_file()
        assert f'"{code}"' in own.read_text()


def _helper_module(stem: str) -> Path | None:
    """The rules module ``tests/rules/test_<stem>.py`` is named for, if it exists."""
    candidates = [RULES / f"{stem}.py", RULES / f"_{stem}.py"]
    package, _, module = stem.partition("_")
    if module:
        candidates.append(RULES / package / f"{module}.py")
    return next((c for c in candidates if c.is_file()), None)


def test_each_test_module_of_tests_rules_names_a_rule_or_a_helper() -> None:
    for test in sorted((ROOT / "tests" / "rules").glob("test_*.py")):
        stem = test.stem.removeprefix("test_")
        if re.fullmatch(r"qc\d{3}", stem):
            assert stem.upper() in all_rules(), test.name
        else:
            assert _helper_module(stem) is not None, test.name


def _expect_lines() -> dict[Path, list[str]]:
    scripts = [*sorted((ROOT / "fixtures").rglob("*.sh")), *(p for p, _ in host_fixtures())]
    return {script: re.findall(r"^# expect:(.*)$", script.read_text(), re.M)
            for script in scripts}


def test_fixture_expect_lines_name_registered_codes() -> None:
    listed: set[str] = set()
    for script, lines in _expect_lines().items():
        if not lines:
            continue
        where = script.relative_to(ROOT)
        assert len(lines) == 1, f"{where}: one `# expect:` line"
        items = lines[0].split()
        if items == ["none"]:
            continue
        for item in items:
            m = _ITEM.fullmatch(item)
            assert m, f"{where}: `{item}` is not CODE@LINE:COLUMN (or a lone `none`)"
            assert m.group(1) in all_rules(), f"{where}: {m.group(1)} is not a rule"
            listed.add(m.group(1))
    # (the parse-problem rules have no fixture: their inputs do not parse)
    assert listed == set(all_rules()) - {"QC001", "QC002"}


def test_fix_pairs_are_filed_under_registered_codes() -> None:
    folders = [p.name for p in (ROOT / "fixtures" / "fixes").iterdir() if p.is_dir()]
    assert folders and set(folders) <= set(all_rules())


def test_no_module_is_over_the_size_limit() -> None:
    # The rules and every other module of the package (issue 11: a newcomer's afternoon).
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines())
             for p in (ROOT / "quotecheck").rglob("*.py")}
    assert {k: n for k, n in sizes.items() if n > MAX_LINES} == {}


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_rules_modules_import_no_cycle() -> None:
    """Helpers import downwards only, so each can be read (and imported) on its own."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for p in RULES.rglob("*.py")}
    graph = {name: _imports(path) & set(modules) for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path[path.index(name):], name))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, (*path, name))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())
