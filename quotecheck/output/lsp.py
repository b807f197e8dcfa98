"""LSP-shaped diagnostics: what editors, the explain contract and ``check --format json`` use."""

from __future__ import annotations

from typing import Any

from quotecheck.diagnostics import LSP_SEVERITY, Diagnostic
from quotecheck.positions import Encoding, LineIndex


def rule_href(code: str, template: str | None = None) -> str:
    """Where a rule's document is: ``template`` with ``{code}`` (and ``{version}``) filled in
    when the settings name one (`doc-url`), else the document shipped in the installed package,
    which exists wherever quotecheck runs."""
    if template:
        from quotecheck import __version__

        return template.format(code=code, version=__version__)
    from quotecheck.rules.registry import doc_path

    return doc_path(code).resolve().as_uri()


def lsp_range(index: LineIndex, span: tuple[int, int], encoding: Encoding) -> dict[str, Any]:
    sl, sc = index.position(span[0], encoding)
    el, ec = index.position(span[1], encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def lsp_diagnostic(d: Diagnostic, index: LineIndex, encoding: Encoding, uri: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "range": lsp_range(index, d.span, encoding),
        "severity": LSP_SEVERITY[d.severity],
        "code": d.code,
        "codeDescription": {"href": rule_href(d.code)},
        "source": "quotecheck",
        "message": d.summary,  # one line; the explanation is in data
    }
    if d.related:
        out["relatedInformation"] = [
            {"location": {"uri": uri, "range": lsp_range(index, r.span, encoding)},
             "message": r.message}
            for r in d.related
        ]
    out["data"] = {
        "rule": d.name,
        "explanation": d.explanation,
        "layers": list(d.layers),
        "fixes": [
            {
                "title": f.title,
                "applicability": f.applicability,
                "edits": [{"range": lsp_range(index, e.span, encoding), "newText": e.text}
                          for e in f.edits],
            }
            for f in d.fixes
        ],
    }
    return out
