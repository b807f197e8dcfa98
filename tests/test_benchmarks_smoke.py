"""The benchmarks run: a small corpus sample without crashes or hangs, and speed.py --quick.

No timing is asserted anywhere (a shared 2-core machine is not a stopwatch); the figures
themselves are in benchmarks/README.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
SAMPLE = 40


@pytest.fixture(scope="module")
def sample_list(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A deterministic sample of this machine's shell scripts (fewer if it has fewer)."""
    listing = tmp_path_factory.mktemp("corpus") / "sample.txt"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "corpus.py"), "--list", "--sample", str(SAMPLE)],
        capture_output=True, text=True, timeout=600, check=True,
    )
    paths = [p for p in proc.stdout.splitlines() if p.strip()]
    if not paths:
        pytest.skip("no shell scripts found on this machine")
    listing.write_text("\n".join(paths) + "\n")
    return listing


def test_corpus_sample_has_no_crash_and_no_hang(sample_list: Path, tmp_path: Path) -> None:
    out = tmp_path / "corpus.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "corpus.py"), "--paths-from", str(sample_list),
         "--json", str(out), "--quiet"],
        capture_output=True, text=True, timeout=1800,
    )
    assert out.exists(), proc.stderr
    summary = json.loads(out.read_text())["summary"]
    n = len(sample_list.read_text().split())
    assert summary["files"] == n
    assert summary["crashes"] == 0, json.dumps(summary["crash_reports"], indent=1)
    assert summary["hangs"] == 0, summary["hang_paths"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "files: " in proc.stdout and "crashes: 0" in proc.stdout


def test_speed_quick_prints_the_table(sample_list: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "speed.py"), "--quick", "--install", "checkout",
         "--files-from", str(sample_list)],
        capture_output=True, text=True, timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| measurement | runs | quotecheck |" in proc.stdout
    assert "start-up: `quotecheck --version`" in proc.stdout
    assert "one `check --jobs 2` process" in proc.stdout
    assert "one ssh line of 4,000 `echo $HOME;`" in proc.stdout
    assert "value budget: peak memory" in proc.stdout
    # every target of the speed issue gets a figure from this run and a verdict
    targets = proc.stdout.split("Targets (issue 26)")[1]
    for name in ("50-line `check`", "one-line `explain`", "4,000-expansion line ÷ shellcheck",
                 "÷ 1,000-expansion line", "corpus on 2 cores", "value-budget script, seconds",
                 "value-budget script, peak MB"):
        line = next(x for x in targets.splitlines() if name in x)
        assert line.endswith((": met", ": NOT met")), line
    assert "Traceback" not in proc.stdout + proc.stderr


def test_host_files_benchmark_runs_without_crash(tmp_path: Path) -> None:
    """benchmarks/hosts.py over the host fixtures: every file checked, none crashes or hangs."""
    out = tmp_path / "hosts.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "hosts.py"), "--dir", str(BENCH.parent / "fixtures" /
                                                              "hosts"),
         "--shell-sample", "0", "--json", str(out)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = json.loads(out.read_text())
    assert {r["format"] for r in records} == {"python", "make", "dockerfile", "crontab",
                                              "systemd", "github-actions", "kubernetes",
                                              "compose", "ansible"}
    assert all("crash" not in r and not r.get("hang") for r in records)
    [swallowed] = [r for r in records if r["path"].endswith("swallowed.mk")]
    assert swallowed["codes"] == {"QC401": 3}
    assert "crashes 0, hangs 0" in proc.stdout


def test_a_generated_workflow_is_timed_beside_shellcheck() -> None:
    import sys as _sys
    _sys.path.insert(0, str(BENCH))
    from hosts import generated_workflow

    workflow, script = generated_workflow(200)
    assert 195 <= workflow.count("\n") <= 215
    # the same scripts: each `run:` line is a line of the shell script ShellCheck gets
    assert script.count("\n") - 1 == workflow.count("        run: |") * 4
