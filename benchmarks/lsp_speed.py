#!/usr/bin/env python3
"""How long ``quotecheck lsp`` takes to show fresh diagnostics after an edit.

    python3 benchmarks/lsp_speed.py                 # a 1,000-line script, 15 edits
    python3 benchmarks/lsp_speed.py --lines 10000 --edits 5
    python3 benchmarks/lsp_speed.py --file deploy.sh

The real server process over stdio (the tests' client, tests/harness/lsp_client.py), as an
editor drives it: open the script, then N edits, each one an incremental didChange that appends
a word to a line in the middle of the script; the figure is the time from sending the didChange
to receiving the publishDiagnostics for that version (the server waits ``DEBOUNCE`` seconds
after an edit before it checks, and that wait is included). Each edit is made once the previous
one's diagnostics are in, as when someone types, pauses and looks. Printed: the median, the
fastest and the slowest; the check alone, as the server logs it (``window/logMessage``); an
edit undone (the result kept for that text is published again); and the open.

The script is built as benchmarks/speed.py builds its synthetic inputs: real shell scripts of
this machine (benchmarks/corpus.py's list) that bash -n accepts, concatenated; without any, the
repository's fixture scripts, repeated. Nothing is asserted: a shared 2-core machine is not a
stopwatch.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(HERE))

from harness.lsp_client import LspClient  # noqa: E402

CHECKED = re.compile(r"checked (?P<uri>\S+) \(version (?P<version>\d+)\) in (?P<s>[\d.]+) s")


def build_script(lines: int, out: Path) -> tuple[Path, str]:
    """A script of about ``lines`` lines, and where it came from."""
    try:
        import corpus
        import speed

        paths = corpus.collect()
        if paths:
            return speed.synthetic(paths, lines, out), "this machine's shell scripts"
    except Exception as exc:  # no corpus here: the fixtures will do
        print(f"(corpus scripts not usable: {exc})", file=sys.stderr)
    texts = [p.read_text() for p in sorted((REPO / "fixtures").rglob("*.sh"))]
    parts: list[str] = []
    total = 0
    while total < lines:
        for text in texts:
            parts.append(text if text.endswith("\n") else text + "\n")
            total += parts[-1].count("\n")
            if total >= lines:
                break
    out.write_text("".join(parts))
    return out, "the repository's fixture scripts"


def _published(client: LspClient, uri: str, version: int, after: int) -> dict[str, Any]:
    return client.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri and m["params"].get("version") == version,
        timeout=600, after=after)


def _check_time(client: LspClient, uri: str, version: int) -> float | None:
    for m in client.notifications:
        if m.get("method") == "window/logMessage":
            found = CHECKED.search(m["params"]["message"])
            if found and found["uri"] == uri and int(found["version"]) == version:
                return float(found["s"])
    return None


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1000, help="size of the script (default 1000)")
    ap.add_argument("--edits", type=int, default=15, help="edits to time (default 15)")
    ap.add_argument("--file", type=Path, help="time edits to this script instead")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="qc-lsp-speed-") as tmp:
        work = Path(tmp)
        if args.file is not None:
            script, origin = args.file.resolve(), str(args.file)
        else:
            script, origin = build_script(args.lines, work / "script.sh")
        text = script.read_text()
        lines = text.split("\n")
        uri = (work / "edited.sh").as_uri()  # not the file itself: no settings of its own
        load = os.getloadavg()[0]
        with LspClient(cwd=work) as client:
            client.initialize(work)
            sent = time.monotonic()
            client.open(uri, text)
            first = _published(client, uri, 1, 0)
            opened = first["received"] - sent
            findings = len(first["params"]["diagnostics"])

            middle = len(lines) // 2
            times: list[float] = []
            checks: list[float] = []
            version = 1
            column = len(lines[middle])
            for i in range(args.edits):
                word = f" e{i}"
                version += 1
                seen = len(client.notifications)
                sent = time.monotonic()
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {
                        "start": {"line": middle, "character": column},
                        "end": {"line": middle, "character": column}}, "text": word}]})
                times.append(_published(client, uri, version, seen)["received"] - sent)
                column += len(word)
                check = _check_time(client, uri, version)
                if check is not None:
                    checks.append(check)

            # Undo the last edit: that text was checked before, its result is kept.
            version += 1
            column -= len(f" e{args.edits - 1}")
            seen = len(client.notifications)
            sent = time.monotonic()
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {
                    "start": {"line": middle, "character": column},
                    "end": {"line": middle, "character": column + len(f" e{args.edits - 1}")}},
                    "text": ""}]})
            undone = _published(client, uri, version, seen)["received"] - sent
            status = client.shutdown_and_exit()

    from quotecheck.lsp.documents import DEBOUNCE

    print(f"quotecheck lsp: edit -> publishDiagnostics, {len(lines) - 1} lines ({origin}), "
          f"{findings} findings, {len(times)} edits, load average {load:.2f}")
    print(f"  median {ms(statistics.median(times))}, fastest {ms(min(times))}, "
          f"slowest {ms(max(times))} (including the {ms(DEBOUNCE)} debounce)")
    if checks:
        print(f"  the check alone (server log): median {ms(statistics.median(checks))}")
    print(f"  an edit undone (result kept for that text): {ms(undone)}")
    print(f"  open -> first diagnostics: {ms(opened)}")
    print(f"  server exit status after shutdown/exit: {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
