#!/usr/bin/env python3
"""Fuzz quotecheck's checker with bytes: coverage-guided with atheris, or a plain loop without it.

With atheris (libFuzzer for Python; ``python3 -m pip install atheris``)::

    python3 fuzz/atheris_check.py fuzz/corpus fuzz/seeds -dict=fuzz/shell.dict \\
        -timeout=120 -rss_limit_mb=3072 -max_total_time=3600

Every argument is handed to libFuzzer (see ``fuzz/README.md``). Without atheris, or with
``--loop``, the same target runs on randomly mutated seeds until ``--time-budget`` seconds have
passed::

    python3 fuzz/atheris_check.py --loop --time-budget 3600 [--seed N] [--input-timeout 120]

The target decodes the bytes as ``quotecheck check`` does, runs ``check_source`` (the first
byte picks the local dialect and, for a quarter of the inputs each, tiny nesting or layer limits)
and fails on anything the checker must never do: raise, let a rule raise (reported as "failed on
this input"), put a span outside the input, build a layer trace ``explain --format json`` cannot
serialise, or give a CRLF copy other findings than the LF text (every 8th input). A hang is
caught by libFuzzer's ``-timeout`` (or the loop's ``--input-timeout``), memory by
``-rss_limit_mb`` (or ``--rss-limit-mb``).

``QC_FUZZ_KNOWN=QC210,QC107`` lets a long run go on past known rule failures: a rule of those
codes raising is not a violation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import atheris  # type: ignore[import-untyped, import-not-found, unused-ignore]
except ImportError:  # the loop below needs nothing but quotecheck
    atheris = None

if atheris is not None and "--loop" not in sys.argv:
    with atheris.instrument_imports(include=["quotecheck", "bashlex"]):
        from quotecheck.checker import CheckResult, Options, check_source
        from quotecheck.inputs import decode
        from quotecheck.limits import Limits
        from quotecheck.output.explain_json import explain_document
        from quotecheck.positions import LineIndex
else:
    from quotecheck.checker import CheckResult, Options, check_source
    from quotecheck.inputs import decode
    from quotecheck.limits import Limits
    from quotecheck.output.explain_json import explain_document
    from quotecheck.positions import LineIndex

CRASHES = ROOT / "fuzz" / "crashes"
# Rule codes whose failures are known (QC_FUZZ_KNOWN): not violations, so a long run goes on.
KNOWN = {c.strip().upper() for c in os.environ.get("QC_FUZZ_KNOWN", "").split(",") if c.strip()}
# The limits an input runs with, picked by bits 1-2 of its first byte.
LIMITS = [Limits(), Limits(max_nesting=3), Limits(max_layers=2),
          Limits(max_nesting=2, max_layers=1)]


class Violation(AssertionError):
    """The checker did something it must never do."""


def _within(span: Any, size: int) -> bool:
    return (isinstance(span, tuple | list) and len(span) == 2 and
            all(isinstance(v, int) for v in span) and 0 <= span[0] <= span[1] <= size)


def _sane(source: str, result: CheckResult) -> None:
    size = len(source)
    for d in result.diagnostics:
        if not _within(d.span, size):
            raise Violation(f"{d.code} span {d.span} outside the input (0-{size})")
        if d.message.kind == "rule-failed" and d.message.value("code") not in KNOWN:
            raise Violation(f"a rule raised: {d.text}")
        for r in d.related:
            if not _within(r.span, size):
                raise Violation(f"{d.code} related span {r.span} outside the input")
        for fix in d.fixes:
            for edit in fix.edits:
                if not _within(edit.span, size):
                    raise Violation(f"{d.code} fix edit {edit.span} outside the input")
    for layer in result.trace.layers:
        if layer.source_span is not None and not _within(layer.source_span, size):
            raise Violation(f"layer {layer.id} span {layer.source_span} outside the input")
        for view in layer.commands:
            if view.source_span is not None and not _within(view.source_span, size):
                raise Violation(f"command span {view.source_span} outside the input")
    json.dumps(explain_document(result.trace, []), ensure_ascii=False)


def _places(source: str, result: CheckResult) -> set[tuple[str, int, int]]:
    index = LineIndex(source)
    return {(d.code, *index.position(d.span[0])) for d in result.diagnostics}


def check_one(data: bytes) -> None:
    """The fuzz target: raises on any violation."""
    if not data:
        return
    dialect = "sh" if data[0] & 1 else "bash"
    limits = LIMITS[(data[0] >> 1) & 3]
    text = decode(data[1:]).text
    result = check_source(text, Options(dialect=dialect, limits=limits))
    _sane(text, result)
    if data[0] % 8 == 0 and "\r" not in text and "\n" in text and len(text) < 20_000:
        crlf = text.replace("\n", "\r\n")
        other = check_source(crlf, Options(dialect=dialect))
        _sane(crlf, other)
        want = _places(text, result)
        line, col = LineIndex(crlf).position(crlf.index("\r"))
        want.add(("QC002", line, col))
        if _places(crlf, other) != want:
            raise Violation(f"CRLF findings differ: {sorted(_places(crlf, other) ^ want)}")


# --------------------------------------------------------------------------------------------
# Without atheris: mutate seeds in a loop
# --------------------------------------------------------------------------------------------

_TOKENS = [
    b"'", b'"', b"`", b"$(", b"${", b"$((", b"))", b"(", b")", b"{", b"}", b"\\", b"\n", b" ",
    b";", b"&", b"&&", b"||", b"|", b"<<EOF\n", b"<<'EOF'\n", b"<<-EOF\n", b"EOF\n", b"#",
    b"if true; then ", b"; fi", b"while :; do ", b"; done", b"case x in a) ", b";; esac",
    b"f() { ", b"ssh h ", b"sh -c ", b"bash -c ", b"sudo ", b"eval ", b"xargs ", b"awk ",
    b"$'", b"\\'", b"'\\''", b"\r\n", b"\r", b"\x00", b"\xff", b"\xe2\x82", b"\xc3\xa9",
    b"$HOME", b"$1", b"$@", b"*", b"~", b"[[ ", b" ]]", b"<(", b">(", b"<<<", b"2>&1",
    b"# quotecheck: disable=QC101\n", b"kill $$", b"nohup ", b" &\n",
]


def _seeds(dirs: list[Path]) -> list[bytes]:
    found = [p.read_bytes() for p in sorted(ROOT.glob("fixtures/*/*.sh"))]
    for d in dirs:
        if d.is_dir():
            found += [p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()]
    return found or [b"echo hi\n"]


def _mutate(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(7)
        at = rng.randint(0, len(out))
        if op == 0 and out:  # flip a byte
            i = rng.randrange(len(out))
            out[i] = rng.randrange(256)
        elif op == 1:  # insert a token
            out[at:at] = rng.choice(_TOKENS)
        elif op == 2 and out:  # delete a range
            del out[at:at + rng.randint(1, 16)]
        elif op == 3 and out:  # repeat a range (nesting, long lines)
            piece = bytes(out[at:at + rng.randint(1, 12)])
            out[at:at] = piece * rng.choice([2, 3, 10, 100, 1000])
        elif op == 4:  # splice in part of another seed
            other = rng.choice(seeds)
            a = rng.randint(0, len(other))
            out[at:at] = other[a:a + rng.randint(1, 200)]
        elif op == 5:  # nest
            opener, closer = rng.choice([(b"$(", b")"), (b'"$(', b')"'), (b"sh -c '", b"'"),
                                         (b"if :; then ", b"; fi"), (b"{ ", b"; }")])
            n = rng.choice([2, 10, 70, 500])
            out[:] = opener * n + bytes(out) + closer * n
        else:  # truncate
            del out[at:]
    return bytes([rng.randrange(256)]) + bytes(out)


def _save(kind: str, data: bytes, note: str, where: Path = CRASHES) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{kind}-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    path.with_suffix(".txt").write_text(note)
    return path


def loop(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    seeds = _seeds([Path(d) for d in args.corpus])
    current: list[bytes] = [b""]
    started_at = [time.monotonic()]

    def watchdog() -> None:
        while True:
            time.sleep(1)
            if time.monotonic() - started_at[0] > args.input_timeout:
                # where every thread is (the main one runs the checker): the cause of the hang
                stacks = "".join(
                    f"\nthread {ident}:\n" + "".join(traceback.format_stack(frame))
                    for ident, frame in sys._current_frames().items())
                path = _save("hang", current[0], f"no result after {args.input_timeout} s\n"
                             f"{stacks}", args.crashes)
                sys.stderr.write(f"\nHANG: {path} (reproduce: python3 fuzz/atheris_check.py "
                                 f"--loop --reproduce {path})\n")
                sys.stderr.flush()
                os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()
    deadline = time.monotonic() + args.time_budget
    runs = failures = 0
    while time.monotonic() < deadline:
        data = _mutate(rng, rng.choice(seeds), seeds)
        current[0] = data
        started_at[0] = time.monotonic()
        try:
            check_one(data)
        except Exception:
            failures += 1
            path = _save("crash", data, traceback.format_exc(), args.crashes)
            sys.stderr.write(f"\nCRASH: {path}\n{traceback.format_exc()}\n")
            if not args.keep_going:
                return 1
        runs += 1
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if peak_mb > args.rss_limit_mb:
            path = _save("oom", data, f"peak memory {peak_mb:.0f} MB", args.crashes)
            sys.stderr.write(f"\nMEMORY: {path}: peak {peak_mb:.0f} MB\n")
            return 2
        if runs % 100 == 0:
            sys.stderr.write(f"\r{runs} inputs, {failures} failures, peak {peak_mb:.0f} MB")
            sys.stderr.flush()
    sys.stderr.write(f"\n{runs} inputs in {args.time_budget:g} s, {failures} failures\n")
    return 1 if failures else 0


def main() -> int:
    if atheris is not None and "--loop" not in sys.argv:
        atheris.Setup(sys.argv, check_one)
        atheris.Fuzz()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loop", action="store_true", help="mutation loop (no atheris)")
    parser.add_argument("--time-budget", type=float, default=600, help="seconds in all")
    parser.add_argument("--input-timeout", type=float, default=120,
                        help="seconds one input may take before it counts as a hang")
    parser.add_argument("--rss-limit-mb", type=float, default=3072)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep-going", action="store_true", help="do not stop at a crash")
    parser.add_argument("--reproduce", type=Path, help="run one saved input and show the error")
    parser.add_argument("--crashes", type=Path, default=CRASHES,
                        help="where failing inputs are saved (default: fuzz/crashes)")
    parser.add_argument("corpus", nargs="*", help="directories of seed inputs")
    args = parser.parse_args()
    if args.reproduce is not None:
        check_one(args.reproduce.read_bytes())
        print("no failure")
        return 0
    return loop(args)


if __name__ == "__main__":
    sys.exit(main())
