"""The pygls wiring of ``quotecheck lsp``: a language server on standard input and output.

Features: diagnostics for shell scripts on open, change (debounced) and save; hover (the layer
trace of the command under the cursor, the rule of a diagnostic); code actions (each fix, a
disable directive, fix all safe). The work is done by ``documents.py`` (when to check, in a
worker process), ``hover.py`` and ``actions.py``; this module only translates between them and
the protocol. This is the only module that imports pygls.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer

from quotecheck import __version__
from quotecheck.lsp import actions, engine, hover
from quotecheck.lsp.documents import DEBOUNCE, Document, Documents, path_of
from quotecheck.lsp.positions import encoding_of, offset_at, range_json, span_of

# How long hover and code actions wait for a pending check of the current text.
SETTLE = 5.0
_LEVELS = {"error": types.MessageType.Error, "warning": types.MessageType.Warning,
           "info": types.MessageType.Log}
# Warms the parent process up before the first fork (see warm_up).
_WARM_UP = "ssh -o BatchMode=yes h 'ps aux | grep x | awk \"{print \\$2}\" | xargs kill'\n" \
           "source ./env; cd /tmp && echo ok\n"

logger = logging.getLogger(__name__)


def _function(handler: Callable[..., Any]) -> Callable[..., Any]:
    """A plain function calling a bound method (pygls marks its handlers with attributes,
    which a method cannot take)."""
    if asyncio.iscoroutinefunction(handler):
        async def call_async(*args: Any) -> Any:
            return await handler(*args)
        return call_async

    def call(*args: Any) -> Any:
        return handler(*args)
    return call


def warm_up() -> None:
    """Import everything a check and a fix use, and load bashlex's tables, in this process:
    the checks run in forked children, which then start ready instead of importing it all
    once per check."""
    options = engine.Options()
    engine.check(_WARM_UP, options, None)
    engine.fix_all_safe(_WARM_UP, options, None)


class QuotecheckServer:
    def __init__(self) -> None:
        self.ls = LanguageServer("quotecheck", __version__)
        self.converter = get_converter()
        self.documents: Documents | None = None
        self.shutdown_requested = False
        self._register()

    # -- helpers ------------------------------------------------------------------------------

    def _register(self) -> None:
        features: list[tuple[str, Callable[..., Any], Any]] = [
            (types.INITIALIZE, self.initialize, None),
            (types.SHUTDOWN, self.shutdown, None),
            (types.TEXT_DOCUMENT_DID_OPEN, self.did_open, None),
            (types.TEXT_DOCUMENT_DID_CHANGE, self.did_change, None),
            (types.TEXT_DOCUMENT_DID_SAVE, self.did_save, types.SaveOptions(include_text=False)),
            (types.TEXT_DOCUMENT_DID_CLOSE, self.did_close, None),
            (types.TEXT_DOCUMENT_HOVER, self.hover, None),
            (types.TEXT_DOCUMENT_CODE_ACTION, self.code_action, types.CodeActionOptions(
                code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL],
                resolve_provider=True)),
            (types.CODE_ACTION_RESOLVE, self.resolve_code_action, None),
        ]
        for name, handler, options in features:
            self.ls.feature(name, options)(_function(handler))

    @property
    def encoding(self) -> engine.Encoding:
        return encoding_of(self.ls.workspace.position_encoding)

    def capability(self, *names: str) -> Any:
        """A client capability by its path of attribute names (None where it is absent)."""
        found: Any = self.ls.client_capabilities
        for name in names:
            found = getattr(found, name, None)
            if found is None:
                return None
        return found

    def log(self, level: str, message: str, show: bool = False) -> None:
        kind = _LEVELS.get(level, types.MessageType.Log)
        try:
            self.ls.window_log_message(types.LogMessageParams(type=kind, message=message))
            if show:
                self.ls.window_show_message(types.ShowMessageParams(type=kind, message=message))
        except Exception:  # the client has gone: nothing to tell it
            logger.exception("cannot log to the client")

    def snapshot(self, uri: str) -> tuple[str, int | None] | None:
        try:
            doc = self.ls.workspace.get_text_document(uri)
            return doc.source, doc.version
        except Exception:
            return None

    def publish(self, doc: Document, version: int | None, outcome: engine.CheckOutcome) -> None:
        index = engine.LineIndex(outcome.text)
        encoding = self.encoding
        diagnostics = [self.converter.structure(engine.lsp_diagnostic(d, index, encoding, doc.uri),
                                                types.Diagnostic)
                       for d in outcome.diagnostics]
        self.ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=doc.uri, diagnostics=diagnostics, version=version))

    def _docs(self) -> Documents:
        if self.documents is None:
            root: Path | None = None
            try:
                root_uri = self.ls.workspace.root_uri
                root = path_of(root_uri) if root_uri else None
            except Exception:
                root = None
            self.documents = Documents(self.snapshot, self.publish, self.log, root)
        return self.documents

    def _guard(self, what: str, call: Callable[[], Any]) -> Any:
        """Run a handler's body; an exception is logged to the client, never raised."""
        try:
            return call()
        except Exception as exc:
            self.log("error", f"quotecheck: {what} failed ({type(exc).__name__}: {exc}); "
                              "please report it")
            logger.exception("%s failed", what)
            return None

    # -- life cycle ---------------------------------------------------------------------------

    def initialize(self, params: types.InitializeParams) -> None:
        self._docs()

    def shutdown(self, params: Any = None) -> None:
        self.shutdown_requested = True
        if self.documents is not None:
            self.documents.close_all()

    # -- documents ----------------------------------------------------------------------------

    def _is_shell(self, uri: str, language_id: str | None) -> bool:
        snap = self.snapshot(uri)
        return snap is not None and engine.is_shell_document(path_of(uri), language_id, snap[0])

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        def body() -> None:
            item = params.text_document
            if self._is_shell(item.uri, item.language_id):
                docs = self._docs()
                docs.track(item.uri)
                docs.schedule(item.uri, 0.0)
        self._guard("opening a document", body)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        def body() -> None:
            uri = params.text_document.uri
            docs = self._docs()
            if uri not in docs.open:
                # A #! line typed into a new file makes it a shell script.
                language_id = self.ls.workspace.get_text_document(uri).language_id
                if not self._is_shell(uri, language_id):
                    return
                docs.track(uri)
            docs.schedule(uri, DEBOUNCE)
        self._guard("an edit", body)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        # At once: the settings may have changed with the save, and a result kept for this
        # text and settings is published without a new check.
        self._guard("a save", lambda: self._docs().schedule(params.text_document.uri, 0.0))

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        def body() -> None:
            uri = params.text_document.uri
            docs = self._docs()
            if uri in docs.open:
                docs.close(uri)
                self.ls.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self._guard("closing a document", body)

    # -- hover ----------------------------------------------------------------------------

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        await self._docs().settled(uri, SETTLE)

        def body() -> types.Hover | None:
            found = self._docs().current(uri)
            if found is None:
                return None
            _, outcome = found
            index = engine.LineIndex(outcome.text)
            encoding = self.encoding
            offset = offset_at(index, params.position.line, params.position.character,
                               encoding)
            shown = hover.hover_markdown(outcome, offset)
            if shown is None:
                return None
            markdown, span = shown
            formats = self.capability("text_document", "hover", "content_format") or []
            kind = (types.MarkupKind.Markdown if not formats or types.MarkupKind.Markdown in
                    formats else types.MarkupKind.PlainText)
            return types.Hover(
                contents=types.MarkupContent(kind=kind, value=markdown),
                range=self.converter.structure(range_json(index, span, encoding), types.Range))
        result: types.Hover | None = self._guard("hover", body)
        return result

    # -- code actions ---------------------------------------------------------------------------

    def _action_document(self, uri: str, version: int | None,
                         outcome: engine.CheckOutcome) -> actions.Document:
        return actions.Document(
            uri=uri, version=version, outcome=outcome, encoding=self.encoding,
            versioned_edits=bool(self.capability("workspace", "workspace_edit",
                                                 "document_changes")),
            disabled_support=bool(self.capability("text_document", "code_action",
                                                  "disabled_support")))

    def _resolves_edits(self) -> bool:
        props = self.capability("text_document", "code_action", "resolve_support", "properties")
        return bool(props) and "edit" in props

    async def code_action(self, params: types.CodeActionParams
                          ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        docs = self._docs()
        await docs.settled(uri, SETTLE)
        found = docs.current(uri)
        if found is None:
            return None
        doc, outcome = found
        only = [str(k) for k in params.context.only] if params.context.only else None

        def quick() -> list[dict[str, Any]]:
            adoc = self._action_document(uri, doc.version, outcome)
            span = span_of(engine.LineIndex(outcome.text), params.range, adoc.encoding)
            return actions.quick_actions(adoc, span, only)

        out: list[dict[str, Any]] = self._guard("code actions", quick) or []
        if actions.wanted(actions.FIX_ALL, only) and (
                only is not None or actions.has_safe_fix(outcome)):
            adoc = self._action_document(uri, doc.version, outcome)
            fixed = None if self._resolves_edits() else await docs.fixed(uri, outcome.text)
            if fixed is not None or self._resolves_edits():
                out.append(actions.fix_all_action(adoc, fixed))
        return [self.converter.structure(a, types.CodeAction) for a in out]

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        if action.kind != actions.FIX_ALL or not isinstance(uri, str):
            return action
        docs = self._docs()
        await docs.settled(uri, SETTLE)
        found = docs.current(uri)
        if found is None:
            return action
        doc, outcome = found
        fixed = await docs.fixed(uri, outcome.text)
        if fixed is None:
            return action
        resolved = actions.fix_all_action(self._action_document(uri, doc.version, outcome),
                                          fixed)
        action.edit = self.converter.structure(resolved["edit"], types.WorkspaceEdit)
        return action

    # -- running --------------------------------------------------------------------------------

    def run(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        # pygls writes each message with json.dumps's defaults: ASCII, every other character
        # (a direction mark in a message or a fix) as a \uXXXX escape, so none reaches the
        # client raw (tests/test_json_escaping.py reads the bytes).
        self.ls.start_io(stdin, stdout)
        # LSP: exit status 0 after a shutdown request, 1 when the client went without one.
        return 0 if self.shutdown_requested else 1


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """Standard input and a private copy of standard output for the protocol; file
    descriptor 1 then goes to standard error, so nothing printed by accident (a library's
    warning, a stray print) can break the message stream."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return sys.stdin.buffer, out


def serve() -> int:
    """Run the server until the client says exit, or goes away."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="quotecheck lsp: %(levelname)s %(name)s: %(message)s")
    warm_up()
    # What is loaded now is shared with every check's process: kept out of the collector's
    # sight, a child's collections do not write to (and so copy) those pages.
    gc.freeze()
    stdin, stdout = _protocol_streams()
    # Checks still running when the client goes are cancelled as the event loop ends, and
    # cancelling one kills its process (worker.py).
    return QuotecheckServer().run(stdin, stdout)
