#!/usr/bin/env python3
"""How often quotecheck's findings are right on real scripts: the hand-judged precision table.

    python3 benchmarks/precision.py --assemble /path/to/mirrors   # build the corpus once
    python3 benchmarks/precision.py                                # the Markdown table
    python3 benchmarks/precision.py --json benchmarks/results/precision.json
    python3 benchmarks/precision.py --unjudged 40                  # findings still to judge
    python3 benchmarks/precision.py --set unseen                   # the second set (unseen/)
    python3 benchmarks/precision.py --set unseen --select SRC      # choose a new project's files

The corpus is a list of public projects in ``benchmarks/precision/manifest.json``: for each, the
repository, the commit, its licence and the paths (with the git blob of each file). The files are
not kept in this repository; ``--assemble SRC`` copies them, and each project's licence file,
from local copies under SRC into ``benchmarks/precision/corpus/<owner>__<repo>/<path>``.
SRC may hold, per project, a bare git directory ``<owner>+<repo>/repo`` or ``<owner>+<repo>``,
or a clone ``<owner>__<repo>``, ``<owner>/<repo>`` or ``<repo>``; the file is read at the
manifest's commit (``git show COMMIT:PATH``) and checked against its blob. The Dockerfiles and
CI files quotecheck reads beside a chosen script (``context_files``) are copied too, and an empty
``.git`` folder marks each project's root; they are read, never checked or counted.

Each file is checked by a worker process running the real command line in-process
(``quotecheck check --no-config --format json --severity info FILE``); a file that takes longer
than ``--timeout`` is a hang (the worker is killed and replaced) and a worker that dies is a crash
on that file. ShellCheck (``shellcheck -f json1``) runs on the same files. Files with a QC001
(parse error) are also given to ``bash -n``, with ``-O extglob`` when the file turns extglob on.

The judgments (``benchmarks/precision/judgments.txt``) are kept by hand, one finding a line::

    owner__repo/path/to/file.sh:LINE:QCnnn VERDICT reason in a few words

VERDICT is ``true`` (a real defect, or worth fixing), ``noise`` (technically right, but intended
or harmless there) or ``false`` (wrong about what happens). A judgment covers every finding of
that code on that line. One that matches no finding any more is listed as stale.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "precision"
MANIFEST = HERE / "manifest.json"
JUDGMENTS = HERE / "judgments.txt"
CORPUS = HERE / "corpus"
# The sets of projects: each a folder with manifest.json, judgments.txt and (git-ignored) corpus/.
# "first" is the set the rules were tuned on; "unseen" was chosen and judged later, to check that
# what was learnt on the first holds on files the project had never seen; "third" was chosen
# while the rules of issue 25 were changed, and its findings were opened only when they were done;
# "fourth" was chosen the same way later in that work, held out until its rule changes are done;
# "fifth" was chosen the same way at the end of that work, held out likewise.
SETS = {"first": HERE, "unseen": HERE / "unseen", "third": HERE / "third",
        "fourth": HERE / "fourth", "fifth": HERE / "fifth"}
VERDICTS = ("true", "noise", "false")
SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
SEVERITY_ORDER = ("error", "warning", "info", "hint")
# A finding that is wrong on fewer than 1 in 50 (error) or 1 in 10 (warning) occurrences.
FALSE_TARGET = {"error": 0.02, "warning": 0.10}
TRUE_TARGET = 0.90  # warnings and errors: true or worth fixing
SHELLCHECK_BATCH = 16
_JUDGMENT = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<code>QC\d{3})\s+(?P<verdict>\S+)"
                       r"(?:\s+(?P<reason>.*))?$")
_EXTGLOB = re.compile(r"^\s*shopt\s+-s\s+(?:\w+\s+)*extglob\b|-O\s*extglob\b", re.MULTILINE)


# -- the corpus ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Project:
    name: str
    repo: str
    commit: str
    licence: str
    licence_files: tuple[str, ...]
    kind: str
    stored: bool
    files: tuple[tuple[str, str], ...]  # (path in the repository, git blob)

    @property
    def folder(self) -> str:
        return self.repo.replace("/", "__")


def load_manifest(path: Path) -> list[Project]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Project(name=p["project"], repo=p["repo"], commit=p["commit"], licence=p["licence"],
                    licence_files=tuple(p.get("licence_files", ())), kind=p.get("kind", ""),
                    stored=bool(p.get("stored", False)),
                    files=tuple((f["path"], f.get("blob", "")) for f in p["files"]))
            for p in data["projects"]]


def corpus_files(projects: Iterable[Project]) -> list[tuple[Project, str]]:
    """(project, corpus-relative path) of every file of the manifest, in a stable order."""
    return [(p, f"{p.folder}/{path}") for p in projects for path, _ in p.files]


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _sources(src: Path, project: Project) -> Iterator[tuple[str, Path]]:
    owner, name = project.repo.split("/", 1)
    for candidate in (src / f"{owner}+{name}" / "repo", src / f"{owner}+{name}"):
        if (candidate / "objects").is_dir():
            yield "gitdir", candidate
    for candidate in (src / f"{owner}__{name}", src / owner / name, src / name):
        if (candidate / ".git").exists():
            yield "clone", candidate


def _read_at(kind: str, where: Path, commit: str, path: str) -> bytes | None:
    flag = "--git-dir" if kind == "gitdir" else "-C"
    try:
        proc = subprocess.run(["git", flag, str(where), "show", f"{commit}:{path}"],
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def assemble(projects: list[Project], src: Path, corpus: Path) -> int:
    """Copy every missing corpus file (and licence file) from local copies under ``src``.

    With them go the files beside the scripts that quotecheck reads to tell which shell runs
    a script (``context_files``), and an empty ``.git`` folder marks each project's root, where
    quotecheck's walk up from a script stops, as in a checkout. Only the manifest's files are
    ever checked; these are there to be read.
    """
    missing_total = 0
    for project in projects:
        sources = list(_sources(src, project))
        wanted = dict(project.files)
        for path in project.licence_files:
            wanted.setdefault(path, "")
        context: list[str] = []
        for kind, where in sources[:1]:
            try:
                tree = [path for path, _ in _ls_tree(kind, where, project.commit)]
            except (OSError, subprocess.SubprocessError):
                print(f"{project.repo}: cannot list {project.commit[:12]} in {where}",
                      file=sys.stderr)
                break
            context = context_files(tree, wanted)
        for path in context:
            wanted.setdefault(path, "")
        root = corpus / project.folder
        todo = [(p, b) for p, b in wanted.items() if not (root / p).is_file()]
        copied = 0
        for path, blob in todo:
            for kind, where in sources:
                data = _read_at(kind, where, project.commit, path)
                if data is None:
                    continue
                if blob and _git_blob_id(data) != blob:
                    print(f"{project.repo}: {path}: content differs from the manifest's blob",
                          file=sys.stderr)
                    continue
                target = root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                copied += 1
                break
        if root.is_dir():
            (root / ".git").mkdir(exist_ok=True)
        if not todo:
            continue
        missing = len(todo) - copied
        missing_total += missing
        status = f"{copied} copied" + (f", {missing} missing" if missing else "")
        if context:
            status += f" ({len(context)} beside the scripts)"
        where_text = ", ".join(str(w) for _, w in sources) or f"no copy under {src}"
        print(f"{project.repo}@{project.commit[:12]}: {status} ({where_text})", file=sys.stderr)
    return missing_total


def context_files(tree: Iterable[str], scripts: Iterable[str]) -> list[str]:
    """The files of a repository (``tree``: paths from its root) that quotecheck reads beside
    the ``scripts`` to tell which shell runs them, by the names its readers look for: a
    Dockerfile or Containerfile (``_script_image``) or a CI file (``_ci_runner``) in a script's
    folder or a parent, and the workflows in the root's ``.github/workflows``."""
    from quotecheck.rules._ci_runner import WORKFLOWS, is_ci_name, is_workflow_name
    from quotecheck.rules._script_image import is_dockerfile_name

    chosen = set(scripts)
    folders = {""}
    for path in chosen:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[:i]) for i in range(len(parts) + 1))
    workflows = "/".join(WORKFLOWS)
    out = []
    for path in tree:
        folder, _, name = path.rpartition("/")
        if path in chosen:
            continue
        beside = folder in folders and (is_dockerfile_name(name) or is_ci_name(name))
        if beside or (folder == workflows and is_workflow_name(name)):
            out.append(path)
    return sorted(out)


# -- choosing a project's files ------------------------------------------------------------------

# The rule the first set was chosen by (see precision/README.md): shell scripts only, at most
# PER_PROJECT a project, up to three quarters of them scripts that use two or more of the layers
# quotecheck models, the rest ordinary scripts, each group in the order of the SHA-1 of the path.
PER_PROJECT = 25
MIN_LINES = 3  # a one-line `exit "$1"` stub says nothing about a rule's precision
_SHEBANG = re.compile(rb"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:sh|bash|dash)(?:\s|$)")
_LAYER_WORDS = tuple(re.compile(p) for p in (
    r"\bssh\b", r"\bsudo\b", r"\b(?:ba|da)?sh\s+-[a-z]*c\b",
    r"\b(?:docker|podman|kubectl)\s+exec\b", r"\bxargs\b", r"\b[gm]?awk\b", r"\bp?kill\b",
    r"\bnohup\b", r"\beval\b", r"\bsu\s", r"\bwatch\b", r"\btimeout\b", r"\bscp\b"))
_VENDORED = frozenset({"vendor", "vendored", "third_party", "thirdparty", "3rdparty",
                       "node_modules", "external", "extern"})
_NOT_SHELL_SUFFIXES = (".zsh", ".j2", ".jinja", ".jinja2", ".tmpl", ".tpl")


def is_shell_script(path: str, data: bytes) -> bool:
    """A ``#!`` line naming sh, bash or dash; without one, a ``.sh``/``.bash`` name."""
    parts = path.split("/")
    if _VENDORED.intersection(parts[:-1]) or parts[-1].endswith(_NOT_SHELL_SUFFIXES):
        return False
    if data.count(b"\n") + (not data.endswith(b"\n")) < MIN_LINES or b"\0" in data[:8000]:
        return False
    first = data.split(b"\n", 1)[0]
    if first.startswith(b"#!"):
        return bool(_SHEBANG.match(first))
    return parts[-1].endswith((".sh", ".bash"))


def layer_count(text: str) -> int:
    return sum(1 for pattern in _LAYER_WORDS if pattern.search(text))


def choose_files(candidates: Iterable[tuple[str, str, bytes]], limit: int = PER_PROJECT,
                 known: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(path, blob) of the files the rule takes from (path, blob, content) candidates.

    ``known`` blobs (files another set already has) are never taken.
    """
    seen: set[str] = set(known)
    layered: list[tuple[str, str]] = []
    plain: list[tuple[str, str]] = []
    for path, blob, data in candidates:
        if blob in seen or not is_shell_script(path, data):
            continue
        seen.add(blob)  # the same content twice counts once
        text = data.decode("utf-8", errors="replace")
        (layered if layer_count(text) >= 2 else plain).append((path, blob))
    def order(item: tuple[str, str]) -> str:
        return hashlib.sha1(item[0].encode("utf-8")).hexdigest()
    layered.sort(key=order)
    plain.sort(key=order)
    taken = layered[:limit * 3 // 4]
    taken += plain[:limit - len(taken)]
    taken += layered[limit * 3 // 4:][:limit - len(taken)]
    return sorted(taken)


def _ls_tree(kind: str, where: Path, commit: str) -> list[tuple[str, str]]:
    """(path, blob) of every regular file at ``commit`` (no symlinks, no submodules)."""
    flag = "--git-dir" if kind == "gitdir" else "-C"
    listing = subprocess.run(["git", flag, str(where), "ls-tree", "-r", "-z", "--full-tree",
                              commit], capture_output=True, timeout=300, check=True).stdout
    entries: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, raw_path = entry.split(b"\t", 1)
        mode, object_type, object_id = meta.split()
        if object_type == b"blob" and mode != b"120000":  # no symlinks
            entries.append((raw_path.decode("utf-8", errors="surrogateescape"),
                            object_id.decode()))
    return entries


def _tree(kind: str, where: Path, commit: str) -> Iterator[tuple[str, str, bytes]]:
    """(path, blob, content) of every regular file at ``commit``; objects absent are skipped."""
    flag = "--git-dir" if kind == "gitdir" else "-C"
    entries = _ls_tree(kind, where, commit)
    proc = subprocess.Popen(["git", flag, str(where), "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def feed() -> None:  # in a thread: git's output is read while it is asked
        with contextlib.suppress(OSError):
            for _, blob in entries:
                stdin.write(blob.encode() + b"\n")
            stdin.close()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        for path, blob in entries:
            head = stdout.readline().split()
            if len(head) < 3:  # "<blob> missing": the snapshot left the object out
                continue
            size = int(head[2])
            data = stdout.read(size)
            stdout.read(1)
            if size <= 1_000_000:
                yield path, blob, data
    finally:
        proc.kill()
        proc.wait()
        feeder.join(5)


def select(projects: list[Project], src: Path, manifest: Path, known: set[str],
           limit: int = PER_PROJECT) -> int:
    """Fill in the files of every project that has none, by the rule, from its copy under src.

    A file whose content is in ``known`` (another set's blobs) is not taken: a set of files the
    project has never seen must not repeat one it has.
    """
    data = json.loads(manifest.read_text(encoding="utf-8"))
    failed = 0
    for entry, project in zip(data["projects"], projects, strict=True):
        if project.files:
            continue
        sources = list(_sources(src, project))
        if not sources:
            print(f"{project.repo}: no copy under {src}", file=sys.stderr)
            failed += 1
            continue
        kind, where = sources[0]
        chosen = choose_files(_tree(kind, where, project.commit), limit=limit, known=known)
        entry["files"] = [{"path": path, "blob": blob} for path, blob in chosen]
        print(f"{project.repo}@{project.commit[:12]}: {len(chosen)} files chosen", file=sys.stderr)
    manifest.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return failed


# -- quotecheck in worker processes --------------------------------------------------------------

@dataclass
class Finding:
    path: str
    line: int  # 1-based
    column: int  # 1-based, in characters
    code: str
    severity: str
    message: str


def _check_one(path: Path) -> dict[str, Any]:
    from quotecheck import cli

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        status = cli.main(["check", "--no-config", "--color", "never", "--format", "json",
                           "--severity", "info", "--position-encoding", "utf-32", str(path)])
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        return {"crash": traceback.format_exc()}
    finally:
        sys.stdout, sys.stderr = saved
    if status not in (0, 1):
        return {"crash": f"exit status {status}\n{err.getvalue()[-2000:]}"}
    try:
        document = json.loads(out.getvalue())
    except ValueError:
        return {"crash": "the json output does not parse\n" + out.getvalue()[-2000:]}
    diagnostics = [d for f in document.get("files", []) for d in f.get("diagnostics", [])]
    return {"diagnostics": [{"line": d["range"]["start"]["line"] + 1,
                             "column": d["range"]["start"]["character"] + 1,
                             "code": str(d.get("code", "")),
                             "severity": SEVERITIES.get(d.get("severity", 0), "?"),
                             "message": d.get("message", "")} for d in diagnostics]}


def _worker(conn: multiprocessing.connection.Connection, nice: int) -> None:
    if nice:
        os.nice(nice)
    while True:
        try:
            task = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if task is None:
            return
        index, path = task
        started = time.perf_counter()
        try:
            rec = _check_one(Path(path))
        except KeyboardInterrupt:
            return
        except BaseException:
            rec = {"crash": traceback.format_exc()}
        rec["seconds"] = round(time.perf_counter() - started, 3)
        conn.send((index, rec))


class _Slot:
    def __init__(self, ctx: Any, nice: int) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, nice), daemon=True)
        self.proc.start()
        child.close()
        self.task: tuple[int, str] | None = None
        self.deadline = 0.0

    def stop(self, kill: bool) -> None:
        if kill:
            self.proc.kill()
        else:
            with contextlib.suppress(OSError):
                self.conn.send(None)
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def run_quotecheck(paths: list[str], jobs: int, timeout: float,
                   nice: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (index, record) per file as the workers finish them; a hang or a death is a record."""
    ctx = multiprocessing.get_context("fork")
    slots = [_Slot(ctx, nice) for _ in range(max(1, min(jobs, len(paths) or 1)))]
    queue = list(enumerate(paths))[::-1]
    try:
        while queue or any(s.task for s in slots):
            for i, s in enumerate(slots):
                if s.task is None and queue:
                    if not s.proc.is_alive():
                        s.stop(kill=True)
                        s = slots[i] = _Slot(ctx, nice)
                    s.task = queue.pop()
                    s.deadline = time.monotonic() + timeout
                    s.conn.send(s.task)
            busy = [s for s in slots if s.task]
            wait = max(0.0, min(s.deadline for s in busy) - time.monotonic())
            ready = multiprocessing.connection.wait(
                [s.conn for s in busy] + [s.proc.sentinel for s in busy], wait)
            for i, s in enumerate(slots):
                if s.task is None:
                    continue
                index = s.task[0]
                rec: dict[str, Any] | None = None
                if s.conn in ready or s.proc.sentinel in ready:
                    try:
                        if s.conn.poll():
                            rec = s.conn.recv()[1]
                    except (EOFError, OSError):
                        pass
                    if rec is None and not s.proc.is_alive():
                        rec = {"crash": f"worker died (exit code {s.proc.exitcode})"}
                        s.stop(kill=True)
                        slots[i] = _Slot(ctx, nice)
                if rec is None and time.monotonic() >= s.deadline:
                    rec = {"hang": f"no result within {timeout:g} s"}
                    s.stop(kill=True)
                    slots[i] = _Slot(ctx, nice)
                if rec is not None:
                    slots[i].task = None
                    yield index, rec
    finally:
        for s in slots:
            s.stop(kill=bool(s.task))


# -- ShellCheck and bash -n ----------------------------------------------------------------------

def _shellcheck_batch(paths: list[str], timeout: float) -> dict[str, list[dict[str, Any]]]:
    try:
        proc = subprocess.run(["shellcheck", "-f", "json1", *paths], capture_output=True,
                              timeout=timeout, check=False, stdin=subprocess.DEVNULL)
        comments = json.loads(proc.stdout or b"{}").get("comments", [])
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {p: [{"error": "shellcheck failed on this batch"}] for p in paths}
    out: dict[str, list[dict[str, Any]]] = {p: [] for p in paths}
    for c in comments:
        out.setdefault(c["file"], []).append({"line": c["line"], "end_line": c["endLine"],
                                              "code": f"SC{c['code']}", "level": c["level"]})
    return out


def run_shellcheck(paths: list[str], jobs: int, timeout: float) -> dict[str, list[dict[str, Any]]]:
    if not shutil.which("shellcheck"):
        return {}
    batches = [paths[i:i + SHELLCHECK_BATCH] for i in range(0, len(paths), SHELLCHECK_BATCH)]
    result: dict[str, list[dict[str, Any]]] = {}
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for part in pool.map(lambda b: _shellcheck_batch(b, timeout), batches):
            result.update(part)
    return result


def bash_n(path: Path, text: str) -> dict[str, Any]:
    """``bash -n`` on the file, and with the options the file turns on (extglob)."""
    def accepts(options: list[str]) -> bool | None:
        try:
            proc = subprocess.run(["bash", *options, "-n", str(path)], capture_output=True,
                                  timeout=60, check=False, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.returncode == 0

    rec: dict[str, Any] = {"plain": accepts([])}
    if _EXTGLOB.search(text):
        rec["extglob"] = accepts(["-O", "extglob"])
    return rec


# -- the judgments -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Judgment:
    path: str
    line: int
    code: str
    verdict: str
    reason: str
    source_line: int  # where it is in the judgments file

    @property
    def key(self) -> tuple[str, int, str]:
        return self.path, self.line, self.code


def load_judgments(path: Path) -> tuple[list[Judgment], list[str]]:
    """The judgments, and the lines that are not judgments (reported, not silently dropped)."""
    judgments: list[Judgment] = []
    bad: list[str] = []
    keys: set[tuple[str, int, str]] = set()
    if not path.is_file():
        return judgments, bad
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _JUDGMENT.match(line)
        if m is None or m["verdict"] not in VERDICTS:
            bad.append(f"{path.name}:{n}: {line}")
            continue
        judgment = Judgment(m["path"], int(m["line"]), m["code"], m["verdict"],
                            (m["reason"] or "").strip(), n)
        if judgment.key in keys:
            bad.append(f"{path.name}:{n}: a second judgment of the same finding: {line}")
            continue
        keys.add(judgment.key)
        judgments.append(judgment)
    return judgments, bad


# -- the tally -----------------------------------------------------------------------------------

@dataclass
class Row:
    fired: int = 0
    files: set[str] = field(default_factory=set)
    severities: Counter[str] = field(default_factory=Counter)
    judged: Counter[str] = field(default_factory=Counter)
    shellcheck_on_judged: int = 0
    shellcheck_on_true: int = 0

    @property
    def n_judged(self) -> int:
        return sum(self.judged.values())


def _share(n: int, d: int) -> str:
    return f"{100 * n / d:.0f} %" if d else "—"


@dataclass
class Tally:
    files: int = 0
    lines: int = 0
    projects: int = 0
    rules: dict[str, Row] = field(default_factory=lambda: defaultdict(Row))
    severities: dict[str, Row] = field(default_factory=lambda: defaultdict(Row))
    projects_rows: dict[str, Row] = field(default_factory=lambda: defaultdict(Row))
    crashes: list[tuple[str, str]] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    parse_errors: list[dict[str, Any]] = field(default_factory=list)
    stale: list[Judgment] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)
    unjudged: list[Finding] = field(default_factory=list)
    judged: list[tuple[Finding, Judgment]] = field(default_factory=list)
    shellcheck_total: int = 0
    shellcheck_levels: Counter[str] = field(default_factory=Counter)
    shellcheck_parse_error_files: list[str] = field(default_factory=list)
    shellcheck_ran: bool = False
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        def row(r: Row) -> dict[str, Any]:
            return {"fired": r.fired, "files": len(r.files), "severities": dict(r.severities),
                    "judged": r.n_judged, **{v: r.judged[v] for v in VERDICTS},
                    "shellcheck_on_judged_lines": r.shellcheck_on_judged,
                    "shellcheck_on_true_lines": r.shellcheck_on_true}
        return {
            "files": self.files, "lines": self.lines, "projects": self.projects,
            "rules": {k: row(v) for k, v in sorted(self.rules.items())},
            "severities": {k: row(self.severities[k]) for k in SEVERITY_ORDER
                           if k in self.severities},
            "projects_table": {k: row(v) for k, v in sorted(self.projects_rows.items())},
            "crashes": [{"path": p, "error": e} for p, e in self.crashes],
            "hangs": self.hangs, "missing": self.missing,
            "parse_errors": self.parse_errors,
            "stale_judgments": [j.__dict__ for j in self.stale],
            "unreadable_judgment_lines": self.bad_lines,
            "shellcheck": {"ran": self.shellcheck_ran, "findings": self.shellcheck_total,
                           "levels": dict(self.shellcheck_levels),
                           "parse_error_files": self.shellcheck_parse_error_files},
            "seconds": round(self.seconds, 1),
            "judged_findings": [{**f.__dict__, "verdict": j.verdict, "reason": j.reason}
                                for f, j in self.judged],
        }


def tally(corpus: Path, selected: list[tuple[Project, str]], judgments: list[Judgment],
          records: dict[str, dict[str, Any]], shellcheck: dict[str, list[dict[str, Any]]],
          whole_corpus: bool) -> Tally:
    t = Tally(projects=len({p.repo for p, _ in selected}))
    t.shellcheck_ran = bool(shellcheck)
    by_key = {j.key: j for j in judgments}
    matched: set[tuple[str, int, str]] = set()
    checked: set[str] = set()
    for project, rel in selected:
        rec = records.get(rel)
        if rec is None:
            t.missing.append(rel)
            continue
        checked.add(rel)
        t.files += 1
        t.lines += rec.get("lines", 0)
        if rec.get("crash"):
            t.crashes.append((rel, rec["crash"]))
        if rec.get("hang"):
            t.hangs.append(rel)
        sc = shellcheck.get(str(corpus / rel), [])
        sc_lines: set[int] = set()
        for c in sc:
            if "error" in c:
                continue
            t.shellcheck_total += 1
            t.shellcheck_levels[c["level"]] += 1
            sc_lines.update(range(c["line"], c["end_line"] + 1))
        sc_parse_error = any(c.get("level") == "error" and c.get("code", "").startswith("SC1")
                             for c in sc)
        if sc_parse_error:
            t.shellcheck_parse_error_files.append(rel)
        seen_keys: set[tuple[str, int, str]] = set()
        for d in rec.get("diagnostics", []):
            f = Finding(rel, d["line"], d["column"], d["code"], d["severity"], d["message"])
            key = (rel, f.line, f.code)
            rows = (t.rules[f.code], t.severities[f.severity], t.projects_rows[project.repo])
            for r in rows:
                r.fired += 1
                r.files.add(rel)
                r.severities[f.severity] += 1
            if key in seen_keys:
                continue  # one judgment covers the line's findings of that code
            seen_keys.add(key)
            judgment = by_key.get(key)
            if judgment is None:
                t.unjudged.append(f)
                continue
            matched.add(key)
            t.judged.append((f, judgment))
            on_sc = f.line in sc_lines
            for r in rows:
                r.judged[judgment.verdict] += 1
                r.shellcheck_on_judged += on_sc
                r.shellcheck_on_true += on_sc and judgment.verdict == "true"
        if rec.get("bash_n") is not None:
            counts = Counter(d["code"] for d in rec.get("diagnostics", []))
            t.parse_errors.append({"path": rel, "qc001": counts["QC001"],
                                   "bash_n": rec["bash_n"],
                                   "shellcheck_parses": None if not t.shellcheck_ran
                                   else not sc_parse_error})
    for j in judgments:
        if j.key in matched:
            continue
        if j.path in checked or whole_corpus:
            t.stale.append(j)
    return t


# -- the report ----------------------------------------------------------------------------------

def _main_severity(r: Row) -> str:
    names = [s for s in SEVERITY_ORDER if r.severities[s]]
    return "/".join(names) or "—"


def markdown(t: Tally, revision: str) -> str:
    out: list[str] = []
    w = out.append
    w(f"quotecheck `{revision}` on {t.files} files ({t.lines:,} lines) of {t.projects} projects"
      + (f"; {len(t.missing)} files missing (run --assemble)" if t.missing else "")
      + f"; {len(t.crashes)} crashes, {len(t.hangs)} hangs. Fired counts findings; judged "
      "counts file:line:code keys with a judgment (one covers that code's findings on the "
      "line).\n")
    w("| rule | severity | fired | files | judged | true | noise | false | true share "
      "| right (true+noise) | ShellCheck flags the judged line (of them true) |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    total = Row()
    for code, r in sorted(t.rules.items()):
        n = r.n_judged
        w(f"| {code} | {_main_severity(r)} | {r.fired} | {len(r.files)} | {n} "
          f"| {r.judged['true']} | {r.judged['noise']} | {r.judged['false']} "
          f"| {_share(r.judged['true'], n)} | {_share(r.judged['true'] + r.judged['noise'], n)} "
          f"| {r.shellcheck_on_judged} ({r.shellcheck_on_true}) |")
        total.fired += r.fired
        total.judged.update(r.judged)
        total.shellcheck_on_judged += r.shellcheck_on_judged
        total.shellcheck_on_true += r.shellcheck_on_true
    n = total.n_judged
    w(f"| **all** | | {total.fired} | | {n} | {total.judged['true']} | {total.judged['noise']} "
      f"| {total.judged['false']} | {_share(total.judged['true'], n)} "
      f"| {_share(total.judged['true'] + total.judged['noise'], n)} "
      f"| {total.shellcheck_on_judged} ({total.shellcheck_on_true}) |")
    w("")
    w("| severity | fired | judged | true | noise | false | true share | false share | target |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for sev in SEVERITY_ORDER:
        if sev not in t.severities:
            continue
        r = t.severities[sev]
        n = r.n_judged
        target = ""
        if sev in FALSE_TARGET:
            target = f"false < {FALSE_TARGET[sev]:.0%}, true ≥ {TRUE_TARGET:.0%}"
        w(f"| {sev} | {r.fired} | {n} | {r.judged['true']} | {r.judged['noise']} "
          f"| {r.judged['false']} | {_share(r.judged['true'], n)} "
          f"| {_share(r.judged['false'], n)} | {target} |")
    w("")
    w("| project | files | fired | judged | true | noise | false |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for repo, r in sorted(t.projects_rows.items()):
        w(f"| {repo} | {len(r.files)} | {r.fired} | {r.n_judged} | {r.judged['true']} "
          f"| {r.judged['noise']} | {r.judged['false']} |")
    w("")
    if t.shellcheck_ran:
        levels = ", ".join(f"{k} {v}" for k, v in t.shellcheck_levels.most_common())
        w(f"ShellCheck on the same files: {t.shellcheck_total} findings ({levels}); "
          f"parse errors (SC1xxx at level error) in {len(t.shellcheck_parse_error_files)} files.")
    else:
        w("ShellCheck: not run.")
    w("")
    if t.parse_errors:
        w("| file with QC001 | QC001 findings | bash -n | with the file's shopt (extglob) "
          "| ShellCheck |")
        w("|---|---:|---|---|---|")
        for p in t.parse_errors:
            b = p["bash_n"]
            plain = {True: "accepts", False: "rejects", None: "?"}[b.get("plain")]
            ext = {True: "accepts", False: "rejects", None: "?"}[b["extglob"]] \
                if "extglob" in b else "—"
            sc_text = {True: "parses", False: "parse error", None: "—"}[p["shellcheck_parses"]]
            w(f"| {p['path']} | {p['qc001']} | {plain} | {ext} | {sc_text} |")
        w("")
    if t.stale:
        w(f"Stale judgments (no such finding now): {len(t.stale)}")
        for j in t.stale:
            w(f"- {j.path}:{j.line}:{j.code} {j.verdict} (judgments.txt line {j.source_line})")
        w("")
    if t.bad_lines:
        w("Unreadable judgment lines:")
        w("".join(f"- {b}\n" for b in t.bad_lines))
    for rel, error in t.crashes:
        w(f"Crash on {rel}: {error.strip().splitlines()[-1] if error.strip() else ''}")
    for rel in t.hangs:
        w(f"Hang on {rel}")
    return "\n".join(out).rstrip() + "\n"


def revision() -> str:
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return proc.stdout.strip() or "unknown"


def _print_unjudged(t: Tally, corpus: Path, limit: int, codes: set[str]) -> None:
    shown = 0
    per_rule: Counter[str] = Counter()
    for f in t.unjudged:
        if codes and f.code not in codes:
            continue
        per_rule[f.code] += 1
        if shown >= limit:
            continue
        shown += 1
        try:
            text = (corpus / f.path).read_text(encoding="utf-8", errors="replace")
            source = text.splitlines()[f.line - 1].strip()[:160]
        except (OSError, IndexError):
            source = ""
        print(f"{f.path}:{f.line}:{f.code} [{f.severity}] {f.message[:200]}\n    | {source}")
    print("unjudged per rule: " + ", ".join(f"{c} {n}" for c, n in sorted(per_rule.items())))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*",
                    help="only these corpus files (paths relative to the corpus folder)")
    ap.add_argument("--set", choices=sorted(SETS), default="first",
                    help="which set of projects: its manifest, judgments and corpus folder "
                         "(default: first)")
    ap.add_argument("--manifest", type=Path, help="default: the set's manifest.json")
    ap.add_argument("--judgments", type=Path, help="default: the set's judgments.txt")
    ap.add_argument("--corpus", type=Path,
                    help="where the corpus files are (default: the set's corpus/)")
    ap.add_argument("--assemble", type=Path, metavar="SRC",
                    help="copy the missing corpus files from local copies under SRC, then stop")
    ap.add_argument("--select", type=Path, metavar="SRC",
                    help="choose the files of every manifest project that lists none, by the "
                         "corpus rule, from its copy under SRC; rewrite the manifest, then stop")
    ap.add_argument("--per-project", type=int, default=PER_PROJECT, metavar="N",
                    help=f"with --select: at most N files a project (default: {PER_PROJECT})")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds quotecheck may take on one file before it is a hang")
    ap.add_argument("--nice", type=int, default=5)
    ap.add_argument("--no-shellcheck", action="store_true")
    ap.add_argument("--json", type=Path, metavar="FILE", help="write the figures as JSON")
    ap.add_argument("--unjudged", type=int, metavar="N",
                    help="also print up to N findings that have no judgment yet")
    ap.add_argument("--codes", default="", help="with --unjudged: only these codes (QC103,...)")
    args = ap.parse_args(argv)
    folder = SETS[args.set]
    args.manifest = args.manifest or folder / "manifest.json"
    args.judgments = args.judgments or folder / "judgments.txt"
    args.corpus = args.corpus or folder / "corpus"

    projects = load_manifest(args.manifest)
    if args.select:
        others = {blob for name, other in SETS.items() if other != folder
                  and (other / "manifest.json").is_file()
                  for p in load_manifest(other / "manifest.json") for _, blob in p.files}
        return 1 if select(projects, args.select, args.manifest, others,
                           args.per_project) else 0
    if args.assemble:
        missing = assemble(projects, args.assemble, args.corpus)
        return 1 if missing else 0
    selected = corpus_files(projects)
    if args.paths:
        wanted = {p.strip("/") for p in args.paths}
        selected = [(p, rel) for p, rel in selected if rel in wanted]
        unknown = wanted - {rel for _, rel in selected}
        if unknown:
            print("not in the manifest: " + ", ".join(sorted(unknown)), file=sys.stderr)
            return 2
    present = [(p, rel) for p, rel in selected if (args.corpus / rel).is_file()]
    started = time.monotonic()
    paths = [str(args.corpus / rel) for _, rel in present]
    records: dict[str, dict[str, Any]] = {}
    progress = sys.stderr.isatty()
    for n, (index, rec) in enumerate(run_quotecheck(paths, args.jobs, args.timeout, args.nice), 1):
        rel = present[index][1]
        text = (args.corpus / rel).read_text(encoding="utf-8", errors="replace")
        rec["lines"] = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        if any(d["code"] == "QC001" for d in rec.get("diagnostics", [])):
            rec["bash_n"] = bash_n(args.corpus / rel, text)
        records[rel] = rec
        if progress:
            sys.stderr.write(f"\rquotecheck: {n}/{len(paths)} files")
    if progress:
        sys.stderr.write("\r\x1b[K")
    shellcheck = {} if args.no_shellcheck else run_shellcheck(paths, args.jobs, 600.0)
    judgments, bad = load_judgments(args.judgments)
    t = tally(args.corpus, selected, judgments, records, shellcheck, whole_corpus=not args.paths)
    t.bad_lines = bad
    t.seconds = time.monotonic() - started
    rev = revision()
    print(markdown(t, rev), end="")
    if args.unjudged is not None:
        codes = {c.strip() for c in args.codes.split(",") if c.strip()}
        _print_unjudged(t, args.corpus, args.unjudged, codes)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        document = {"revision": rev, **t.as_dict(),
                    "unjudged": [f.__dict__ for f in t.unjudged]}
        args.json.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return 1 if t.crashes or t.hangs else 0


if __name__ == "__main__":
    sys.exit(main())
