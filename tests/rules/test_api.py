"""quotecheck/rules/api.py: the check's memo is the only state the rules keep.

What one rule computes for another (a layer's script index, a command's hand-offs, the
cross-layer decision) lives in the ``Memo`` of the check's ``CheckContext``: it cannot reach
another input, another thread or a forked worker. These tests keep it so: statically (no module
of quotecheck/rules keeps a module-level cache) and by running checks.
"""

from __future__ import annotations

import ast
import gc
import importlib
import json
import pkgutil
import subprocess
import sys
import weakref
from pathlib import Path
from types import ModuleType

import pytest

import quotecheck.rules
from quotecheck.checker import Options, check_source
from quotecheck.rules.api import CheckContext, Memo
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "quotecheck" / "rules"
# Inputs that exercise the memoised helpers: runtime (QC201-QC206), cross-layer (QC101-QC105),
# hand-offs (QC106-QC113) and the operations rules.
INPUTS = [ROOT / "fixtures" / p for p in (
    "dflash/restart.sh", "runtime/restart_trainer.sh", "runtime/nightly_sync.sh",
    "crosslayer/deploy_release.sh", "crosslayer/remote_heredoc_setup.sh",
    "handoffs/gpu_restart_env.sh", "operations/rolling_deploy.sh")]


class _Thing:
    pass


def test_memo_computes_once_per_kind_and_object() -> None:
    memo = Memo()
    a, b = _Thing(), _Thing()
    calls: list[str] = []

    def compute(tag: str) -> list[str]:
        calls.append(tag)
        return [tag]

    first = memo.get_or_compute("x", a, lambda: compute("a"))
    assert memo.get_or_compute("x", a, lambda: compute("again")) is first
    assert memo.get_or_compute("x", b, lambda: compute("b")) == ["b"]
    assert memo.get_or_compute("y", a, lambda: compute("y")) == ["y"]
    assert calls == ["a", "b", "y"]


def test_memo_holds_its_objects_so_their_ids_are_never_reused() -> None:
    """An entry is found by the object's id: while the memo lives, the object must too, or a
    new object could get its id and the old answer."""
    memo = Memo()
    thing = _Thing()
    alive = weakref.ref(thing)
    memo.get_or_compute("x", thing, lambda: 1)
    del thing
    gc.collect()
    assert alive() is not None
    del memo
    gc.collect()
    assert alive() is None


def test_every_check_has_a_memo_of_its_own() -> None:
    trace = build_trace("echo hi\n")
    one, two = CheckContext("echo hi\n", trace), CheckContext("echo hi\n", trace)
    assert one.memo is not two.memo
    one.memo.get_or_compute("x", trace, lambda: "one")
    assert two.memo.get_or_compute("x", trace, lambda: "two") == "two"


# -- no module-level state in quotecheck/rules -----------------------------------------------

_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "pop",
                       "popitem", "clear", "remove", "discard", "move_to_end", "__setitem__"})


def _calls_id(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "id"
               for n in ast.walk(node))


def _module_state_problems(path: Path) -> list[str]:
    """Module-level names a function writes to, or reads with an id() key, and module-level
    instances of the module's own classes (a cache object)."""
    tree = ast.parse(path.read_text())
    # Instances of an immutable record class (a constant such as a trigger) hold no state.
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)
               and not any(isinstance(b, ast.Name) and b.id == "FrozenRecord" for b in n.bases)}
    names: set[str] = set()
    problems: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name):
                names.add(target.id)
                value = node.value  # type: ignore[union-attr]
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
                        value.func.id in classes:
                    problems.append(f"{target.id} = {value.func.id}(...) at {node.lineno}")
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for node in ast.walk(func):
            where = f"line {getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Global):
                problems.append(f"global {', '.join(node.names)} at {where}")
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                    node.value.id in names and (
                        isinstance(node.ctx, (ast.Store, ast.Del)) or _calls_id(node.slice)):
                problems.append(f"{node.value.id}[...] at {where}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in names and (
                        node.func.attr in _MUTATORS or any(_calls_id(a) for a in node.args)):
                problems.append(f"{node.func.value.id}.{node.func.attr}(...) at {where}")
            elif isinstance(node, ast.Compare) and _calls_id(node.left) and any(
                    isinstance(c, ast.Name) and c.id in names for c in node.comparators):
                problems.append(f"id(...) in a module-level name at {where}")
    return problems


def test_no_rules_module_keeps_state_at_module_level() -> None:
    problems = {str(path.relative_to(ROOT)): found for path in sorted(RULES.rglob("*.py"))
                if (found := _module_state_problems(path))}
    assert problems == {}, "keep what rules share in ctx.memo (quotecheck/rules/api.py)"


def test_the_static_check_finds_the_caches_it_is_meant_to_find(tmp_path: Path) -> None:
    """The three shapes of module-level cache the rules once had are all reported."""
    samples = {
        "by_id": "SEEN = {}\ndef f(v):\n    return SEEN.get(id(v))\n",
        "stored": "LAST = {}\ndef f(v):\n    LAST['last'] = v\n",
        "object": "class _Cache:\n    pass\nCACHE = _Cache()\n",
    }
    for name, text in samples.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        assert _module_state_problems(path), name


def _rules_modules() -> list[ModuleType]:
    out: list[ModuleType] = [quotecheck.rules]
    for info in pkgutil.walk_packages(quotecheck.rules.__path__, "quotecheck.rules."):
        out.append(importlib.import_module(info.name))
    return out


def _fingerprint(value: object) -> str | None:
    """The contents of a mutable module-level value (None for what cannot change)."""
    if isinstance(value, (dict, list, set, bytearray)):
        return repr(value)
    module = getattr(type(value), "__module__", "")
    if module.startswith("quotecheck.rules") and hasattr(value, "__dict__"):
        return repr(vars(value))
    return None


def _state() -> dict[str, str]:
    out: dict[str, str] = {}
    for module in _rules_modules():
        for name, value in vars(module).items():
            printed = _fingerprint(value)
            if printed is not None:
                out[f"{module.__name__}.{name}"] = printed
    return out


def _summary(source: str) -> list[list[object]]:
    result = check_source(source, Options(severity="hint"))
    return [[d.code, list(d.span), d.severity, d.text, list(d.layers),
             [[list(r.span), r.message] for r in d.related],
             [[f.title, f.applicability, [[list(e.span), e.text] for e in f.edits]]
              for f in d.fixes]]
            for d in result.diagnostics]


def test_checks_leave_no_state_behind() -> None:
    _summary(INPUTS[0].read_text())  # first use: imports and the rules' own tables
    before = _state()
    results = [check_source(p.read_text(), Options(severity="hint")) for p in INPUTS]
    after = _state()
    assert results and {k: v for k, v in after.items() if before.get(k) != v} == {}


@pytest.fixture(scope="module")
def alone() -> dict[Path, list[list[object]]]:
    """What each input gets checked alone, in a fresh interpreter."""
    program = ("import json, sys\n"
               "sys.path.insert(0, sys.argv[2])\n"
               "from test_api import _summary\n"
               "print(json.dumps(_summary(open(sys.argv[1]).read())))\n")
    out = {}
    for path in INPUTS:
        printed = subprocess.run(
            [sys.executable, "-c", program, str(path), str(Path(__file__).parent)],
            capture_output=True, text=True, timeout=120, check=True).stdout
        out[path] = json.loads(printed)
    return out


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_inputs_checked_in_turn_in_one_process_get_what_each_gets_alone(
        alone: dict[Path, list[list[object]]], order: str) -> None:
    """All the inputs, twice over, in one process: each gets what it gets alone."""
    assert any(alone.values())
    paths = INPUTS if order == "forward" else INPUTS[::-1]
    for path in [*paths, *paths]:
        assert _summary(path.read_text()) == alone[path], path.name
