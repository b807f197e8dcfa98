"""Apply the fixes rules attach to their findings: the engine behind ``quotecheck fix``.

Each finding may carry fixes with an applicability: *safe* fixes keep the exact meaning and are
applied by default; *unsafe* ones change behaviour the user probably wants changed and need
``--unsafe-fixes``; *display-only* ones are only ever shown. Edits are offsets into the input.
Fixes whose edits overlap an already accepted fix wait for the next pass; passes repeat until
nothing changes (bounded), so a fixed text is a fixed point: fixing it again changes nothing.
"""

from __future__ import annotations

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic, Edit, Fix
from quotecheck.records import Record, field

MAX_PASSES = 8


class FixResult(Record):
    text: str
    applied: list[tuple[Diagnostic, Fix]] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)  # findings after the last pass
    passes: int = 0

    def suggestions(self) -> list[tuple[Diagnostic, Fix]]:
        """Fixes of the remaining findings that were not applied (unsafe or display-only)."""
        return [(d, f) for d in self.remaining for f in d.fixes]


def applicable(fix: Fix, unsafe: bool) -> bool:
    return fix.applicability == "safe" or (unsafe and fix.applicability == "unsafe")


def choose_fixes(diagnostics: list[Diagnostic], unsafe: bool) -> list[tuple[Diagnostic, Fix]]:
    """At most one fix per finding, none overlapping another: the fix whose edits start
    earliest wins (a fix that rewrites a whole statement goes before one that appends to it;
    the other is recomputed on the next pass), then the earlier finding."""
    chosen: list[tuple[Diagnostic, Fix]] = []
    taken: list[tuple[int, int]] = []

    def first_edit(d: Diagnostic) -> int:
        starts = [e.span[0] for f in d.fixes if applicable(f, unsafe) for e in f.edits]
        return min(starts, default=d.span[0])

    for d in sorted(diagnostics, key=lambda d: (first_edit(d), d.span[0], d.code)):
        for fix in d.fixes:
            if not applicable(fix, unsafe) or not fix.edits:
                continue
            if any(_overlaps(e.span, t) for e in fix.edits for t in taken):
                continue
            chosen.append((d, fix))
            taken.extend(e.span for e in fix.edits)
            break
    return chosen


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    # Two insertions at the same point conflict too: their order would be a guess.
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def apply_edits(text: str, edits: list[Edit]) -> str:
    out = text
    for edit in sorted(edits, key=lambda e: (e.span[0], e.span[1]), reverse=True):
        start, end = edit.span
        if not (0 <= start <= end <= len(text)):
            raise ValueError(f"edit {edit} lies outside the text")
        out = out[:start] + edit.text + out[end:]
    return out


def fix_source(source: str, options: Options | None = None, *, unsafe: bool = False,
               path: str | None = None) -> FixResult:
    """Fix ``source`` until no applicable fix is left (or MAX_PASSES)."""
    options = options or Options()
    result = FixResult(source)
    text = source
    for _ in range(MAX_PASSES):
        diagnostics = check_source(text, options, path).diagnostics
        chosen = choose_fixes(diagnostics, unsafe)
        result.remaining = diagnostics
        if not chosen:
            break
        new_text = apply_edits(text, [e for _, f in chosen for e in f.edits])
        result.passes += 1
        if new_text == text:
            break
        result.applied.extend(chosen)
        text = new_text
    else:
        result.remaining = check_source(text, options, path).diagnostics
    result.text = text
    return result
