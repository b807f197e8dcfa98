"""``check --format sarif``: SARIF 2.1.0 as GitHub code scanning accepts it."""

from __future__ import annotations

from typing import Any

from quotecheck import __version__
from quotecheck.diagnostics import Diagnostic
from quotecheck.positions import LineIndex
from quotecheck.rules.api import Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def rule_descriptor(rule: Rule, doc: str | None) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _section(doc, "What it finds") or rule.summary},
        # The document itself, and no helpUri: SARIF wants an absolute URI there (2.1.0,
        # 3.49.12), the documents have no public address, and a file URI would name a path on
        # the machine that wrote the log.
        "help": {"text": doc or rule.summary, "markdown": doc or rule.summary},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
    }


def _section(doc: str | None, title: str) -> str | None:
    if not doc:
        return None
    marker = f"## {title}\n"
    start = doc.find(marker)
    if start < 0:
        return None
    rest = doc[start + len(marker):]
    end = rest.find("\n## ")
    return (rest if end < 0 else rest[:end]).strip()


def artifact_uri(path: str) -> str:
    """A relative path as a SARIF artifact URI reference: percent-encoded, `/`-separated."""
    from urllib.parse import quote

    return quote(path.replace("\\", "/"), safe="/")


def result(d: Diagnostic, uri: str, index: LineIndex) -> dict[str, Any]:
    sl, sc = index.position(d.span[0])
    el, ec = index.position(max(d.span[1], d.span[0] + 1))
    return {
        "ruleId": d.code,
        "level": LEVEL[d.severity],
        # The summary is the text tools show in a list; the explanation follows in markdown.
        "message": {"text": d.summary,
                    "markdown": f"{d.summary}\n\n{d.explanation}" if d.explanation
                    else d.summary},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": {"startLine": sl + 1, "startColumn": sc + 1, "endLine": el + 1,
                       "endColumn": ec + 1},
        }}],
        "properties": {"layers": list(d.layers)},
    }


def document(rules: list[tuple[Rule, str | None]], results: list[dict[str, Any]]
             ) -> dict[str, Any]:
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "quotecheck",
                "version": __version__,
                "rules": [rule_descriptor(r, doc) for r, doc in rules],
            }},
            "results": results,
            # Columns count characters of the decoded text, as `check --format text` does.
            "columnKind": "unicodeCodePoints",
        }],
    }
