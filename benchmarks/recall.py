"""The recall set: real failures from public threads, each with the fix the thread accepted.

Each case is a folder under ``recall/cases/``: ``case.toml`` (where the failure and the fix come
from, what goes wrong, the rule that names it), ``bad/`` (the failing code as a small file in a
repository would hold it) and ``good/`` (the same file with the accepted fix). quotecheck must
report every bad case at warning or error with default settings, and nothing at warning or error
on any good twin. The cases were written from the threads by people who did not read the rules.

    python3 benchmarks/recall.py                 # the table by rule, then every case that fails
    python3 benchmarks/recall.py --json FILE     # also each case's outcome as JSON

``recall/known.txt`` lists the cases known to fail today, one ``id reason`` a line. The exit
status is 1 when a case fails that is not listed there, or a listed case passes (so that the list
is kept true); ``tests/test_recall.py`` runs the same comparison.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "recall"
CASES = HERE / "cases"
KNOWN = HERE / "known.txt"
LOUD = {1: "error", 2: "warning"}
KEYS = ("source", "fix_source", "title", "failure", "fix", "rule", "where")


@dataclass
class Case:
    id: str
    meta: dict[str, str]
    bad: list[Path]
    good: list[Path]
    # Filled in by the run: code and severity of each finding, by side.
    found: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @property
    def rule(self) -> str:
        return self.meta.get("rule", "?")

    def loud(self, side: str) -> list[str]:
        return [code for code, severity in self.found.get(side, []) if severity in LOUD.values()]

    @property
    def outcome(self) -> str:
        """found (warning or error on bad, good clean), info (bad reported at info only),
        missed (nothing on bad), noisy (bad found but good not clean)."""
        bad_loud = self.loud("bad")
        if bad_loud:
            return "noisy" if self.loud("good") else "found"
        if self.found.get("bad"):
            return "info"
        return "missed"

    @property
    def passes(self) -> bool:
        return self.outcome == "found"


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def load_cases(root: Path = CASES) -> tuple[list[Case], list[str]]:
    """The cases under ``root`` and the problems of those that cannot be read."""
    cases: list[Case] = []
    problems: list[str] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        toml = folder / "case.toml"
        try:
            meta = tomllib.loads(toml.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            problems.append(f"{folder.name}: case.toml: {e}")
            continue
        missing = [k for k in KEYS if not isinstance(meta.get(k), str) or not meta[k].strip()]
        bad, good = _files(folder / "bad"), _files(folder / "good")
        if missing:
            problems.append(f"{folder.name}: case.toml lacks {', '.join(missing)}")
        elif not bad or not good:
            problems.append(f"{folder.name}: needs files in bad/ and good/")
        elif [p.relative_to(folder / "bad") for p in bad] != \
                [p.relative_to(folder / "good") for p in good]:
            problems.append(f"{folder.name}: bad/ and good/ hold different file names")
        else:
            cases.append(Case(folder.name, meta, bad, good))
    return cases, problems


def run_quotecheck(paths: Iterable[Path]) -> dict[str, list[tuple[str, str]]]:
    """Code and severity of every finding, by file, from one `quotecheck check` process with
    default settings except that info findings are shown too (to tell "info only" from missed)."""
    listed = [str(p) for p in paths]
    proc = subprocess.run(
        [sys.executable, "-m", "quotecheck", "check", "--no-config", "--severity", "info",
         "--format", "json", "--exit-zero", "--no-respect-gitignore", *listed],
        cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"quotecheck exited {proc.returncode}: {proc.stderr[-2000:]}")
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for entry in json.loads(proc.stdout)["files"]:
        path = str(Path(entry["uri"].removeprefix("file://")))
        for d in entry["diagnostics"]:
            out[path].append((d["code"], LOUD.get(d["severity"], "info")))
    return out


def run(cases: list[Case]) -> None:
    found = run_quotecheck(p for c in cases for p in (*c.bad, *c.good))
    for c in cases:
        c.found = {"bad": [f for p in c.bad for f in found.get(str(p), [])],
                   "good": [f for p in c.good for f in found.get(str(p), [])]}


def load_known(path: Path = KNOWN) -> dict[str, str]:
    known: dict[str, str] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                case_id, _, reason = line.partition(" ")
                known[case_id] = reason.strip()
    return known


def table(cases: list[Case]) -> str:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for c in cases:
        rows[c.rule][c.outcome] += 1
        rows[c.rule]["same rule"] += c.rule in c.loud("bad")
        rows[c.rule]["good clean"] += not c.loud("good")
    lines = ["| rule | cases | found (warning/error) | same rule | info only | missed | "
             "good twin clean |", "|---|---:|---:|---:|---:|---:|---:|"]
    total: Counter[str] = Counter()
    for rule in sorted(rows):
        r = rows[rule]
        n = sum(r[k] for k in ("found", "noisy", "info", "missed"))
        total.update(r)
        total["cases"] += n
        lines.append(f"| {rule} | {n} | {r['found'] + r['noisy']} | {r['same rule']} | "
                     f"{r['info']} | {r['missed']} | {r['good clean']} |")
    n = total["cases"]
    lines.append(f"| **all** | {n} | {total['found'] + total['noisy']} | {total['same rule']} | "
                 f"{total['info']} | {total['missed']} | {total['good clean']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=CASES)
    ap.add_argument("--json", type=Path, metavar="FILE", help="write each case's outcome")
    args = ap.parse_args(argv)
    cases, problems = load_cases(args.cases)
    for p in problems:
        print(f"unreadable case: {p}", file=sys.stderr)
    run(cases)
    print(table(cases), end="")
    known = load_known()
    failing = [c for c in cases if not c.passes]
    for c in failing:
        mark = "known" if c.id in known else "NEW"
        print(f"{mark} {c.outcome}: {c.id} ({c.rule}) bad={c.found['bad']} "
              f"good-loud={c.loud('good')}")
    stale = sorted(set(known) & {c.id for c in cases if c.passes})
    for case_id in stale:
        print(f"passes now, remove from known.txt: {case_id}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document: list[dict[str, Any]] = [
            {"id": c.id, **c.meta, "outcome": c.outcome, "bad": c.found["bad"],
             "good": c.found["good"]} for c in cases]
        args.json.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    unexpected = [c for c in failing if c.id not in known]
    return 1 if unexpected or stale or problems else 0


if __name__ == "__main__":
    sys.exit(main())
