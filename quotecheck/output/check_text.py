"""``check --format text``: ``path:line:col: severity QCnnn message``, the line, a caret span.

Everything taken from the input (the path, the source line, values quoted in messages) is
printed through :mod:`quotecheck.output.terminal`, and a long source line is cut to a window
around the caret, so that one finding is a few short lines whatever the input holds.
"""

from __future__ import annotations

from quotecheck.diagnostics import Diagnostic
from quotecheck.output.style import Style
from quotecheck.output.terminal import TAB_STOP, char_width, ci_safe, needs_escape, printable
from quotecheck.positions import LineIndex

SNIPPET_WIDTH = 100  # columns of source shown around a caret
SNIPPET_BEFORE = 40  # of which at most this many before it


def _cells(text: str) -> list[tuple[str, int]]:
    """Each character of a source line as it is shown, with the columns it takes."""
    cells: list[tuple[str, int]] = []
    column = 0
    for ch in text:
        if ch == "\t":
            shown = " " * (TAB_STOP - column % TAB_STOP)
            cells.append((shown, len(shown)))
        elif needs_escape(ch):
            shown = printable(ch)
            cells.append((shown, len(shown)))
        else:
            cells.append((ch, char_width(ch)))
        column += cells[-1][1]
    return cells


def snippet(text: str, start: int, end: int) -> tuple[str, int, int]:
    """The part of ``text`` shown for the span ``[start, end)`` of its characters: the shown
    line, and the column and width of the caret under it."""
    cells = _cells(text)
    start = min(start, len(cells))
    end = max(min(end, len(cells)), start)
    first = start
    before = 0
    while first > 0 and before + cells[first - 1][1] <= SNIPPET_BEFORE:
        first -= 1
        before += cells[first][1]
    total = sum(w for _, w in cells)
    if total <= SNIPPET_WIDTH:
        first = 0
    last = first
    used = 0
    while last < len(cells) and used + cells[last][1] <= SNIPPET_WIDTH:
        used += cells[last][1]
        last += 1
    lead = "…" if first > 0 else ""
    tail = "…" if last < len(cells) else ""
    shown = lead + "".join(s for s, _ in cells[first:last]) + tail
    column = len(lead) + sum(w for _, w in cells[first:start])
    caret = sum(w for _, w in cells[start:min(end, last)])
    return shown, column, max(1, caret)


def render_text(path: str, index: LineIndex, diagnostics: list[Diagnostic], style: Style) -> str:
    out: list[str] = []
    shown_path = printable(path)
    for d in diagnostics:
        line, col = index.position(d.span[0])
        end_line, end_col = index.position(d.span[1])
        out.append(f"{style.bold(f'{shown_path}:{line + 1}:{col + 1}:')} "
                   f"{style.severity(d.severity)} {style.bold(d.code)} {printable(d.message)}")
        text = index.line_text(line) if index.starts else ""
        if text.strip():
            number = f"{line + 1}"
            gutter = " " * len(number)
            stop = end_col if end_line == line else len(text)
            shown, column, caret = snippet(text, col, stop)
            out.append(f" {number} | {shown}")
            out.append(f" {gutter} | {' ' * column}{style.caret('^' * caret)}")
            if len(d.layers) > 1:
                out.append(f" {gutter} = {style.dim(printable(' -> '.join(d.layers)))}")
        for r in d.related:
            rl, rc = index.position(r.span[0])
            out.append(f" {' ' * len(str(line + 1))} = "
                       f"{style.dim(f'{shown_path}:{rl + 1}:{rc + 1}:')} {printable(r.message)}")
    return "".join(ci_safe(line) + "\n" for line in out)
