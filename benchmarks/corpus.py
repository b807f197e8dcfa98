#!/usr/bin/env python3
"""Run quotecheck over every shell script on this machine: crashes, hangs, coverage, structure.

    python3 benchmarks/corpus.py                      # the whole corpus (2 worker processes)
    python3 benchmarks/corpus.py --sample 40          # a deterministic sample
    python3 benchmarks/corpus.py --json benchmarks/results/corpus.json
    python3 benchmarks/corpus.py --list               # print the corpus file list and stop

The corpus: dpkg maintainer scripts (``/var/lib/dpkg/info/*.{preinst,postinst,prerm,postrm,
config}`` with a shell ``#!`` line) and every file under /usr/bin, /usr/sbin, /usr/lib and /etc
whose ``#!`` line asks for sh, bash or dash (or whose name ends in ``.sh``). Symlinks are skipped
and files with identical content are counted once.

Each file goes to a worker process, which runs the real command line in-process
(``quotecheck.cli.main(["check", FILE])``, output captured; a maintainer script, whose extension
is not a shell's, with ``--shell`` and the shell of its ``#!`` line, as ``check`` would otherwise
skip it), then ``bash -n FILE`` and ``shfmt --to-json`` on it. The parent only dispatches paths
and supervises: a file that takes longer than ``--timeout`` seconds is a *hang* (the worker is
killed and replaced), a worker that dies is a *crash* on that file, and so is a traceback escaping
``main``/``check_source`` or an exit status of 2. Results are streamed (to ``--json``) as they
arrive; the parent keeps only counters and a few examples per category.

Structure against shfmt: the simple commands of quotecheck's root layer
(``trace.layers[0].commands``, which include the commands inside ``$( )``, backticks and ``<( )``
anywhere, heredoc bodies included) are compared with shfmt's ``CallExpr``, ``DeclClause``
(``local``/``export``/``declare``/``readonly``/``typeset``) and ``LetClause`` nodes, found by
walking the whole JSON AST (into command substitutions, parameter expansions, arithmetic, and
unquoted heredoc bodies too: the same reach as quotecheck's walk). A command is keyed by the
character offset of its first token (its first assignment or word; a leading redirect is not part
of the key on either side) and the source spelling of its first word (``=`` for assignment-only
commands). shfmt's byte offsets are converted to character offsets. Commands with neither words
nor assignments (a bare ``>file``) are left out on both sides: shfmt has no command node for them.
A file *agrees* when the two multisets of keys are equal.
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
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DPKG_INFO = Path("/var/lib/dpkg/info")
MAINTAINER_SUFFIXES = (".preinst", ".postinst", ".prerm", ".postrm", ".config")
SHEBANG_ROOTS = ("/usr/bin", "/usr/sbin", "/usr/lib", "/etc")
_SHEBANG = re.compile(rb"#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-\S+\s+)*)?(sh|bash|dash)\b")
SHFMT_COMMANDS = ("CallExpr", "DeclClause", "LetClause")
EXAMPLES_PER_CAUSE = 4
_ARRAY_ELEMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[.*\]\+?=")


def _normal(message: str) -> str:
    """A diagnostic message with its particulars (quoted text, numbers) blanked: a category."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", message)[:90]


# -- the corpus ----------------------------------------------------------------------------------

def _shell_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return _SHEBANG.match(f.read(128)) is not None
    except OSError:
        return False


def _candidates() -> Iterator[Path]:
    if DPKG_INFO.is_dir():
        for entry in sorted(DPKG_INFO.iterdir()):
            if entry.name.endswith(MAINTAINER_SUFFIXES) and entry.is_file() \
                    and not entry.is_symlink() and _shell_shebang(entry):
                yield entry
    for top in SHEBANG_ROOTS:
        for root, dirs, names in os.walk(top):
            dirs.sort()
            for name in sorted(names):
                path = Path(root) / name
                if path.is_symlink() or not path.is_file():
                    continue
                if name.endswith(".sh") or _shell_shebang(path):
                    yield path


def collect() -> list[str]:
    """Every shell script of the corpus, deduplicated by content, in a stable order."""
    seen: set[str] = set()
    out: list[str] = []
    for path in _candidates():
        try:
            digest = hashlib.sha1(path.read_bytes()).hexdigest()
        except OSError:
            continue
        if digest in seen:
            continue
        seen.add(digest)
        out.append(str(path))
    return out


def revision() -> str:
    """The commit of the quotecheck checkout, ``-dirty`` when it has uncommitted changes."""
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return proc.stdout.strip() or "unknown"


def sample(paths: list[str], n: int | None) -> list[str]:
    """A deterministic sample: the ``n`` paths with the smallest hash of their name."""
    if n is None or n >= len(paths):
        return list(paths)
    ranked = sorted(paths, key=lambda p: hashlib.sha1(p.encode()).hexdigest())
    return sorted(ranked[:n])


# -- the worker ----------------------------------------------------------------------------------

def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _byte_to_char(data: bytes, text: str) -> Callable[[int], int] | None:
    """Byte offset -> character offset for a valid UTF-8 file (None when not UTF-8)."""
    if len(data) == len(text):
        return lambda b: b
    try:
        if data.decode("utf-8") != text:
            return None
    except UnicodeDecodeError:
        return None
    table = [0] * (len(data) + 1)
    at = 0
    for i, ch in enumerate(text):
        n = len(ch.encode("utf-8"))
        for k in range(n):
            table[at + k] = i
        at += n
    table[at] = len(text)
    return lambda b: table[max(0, min(b, len(data)))]


def _qc_commands(trace: Any, source: str) -> list[list[Any]]:
    """[char offset, first word spelling] of every simple command of the root layer."""
    keys: list[list[Any]] = []
    for view in trace.layers[0].commands:
        command = view.command
        origin = view.context.script.origin
        first = command.assignments[0] if command.assignments else (
            command.words[0] if command.words else None)
        if first is None:
            continue
        span = origin.span(*first.span)
        if span is None:
            continue
        label = "="
        if not command.assignments:
            word = origin.span(*command.words[0].span)
            label = source[word[0]:word[1]] if word else "?"
        keys.append([span[0], label[:60]])
    return sorted(keys)


def _run_quotecheck(path: str, fmt: str) -> dict[str, Any]:
    """The real `quotecheck check FILE` in this process, with check_source's result captured."""
    from quotecheck import cli
    from quotecheck.commands import check
    from quotecheck.files import HEAD_BYTES, is_shell_script, shebang_shell

    cc: Any = check  # check_source is swapped for a capturing wrapper below
    # A maintainer script (`xml-core.postinst`) has an extension that is not a shell's, so
    # `check` would skip it as not a shell script: its #! line names the shell to read it in.
    shell: list[str] = []
    if not is_shell_script(Path(path)):
        with open(path, "rb") as f:
            named = shebang_shell(f.read(HEAD_BYTES))
        shell = ["--shell", named] if named else []

    captured: list[Any] = []
    escaped: list[str] = []
    original = cc.check_source

    def capture(*args: Any, **kwargs: Any) -> Any:
        try:
            result = original(*args, **kwargs)
        except BaseException:
            escaped.append(traceback.format_exc())
            raise
        captured.append(result)
        return result

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    rec: dict[str, Any] = {}
    cc.check_source = capture
    sys.stdout, sys.stderr = out, err
    try:
        rec["exit"] = cli.main(["check", "--no-config", "--color", "never", "--format", fmt,
                                *shell, path])
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        rec["crash"] = traceback.format_exc()
    finally:
        sys.stdout, sys.stderr = saved
        cc.check_source = original
    if escaped:
        rec["crash"] = escaped[0]
    elif "crash" not in rec and rec.get("exit") not in (0, 1):
        rec["crash"] = f"exit status {rec.get('exit')}\n{err.getvalue()[-4000:]}"
    if captured:
        result = captured[0]
        codes = Counter(d.code for d in result.diagnostics)
        rec["codes"] = dict(codes)
        rec["complete"] = not (codes.get("QC001") or codes.get("QC002"))
        rec["problems"] = [f"{d.code} {d.text}"[:300] for d in result.diagnostics
                           if d.code in ("QC001", "QC002")][:5]
        rec["rule_failures"] = [d.text for d in result.diagnostics
                                if d.message.kind == "rule-failed"]
        try:
            rec["qc_commands"] = _qc_commands(result.trace, result.source)
        except Exception:
            rec["crash"] = rec.get("crash") or (
                "reading trace.layers[0].commands failed\n" + traceback.format_exc())
    return rec


def _walk_shfmt(node: Any, context: tuple[str, ...], out: list[tuple[dict[str, Any],
                tuple[str, ...]]], ranges: list[tuple[int, int, str]]) -> None:
    """Collect shfmt's command nodes with their enclosing construct types, and the ranges of
    the constructs (for placing quotecheck-only commands)."""
    if isinstance(node, list):
        for item in node:
            _walk_shfmt(item, context, out, ranges)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("Type")
    if kind == "CmdSubst" and node.get("Backquotes"):
        kind = "Backquotes"
    if kind in SHFMT_COMMANDS:
        out.append((node, context))
    inner = context
    if kind and kind not in ("Word", "Lit", "File"):
        inner = (*context, kind)
        pos, end = node.get("Pos"), node.get("End")
        if pos and end and kind not in SHFMT_COMMANDS:
            ranges.append((pos["Offset"], end["Offset"], kind))
    for key, value in node.items():
        if key == "Hdoc" and isinstance(value, dict):
            pos, end = value.get("Pos"), value.get("End")
            if pos and end:
                ranges.append((pos["Offset"], end["Offset"], "Heredoc"))
            _walk_shfmt(value, (*inner, "Heredoc"), out, ranges)
        elif key in ("Comments", "Last") and isinstance(value, list):
            for c in value:
                if isinstance(c, dict) and "Hash" in c:
                    start = c["Hash"]["Offset"]
                    ranges.append((start, start + 1 + len(c.get("Text", "").encode()), "Comment"))
        elif isinstance(value, (dict, list)):
            _walk_shfmt(value, inner, out, ranges)


def _shfmt_key(node: dict[str, Any], data: bytes) -> tuple[int, str] | None:
    kind = node["Type"]
    if kind == "DeclClause":
        v = node["Variant"]
        return v["Pos"]["Offset"], v["Value"]
    if kind == "LetClause":
        return node["Let"]["Offset"], "let"
    assigns, args = node.get("Assigns") or [], node.get("Args") or []
    if assigns:
        return assigns[0]["Pos"]["Offset"], "="
    if args:
        a = args[0]
        spelling = data[a["Pos"]["Offset"]:a["End"]["Offset"]].decode("utf-8", "replace")
        return a["Pos"]["Offset"], spelling
    return None


def _run_shfmt(path: str, data: bytes, dialect: str, timeout: float) -> dict[str, Any]:
    if not shutil.which("shfmt"):
        return {"shfmt": "missing"}
    tried = ["posix", "bash"] if dialect == "sh" else ["bash"]
    error = ""
    for lang in tried:
        try:
            proc = subprocess.run(["shfmt", "-ln", lang, "--to-json"], input=data,
                                  capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"shfmt": "timeout"}
        if proc.returncode == 0:
            break
        error = proc.stderr.decode("utf-8", "replace").strip()[:300]
    else:
        return {"shfmt": "error", "shfmt_error": error}
    tree = json.loads(proc.stdout)
    nodes: list[tuple[dict[str, Any], tuple[str, ...]]] = []
    ranges: list[tuple[int, int, str]] = []
    _walk_shfmt(tree, (), nodes, ranges)
    commands = []
    for node, context in nodes:
        key = _shfmt_key(node, data)
        if key is not None:
            commands.append([key[0], key[1][:60], list(context)])
    return {"shfmt": "ok" if lang == tried[0] else f"ok-{lang}", "sh_nodes": commands,
            "sh_ranges": ranges}


def _bash_n(path: str, timeout: float) -> str:
    try:
        proc = subprocess.run(["bash", "-n", path], capture_output=True, timeout=timeout,
                              check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "ok" if proc.returncode == 0 else "error"


def _compare(rec: dict[str, Any], ext: dict[str, Any], data: bytes, text: str) -> dict[str, Any]:
    """Match quotecheck's commands against shfmt's; classify what does not match."""
    to_char = _byte_to_char(data, text)
    if to_char is None:
        return {"structure": "not-utf8"}
    ranges = [(to_char(a), to_char(b), kind) for a, b, kind in ext["sh_ranges"]]
    sh: Counter[tuple[int, str]] = Counter()
    sh_context: dict[tuple[int, str], list[str]] = {}
    for offset, label, context in ext["sh_nodes"]:
        key = (to_char(offset), label)
        sh[key] += 1
        sh_context[key] = context
    qc = Counter((o, label) for o, label in rec.get("qc_commands", []))
    if qc == sh:
        return {"structure": "agree", "n_commands": sum(sh.values())}
    only_qc = sorted((qc - sh).elements())
    only_sh = sorted((sh - qc).elements())
    causes: list[tuple[str, int]] = []
    qc_at = {o: label for o, label in only_qc}
    sh_at = {o: label for o, label in only_sh}
    lost = ""
    if not rec.get("complete"):
        first = (rec.get("problems") or ["QC001/QC002"])[0]
        lost = "lost with a region that failed to parse: " + re.sub(r"\d+", "…", first)[:100]
    for o, label in only_sh:
        if o in qc_at:
            other = qc_at[o]
            if label == "=" and _ARRAY_ELEMENT.match(other):
                causes.append(("`name[index]=value` read as a command word, not an assignment",
                               o))
            elif label == other + "\\":
                causes.append(("shfmt quirk: the word's end includes the `\\` of an escaped "
                               "inner backquote", o))
            else:
                causes.append(("first word differs at the same offset", o))
            continue
        if any(lbl == label and abs(o2 - o) < 200 for o2, lbl in only_qc):
            causes.append(("same command at a shifted offset", o))
            continue
        if lost:
            causes.append((lost, o))
            continue
        where = [k for k in sh_context[(o, label)] if k not in ("BinaryCmd",)]
        causes.append((f"only in shfmt, inside {' > '.join(where[-3:]) or 'top level'}", o))
    for o, label in only_qc:
        if o in sh_at or any(lbl == label and abs(o2 - o) < 200 for o2, lbl in only_sh):
            continue  # counted from the shfmt side
        enclosing = sorted((r for r in ranges if r[0] <= o < r[1]), key=lambda r: (r[0], -r[1]))
        kinds = [k for _, _, k in enclosing if k not in ("BinaryCmd",)]
        causes.append((f"only in quotecheck, inside {' > '.join(kinds[-3:]) or 'top level'}", o))
    return {"structure": "disagree", "n_commands": sum(sh.values()),
            "only_qc": [list(x) for x in only_qc][:20], "only_sh": [list(x) for x in only_sh][:20],
            "causes": causes}


def analyse(path: str, opts: dict[str, Any], send: Callable[[tuple[Any, ...]], None],
            index: int) -> None:
    """One file: quotecheck first (reported at once: the parent times it), then the references."""
    from quotecheck.files import local_dialect
    from quotecheck.inputs import decode

    started = time.perf_counter()
    data = Path(path).read_bytes()
    loaded = decode(data)
    text = loaded.text
    dialect = local_dialect(text)
    rec: dict[str, Any] = {"path": path, "bytes": len(data), "lines": _count_lines(text),
                           "dialect": dialect}
    rec.update(_run_quotecheck(path, opts["format"]))
    rec["qc_seconds"] = round(time.perf_counter() - started, 4)
    import resource

    rec["worker_maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    send(("qc", index, {k: v for k, v in rec.items() if k != "qc_commands"}))
    if not opts["external"]:
        send(("done", index, {}))
        return
    ext: dict[str, Any] = {"bash_n": _bash_n(path, opts["ext_timeout"])}
    ext.update(_run_shfmt(path, data, dialect, opts["ext_timeout"]))
    if ext.get("shfmt", "").startswith("ok") and "qc_commands" in rec:
        ext.update(_compare(rec, ext, data, text))
    ext.pop("sh_nodes", None)
    ext.pop("sh_ranges", None)
    send(("done", index, ext))


def worker_main(conn: multiprocessing.connection.Connection, opts: dict[str, Any]) -> None:
    if opts["nice"]:
        os.nice(opts["nice"])
    # Warm up (imports, bashlex's tables, the rule registry) so per-file times are the check's.
    try:
        from quotecheck.checker import check_source

        check_source("true\n")
    except Exception:
        pass  # a broken import shows up as a crash on the first file instead
    while True:
        try:
            task = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if task is None:
            return
        index, path = task
        try:
            analyse(path, opts, conn.send, index)
        except KeyboardInterrupt:
            return
        except BaseException:
            conn.send(("error", index, traceback.format_exc()))


# -- the supervisor ------------------------------------------------------------------------------

class _Worker:
    def __init__(self, ctx: Any, opts: dict[str, Any]) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, opts), daemon=True)
        self.proc.start()
        child.close()
        self.task: tuple[int, str] | None = None
        self.phase = ""
        self.deadline = 0.0
        self.partial: dict[str, Any] = {}

    def stop(self, kill: bool = False) -> None:
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


def run(paths: list[str], *, jobs: int = 2, timeout: float = 30.0, ext_timeout: float = 60.0,
        external: bool = True, nice: int = 0, fmt: str = "text") -> Iterator[dict[str, Any]]:
    """Yield one record per file (in completion order), supervising ``jobs`` worker processes."""
    opts = {"external": external, "ext_timeout": ext_timeout, "nice": nice, "format": fmt}
    ctx = multiprocessing.get_context("fork")
    workers = [_Worker(ctx, opts) for _ in range(max(1, min(jobs, len(paths) or 1)))]
    queue = list(enumerate(paths))
    queue.reverse()
    try:
        while queue or any(w.task for w in workers):
            for i, w in enumerate(workers):
                if w.task is None and queue:
                    if not w.proc.is_alive():
                        w.stop(kill=True)
                        w = workers[i] = _Worker(ctx, opts)
                    w.task = queue.pop()
                    w.phase, w.partial = "qc", {}
                    w.deadline = time.monotonic() + timeout
                    w.conn.send(w.task)
            busy = [w for w in workers if w.task]
            wait_for = min(w.deadline for w in busy) - time.monotonic()
            ready = multiprocessing.connection.wait(
                [w.conn for w in busy] + [w.proc.sentinel for w in busy], max(0.0, wait_for))
            for i, w in enumerate(workers):
                if w.task is None:
                    continue
                index, path = w.task
                finished: dict[str, Any] | None = None
                if w.conn in ready or w.proc.sentinel in ready:
                    try:
                        while w.conn.poll():
                            kind, _, payload = w.conn.recv()
                            if kind == "qc":
                                w.partial = payload
                                w.phase = "ext"
                                w.deadline = time.monotonic() + 2 * ext_timeout + 5
                            elif kind == "done":
                                finished = {**w.partial, **payload}
                            elif w.phase == "qc":  # "error" while reading/decoding the file
                                finished = {"path": path, "crash": payload}
                            else:  # "error" in bash -n / shfmt / the comparison: ours
                                finished = {**w.partial, "harness_error": payload}
                            if finished is not None:
                                break
                    except (EOFError, OSError):
                        pass
                    if finished is None and not w.proc.is_alive():
                        code = w.proc.exitcode
                        if w.phase == "qc":
                            finished = {"path": path, "crash": f"worker died (exit code {code})"
                                        " while quotecheck was checking this file"}
                        else:
                            finished = {**w.partial, "harness_error": f"worker died ({code})"}
                        w.stop(kill=True)
                        workers[i] = _Worker(ctx, opts)
                if finished is None and time.monotonic() >= w.deadline and w.task is not None:
                    if w.phase == "qc":
                        finished = {"path": path, "hang": f"no result within {timeout:g} s"}
                    else:
                        finished = {**w.partial, "harness_error": "bash -n/shfmt took too long"}
                    w.stop(kill=True)
                    workers[i] = _Worker(ctx, opts)
                if finished is not None:
                    workers[i].task = None
                    finished["index"] = index
                    yield finished
    finally:
        for w in workers:
            w.stop(kill=bool(w.task))


# -- the report ----------------------------------------------------------------------------------

class Summary:
    """Counters and a few examples; never the whole corpus."""

    def __init__(self) -> None:
        self.files = self.lines = 0
        self.crashes: list[tuple[str, str]] = []
        self.hangs: list[str] = []
        self.harness_errors: list[tuple[str, str]] = []
        self.rule_failures: Counter[str] = Counter()
        self.rule_failure_examples: dict[str, str] = {}
        self.bash_ok = self.bash_ok_complete = 0
        self.bash_error = 0
        self.shfmt: Counter[str] = Counter()
        self.compared = self.agree = 0
        self.compared_complete = self.agree_complete = 0
        self.not_compared: Counter[str] = Counter()
        self.cause_items: Counter[str] = Counter()
        self.cause_files: Counter[str] = Counter()
        self.cause_examples: dict[str, list[str]] = defaultdict(list)
        self.problem_kinds: Counter[str] = Counter()
        self.problem_examples: dict[str, str] = {}
        self.qc_seconds = 0.0
        self.slowest: list[tuple[float, str, int]] = []
        self.maxrss_kb = 0

    def add(self, rec: dict[str, Any], source_line: Callable[[str, int], str]) -> None:
        self.files += 1
        self.lines += rec.get("lines", 0)
        path = rec["path"]
        if rec.get("crash"):
            self.crashes.append((path, rec["crash"]))
        if rec.get("hang"):
            self.hangs.append(path)
        if rec.get("harness_error"):
            self.harness_errors.append((path, str(rec["harness_error"])[-500:]))
        for msg in rec.get("rule_failures", []):
            key = re.sub(r"\(.*", "", msg).strip()
            self.rule_failures[key] += 1
            self.rule_failure_examples.setdefault(key, f"{path}: {msg}")
        for problem in rec.get("problems", []):
            kind = _normal(problem)
            self.problem_kinds[kind] += 1
            self.problem_examples.setdefault(kind, f"{path}: {problem}")
        self.qc_seconds += rec.get("qc_seconds", 0.0)
        self.maxrss_kb = max(self.maxrss_kb, rec.get("worker_maxrss_kb", 0))
        if "qc_seconds" in rec:
            self.slowest = sorted([*self.slowest, (rec["qc_seconds"], path, rec["lines"])],
                                  reverse=True)[:5]
        if rec.get("bash_n") == "ok":
            self.bash_ok += 1
            if rec.get("complete"):
                self.bash_ok_complete += 1
        elif rec.get("bash_n"):
            self.bash_error += 1
        if "shfmt" in rec:
            self.shfmt[rec["shfmt"]] += 1
        structure = rec.get("structure")
        if structure in ("agree", "disagree") and rec.get("bash_n") == "ok":
            self.compared += 1
            self.agree += structure == "agree"
            if rec.get("complete"):
                self.compared_complete += 1
                self.agree_complete += structure == "agree"
            seen: set[str] = set()
            for cause, offset in rec.get("causes", []):
                self.cause_items[cause] += 1
                if cause not in seen:
                    seen.add(cause)
                    self.cause_files[cause] += 1
                    if len(self.cause_examples[cause]) < EXAMPLES_PER_CAUSE:
                        self.cause_examples[cause].append(source_line(path, offset))
        elif "bash_n" in rec:
            why = structure or ("bash -n rejects" if rec.get("bash_n") != "ok"
                                else f"shfmt {rec.get('shfmt')}")
            self.not_compared[why] += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files, "lines": self.lines,
            "crashes": len(self.crashes), "hangs": len(self.hangs),
            "crash_reports": [{"path": p, "traceback": t} for p, t in self.crashes[:50]],
            "hang_paths": self.hangs,
            "harness_errors": [{"path": p, "error": e} for p, e in self.harness_errors[:50]],
            "rule_failures": dict(self.rule_failures),
            "rule_failure_examples": self.rule_failure_examples,
            "bash_n_ok": self.bash_ok, "bash_n_error": self.bash_error,
            "complete_trace_of_bash_n_ok": self.bash_ok_complete,
            "shfmt": dict(self.shfmt),
            "compared": self.compared, "agree": self.agree,
            "compared_complete": self.compared_complete, "agree_complete": self.agree_complete,
            "not_compared": dict(self.not_compared),
            "causes": {c: {"files": self.cause_files[c], "commands": n,
                           "examples": self.cause_examples[c]}
                       for c, n in self.cause_items.most_common()},
            "incomplete_reasons": {k: {"count": n, "example": self.problem_examples[k]}
                                   for k, n in self.problem_kinds.most_common(30)},
            "quotecheck_seconds_total": round(self.qc_seconds, 2),
            "slowest": [{"seconds": s, "path": p, "lines": n} for s, p, n in self.slowest],
            "worker_maxrss_mb": round(self.maxrss_kb / 1024, 1),
        }


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.1f} %)" if d else f"{n}/0"


def print_report(s: Summary, wall: float, jobs: int, external: bool,
                 out: Any = sys.stdout) -> None:
    w = out.write
    w("\n## quotecheck over the corpus\n\n")
    w(f"quotecheck tree: {revision()}\n")
    w(f"files: {s.files}\nlines: {s.lines}\n")
    w(f"crashes: {len(s.crashes)}\nhangs: {len(s.hangs)}\n")
    if s.rule_failures:
        w(f"rule failures (contained, reported as QC002): {sum(s.rule_failures.values())}\n")
    if external:
        w(f"bash -n accepts: {s.bash_ok} (rejects: {s.bash_error})\n")
        w(f"complete trace (no QC001/QC002) among those: {_pct(s.bash_ok_complete, s.bash_ok)}\n")
        w(f"shfmt --to-json: {dict(s.shfmt)}\n")
        w(f"structure agrees with shfmt (bash -n ok, shfmt parses): {_pct(s.agree, s.compared)}\n")
        w(f"  ... among files with a complete trace: "
          f"{_pct(s.agree_complete, s.compared_complete)}\n")
        if s.not_compared:
            w(f"  not compared: {dict(s.not_compared)}\n")
    w(f"wall time: {wall:.1f} s with {jobs} worker(s); quotecheck time summed over files: "
      f"{s.qc_seconds:.1f} s; worker peak RSS: {s.maxrss_kb / 1024:.0f} MB\n")
    if s.slowest:
        w("slowest files: " + ", ".join(f"{p} ({n} lines, {t:.2f} s)"
                                        for t, p, n in s.slowest[:3]) + "\n")
    if s.crashes:
        w("\n### crashes\n")
        for path, tb in s.crashes[:10]:
            w(f"\n{path}:\n{tb.rstrip()}\n")
    if s.hangs:
        w("\n### hangs\n" + "".join(f"- {p}\n" for p in s.hangs))
    if s.harness_errors:
        w("\n### harness errors (bash -n / shfmt side, not quotecheck)\n")
        for p, e in s.harness_errors[:10]:
            w(f"- {p}: {e.splitlines()[-1] if e else ''}\n")
    if s.rule_failures:
        w("\n### rule failures\n")
        for key, n in s.rule_failures.most_common():
            w(f"- {n} x {s.rule_failure_examples[key]}\n")
    if s.problem_kinds:
        w("\n### why traces are incomplete (QC001/QC002 messages, most common)\n")
        for kind, n in s.problem_kinds.most_common(12):
            w(f"- {n} x {s.problem_examples[kind]}\n")
    if s.cause_items:
        w("\n### structure disagreements with shfmt (files, commands, examples)\n")
        for cause, n in s.cause_items.most_common(15):
            w(f"- {cause}: {s.cause_files[cause]} files, {n} commands\n")
            for ex in s.cause_examples[cause][:3]:
                w(f"    {ex}\n")


def _source_line(path: str, offset: int) -> str:
    try:
        text = Path(path).read_bytes().decode("utf-8", "replace")
    except OSError:
        return f"{path}@{offset}"
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    snippet = text[start:end if end >= 0 else len(text)].strip()
    return f"{path}:{line}:{offset - start + 1}: {snippet[:110]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="check these files instead of the machine's corpus")
    ap.add_argument("--paths-from", metavar="FILE", help="check the paths listed in FILE")
    ap.add_argument("--sample", type=int, metavar="N", help="a deterministic sample of N files")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds quotecheck may take on one file before it is a hang")
    ap.add_argument("--ext-timeout", type=float, default=60.0,
                    help="seconds for each of bash -n and shfmt on one file")
    ap.add_argument("--no-external", action="store_true",
                    help="quotecheck only: no bash -n, no shfmt comparison")
    ap.add_argument("--format", default="text", choices=["text", "json", "sarif", "github"],
                    help="the output format the checks render (default text)")
    ap.add_argument("--nice", type=int, default=5, help="niceness of the workers (default 5)")
    ap.add_argument("--json", metavar="OUT", help="write every file's record and the summary")
    ap.add_argument("--list", action="store_true", help="print the corpus paths and stop")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)

    if args.paths_from:
        paths = [line.strip() for line in Path(args.paths_from).read_text().splitlines()
                 if line.strip()]
    else:
        paths = [str(Path(p)) for p in args.paths] if args.paths else collect()
    paths = sample(paths, args.sample)
    if args.list:
        print("\n".join(paths))
        return 0
    external = not args.no_external
    summary = Summary()
    out_file = None
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        out_file = open(args.json, "w", encoding="utf-8")  # noqa: SIM115
        out_file.write('{"files": [\n')
    started = time.monotonic()
    progress = not args.quiet and sys.stderr.isatty()
    try:
        for n, rec in enumerate(run(paths, jobs=args.jobs, timeout=args.timeout,
                                    ext_timeout=args.ext_timeout, external=external,
                                    nice=args.nice, fmt=args.format), 1):
            summary.add(rec, _source_line)
            if out_file is not None:
                out_file.write((",\n" if n > 1 else "") + json.dumps(rec, ensure_ascii=False))
            if progress:
                sys.stderr.write(f"\rcorpus: {n}/{len(paths)} files")
                sys.stderr.flush()
    finally:
        wall = time.monotonic() - started
        if progress:
            sys.stderr.write("\r\x1b[K")
        if out_file is not None:
            out_file.write('\n],\n"summary": ')
            out_file.write(json.dumps({**summary.as_dict(), "wall_seconds": round(wall, 2),
                                       "revision": revision(),
                                       "jobs": args.jobs, "external": external}, indent=1,
                                      ensure_ascii=False))
            out_file.write("}\n")
            out_file.close()
    print_report(summary, wall, args.jobs, external)
    return 1 if summary.crashes or summary.hangs else 0


if __name__ == "__main__":
    sys.exit(main())
