"""``check --format json``: one LSP-shaped document for all checked files."""

from __future__ import annotations

from typing import Any

from quotecheck.diagnostics import Diagnostic
from quotecheck.output.lsp import lsp_diagnostic
from quotecheck.positions import Encoding, LineIndex

DOCUMENT_VERSION = 1


def file_entry(uri: str, path: str, index: LineIndex, diagnostics: list[Diagnostic],
               encoding: Encoding) -> dict[str, Any]:
    return {"uri": uri, "path": path,
            "diagnostics": [lsp_diagnostic(d, index, encoding, uri) for d in diagnostics]}


def document(files: list[dict[str, Any]], encoding: Encoding) -> dict[str, Any]:
    return {"version": DOCUMENT_VERSION, "positionEncoding": encoding, "files": files}
