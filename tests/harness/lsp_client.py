"""A small LSP client for the tests and benchmarks: the real ``quotecheck lsp`` process over
stdio, JSON-RPC with Content-Length framing, every wait bounded.

A reader thread takes the server's messages off its stdout: responses are matched to their
requests, notifications are kept in order (``wait_for`` looks through them), and requests from
the server (``client/registerCapability``, ``workspace/configuration`` ...) get a null answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0  # seconds any one wait may take


class LspError(Exception):
    pass


def server_command() -> list[str]:
    return [sys.executable, "-m", "quotecheck", "lsp"]


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def _read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    length: int | None = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise LspError("a message without Content-Length")
    body = stream.read(length)
    if len(body) < length:
        return None
    message: dict[str, Any] = json.loads(body.decode("utf-8"))
    return message


class LspClient:
    def __init__(self, cwd: Path | None = None, args: list[str] | None = None) -> None:
        self.process = subprocess.Popen(
            args or server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=str(cwd or REPO), env=server_env())
        self.next_id = 0
        self.lock = threading.Lock()
        self.responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        self.stderr_lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_reader.start()

    # -- the wire --------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        with self.lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def _read(self) -> None:
        assert self.process.stdout is not None
        while True:
            try:
                message = _read_message(self.process.stdout)
            except (OSError, ValueError, LspError):
                message = None
            if message is None:
                with self.arrived:
                    self.arrived.notify_all()
                return
            if "method" in message and "id" in message:  # a request from the server
                self._send({"id": message["id"], "result": None})
                with self.arrived:
                    self.notifications.append(message)
                    self.arrived.notify_all()
            elif "method" in message:
                message["received"] = time.monotonic()  # for benchmarks/lsp_speed.py
                with self.arrived:
                    self.notifications.append(message)
                    self.arrived.notify_all()
            else:
                box = self.responses.get(message.get("id", -1))
                if box is not None:
                    box.put(message)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.stderr_lines.append(raw.decode("utf-8", "replace"))

    # -- requests and notifications ----------------------------------------------------------

    def request(self, method: str, params: Any, timeout: float = TIMEOUT) -> Any:
        with self.lock:
            self.next_id += 1
            msg_id = self.next_id
        box: queue.Queue[dict[str, Any]] = queue.Queue()
        self.responses[msg_id] = box
        self._send({"id": msg_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    reply = box.get(timeout=0.2)
                    break
                except queue.Empty:
                    gone = self.process.poll() is not None and not self.reader.is_alive()
                    if gone or time.monotonic() > deadline:
                        why = "the server exited" if gone else f"no answer within {timeout} s"
                        raise LspError(f"{method}: {why}; server stderr:\n"
                                       + "".join(self.stderr_lines[-40:])) from None
        finally:
            self.responses.pop(msg_id, None)
        if "error" in reply:
            raise LspError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def wait_for(self, match: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT,
                 after: int = 0) -> dict[str, Any]:
        """The first notification (from index ``after`` on) that ``match`` accepts."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                for message in self.notifications[after:]:
                    if match(message):
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.process.poll() is not None
                                      and not self.reader.is_alive()):
                    raise LspError(f"no matching notification within {timeout} s; got "
                                   f"{[m.get('method') for m in self.notifications[after:]]}; "
                                   "server stderr:\n" + "".join(self.stderr_lines[-40:]))
                self.arrived.wait(remaining)

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = TIMEOUT,
                    after: int = 0) -> list[dict[str, Any]]:
        """The diagnostics of the first publishDiagnostics for ``uri`` (and ``version``)."""
        def match(m: dict[str, Any]) -> bool:
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            params = m["params"]
            return bool(params["uri"] == uri and (version is None
                                                  or params.get("version") == version))
        found: list[dict[str, Any]] = self.wait_for(match, timeout, after)["params"][
            "diagnostics"]
        return found

    # -- the session ---------------------------------------------------------------------------

    def initialize(self, root: Path | None = None, capabilities: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
        root = root or REPO
        result: dict[str, Any] = self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": capabilities if capabilities is not None else {
                "workspace": {"workspaceEdit": {"documentChanges": True}},
                "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                                 "publishDiagnostics": {"versionSupport": True}},
            },
        })
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, language_id: str = "shellscript",
             version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language_id, "version": version, "text": text}})

    def change(self, uri: str, version: int, text: str,
               range_: dict[str, Any] | None = None) -> None:
        change: dict[str, Any] = {"text": text}
        if range_ is not None:
            change["range"] = range_
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})

    def shutdown_and_exit(self, timeout: float = TIMEOUT) -> int:
        self.request("shutdown", None, timeout)
        self.notify("exit", None)
        return self.wait(timeout)

    def wait(self, timeout: float = TIMEOUT) -> int:
        try:
            return self.process.wait(timeout)
        finally:
            self.close()

    def close(self) -> None:
        """Stop the server process if it still runs (this client's own, by its pid)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- edits, as a client applies them ---------------------------------------------------------

def offset_of(text: str, position: dict[str, int], encoding: str = "utf-16") -> int:
    """The code-point offset of an LSP position, the column counted in ``encoding`` units."""
    lines = text.split("\n")
    line = position["line"]
    if line >= len(lines):
        return len(text)
    start = sum(len(x) + 1 for x in lines[:line])
    units = 0
    for k, ch in enumerate(lines[line]):
        if units >= position["character"]:
            return start + k
        units += len(ch.encode({"utf-8": "utf-8", "utf-16": "utf-16-le",
                                "utf-32": "utf-32-le"}[encoding])) // {
            "utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    return start + len(lines[line])


def apply_edits(text: str, edits: list[dict[str, Any]], encoding: str = "utf-16") -> str:
    spans = [(offset_of(text, e["range"]["start"], encoding),
              offset_of(text, e["range"]["end"], encoding), e["newText"]) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def workspace_edits(edit: dict[str, Any], uri: str) -> list[dict[str, Any]]:
    """The TextEdits of a WorkspaceEdit for ``uri`` (``changes`` or ``documentChanges``)."""
    if "documentChanges" in edit:
        return [e for change in edit["documentChanges"]
                if change["textDocument"]["uri"] == uri for e in change["edits"]]
    found: list[dict[str, Any]] = edit.get("changes", {}).get(uri, [])
    return found
