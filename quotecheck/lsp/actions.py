"""Code actions, as LSP JSON: each fix of a diagnostic, a disable directive, fix all safe.

Every edit is computed from the check of the document's current text (the server answers only
when the two agree), so the offsets are right for the text the editor has. Edits go in a
versioned ``documentChanges`` entry where the client supports it: a client whose document has
moved on refuses them instead of applying them in the wrong place.
"""

from __future__ import annotations

from typing import Any

from quotecheck.lazy_regex import lazy_compile
from quotecheck.lsp.engine import (
    CheckOutcome,
    Diagnostic,
    Encoding,
    Fix,
    LineIndex,
    lsp_diagnostic,
)
from quotecheck.lsp.positions import range_json, touches
from quotecheck.records import FrozenRecord

QUICKFIX = "quickfix"
FIX_ALL = "source.fixAll.quotecheck"
_DIRECTIVE_LINE = lazy_compile(r"(?P<head>[ \t]*#\s*quotecheck\s*:\s*disable=)"
                             r"(?P<codes>[A-Za-z0-9]+(?:,[A-Za-z0-9]+)*)(?P<tail>[ \t]*)")


class Document(FrozenRecord):
    """The document the actions are for, and how the client wants edits."""

    uri: str
    version: int | None
    outcome: CheckOutcome  # the check of its current text
    encoding: Encoding
    versioned_edits: bool = True  # the client supports documentChanges
    disabled_support: bool = False  # the client shows actions that cannot be applied

    @property
    def text(self) -> str:
        return self.outcome.text


def wanted(kind: str, only: list[str] | None) -> bool:
    """LSP's kind filter: ``source.fixAll`` asks for ``source.fixAll.quotecheck`` too."""
    return only is None or any(kind == k or kind.startswith(k + ".") for k in only)


def workspace_edit(doc: Document, edits: list[tuple[tuple[int, int], str]],
                   index: LineIndex) -> dict[str, Any]:
    text_edits = [{"range": range_json(index, span, doc.encoding), "newText": new}
                  for span, new in edits]
    if doc.versioned_edits:
        return {"documentChanges": [{"textDocument": {"uri": doc.uri, "version": doc.version},
                                     "edits": text_edits}]}
    return {"changes": {doc.uri: text_edits}}


def _fix_title(d: Diagnostic, fix: Fix) -> str:
    if fix.applicability == "safe":
        return f"{d.code}: {fix.title}"
    if fix.applicability == "unsafe":
        return f"{d.code}: {fix.title} (unsafe: changes behaviour)"
    return f"{d.code}: {fix.title} (suggestion only: review it by hand)"


def fix_actions(doc: Document, d: Diagnostic, diagnostic: dict[str, Any],
                index: LineIndex) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for fix in d.fixes:
        if not fix.edits:
            continue
        action: dict[str, Any] = {
            "title": _fix_title(d, fix),
            "kind": QUICKFIX,
            "diagnostics": [diagnostic],
            "edit": workspace_edit(doc, [(e.span, e.text) for e in fix.edits], index),
        }
        if fix.applicability == "safe":
            action["isPreferred"] = True
        elif fix.applicability == "display-only":
            if not doc.disabled_support:
                continue
            action["disabled"] = {"reason": "quotecheck shows this fix but never applies it: "
                                            "review the change and make it by hand"}
        out.append(action)
    return out


def disable_edit(text: str, top_spans: tuple[tuple[int, int], ...], d: Diagnostic
                 ) -> tuple[tuple[tuple[int, int], str], bool] | None:
    """The edit that adds ``# quotecheck: disable=CODE`` before the top-level command holding
    the diagnostic, and whether it covers the whole file (a directive before the first command
    does); None where no directive line can go (no command, or a heredoc starts before it)."""
    if not top_spans:
        return None
    offset = d.span[0]
    k = 0
    for i, (a, _) in enumerate(top_spans):
        if a <= offset:
            k = i
    start = top_spans[k][0]
    newline = "\r\n" if "\r\n" in text else "\n"
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    indent = before[: len(before) - len(before.lstrip(" \t"))]
    if before.strip() == "":
        prev_end = line_start - 1  # the previous line's newline
        if prev_end > 0:
            prev_start = text.rfind("\n", 0, prev_end) + 1
            prev = text[prev_start:prev_end].rstrip("\r")
            m = _DIRECTIVE_LINE.fullmatch(prev)
            if m:  # a directive right above: add the code to it
                at = prev_start + m.end("codes")
                return ((at, at), f",{d.code}"), k == 0
        return ((line_start, line_start), f"{indent}# quotecheck: disable={d.code}{newline}"), \
            k == 0
    if "<<" in before:  # a heredoc's body starts on the next line: no line can go in between
        return None
    cut = start
    while cut > line_start and text[cut - 1] in " \t":
        cut -= 1
    return ((cut, start), f"{newline}{indent}# quotecheck: disable={d.code}{newline}{indent}"), \
        k == 0


def disable_action(doc: Document, d: Diagnostic, diagnostic: dict[str, Any],
                   index: LineIndex) -> dict[str, Any] | None:
    found = disable_edit(doc.text, doc.outcome.top_spans, d)
    if found is None:
        return None
    edit, whole_file = found
    where = "this file" if whole_file else "this command"
    return {
        "title": f"Disable {d.code} for {where} (# quotecheck: disable={d.code})",
        "kind": QUICKFIX,
        "diagnostics": [diagnostic],
        "edit": workspace_edit(doc, [edit], index),
    }


def minimal_edit(old: str, new: str) -> tuple[tuple[int, int], str]:
    """One edit turning ``old`` into ``new``: the part between their common start and end."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return (start, len(old) - end), new[start:len(new) - end]


def has_safe_fix(outcome: CheckOutcome) -> bool:
    return any(f.applicability == "safe" and f.edits for d in outcome.diagnostics
               for f in d.fixes)


def fix_all_action(doc: Document, fixed: str | None) -> dict[str, Any]:
    """"Fix all safe" for the document; without ``fixed`` it carries no edit yet (the client
    resolves it: codeAction/resolve)."""
    action: dict[str, Any] = {"title": "quotecheck: fix all safe findings", "kind": FIX_ALL,
                              "data": {"uri": doc.uri, "version": doc.version}}
    if fixed is not None:
        edits = [] if fixed == doc.text else [minimal_edit(doc.text, fixed)]
        action["edit"] = workspace_edit(doc, edits, LineIndex(doc.text))
    return action


def quick_actions(doc: Document, span: tuple[int, int], only: list[str] | None
                  ) -> list[dict[str, Any]]:
    """The quick fixes and disable directives of the diagnostics that touch ``span``."""
    if not wanted(QUICKFIX, only):
        return []
    index = LineIndex(doc.text)
    fixes: list[dict[str, Any]] = []
    disables: list[dict[str, Any]] = []
    for d in doc.outcome.diagnostics:
        if not touches(d.span, span):
            continue
        diagnostic = lsp_diagnostic(d, index, doc.encoding, doc.uri)
        fixes.extend(fix_actions(doc, d, diagnostic, index))
        action = disable_action(doc, d, diagnostic, index)
        if action is not None and all(action["edit"] != a["edit"] for a in disables):
            disables.append(action)
    return fixes + disables
