"""Hostile inputs: `quotecheck check` never crashes and never hangs ("Never crash, never hang").

Every case runs the real command line in a subprocess, under a wrapper that reports the peak
memory of the run (``resource.getrusage(RUSAGE_CHILDREN)``), with a generous time-out: a hang
shows as the time-out, never as a tight duration assertion (the machine is a shared 2-core box).
Each hostile file is checked together with a small companion file that has a known finding, to
show that the other files of the same run are still checked.

The limits that apply (``limits.Limits``, ``[tool.quotecheck.limits]``), each reported when it
cuts something off: ``max-nesting`` (64: substitutions, quotes, ``${...}``, compound commands),
``max-layers`` (32), ``parse-time`` (60 s for a file's own text, as much again for the texts it
hands on), ``parse-call-time`` (5 s), ``rule-time`` (60 s) and ``rule-memory`` (1 GiB) as QC002
findings; ``max-file-size`` (16 MiB) as an input error. The full-size cases whose point is a
limit run with a small one (``limits=``: a config file given with ``--config``) so that they
take seconds, not minutes: a 10 MB script with 10 s of parsing proves the same as with 60.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from quotecheck.checker import Options, check_source, run_rules
from quotecheck.config import ConfigError, load
from quotecheck.diagnostics import Message
from quotecheck.inputs import read_text_file
from quotecheck.limits import MAX_COUNT, Limits, parse_size
from quotecheck.positions import LineIndex
from quotecheck.quoting import quote_argv
from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parent.parent
MEMORY_BOUND_MB = 1536  # "bounded memory": generous, a leak or a blow-up goes far past it
SHORT = 300  # seconds: a hang shows as this time-out, nothing here is a speed test

COMPANION = 'echo ok\necho "unterminated\n'  # QC001 at 2:6, checked after the hostile file
SSH = "ssh -o BatchMode=yes -o ConnectTimeout=5 h"  # no QC208 noise

# Small limits for the cases that are about a limit (see the module docstring).
QUICK_PARSE = {"parse-time": 5, "parse-call-time": 1}
QUICK_RULES = {"rule-time": 3, "rule-memory": "256 MiB"}

# Runs the command given after the report path and writes its exit status, the peak memory of
# it (the only child, and any worker processes of its own) and the CPU time it used to the report
# file; its stdin, stdout and stderr are passed through.
_WRAPPER = r"""
import json, resource, subprocess, sys
report, argv = sys.argv[1], sys.argv[2:]
code = subprocess.call(argv)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as f:
    json.dump({"returncode": code, "peak_kib": usage.ru_maxrss,  # KiB on Linux
               "cpu": usage.ru_utime + usage.ru_stime}, f)
"""
# QC_HOSTILE_LOG=FILE appends a JSON line per quotecheck run to FILE (the test, the command, the
# wall and CPU seconds, the peak memory, the exit status): the numbers behind the limits.
LOG = os.environ.get("QC_HOSTILE_LOG")

# quotecheck's command line as `python -m quotecheck` runs it, with two changes:
# * the check command uses the limits of the configuration in force: `options_for` does not pass
#   `settings.limits` on to `Options` yet (the one line the check command lacks; a no-op once it
#   does);
# * a FIFO nobody writes to is given up after the first argument's seconds, not 10 (the tests
#   that wait for one would wait 10 s each).
_CLI = r"""
import sys
from quotecheck.records import replace
import quotecheck.commands.check as cc
import quotecheck.inputs as inputs
from quotecheck.cli import main
inputs.STREAM_WAIT = float(sys.argv[1])
if hasattr(cc, "options_for"):
    options_for = cc.options_for
    def with_limits(request, settings, item):
        return replace(options_for(request, settings, item), limits=settings.limits)
    cc.options_for = with_limits
sys.exit(main(sys.argv[2:]))
"""


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_mb: float
    seconds: float
    cpu: float = 0.0

    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    def diagnostics(self, path: Path | str) -> list[dict[str, Any]]:
        """The diagnostics of one file in ``--format json`` output."""
        for entry in self.json()["files"]:
            if entry["path"] == str(path):
                return list(entry["diagnostics"])
        return []


def run(args: list[str], cwd: Path, *, timeout: float = SHORT, stdin: bytes | None = None,
        program: list[str] | None = None, stream_wait: float = 10.0) -> Run:
    """quotecheck ARGS (or ``program ARGS``) with its peak memory and status."""
    report = cwd / f".qc-run-{time.monotonic_ns()}.json"
    command = program or [sys.executable, "-c", _CLI, str(stream_wait)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRAPPER, str(report), *command, *args],
        cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,  # so a time-out can kill the wrapper and quotecheck together
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"quotecheck {' '.join(args)[:200]} did not finish within {timeout} s "
                    "(a hang)")
    seconds = time.monotonic() - started
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
    result = json.loads(report.read_text())
    report.unlink()
    if LOG:
        with open(LOG, "a") as log:
            log.write(json.dumps({
                "test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0],
                "args": [a if len(a) < 60 else a[:57] + "..." for a in args],
                "seconds": round(seconds, 2), "cpu": round(result["cpu"], 2),
                "peak_mb": round(result["peak_kib"] / 1024), "returncode": result["returncode"],
            }) + "\n")
    return Run(result["returncode"], out.decode("utf-8", "replace"),
               err.decode("utf-8", "replace"), result["peak_kib"] / 1024, seconds,
               result["cpu"])


def limits_file(cwd: Path, limits: dict[str, Any]) -> Path:
    """A configuration file holding just these limits."""
    lines = ["[limits]"]
    for key, value in limits.items():
        lines.append(f"{key} = {json.dumps(value)}")
    path = cwd / "limits.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def check(paths: list[Path], cwd: Path, *extra: str, timeout: float = SHORT,
          limits: dict[str, Any] | None = None, stream_wait: float = 10.0) -> Run:
    config = ["--config", str(limits_file(cwd, limits))] if limits else ["--no-config"]
    return run(["check", "--color", "never", *config, *extra, *map(str, paths)], cwd,
               timeout=timeout, stream_wait=stream_wait)


def companion(tmp_path: Path) -> Path:
    path = tmp_path / "companion.sh"
    path.write_text(COMPANION)
    return path


def assert_companion_checked(result: Run, path: Path) -> None:
    assert f"{path}:2:6: error QC001 unterminated double quote" in result.stdout, (
        result.stdout[-3000:], result.stderr[-3000:])


def assert_no_crash(result: Run) -> None:
    assert "Traceback" not in result.stderr, result.stderr[-5000:]
    assert "internal error" not in result.stderr, result.stderr[-5000:]


def position(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and code-point column of the ``nth`` occurrence of ``needle``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line, col = LineIndex(text).position(at)
    return line + 1, col + 1


def write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8", newline="")
    else:
        path.write_bytes(data)
    return path


# --------------------------------------------------------------------------------------------
# Odd files: empty, binary, not UTF-8, CRLF
# --------------------------------------------------------------------------------------------


def test_empty_file(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.sh", "")
    alone = check([empty], tmp_path)
    assert (alone.returncode, alone.stdout, alone.stderr) == (0, "", "")
    both = check([empty, companion(tmp_path)], tmp_path)
    assert both.returncode == 1
    assert str(empty) not in both.stdout
    assert_companion_checked(both, tmp_path / "companion.sh")


def test_binary_file(tmp_path: Path) -> None:
    binary = write(tmp_path / "payload.sh", b"#!/bin/sh\n" + bytes(range(256)) * 400)
    result = check([binary, companion(tmp_path)], tmp_path)
    assert_no_crash(result)
    assert result.returncode == 1
    assert f"{binary}:1:1: warning QC002 binary file, not analysed\n" in result.stdout
    assert_companion_checked(result, tmp_path / "companion.sh")


def test_non_utf8_bytes_are_reported_and_positions_after_them_stay_right(
        tmp_path: Path) -> None:
    # \xe9 is Latin-1; \xe2\x82 is a UTF-8 sequence cut short (one U+FFFD for two bytes, so byte
    # and character columns differ after it); é is valid UTF-8 (two bytes, one character).
    data = (b'echo "caf\xe9" \xe2\x82 \xc3\xa9 && ' + SSH.encode() + b' "echo $HOME"\n'
            b'echo \xff\xfe; ' + SSH.encode() + b' "ls $PWD"\n')
    script = write(tmp_path / "latin1.sh", data)
    text = data.decode("utf-8", "replace")
    result = check([script, companion(tmp_path)], tmp_path)
    assert_no_crash(result)
    assert result.returncode == 1
    out = result.stdout
    # reported once, at the first bad byte
    assert out.count("not valid UTF-8") == 1
    assert f"{script}:1:10: warning QC002 the file is not valid UTF-8 here" in out
    line, col = position(text, "$HOME")
    assert f"{script}:{line}:{col}: warning QC101 `$HOME`" in out
    line, col = position(text, "$PWD")
    assert line == 2
    assert f"{script}:{line}:{col}: warning QC101 `$PWD`" in out
    assert_companion_checked(result, tmp_path / "companion.sh")
    # the JSON ranges count the decoded text too (here in UTF-16 code units: U+FFFD is one)
    js = check([script], tmp_path, "--format", "json")
    found = {(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
             for d in js.diagnostics(script)}
    assert ("QC101", 0, text.index("$HOME")) in found
    assert ("QC101", 1, position(text, "$PWD")[1] - 1) in found
    assert ("QC002", 0, 9) in found


CRLF_SCRIPT = """\
#!/bin/bash
# quotecheck: disable=QC208
set -eu
for host in a b; do
  ssh "$host" "echo $HOME" \\
      </dev/null
done
cat <<EOF
body $USER
EOF
case "$1" in
  start) ssh h 'cd /srv && ./run' ;;
  *) echo "usage" ;;
esac
if true; then echo "$(date)"; fi
ssh h "rm -rf $TMPDIR/x"
"""


def _findings(source: str) -> set[tuple[str, int, int, int, int]]:
    index = LineIndex(source)
    out = set()
    for d in check_source(source, Options()).diagnostics:
        (l0, c0), (l1, c1) = index.position(d.span[0]), index.position(d.span[1])
        out.add((d.code, l0, c0, l1, c1 if l1 == l0 else -1))
    return out


def _crlf_note(source: str) -> tuple[str, int, int, int, int]:
    line, col = LineIndex(source).position(source.index("\r"))
    return ("QC002", line, col, line, col + 1)


def test_crlf_line_endings_same_findings_at_the_same_places(tmp_path: Path) -> None:
    lf = CRLF_SCRIPT
    crlf = lf.replace("\n", "\r\n")
    expected = _findings(lf)
    assert {f[0] for f in expected} >= {"QC101"}, expected
    assert _findings(crlf) == expected | {_crlf_note(crlf)}
    # and through the command line: the same line:col, the line shown without its \r
    lf_file = write(tmp_path / "lf.sh", lf)
    crlf_file = write(tmp_path / "crlf.sh", crlf)
    a = check([lf_file], tmp_path, "-q")  # -q: no closing line (it counts the files)
    b = check([crlf_file, companion(tmp_path)], tmp_path, "-q")
    assert_no_crash(b)
    assert a.returncode == 1 and b.returncode == 1
    assert "\r" not in b.stdout
    assert f"{crlf_file}:1:12: warning QC002 this file has CRLF (Windows) line endings" in \
        b.stdout
    shown = [line.replace(str(lf_file), "X") for line in a.stdout.splitlines()]
    shown_crlf = [line.replace(str(crlf_file), "X") for line in b.stdout.splitlines()]
    assert all(line in shown_crlf for line in shown), (shown, shown_crlf)
    assert_companion_checked(b, tmp_path / "companion.sh")


def test_crlf_every_fixture() -> None:
    """Every fixture script converted to CRLF: its findings, plus one note saying so."""
    scripts = sorted(ROOT.glob("fixtures/*/*.sh"))
    assert scripts
    for script in scripts:
        lf = script.read_text()
        crlf = lf.replace("\n", "\r\n")
        assert _findings(crlf) == _findings(lf) | {_crlf_note(crlf)}, script


def test_crlf_explain_spans_point_into_the_crlf_source(tmp_path: Path) -> None:
    lf = CRLF_SCRIPT
    crlf = lf.replace("\n", "\r\n")

    def spans(text: str) -> list[tuple[str, list[int] | None]]:
        path = write(tmp_path / "x.sh", text)
        result = run(["explain", "--format", "json", "--file", str(path)], tmp_path)
        assert result.returncode == 0, result.stderr
        doc = result.json()
        assert doc["source"] == text
        out = []
        for layer in doc["layers"]:
            out.append((layer["kind"], layer.get("span")))
            for command in layer.get("commands", []):
                out.append(("command", command["span"]))
        return out

    def to_crlf(offset: int) -> int:  # an offset into lf -> the same character in crlf
        return offset + lf.count("\n", 0, offset)

    lf_spans, crlf_spans = spans(lf), spans(crlf)
    assert len(lf_spans) == len(crlf_spans)
    for (kind, a), (_, b) in zip(lf_spans, crlf_spans, strict=True):
        if a is None:
            assert b is None
            continue
        assert b is not None and 0 <= b[0] <= b[1] <= len(crlf)
        if kind == "shell" and a == [0, len(lf)]:
            assert b == [0, len(crlf)]
        else:
            # the same characters; a span never starts at a \r
            assert b[0] == to_crlf(a[0]), (kind, a, b)
            assert crlf[b[0]:b[1]].replace("\r\n", "\n") == lf[a[0]:a[1]] or \
                crlf[b[0]:b[1]].replace("\r\n", "\n") == lf[a[0]:a[1] + 1], (kind, a, b)


# --------------------------------------------------------------------------------------------
# Size: 10 MB, a 100,000-character line, 100,000 lines, a huge heredoc
# --------------------------------------------------------------------------------------------

_BENIGN = [
    "printf '%s\\n' \"$HOME\" 'a b' | grep -v x > /dev/null\n",
    'for f in ./*.log; do gzip -- "$f"; done\n',
    f"{SSH} 'uptime' </dev/null || echo \"down: $?\" >&2\n",
    "x=$(date +%s); echo \"${x:-0}\"\n",
    "[ -d /tmp ] && cd /tmp\n",
]


def said(d: dict[str, Any]) -> str:
    """All a json diagnostic says: its summary (``message``) and its explanation."""
    return f"{d['message']} {d['data']['explanation']}"


def _not_analysed_covers(result: Run, path: Path, line: int) -> bool:
    """A QC002 that says the part holding ``line`` (1-based) was not analysed."""
    for d in result.diagnostics(path):
        r = d["range"]
        if d["code"] == "QC002" and "not analysed" in said(d) and \
                r["start"]["line"] + 1 <= line <= r["end"]["line"] + 1:
            return True
    return False


def _reported_at(result: Run, path: Path, code: str, line: int, col: int) -> bool:
    return any(d["code"] == code and d["range"]["start"] == {"line": line - 1,
                                                             "character": col - 1}
               for d in result.diagnostics(path))


def test_a_10_mb_script(tmp_path: Path) -> None:
    """10 MB, 216,000 lines: read, scanned, parsed for the parse-time limit (10 s here; the
    default 60 s analyses about a quarter of it in a minute and proves nothing more), the rest
    reported as not analysed, the rules run on what was parsed."""
    head = f'#!/bin/bash\n{SSH} "echo $HOME"\n'
    tail = f'{SSH} "echo $LOGNAME"\n'
    body: list[str] = []
    size = len(head) + len(tail)
    k = 0
    while size < 10 * 1000 * 1000:
        line = _BENIGN[k % len(_BENIGN)]
        body.append(line)
        size += len(line)
        k += 1
    text = head + "".join(body) + tail
    big = write(tmp_path / "big.sh", text)
    comp = companion(tmp_path)
    result = check([big, comp], tmp_path, "--format", "json", "--position-encoding", "utf-32",
                   limits={"parse-time": 10, "parse-call-time": 1})
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    # the start is analysed (unless a loaded machine spent the 10 s on scanning: then it is
    # reported as not analysed, as everything else past the limit)
    assert _reported_at(result, big, "QC101", 2, position(text, "$HOME")[1]) or \
        _not_analysed_covers(result, big, 2), result.diagnostics(big)[:5]
    # no syntax errors in a valid script, whatever had to be left out
    assert not [d for d in result.diagnostics(big) if d["code"] == "QC001"]
    last = text.count("\n")
    assert _reported_at(result, big, "QC101", last, position(text, "$LOGNAME")[1]) or \
        _not_analysed_covers(result, big, last), result.diagnostics(big)[-5:]
    assert [d["code"] for d in result.diagnostics(comp)] == ["QC001"]


@pytest.mark.parametrize("shape", ["one-word", "many-words", "ssh-string", "expansions"])
def test_a_100000_character_line(tmp_path: Path, shape: str) -> None:
    n = 100_000
    if shape == "one-word":
        line = "echo '" + "x" * n + "'"
    elif shape == "many-words":
        line = "echo " + "ab " * (n // 3)
    elif shape == "ssh-string":
        line = f"{SSH} '" + "true; " * (n // 6) + "'"
    else:
        line = 'echo "' + "$x${y}" * (n // 6) + '"'
    text = f"{line}; {SSH} \"echo $HOME\"\n"
    long = write(tmp_path / "long.sh", text)
    comp = companion(tmp_path)
    result = check([long, comp], tmp_path, "--format", "json", "--position-encoding", "utf-32")
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    col = text.index("$HOME") + 1
    assert _reported_at(result, long, "QC101", 1, col) or \
        _not_analysed_covers(result, long, 1), result.diagnostics(long)
    assert [d["code"] for d in result.diagnostics(comp)] == ["QC001"]
    # the text format as well (it shows the line)
    text_run = check([long], tmp_path)
    assert_no_crash(text_run)
    assert text_run.returncode == 1


def test_100000_commands_on_separate_lines(tmp_path: Path) -> None:
    """Many short lines: what the parse-time limit (5 s here) leaves out is said, and nothing
    is called a syntax error."""
    lines = [f'echo {i} "$x" | tr a b\n' for i in range(100_000)]
    text = "".join(lines) + f'{SSH} "echo $HOME"\n'
    many = write(tmp_path / "many.sh", text)
    comp = companion(tmp_path)
    result = check([many, comp], tmp_path, "--format", "json", "--position-encoding", "utf-32",
                   limits=QUICK_PARSE)
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    diags = result.diagnostics(many)
    assert not [d for d in diags if d["code"] == "QC001"], diags[:5]
    last = len(lines) + 1
    assert _reported_at(result, many, "QC101", last, position(text, "$HOME")[1]) or \
        _not_analysed_covers(result, many, last), diags[-5:]
    assert [d["code"] for d in result.diagnostics(comp)] == ["QC001"]


@pytest.mark.parametrize("kind", ["data", "remote-script", "data-with-substitutions"])
def test_a_huge_heredoc(tmp_path: Path, kind: str) -> None:
    """100,000 lines of heredoc: data (default limits), a script for the remote shell (its
    layer gets the 5 s of parse-time for inner layers), and data with a `$(date)` on every
    line, on which QC101 and QC301 are quadratic in time and memory (rules/crosslayer/chars.py
    scripts_of, rules/_portability.py all_scripts walk every substitution once per
    substitution; 20,000 lines took 97 s and 1.6 GB): rule-time and rule-memory stop them."""
    n = 100_000
    if kind == "data":
        opener = "cat <<EOF >/tmp/out\n"
        body = "".join(f"line {i} $USER \"q\" 'a' ${{x:-y}} \\$x\n" for i in range(n))
    elif kind == "data-with-substitutions":
        opener = "cat <<EOF >/tmp/out\n"
        body = "".join(f"line {i} $USER \"q\" 'a' $(date) \\$x\n" for i in range(n))
    else:
        opener = f"{SSH} bash -s <<'EOF'\n"
        body = "".join(f'echo {i} "$x" | tr a b\n' for i in range(n))
    text = f"{opener}{body}EOF\n{SSH} \"echo $HOME\"\n"
    doc = write(tmp_path / "heredoc.sh", text)
    comp = companion(tmp_path)
    limits = {"data": None, "remote-script": QUICK_PARSE,
              "data-with-substitutions": {**QUICK_PARSE, **QUICK_RULES}}[kind]
    result = check([doc, comp], tmp_path, "--format", "json", "--position-encoding", "utf-32",
                   limits=limits)
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    diags = result.diagnostics(doc)
    assert not [d for d in diags if d["code"] == "QC001"], diags[:5]
    line, col = position(text, "$HOME")
    assert line == n + 3
    if kind == "data-with-substitutions":
        # parsing 100,000 substitutions takes longer than the 5 s: the rest is not analysed,
        # and the rules stopped by a limit are named
        assert _reported_at(result, doc, "QC101", line, col) or \
            _not_analysed_covers(result, doc, line), diags[-5:]
        stopped = [said(d) for d in diags if "the rule-" in said(d)]
        assert all(" was stopped" in m or " not run" in m for m in stopped), stopped
    else:
        # the command after the heredoc is in the local layer: always analysed, at its place
        assert _reported_at(result, doc, "QC101", line, col), diags[-5:]
    assert [d["code"] for d in result.diagnostics(comp)] == ["QC001"]


# --------------------------------------------------------------------------------------------
# Depth: substitutions, compound commands, layers
# --------------------------------------------------------------------------------------------

DEEP = 10_000


@pytest.mark.parametrize(("opener", "closer", "limit"), [
    ("$(", ")", 64),  # the default limit
    ("<(", ")", 16), ("$(echo \"", "\")", 16), ("`", "`", 16),
    ("$((", "))", 16),  # arithmetic nests without recursion: no limit applies
    ('"$(', ')"', 16), ("${x:-", "}", 16),  # the outermost is skipped to where it closes
])
def test_10000_deep_substitutions(tmp_path: Path, opener: str, closer: str, limit: int) -> None:
    """10,000 levels: QC002 at the max-nesting limit (64, or 16 to make it quicker), and the
    next line is analysed."""
    text = "echo " + opener * DEEP + "x" + closer * DEEP + "\n" + f'{SSH} "echo $HOME"\n'
    deep = write(tmp_path / "deep.sh", text)
    result = check([deep, companion(tmp_path)], tmp_path,
                   limits=None if limit == 64 else {"max-nesting": limit})
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    qc002 = [line for line in result.stdout.splitlines() if " QC002 " in line]
    assert all("not analysed" in line for line in qc002), qc002
    if opener not in ("$((", "`"):  # (nested backticks are just pairs of backticks)
        assert any(f"deeper than {limit} levels" in line for line in qc002), \
            result.stdout[:3000]
    assert f"{deep}:2:{len(SSH) + 8}: warning QC101" in result.stdout  # the next line
    assert_companion_checked(result, tmp_path / "companion.sh")


COMPOUNDS: dict[str, tuple[str, str, str]] = {
    # name: (opening line, innermost, closing line)
    "if": ("if true; then\n", "echo x\n", "fi\n"),
    "while": ("while true; do\n", "echo x\n", "done\n"),
    "until": ("until false; do\n", "echo x\n", "done\n"),
    "for": ("for i in a b; do\n", "echo x\n", "done\n"),
    "select": ("select i in a b; do\n", "echo x\n", "done\n"),
    "case": ("case $1 in *)\n", "echo x\n", ";; esac\n"),
    "brace": ("{\n", "echo x\n", "}\n"),
    "subshell": ("(\n", "echo x\n", ")\n"),
    "function": ("f() {\n", "echo x\n", "}\n"),
    "if-else": ("if false; then :; else\n", "echo x\n", "fi\n"),
    "if-substitution": ("if true; then echo $(\n", "echo x\n", "); fi\n"),
}


def test_1000_deep_compound_commands(tmp_path: Path) -> None:
    files = []
    for name, (opening, inner, closing) in COMPOUNDS.items():
        text = opening * 1000 + inner + closing * 1000 + f'{SSH} "echo $HOME"\n'
        files.append(write(tmp_path / f"{name}.sh", text))
    comp = companion(tmp_path)
    result = check([*files, comp], tmp_path, "--format", "json", "--position-encoding",
                   "utf-32")
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    for path in files:
        diags = result.diagnostics(path)
        deep = [d for d in diags if d["code"] == "QC002"]
        assert deep, (path.name, diags)
        if path.stem == "if-substitution":  # two levels a line: the scanner's limit comes first
            assert all("64" in said(d) and "not analysed" in said(d) for d in deep)
        else:
            assert all("nested more than 64 deep are not analysed" in said(d)
                       for d in deep), (path.name, deep)
            # the outermost construct skipped is the 65th (each on its own line)
            assert min(d["range"]["start"]["line"] for d in deep) == 64, (path.name, deep)
        assert not [d for d in diags if d["code"] == "QC001"], (path.name, diags)
        # the command after the nest is analysed, at its place
        assert _reported_at(result, path, "QC101", 2002, len(SSH) + 8), (path.name, diags)
    assert [d["code"] for d in result.diagnostics(comp)] == ["QC001"]


def test_deep_compound_commands_inside_an_inner_layer(tmp_path: Path) -> None:
    inner = "if true; then " * 200 + "echo x" + "; fi" * 200
    text = f"{SSH} '{inner}'\n"
    path = write(tmp_path / "inner.sh", text)
    result = check([path], tmp_path, "--format", "json", "--position-encoding", "utf-32")
    assert_no_crash(result)
    deep = [d for d in result.diagnostics(path) if d["code"] == "QC002"]
    assert deep and "nested more than 64 deep" in said(deep[0])
    # pointed at in the input: the 65th `if` inside the quoted remote script
    col = len(SSH) + 2 + len("if true; then ") * 64
    assert deep[0]["range"]["start"] == {"line": 0, "character": col}, deep


def _nested_quote_argv(levels: int) -> str:
    text = "echo hi"
    for _ in range(levels):
        text = quote_argv(["sh", "-c", text])
    return text


def _ansi_c(levels: int) -> str:
    # bash's $'...' with \x escapes: the text grows quadratically, not exponentially
    text = "echo hi"
    for _ in range(levels):
        text = "bash -c $'" + text.replace("\\", "\\x5c").replace("'", "\\x27") + "'"
    return text


LAYER_CHAINS: dict[str, Callable[[], str]] = {
    # Exact sh -c quoting triples the quotes at every level (12 levels: 1 MB, 14: 10 MB), so a
    # literally 10,000-deep quoted `sh -c` nesting cannot be written down; these nest as deep
    # with text that grows linearly (or quadratically), with the same layer structure.
    "ssh": lambda: "ssh h " * DEEP + "echo hi",
    "eval": lambda: "eval " * DEEP + "echo hi",
    "sudo": lambda: "sudo " * DEEP + "echo hi",
    "env": lambda: "env " * DEEP + "echo hi",
    "sh-heredoc": lambda: "".join(f"sh <<'E{i}'\n" for i in range(DEEP)) + "echo hi\n" +
    "".join(f"E{i}\n" for i in reversed(range(DEEP))),
    "sh-c-naive": lambda: 'sh -c "' * DEEP + "echo hi" + '"' * DEEP,
    "sh-c-naive-single": lambda: "sh -c '" * DEEP + "echo hi" + "'" * DEEP,
    "sh-c-quote-argv-12": lambda: _nested_quote_argv(12),
    "bash-c-ansi-200": lambda: _ansi_c(200),
}


# Chains whose every layer holds a long text (10,000 words for ssh and eval: a second or more
# to parse each) run with a smaller layer limit and parse time; the others with the defaults.
CHAIN_LIMITS: dict[str, dict[str, Any]] = {
    "ssh": {"max-layers": 4, **QUICK_PARSE},
    "eval": {"max-layers": 4, **QUICK_PARSE},
    "bash-c-ansi-200": QUICK_PARSE,
    "sh-c-quote-argv-12": QUICK_PARSE,
}


@pytest.mark.parametrize("name", list(LAYER_CHAINS))
def test_10000_nested_layers_trace(tmp_path: Path, name: str) -> None:
    """The trace stops at max-layers (32) and says so; only QC001/QC002 run (see the next
    test)."""
    text = LAYER_CHAINS[name]() + "\n"
    path = write(tmp_path / "layers.sh", text)
    limits = CHAIN_LIMITS.get(name)
    result = check([path, companion(tmp_path)], tmp_path, "--select", "QC001,QC002",
                   limits=limits)
    assert_no_crash(result)
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    assert result.returncode == 1
    if name in ("sh-c-naive", "sh-c-naive-single"):
        # naive quoting that closes every quote it opens (a few layers only): within the
        # limit, analysed
        assert f"{path}:" not in result.stdout, result.stdout[:3000]
    elif name != "sh-c-quote-argv-12":  # (12 layers: analysed, if the parse time suffices)
        # the layer past the limit, or (each layer's text is long) the parse time, stops it
        layers = (limits or {}).get("max-layers", 32)
        assert f"more than {layers} nested layers" in result.stdout or \
            "not analysed" in result.stdout, result.stdout[:3000]
    assert_companion_checked(result, tmp_path / "companion.sh")


@pytest.mark.parametrize("name", [
    "sh-heredoc", "sh-c-naive", "sh-c-naive-single", "sh-c-quote-argv-12", "eval", "ssh",
    "sudo", "env"])
def test_10000_nested_layers_all_rules(tmp_path: Path, name: str) -> None:
    """Every rule on the deep chains. On `eval eval ...`, `ssh h ssh h ...`, `sudo sudo ...`,
    `env env ...` QC107 and QC109 are quadratic or worse in a command's argv length
    (rules/qc107, qc109: `arg.word not in view.command.words`, `_word_index`; ssh h x 3,200
    took 150 s, sudo x 800 33 s): the rule-time limit (3 s here) stops them and says so."""
    text = LAYER_CHAINS[name]() + "\n"
    path = write(tmp_path / "layers.sh", text)
    limits = {**CHAIN_LIMITS.get(name, {}), **QUICK_RULES}
    result = check([path, companion(tmp_path)], tmp_path, "--format", "json", limits=limits)
    assert_no_crash(result)
    assert result.returncode == 1
    assert result.peak_mb < MEMORY_BOUND_MB, result.peak_mb
    stopped = [said(d) for d in result.diagnostics(path) if "the rule-" in said(d)]
    assert all(" was stopped" in m or " not run" in m for m in stopped), stopped
    assert [d["code"] for d in result.diagnostics(tmp_path / "companion.sh")] == ["QC001"]


def test_explain_on_deep_inputs(tmp_path: Path) -> None:
    """`explain` (default limits) past every depth limit: a 300-deep `if`, 1,000 `$(`, 1,000
    nested `sh <<'E'` heredocs, 100 evals (the check tests above go to 10,000; explain shows each
    layer's whole text: 10,000 heredocs print 7 MB of JSON)."""
    heredocs = "".join(f"sh <<'E{i}'\n" for i in range(1000)) + "echo hi\n" + \
        "".join(f"E{i}\n" for i in reversed(range(1000)))
    for text in ["if true; then\n" * 300 + "fi\n" * 300, "echo " + "$(" * 1000 + ")" * 1000,
                 heredocs, "eval " * 100 + "echo hi", "a\r\nb\r\n"]:
        path = write(tmp_path / "x.sh", text)
        result = run(["explain", "--format", "json", "--file", str(path)], tmp_path)
        assert_no_crash(result)
        assert result.returncode == 0, result.stderr[-3000:]
        doc = result.json()
        for layer in doc["layers"]:
            span = layer.get("span")
            assert span is None or 0 <= span[0] <= span[1] <= len(text)


# --------------------------------------------------------------------------------------------
# Syntax errors: unterminated quotes and heredocs, and a file of them
# --------------------------------------------------------------------------------------------

UNTERMINATED: dict[str, tuple[str, str]] = {
    # name: (script, the text the QC001 points at)
    "single": ("echo ok\necho 'abc\nls\n", "'abc"),
    "double": ("echo ok\necho \"abc\nls\n", '"abc'),
    "ansi-c": ("echo ok\necho $'abc\nls\n", "$'abc"),
    "backtick": ("echo ok\necho `abc\nls\n", "`abc"),
    "command-substitution": ("echo ok\necho $(abc\nls\n", "$(abc"),
    "parameter": ("echo ok\necho ${abc\nls\n", "${abc"),
    "heredoc": ("echo ok\ncat <<EOF\nhello\n", "<<EOF"),
    "heredoc-quoted": ("echo ok\ncat <<'EOF'\nhello\nEOF \n", "<<'EOF'"),
    "heredoc-dash": ("echo ok\ncat <<-EOF\n\thello\n", "<<-EOF"),
    "ssh-inner": (f"echo ok\n{SSH} 'echo \"abc'\n", '"abc'),
}


def test_unterminated_quotes_and_heredocs(tmp_path: Path) -> None:
    files = {name: write(tmp_path / f"{name}.sh", text)
             for name, (text, _) in UNTERMINATED.items()}
    comp = companion(tmp_path)
    result = check([*files.values(), comp], tmp_path, "--format", "json",
                   "--position-encoding", "utf-32")
    assert_no_crash(result)
    assert result.returncode == 1
    for name, (text, at) in UNTERMINATED.items():
        diags = [d for d in result.diagnostics(files[name]) if d["code"] == "QC001"]
        assert diags, name
        line, col = position(text, at)
        assert diags[0]["range"]["start"] == {"line": line - 1, "character": col - 1}, (
            name, diags)
    assert [d["code"] for d in result.diagnostics(comp)] == ["QC001"]


def test_a_file_of_unclosed_constructs(tmp_path: Path) -> None:
    """Recovering from syntax errors re-parses growing chunks: it must stay bounded (it was
    cubic: 200 lines of `if true; then` took 190 s, 2,000 would have taken days)."""
    text = "if true; then\n" * 2000 + f'{SSH} "echo $HOME"\n'
    path = write(tmp_path / "unclosed.sh", text)
    result = check([path, companion(tmp_path)], tmp_path, "--format", "json",
                   "--position-encoding", "utf-32")
    assert_no_crash(result)
    assert result.returncode == 1
    diags = result.diagnostics(path)
    assert diags[0]["code"] == "QC001" and diags[0]["range"]["start"]["line"] == 0
    assert _reported_at(result, path, "QC101", 2001, len(SSH) + 8) or \
        _not_analysed_covers(result, path, 2001), diags[-3:]
    assert [d["code"] for d in result.diagnostics(tmp_path / "companion.sh")] == ["QC001"]


# --------------------------------------------------------------------------------------------
# Files that disappear or cannot be read
# --------------------------------------------------------------------------------------------

# Runs `quotecheck check` in-process with a hook: once the first file is checked, the others
# are changed under it. The test runs as root, and root reads a file whatever its mode (chmod
# 000 stops nothing), so "becomes unreadable" is simulated with what stops root too: the file
# deleted, replaced by a directory, or replaced by a FIFO nobody writes to (reading that blocks:
# given up after 1 s here, 10 s by default).
_MID_RUN = r"""
import os, sys
import quotecheck.commands.check as cc
import quotecheck.inputs as inputs
from quotecheck.cli import main
inputs.STREAM_WAIT = 1.0
first, gone, directory, fifo = sys.argv[1:5]
original = cc.check_source
def hooked(text, options=None, path=None):
    if path == first:
        os.unlink(gone)
        os.unlink(directory); os.mkdir(directory)
        os.unlink(fifo); os.mkfifo(fifo)
    return original(text, options, path)
cc.check_source = hooked
sys.exit(main(["check", "--color", "never", "--no-config", *sys.argv[1:]]))
"""


def test_files_that_disappear_or_become_unreadable_mid_run(tmp_path: Path) -> None:
    names = ["first.sh", "gone.sh", "directory.sh", "fifo.sh"]
    paths = [write(tmp_path / n, f'{SSH} "echo $HOME"\n') for n in names]
    comp = companion(tmp_path)
    result = run([*map(str, paths), str(comp)], tmp_path,
                 program=[sys.executable, "-c", _MID_RUN])
    assert_no_crash(result)
    assert result.returncode == 2
    assert f"{paths[0]}:1:" in result.stdout  # checked before the others changed
    assert f"quotecheck: error: {paths[1]}: no such file" in result.stderr
    assert f"quotecheck: error: {paths[2]}: is a directory" in result.stderr
    assert f"quotecheck: error: {paths[3]}: nothing to read for 1 s" in result.stderr
    assert_companion_checked(result, comp)


def test_unreadable_paths_on_the_command_line(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.sh"
    os.mkfifo(fifo)
    huge = write(tmp_path / "huge.sh", b"# " + b"x" * (16 * 1024 * 1024) + b"\n")
    comp = companion(tmp_path)
    result = check([fifo, Path("/dev/zero"), huge, tmp_path / "missing.sh", comp], tmp_path,
                   stream_wait=1.0)
    assert_no_crash(result)
    assert result.returncode == 2
    assert f"{fifo}: nothing to read for 1 s (a FIFO nobody writes to?)" in result.stderr
    too_large = "too large (more than 16 MiB, the max-file-size limit): not read"
    assert f"/dev/zero: {too_large}" in result.stderr
    assert f"{huge}: {too_large}" in result.stderr
    assert f"{tmp_path / 'missing.sh'}: no such file or directory" in result.stderr
    assert_companion_checked(result, comp)


def test_a_pipe_is_read_and_an_endless_stdin_is_refused(tmp_path: Path) -> None:
    comp = companion(tmp_path)
    # a FIFO with a writer (what `<(generate)` gives) is read as it comes
    fifo = tmp_path / "pipe.sh"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f'sleep 0.5; printf \'%s\\n\' \'{SSH} "echo $HOME"\' '
                               f'> "{fifo}"'])
    result = check([fifo, comp], tmp_path)
    writer.wait(timeout=60)
    assert result.returncode == 1
    assert f"{fifo}:1:{len(SSH) + 8}: warning QC101" in result.stdout
    # standard input past the size limit
    big = run(["check", "-"], tmp_path, stdin=b"echo hi\n" * (3 * 1024 * 1024))
    assert big.returncode == 2
    assert "standard input: too large" in big.stderr


# --------------------------------------------------------------------------------------------
# The parser's time limits, made to apply (in-process: deterministic)
# --------------------------------------------------------------------------------------------


def test_a_region_that_times_out_is_parsed_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole text too slow to parse at once (here: any of more than 20 lines) is parsed a
    chunk of lines at a time, so long scripts are analysed instead of skipped whole."""
    from quotecheck.parsing import bashlex_adapter
    from quotecheck.parsing import parse as parse_module

    real = bashlex_adapter.safe_parse

    def slow_on_long(text: str, time_limit: float | None = 2.0, **kw: Any) -> Any:
        if text.count("\n") > 20:
            return bashlex_adapter.ParseOutcome(None, "parse did not finish", None, True)
        return real(text, time_limit, **kw)

    monkeypatch.setattr(parse_module.bashlex_adapter, "safe_parse", slow_on_long)
    lines = [f'echo {i} "$x"\n' for i in range(50)]
    lines[10:10] = ["for f in a b; do\n", "  echo \"$f\"\n", "done\n"]
    text = "".join(lines) + f'{SSH} "echo $HOME"\n'
    result = check_source(text)
    assert [d.code for d in result.diagnostics] == ["QC101"]
    # a construct longer than a chunk can hold is not analysed, and said so (not a QC001)
    function = "f() {\n" + "  echo a\n" * 30 + "}\n"
    text = "echo a\n" * 30 + function + f'{SSH} "echo $HOME"\n'
    monkeypatch.setattr(parse_module, "MAX_CHUNK_LINES", 20)
    codes = [(d.code, LineIndex(text).position(d.span[0])[0] + 1, d.text)
             for d in check_source(text).diagnostics]
    assert ("QC002", 31) in [(c, line) for c, line, _ in codes], codes
    assert not [c for c in codes if c[0] == "QC001"], codes
    assert "does not parse in a chunk of up to 20 lines" in codes[0][2]
    assert codes[-1][0] == "QC101"


def test_the_parse_time_budget_names_what_it_skips() -> None:
    no_time = Options(limits=Limits(parse_time=0.0))
    result = check_source("echo a\necho b\n\necho c\n", no_time)
    assert [(d.code, d.span, d.text) for d in result.diagnostics] == [
        ("QC002", (0, 22), "the time for parsing this text ran out: the rest of this text "
                           "(4 lines) is not analysed")]
    one = check_source("echo a", no_time)
    assert [(d.code, d.text) for d in one.diagnostics] == [
        ("QC002", "the time for parsing this text ran out on this line (6 characters); it is "
                  "not analysed")]


# --------------------------------------------------------------------------------------------
# The limits, each configured (in-process; the command-line runs above use a config file)
# --------------------------------------------------------------------------------------------


def _messages(text: str, **limits: Any) -> list[tuple[str, str]]:
    return [(d.code, d.text) for d in check_source(text, Options(limits=Limits(**limits)))
            .diagnostics]


def test_max_nesting_is_configurable() -> None:
    text = "echo " + "$(" * 10 + "x" + ")" * 10 + f'\n{SSH} "echo $HOME"\n'
    assert [c for c, _ in _messages(text)] == ["QC101"]  # 10 deep: within the default 64
    found = _messages(text, max_nesting=4)
    assert ("QC002", "nesting deeper than 4 levels is not analysed") in found, found
    assert found[-1][0] == "QC101"
    compound = "if true; then\n" * 6 + "echo x\n" + "fi\n" * 6
    assert [c for c, _ in _messages(compound)] == []
    assert [m for _, m in _messages(compound, max_nesting=3)] == [
        "compound commands and substitutions nested more than 3 deep are not analysed (this "
        "one and everything in it)"]


def test_max_layers_is_configurable() -> None:
    text = "ssh h " * 6 + '"echo $HOME"\n'
    assert not [m for _, m in _messages(text) if "nested layers" in m]
    found = [m for _, m in _messages(text, max_layers=3)]
    assert "more than 3 nested layers: deeper layers are not analysed (the max-layers limit)" \
        in found, found


def _rule(code: str, check: Any) -> Rule:
    return Rule(code, f"test-{code}", "a test rule", "warning", check)


def _found(ctx: CheckContext) -> Any:
    yield Finding((0, 4), Message("found"))


def _endless(ctx: CheckContext) -> Any:
    yield Finding((0, 4), Message("found before the loop"))
    while True:
        pass


def _hungry(ctx: CheckContext) -> Any:
    held = []
    while True:
        held.append(b"x" * (1 << 20))  # touched: resident, not just reserved


def test_rule_time_stops_a_rule_that_runs_on() -> None:
    ctx = CheckContext("echo hi", build_trace("echo hi"), remote_shell_known=False)
    rules = [_rule("QC901", _found), _rule("QC902", _endless), _rule("QC903", _found),
             _rule("QC904", _found)]
    started = time.monotonic()
    out = run_rules(rules, ctx, Limits(rule_time=0.5))
    assert time.monotonic() - started < 30
    assert [(d.code, d.text) for d in out] == [
        ("QC901", "found"), ("QC902", "found before the loop"),
        ("QC002", "the time for the rules on this input ran out (the rule-time limit, 0.5 s): "
                  "QC902 was stopped and QC903, QC904 were not run, so findings may be "
                  "missing")]
    # the stop is not raised later, elsewhere, and the next run is not affected
    for _ in range(100_000):
        pass
    assert [d.code for d in run_rules(rules[:1], ctx, Limits(rule_time=0.5))] == ["QC901"]


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="memory read from /proc")
def test_rule_memory_stops_a_rule_that_eats_memory() -> None:
    ctx = CheckContext("echo hi", build_trace("echo hi"), remote_shell_known=False)
    rules = [_rule("QC901", _found), _rule("QC902", _hungry), _rule("QC903", _found)]
    out = run_rules(rules, ctx, Limits(rule_memory=64 * 1024 * 1024))
    assert [(d.code, d.text) for d in out] == [
        ("QC901", "found"),
        ("QC002", "the rules took more than 64 MiB of memory on this input (the rule-memory "
                  "limit): QC902 was stopped and QC903 was not run, so findings may be "
                  "missing")]


def test_the_rule_limits_on_a_real_slow_case() -> None:
    """`eval` x 3,000: the trace takes seconds, QC107/QC109 take minutes (quadratic)."""
    text = "eval " * 3000 + "echo hi\n"
    started = time.monotonic()
    found = _messages(text, rule_time=1.0, parse_time=5.0)
    assert time.monotonic() - started < 120
    assert any(m.startswith("the time for the rules on this input ran out (the rule-time "
                            "limit, 1 s): ") for _, m in found), found


def test_max_file_size_is_configurable(tmp_path: Path) -> None:
    path = write(tmp_path / "x.sh", "echo hi\n" * 200)  # 1,600 bytes
    assert read_text_file(path).text == "echo hi\n" * 200
    assert read_text_file(path, max_bytes=1600).error is None
    assert read_text_file(path, max_bytes=1599).error == (
        f"{path}: too large (more than 1,599 bytes, the max-file-size limit): not read")
    assert read_text_file(path, max_bytes=1024).error == (
        f"{path}: too large (more than 1 KiB, the max-file-size limit): not read")


def test_limits_in_the_configuration(tmp_path: Path) -> None:
    dotfile = tmp_path / ".quotecheck.toml"
    dotfile.write_text('[limits]\nmax-file-size = "2 MiB"\nmax-nesting = 16\nmax-layers = 8\n'
                       "parse-time = 10\nparse-call-time = 0.5\nrule-time = 20\n"
                       'rule-memory = "512M"\n')
    assert load(dotfile).limits == Limits(
        max_file_size=2 * 1024 * 1024, max_nesting=16, max_layers=8, parse_time=10.0,
        parse_call_time=0.5, rule_time=20.0, rule_memory=512 * 1024 * 1024)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.quotecheck.limits]\nmax-file-size = 100000\n")
    assert load(pyproject).limits == Limits(max_file_size=100_000)
    assert load(tmp_path / "pyproject.toml").limits.max_nesting == 64  # the defaults stay
    for bad, message in [
        ("max-depth = 3", "unknown limit(s) max-depth"),
        ("max-nesting = 0", "max-nesting must be a whole number from 1 to 128, not 0"),
        (f"max-nesting = {MAX_COUNT + 1}", "max-nesting must be a whole number from 1 to 128"),
        ("max-layers = 2.5", "max-layers must be a whole number"),
        ("max-layers = true", "max-layers must be a whole number"),
        ('parse-time = "fast"', "parse-time must be a number of seconds greater than 0"),
        ("rule-time = -1", "rule-time must be a number of seconds greater than 0"),
        ("rule-time = inf", "rule-time must be a number of seconds greater than 0"),
        ('max-file-size = "16 parsecs"', "max-file-size must be a size in bytes"),
        ("max-file-size = 0", "max-file-size must be a size in bytes"),
    ]:
        dotfile.write_text(f"[limits]\n{bad}\n")
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load(dotfile)
    dotfile.write_text("limits = 3\n")
    with pytest.raises(ConfigError, match="limits must be a table"):
        load(dotfile)


def test_sizes_given_as_texts() -> None:
    assert parse_size("16 MiB") == parse_size("16M") == 16 * 1024 * 1024
    assert parse_size("10kB") == 10_000 and parse_size("1.5 KiB") == 1536
    assert parse_size("lots") is None and parse_size(True) is None


def test_the_configured_limits_reach_the_check_command(tmp_path: Path) -> None:
    """A config file's limits apply to `quotecheck check` (through the wiring _CLI adds until
    the check command passes them itself)."""
    path = write(tmp_path / "x.sh", "echo " + "$(" * 10 + "x" + ")" * 10 + "\n")
    assert check([path], tmp_path).returncode == 0
    result = check([path], tmp_path, limits={"max-nesting": 4})
    assert result.returncode == 1
    assert "nesting deeper than 4 levels is not analysed" in result.stdout


@pytest.mark.parametrize(("text", "skipped"), [
    ('echo "$("$(x)")" after\n', '"$("$(x)")"'),
    ("echo ${a:-${b:-${c}}} after\n", "${a:-${b:-${c}}}"),
    ("echo \"${x:-\"$(y ')' \\\") \")}\" after\n", "\"${x:-\"$(y ')' \\\") \")}\""),
])
def test_a_construct_nested_too_deep_is_skipped_to_where_it_closes(text: str, skipped: str) -> None:
    from quotecheck.parsing.scanner import scan

    found = scan(text, max_depth=1)
    start = text.index(skipped)
    assert found.ends[start] == start + len(skipped)
    assert [p.code for p in found.problems] == ["QC002"]
    assert "".join(found.mask).endswith(" after\n")


def test_known_values_that_grow_without_bound_stay_bounded(tmp_path: Path) -> None:
    """`B=$A$A...` eight names deep would be 63 MB of known text (and its source maps): past the
    value budget a value is known only at run time, and the analysis goes on."""
    names = "ABCDEFGH"
    lines = ["A=" + "a" * 30] + [f"{n}=" + f"${p}" * 8 for p, n in pairwise(names)]
    lines += ['A=(x)'] + ['A=("${A[@]}" "${A[@]}")'] * 40 + ['C=a'] + ['C="$C$C"'] * 60
    lines += [f'{SSH} "echo $H ${{A[@]}} $C; kill $!"']
    (tmp_path / "bomb.sh").write_text("\n".join(lines) + "\n")
    done = run(["check", "--no-config", "--format", "json", "--severity", "info", "bomb.sh"],
               tmp_path)
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr
    codes = {d["code"] for d in done.diagnostics("bomb.sh")}
    assert "QC101" in codes  # the rest of the line is still judged
    assert done.peak_mb < 1024, done.peak_mb
