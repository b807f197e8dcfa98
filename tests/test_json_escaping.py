"""Every JSON output carries direction marks, invisible characters and controls as ``\\uXXXX``
escapes, never raw, and decodes to exactly the text it came from; SARIF links no local file.

The commands run as real processes, so what is checked is the bytes a consumer reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.lsp_client import server_command, server_env
from hypothesis import given
from hypothesis import strategies as st

from quotecheck.output.json_text import dumps
from quotecheck.output.terminal import printable

ROOT = Path(__file__).resolve().parent.parent
# The bidirectional controls ("Trojan Source"), the line and paragraph separators, zero-width
# and byte-order marks, DEL and two C1 controls (NEL, CSI).
MARKS = ("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
         "\u2028\u2029\u200b\ufeff\x7f\x85\x9b")
# A command whose QC102 fix quotes a word holding every mark: the fix's newText holds them too.
SCRIPT = f'ssh h ls "/tmp/a b{MARKS}x"\n'


def quotecheck(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "quotecheck", *args], input=stdin, cwd=cwd,
                          capture_output=True, timeout=120, env=env)


def assert_no_raw_mark(out: bytes) -> None:
    text = out.decode("utf-8")  # strict: a lone surrogate written raw fails here too
    raw = [f"U+{ord(c):04X}" for c in MARKS if c in text]
    assert not raw, f"raw in the output: {raw}"
    assert not any(0xd800 <= ord(c) < 0xe000 for c in text)


def strings(value: Any) -> list[str]:
    """Every string in a decoded JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` with LSP edits whose positions count code points (utf-32)."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def offset(pos: dict[str, int]) -> int:
        return starts[pos["line"]] + pos["character"]

    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = (text[:offset(e["range"]["start"])] + e["newText"]
                + text[offset(e["range"]["end"]):])
    return text


# -- the serialiser ------------------------------------------------------------------------

@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=20),
       st.sampled_from([None, 2]), st.booleans())
def test_dumps_escapes_the_marks_and_decodes_to_the_same_value(
        value: Any, indent: int | None, ensure_ascii: bool) -> None:
    text = dumps(value, indent=indent, ensure_ascii=ensure_ascii)
    assert json.loads(text) == value
    assert not any(c in text for c in MARKS)
    assert not any(0xd800 <= ord(c) < 0xe000 for c in text)


def test_dumps_writes_each_mark_as_its_escape() -> None:
    assert dumps(["a\u202eb\u2028c\x7f\x85"]) == '["a\\u202eb\\u2028c\\u007f\\u0085"]'
    assert dumps({"k": "中文 é 😀"}) == '{"k": "中文 é 😀"}'  # readable text stays as it is


def test_text_formats_escape_the_line_and_paragraph_separators() -> None:
    assert printable("a\u2028b\u2029c") == "a\\u2028b\\u2029c"


# -- the commands --------------------------------------------------------------------------

def test_check_json_escapes_marks_in_paths_messages_and_fixes(tmp_path: Path) -> None:
    name = f"d{MARKS}.sh"
    (tmp_path / name).write_text(SCRIPT)
    proc = quotecheck("check", "--format", "json", "--position-encoding", "utf-32",
                      "--select", "QC102", name, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert_no_raw_mark(proc.stdout)
    entry = json.loads(proc.stdout)["files"][0]
    assert entry["path"] == name
    [d] = entry["diagnostics"]
    edits = [e for f in d["data"]["fixes"] for e in f["edits"]]
    assert any(MARKS in e["newText"] for e in edits)
    # The decoded edits make the file `quotecheck fix` makes, byte for byte.
    fixed = quotecheck("fix", "--unsafe-fixes", "--select", "QC102", name, cwd=tmp_path)
    assert apply_edits(SCRIPT, edits).encode() == fixed.stdout


def test_check_json_writes_an_undecodable_file_name_as_an_escape(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"x\xff.sh")).write_text("true\n")
    proc = quotecheck("check", "--format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_no_raw_mark(proc.stdout)  # valid UTF-8: no raw 0xff byte
    assert b'"path": "x\\udcff.sh"' in proc.stdout
    assert json.loads(proc.stdout)["files"][0]["path"] == os.fsdecode(b"x\xff.sh")


def test_sarif_escapes_marks(tmp_path: Path) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    proc = quotecheck("check", "--format", "sarif", "d.sh", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert_no_raw_mark(proc.stdout)
    assert any(MARKS in s for s in strings(json.loads(proc.stdout)))


def test_explain_json_escapes_marks_and_keeps_the_source(tmp_path: Path) -> None:
    command = SCRIPT.rstrip("\n")
    proc = quotecheck("explain", "--format", "json", command, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_no_raw_mark(proc.stdout)
    doc = json.loads(proc.stdout)
    assert doc["source"] == command
    argv = doc["layers"][0]["commands"][0]["argv"]
    assert argv[-1] == f"/tmp/a b{MARKS}x"


def test_guard_json_and_claude_code_escape_marks(tmp_path: Path) -> None:
    command = SCRIPT.rstrip("\n")
    for fmt in ("json", "claude-code"):
        proc = quotecheck("guard", "--format", fmt, "--severity", "warning", "--command",
                          command, cwd=tmp_path)
        assert_no_raw_mark(proc.stdout)
        assert json.loads(proc.stdout)
    decided = json.loads(quotecheck("guard", "--format", "json", "--severity", "warning",
                                    "--command", command, cwd=tmp_path).stdout)
    assert decided["decision"] == "block"
    assert MARKS in decided["corrected"]


def test_lsp_messages_carry_marks_as_escapes_on_the_wire(tmp_path: Path) -> None:
    """The raw frames from ``quotecheck lsp``: the published diagnostics hold the marks only as
    escapes, and decode to the document's own text."""
    proc = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=tmp_path, env=server_env())
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def send(message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def frame() -> bytes:
        length = 0
        while line := stdout.readline().strip():
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        assert length, "the server closed the stream"
        return stdout.read(length)

    uri = (tmp_path / f"d{MARKS}.sh").as_uri()
    try:
        send({"id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        send({"method": "initialized", "params": {}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "shellscript", "version": 1, "text": SCRIPT}}})
        while True:  # every frame until the diagnostics (a 60 s timeout ends a hang)
            body = frame()
            assert_no_raw_mark(body)
            message = json.loads(body)
            if message.get("method") == "textDocument/publishDiagnostics":
                break
        assert b"\\u202e" in body and b"\\u2028" in body
        edits = [e for d in message["params"]["diagnostics"] if d["code"] == "QC102"
                 for f in d["data"]["fixes"] for e in f["edits"]]
        assert any(MARKS in e["newText"] for e in edits)
        send({"id": 2, "method": "shutdown"})
        frame()
        send({"method": "exit"})
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)


# -- SARIF links ---------------------------------------------------------------------------

def test_sarif_rules_carry_their_document_and_link_no_local_file(tmp_path: Path) -> None:
    (tmp_path / "d.sh").write_text("true\n")
    proc = quotecheck("check", "--format", "sarif", "d.sh", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rules = json.loads(proc.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert rules
    for rule in rules:
        # SARIF 2.1.0 (3.49.12) wants an absolute URI there; the documents have no public
        # address, and a file URI names a path on the machine that wrote the log.
        assert "helpUri" not in rule
        doc = (ROOT / "rules" / f"{rule['id']}.md").read_text()
        assert rule["help"]["markdown"] == doc and rule["help"]["text"] == doc
