#!/usr/bin/env python3
"""Run quotecheck over the host files of this machine (Python modules, Makefiles...), or of a
directory (every host format, YAML included).

    python3 benchmarks/hosts.py                    # every one found (deduplicated by content)
    python3 benchmarks/hosts.py --sample 200       # a deterministic sample
    python3 benchmarks/hosts.py --dir SRC          # those under SRC instead (a checkout)
    python3 benchmarks/hosts.py --json benchmarks/results/hosts.json
    python3 benchmarks/hosts.py --workflow-lines 1000   # one generated workflow, vs ShellCheck

Where: Python files under /usr/lib and the running interpreter's library; every Makefile
(``Makefile``, ``GNUmakefile``, ``*.mk``) and Dockerfile under /usr, /etc and /opt; the
systemd units under /etc/systemd, /lib/systemd and /usr/lib/systemd; /etc/crontab and
/etc/cron.d. Each file is checked by the
real command line in a worker process (``quotecheck.cli.main(["check", FILE])``): a traceback,
an exit status of 2 or a dead worker is a *crash*; a file that takes longer than ``--timeout``
seconds is a *hang* (the workers are replaced). The report gives the findings by rule and the
time each format takes per thousand lines, beside the same figure for a sample of this machine's
shell scripts (benchmarks/corpus.py's list) checked in the same run: a host file should cost no
more than a shell script of its size.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import multiprocessing
import os
import sys
import sysconfig
import time
import traceback
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAKE_ROOTS = ("/usr", "/etc", "/opt")
UNIT_ROOTS = tuple(r for r in ("/etc/systemd", "/lib/systemd", "/usr/lib/systemd")
                   if os.path.isdir(r) and not os.path.islink(r))


def _python_roots() -> list[str]:
    roots = ["/usr/lib", sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]]
    return sorted({r for r in roots if os.path.isdir(r)})


def _walk(roots: list[str], wanted: Any) -> list[str]:
    found: list[str] = []
    for root in roots:
        for here, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".git"))
            for name in sorted(names):
                path = os.path.join(here, name)
                if wanted(name) and os.path.isfile(path) and not os.path.islink(path):
                    found.append(path)
    return found


def _format(path: str) -> str | None:
    from quotecheck.hosts.kinds import HEAD_CHARS, host_format

    head = ""
    if path.endswith((".yml", ".yaml")):  # (a manifest or playbook is known by its content)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                head = f.read(HEAD_CHARS)
        except OSError:
            return None
    return host_format(Path(path), head)


def collect(directory: str | None = None) -> list[tuple[str, str]]:
    """(path, format) of every host file, deduplicated by content, in a stable order."""
    from quotecheck.hosts.kinds import HOST_FORMATS

    def found_in(roots: list[str], formats: set[str]) -> list[tuple[str, str]]:
        out = []
        for path in _walk(roots, lambda name: True):
            format = _format(path)
            if format in formats:
                out.append((path, format))
        return out

    if directory is not None:
        candidates = found_in([directory], set(HOST_FORMATS))
    else:
        candidates = [*found_in(_python_roots(), {"python"}),
                      *found_in(list(MAKE_ROOTS), {"make", "dockerfile"}),
                      *found_in(list(UNIT_ROOTS), {"systemd"}),
                      *found_in(["/etc/cron.d"], {"crontab"})]
        if os.path.isfile("/etc/crontab"):
            candidates.append(("/etc/crontab", "crontab"))
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for path, format in candidates:
        try:
            digest = hashlib.sha1(Path(path).read_bytes()).hexdigest()
        except OSError:
            continue
        if digest not in seen:
            seen.add(digest)
            out.append((path, format))
    return out


def sample(items: list[Any], n: int | None) -> list[Any]:
    if n is None or n >= len(items):
        return items
    ranked = sorted(items, key=lambda x: hashlib.sha1(str(x).encode()).hexdigest())
    return sorted(ranked[:n])


def check_one(job: tuple[str, str]) -> dict[str, Any]:
    """`quotecheck check FILE` in this worker: its exit status, findings and time."""
    from quotecheck import cli
    from quotecheck.commands import check

    path, format = job
    found: Counter[str] = Counter()
    original = check.check_source

    def counting(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        found.update(d.code for d in result.diagnostics)
        return result

    check.check_source = counting  # type: ignore[assignment]
    out = io.StringIO()
    start = time.perf_counter()
    rec: dict[str, Any] = {"path": path, "format": format}
    try:
        with redirect_stdout(out), redirect_stderr(out):
            rec["exit"] = cli.main(["check", "--no-config", "--severity", "info", "--color",
                                    "never", path])
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        rec["crash"] = traceback.format_exc()[-2000:]
    finally:
        check.check_source = original  # type: ignore[assignment]
    rec["seconds"] = time.perf_counter() - start
    if "crash" not in rec and rec.get("exit") not in (0, 1):
        rec["crash"] = f"exit status {rec.get('exit')}: {out.getvalue()[-2000:]}"
    rec["codes"] = dict(found)
    try:
        rec["lines"] = Path(path).read_bytes().count(b"\n") + 1
    except OSError:
        rec["lines"] = 0
    return rec


def run(jobs: list[tuple[str, str]], workers: int, timeout: float) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    pending = list(jobs)
    while pending:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            handles = [(job, pool.apply_async(check_one, (job,))) for job in pending]
            pending = []
            for k, (job, handle) in enumerate(handles):
                try:
                    results.append(handle.get(timeout=timeout))
                except multiprocessing.TimeoutError:
                    results.append({"path": job[0], "format": job[1], "hang": True})
                    pending = [j for j, h in handles[k + 1:] if not h.ready()]
                    results.extend(h.get() for _, h in handles[k + 1:] if h.ready())
                    break  # the pool (and the stuck worker) goes; the rest start again
                except Exception:
                    results.append({"path": job[0], "format": job[1],
                                    "crash": traceback.format_exc()[-2000:]})
    return results


def _shell_jobs(n: int) -> list[tuple[str, str]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import corpus  # the shell scripts of this machine, as benchmarks/corpus.py finds them

    return [(p, "shell") for p in sample(corpus.collect(), n)]


def report(results: list[dict[str, Any]]) -> str:
    lines = []
    formats = sorted({r["format"] for r in results})
    for format in formats:
        mine = [r for r in results if r["format"] == format]
        crashes = [r for r in mine if "crash" in r]
        hangs = [r for r in mine if r.get("hang")]
        timed = [r for r in mine if "seconds" in r and r.get("lines")]
        total_lines = sum(r["lines"] for r in timed)
        seconds = sum(r["seconds"] for r in timed)
        per_k = 1000 * seconds / total_lines if total_lines else 0.0
        codes: Counter[str] = Counter()
        for r in mine:
            codes.update(r.get("codes", {}))
        # (medians: the first file of each worker also pays the imports)
        per_file = sorted(r["seconds"] for r in timed)
        rates = sorted(1000 * r["seconds"] / r["lines"] for r in timed)
        median_ms = 1000 * per_file[len(per_file) // 2] if per_file else 0.0
        median_rate = 1000 * rates[len(rates) // 2] if rates else 0.0
        median_lines = sorted(r["lines"] for r in timed)[len(timed) // 2] if timed else 0
        lines.append(f"{format}: {len(mine)} files, {total_lines:,} lines; crashes "
                     f"{len(crashes)}, hangs {len(hangs)}; {per_k * 1000:.1f} ms per 1,000 "
                     f"lines overall, median {median_ms:.1f} ms per file ({median_lines} "
                     f"lines), median {median_rate:.1f} ms per 1,000 lines of a file "
                     "(in-process check, whole command)")
        if codes:
            lines.append("  findings: " + ", ".join(f"{c} {n}" for c, n in sorted(codes.items())))
        for r in (crashes + hangs)[:5]:
            lines.append(f"  {'HANG' if r.get('hang') else 'CRASH'} {r['path']}")
            if "crash" in r:
                lines.append("    " + r["crash"].strip().splitlines()[-1][:200])
    return "\n".join(lines)


# The steps of the generated workflow: a deploy over ssh, a build, a test matrix line.
_STEP_SCRIPTS = (
    'ssh -o BatchMode=yes "$DEPLOY_HOST" "cd /srv/app && git pull && make restart"',
    'docker build -t "app:${{ github.sha }}" . && docker push "app:${{ github.sha }}"',
    'for f in tests/*.py; do python3 -m pytest -q "$f" || exit 1; done',
    'tar czf "dist-$(date +%F).tgz" dist/ && ls -l dist/',
    'curl -fsS "https://example.invalid/hook?ref=${GITHUB_REF##*/}" > /dev/null',
)


def generated_workflow(lines: int) -> tuple[str, str]:
    """A GitHub Actions workflow of about ``lines`` lines, and the same `run:` scripts as one
    shell script (what ShellCheck is given for the comparison)."""
    head = "name: deploy\non: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n"
    out, script, n = [head], [], 6
    k = 0
    while n < lines:
        body = [_STEP_SCRIPTS[(k + i) % len(_STEP_SCRIPTS)] for i in range(4)]
        out.append(f"      - name: step {k}\n        env:\n          DEPLOY_HOST: gpu{k}\n"
                   "        run: |\n" + "".join(f"          {b}\n" for b in body))
        script.extend(b.replace("${{ github.sha }}", "sha") for b in body)
        n += 8
        k += 1
    return "".join(out), "#!/bin/bash\n" + "\n".join(script) + "\n"


def time_workflow(lines: int, runs: int = 5) -> str:
    """Whole-process time of `quotecheck check` on a generated workflow, beside ShellCheck's on
    its scripts, in the same run (median of ``runs``)."""
    import shutil
    import statistics
    import subprocess
    import tempfile

    workflow, script = generated_workflow(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ".github" / "workflows" / "deploy.yml"
        path.parent.mkdir(parents=True)
        path.write_text(workflow)
        sh = Path(tmp) / "steps.sh"
        sh.write_text(script)
        commands = {"quotecheck": [sys.executable, "-m", "quotecheck", "check", "--no-config",
                                   str(path)]}
        if shutil.which("shellcheck"):
            commands["shellcheck"] = ["shellcheck", "-f", "gcc", str(sh)]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, argv in commands.items():
                start = time.perf_counter()
                subprocess.run(argv, capture_output=True, timeout=300, cwd=ROOT)
                times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    lines_made = workflow.count("\n")
    text = f"workflow of {lines_made} lines: quotecheck {medians['quotecheck']:.2f} s"
    if "shellcheck" in medians:
        text += (f", ShellCheck on its {script.count(chr(10)) - 1} script lines "
                 f"{medians['shellcheck']:.2f} s "
                 f"({medians['quotecheck'] / medians['shellcheck']:.1f}x)")
    return text + f" (median of {runs}, whole process)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", help="check the host files under this directory instead")
    parser.add_argument("--sample", type=int, help="a deterministic sample of this many files")
    parser.add_argument("--shell-sample", type=int, default=200,
                        help="shell scripts checked beside them, for the time per line")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", help="write every file's record here")
    parser.add_argument("--workflow-lines", type=int,
                        help="only time one generated workflow of this many lines")
    args = parser.parse_args(argv)
    if args.workflow_lines:
        print(time_workflow(args.workflow_lines))
        return 0
    jobs = sample(collect(args.dir), args.sample)
    if args.shell_sample:
        jobs = jobs + _shell_jobs(args.shell_sample)
    print(f"checking {len(jobs)} files with {args.jobs} workers...", file=sys.stderr)
    results = run(jobs, args.jobs, args.timeout)
    print(report(results))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    bad = [r for r in results if "crash" in r or r.get("hang")]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
