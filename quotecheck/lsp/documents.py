"""The open shell documents and their checks: when to check, which result to keep.

Each document has at most one check in flight. An edit waits ``DEBOUNCE`` seconds for the next
one; a newer edit cancels the check of an older text (killing its process: see worker.py); open
and save check at once. A check that fails is logged and leaves the last good result (and the
diagnostics the editor shows) in place. Results are kept per text and settings, so undoing an
edit, saving an unchanged file or reopening one costs no new check.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from quotecheck.lsp import engine, worker
from quotecheck.records import Record

DEBOUNCE = 0.1  # seconds after an edit before its check starts
CACHED = 32  # results kept (all documents together)


def path_of(uri: str) -> Path | None:
    """The file of a ``file:`` URI; None for other schemes (untitled:, ...)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(unquote(parsed.path)))


def default_jobs() -> int:
    """Checks run at once: one per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class Document(Record):
    uri: str
    path: Path | None
    outcome: engine.CheckOutcome | None = None  # the last check that succeeded
    version: int | None = None  # the version of the text ``outcome`` is for
    task: asyncio.Task[None] | None = None  # the check scheduled or running


class _Results:
    """Results by (text, settings, path), least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> Any:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


Snapshot = Callable[[str], "tuple[str, int | None] | None"]  # uri -> (text, version)
Publish = Callable[[Document, "int | None", engine.CheckOutcome], None]
# (level: "error", "warning" or "info"; message; also show it to the user, not only log it)
Log = Callable[[str, str, bool], None]


class Documents:
    def __init__(self, snapshot: Snapshot, publish: Publish, log: Log,
                 root: Path | None = None, jobs: int | None = None) -> None:
        self.snapshot = snapshot  # the editor's current text of a document
        self.publish = publish
        self.log = log
        self.root = root  # where documents without a file look for settings
        self.open: dict[str, Document] = {}
        self.results = _Results(CACHED)
        self.fixes = _Results(CACHED)
        self.slots = asyncio.Semaphore(jobs or default_jobs())
        self.config_errors: set[str] = set()  # reported once each

    # -- tracking ------------------------------------------------------------------------

    def track(self, uri: str) -> Document:
        doc = self.open.get(uri)
        if doc is None:
            doc = self.open[uri] = Document(uri, path_of(uri))
        return doc

    def close(self, uri: str) -> None:
        doc = self.open.pop(uri, None)
        if doc is not None and doc.task is not None:
            doc.task.cancel()

    def close_all(self) -> None:
        for uri in list(self.open):
            self.close(uri)

    # -- checking ------------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        """Check the document's text as it is ``delay`` seconds from now; a check of an
        older text still waiting or running is cancelled."""
        doc = self.open.get(uri)
        if doc is None:
            return
        if doc.task is not None and not doc.task.done():
            doc.task.cancel()
        doc.task = asyncio.ensure_future(self._check(doc, delay))

    def _options(self, doc: Document, text: str) -> engine.Options | None:
        try:
            return engine.options_for(doc.path, text, self.root)
        except engine.ConfigError as exc:
            message = f"quotecheck: configuration error, {doc.uri} not checked: {exc}"
            first = str(exc) not in self.config_errors
            self.config_errors.add(str(exc))
            self.log("error", message, first)
            return None

    async def _check(self, doc: Document, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        snap = self.snapshot(doc.uri)
        if snap is None:
            return
        text, version = snap
        options = self._options(doc, text)
        if options is None:
            return
        limit = options.limits.max_file_size
        if len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit:
            self.log("warning", f"quotecheck: {doc.uri} not checked: it is larger than the "
                                f"max-file-size limit ({limit:,} bytes)", False)
            return
        path = str(doc.path) if doc.path is not None else None
        key = (text, repr(options), path)
        outcome: engine.CheckOutcome | None = self.results.get(key)
        if outcome is None:
            started = time.monotonic()
            async with self.slots:
                try:
                    outcome = await worker.run(engine.check, text, options, path,
                                               timeout=engine.time_limit(options))
                except worker.CheckFailed as exc:
                    self.log("error", f"quotecheck: checking {doc.uri} (version {version}) "
                                      f"failed: {exc}. The diagnostics shown are those of the "
                                      "last check that succeeded.", False)
                    return
            self.results.put(key, outcome)
            self.log("info", f"quotecheck: checked {doc.uri} (version {version}) in "
                             f"{time.monotonic() - started:.3f} s", False)
        if self.open.get(doc.uri) is not doc:
            return  # closed meanwhile
        doc.outcome, doc.version = outcome, version
        self.publish(doc, version, outcome)

    async def settled(self, uri: str, timeout: float) -> Document | None:
        """The document once its pending check (if any) is done, at most ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            doc = self.open.get(uri)
            if doc is None or doc.task is None or doc.task.done():
                return doc
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return doc
            await asyncio.wait([doc.task], timeout=remaining)

    def current(self, uri: str) -> tuple[Document, engine.CheckOutcome] | None:
        """The document and its check, if that check is of the text the editor has now."""
        doc = self.open.get(uri)
        snap = self.snapshot(uri)
        if doc is None or doc.outcome is None or snap is None or doc.outcome.text != snap[0]:
            return None
        return doc, doc.outcome

    async def fixed(self, uri: str, text: str) -> str | None:
        """``text`` with every safe fix applied (None: the fixing failed, and was logged)."""
        doc = self.open.get(uri)
        if doc is None:
            return None
        options = self._options(doc, text)
        if options is None:
            return None
        path = str(doc.path) if doc.path is not None else None
        key = (text, repr(options), path)
        found: str | None = self.fixes.get(key)
        if found is not None:
            return found
        async with self.slots:
            try:
                found = await worker.run(engine.fix_all_safe, text, options, path,
                                         timeout=4 * engine.time_limit(options))
            except worker.CheckFailed as exc:
                self.log("error", f"quotecheck: fixing {uri} failed: {exc}", False)
                return None
        self.fixes.put(key, found)
        return found
