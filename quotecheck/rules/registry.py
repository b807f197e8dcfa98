"""The one registry: rule code -> Rule, discovered from the ``qcNNN_name.py`` modules here.

Each rule lives in its own module beside this one, with its document at ``rules/QCnnn.md`` and
its tests at ``tests/rules/test_qcnnn.py``; tests/test_rule_layout.py keeps them in step (and
says where the exceptions are).
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from pathlib import Path

from quotecheck.lazy_regex import lazy_compile
from quotecheck.rules.api import Rule

_MODULE_FILE = lazy_compile(r"(qc(\d{3})_[a-z0-9_]+)\.py")
_HERE = os.path.dirname(os.path.realpath(__file__))
# rules/*.md at the repository root, shipped inside the package through the `docs` link.
DOCS_DIR = Path(_HERE) / "docs"


def doc_path(code: str) -> Path:
    return DOCS_DIR / f"{code.upper()}.md"


@cache
def all_rules() -> dict[str, Rule]:
    """Every rule, sorted by code."""
    # One directory listing (pkgutil would import itself and stat every entry): this runs on
    # every `quotecheck check`.
    found: dict[str, Rule] = {}
    for name in sorted(os.listdir(_HERE)):
        m = _MODULE_FILE.fullmatch(name)
        if not m:
            continue
        module = importlib.import_module(f"quotecheck.rules.{m.group(1)}")
        rule: Rule = module.RULE
        if rule.code != f"QC{m.group(2)}":
            raise RuntimeError(f"{m.group(1)} defines {rule.code}")
        if rule.code in found:
            raise RuntimeError(f"two modules define {rule.code}")
        found[rule.code] = rule
    return dict(sorted(found.items()))


def get(code: str) -> Rule | None:
    return all_rules().get(code.upper())


def select(codes: dict[str, Rule], selected: list[str] | None,
           ignored: list[str] | None) -> list[Rule]:
    """Rules chosen by code or prefix (`QC2`, `QC20`); the longest matching prefix wins."""

    def best(code: str, prefixes: list[str] | None) -> int:
        return max((len(p) for p in prefixes or [] if code.startswith(p.upper())), default=-1)

    out = []
    for code, rule in codes.items():
        sel = best(code, selected) if selected else 0
        if sel > best(code, ignored):
            out.append(rule)
    return out
