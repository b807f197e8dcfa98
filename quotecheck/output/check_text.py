"""``check --format full`` (the default) and ``concise``: the text formats people read.

full: ``path:line:col: severity QCnnn summary``, the source line with a caret under the span and
the layer chain beside it, then the explanation; concise: ``path:line:col: QCnnn summary``.

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
DEFAULT_WIDTH = 100  # columns explanations are wrapped to when the terminal's is not known
MIN_WRAP = 40  # an explanation's lines are at least this wide, however narrow the terminal
# Lines of explanation shown per finding: the seed script's nine findings (seven rules) fit on
# one screen with them. `--format json` (`data.explanation`) and `quotecheck rule` have all.
EXPLANATION_LINES = 3


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


Cells = tuple[list[tuple[str, int]], int]  # a line's _cells and their total width


def line_cells(text: str) -> Cells:
    cells = _cells(text)
    return cells, sum(w for _, w in cells)


def snippet(text: str, start: int, end: int, shown_cells: Cells | None = None
            ) -> tuple[str, int, int]:
    """The part of ``text`` shown for the span ``[start, end)`` of its characters: the shown
    line, and the column and width of the caret under it. ``shown_cells`` is
    ``line_cells(text)`` when the caller has it already (many findings on one long line: each
    would otherwise redo the whole line, quadratic in its length)."""
    cells, total = shown_cells if shown_cells is not None else line_cells(text)
    start = min(start, len(cells))
    end = max(min(end, len(cells)), start)
    first = start
    before = 0
    while first > 0 and before + cells[first - 1][1] <= SNIPPET_BEFORE:
        first -= 1
        before += cells[first][1]
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


def _sentences(text: str) -> list[str]:
    """``text`` cut after each top-level full stop (not in backticks or brackets)."""
    from quotecheck.summaries import top_level_stops

    out, start = [], 0
    for stop in top_level_stops(text):
        out.append(text[start:stop + 1].strip())
        start = stop + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def explanation_lines(text: str, indent: int, width: int,
                      limit: int = EXPLANATION_LINES) -> list[str]:
    """The explanation wrapped to ``width``, in at most ``limit`` lines: when it is longer,
    its first sentences and its last one (where the rules say what to do instead), with ``…``
    for what is left out between them."""
    lines = _wrapped(text, indent, width)
    if len(lines) <= limit:
        return lines
    sentences = _sentences(text)
    last = sentences[-1] if len(sentences) > 1 else ""
    if last and len(_wrapped(last, indent, width)) < limit:
        best = _wrapped(f"… {last}", indent, width)
        for n in range(1, len(sentences) - 1):
            tried = _wrapped(" ".join(sentences[:n]) + f" … {last}", indent, width)
            if len(tried) > limit:
                break
            best = tried
        return best
    lines = lines[:limit]
    lines[-1] = lines[-1].rstrip(" ,;:") + " …"
    return lines


def _fitted(text: str, room: int) -> str:
    """``text`` cut at a space to ``room`` characters (at least MIN_WRAP), ending in ``…``."""
    room = max(room, MIN_WRAP)
    if len(text) <= room:
        return text
    cut = text.rfind(" ", 0, room - 1)
    return text[:cut if cut > room // 2 else room - 1].rstrip(" ,;:") + "…"


def _wrapped(text: str, indent: int, width: int) -> list[str]:
    """``text`` (from a message: made printable) wrapped to ``width`` columns, indented."""
    import textwrap

    return textwrap.wrap(printable(text), max(MIN_WRAP, width - indent),
                         initial_indent=" " * indent, subsequent_indent=" " * indent,
                         break_on_hyphens=False, break_long_words=False)


def render_text(path: str, index: LineIndex, diagnostics: list[Diagnostic], style: Style,
                width: int = DEFAULT_WIDTH) -> str:
    """The full format: each finding's summary line, its source line with a caret and the
    layer chain, related places, and the explanation wrapped to ``width`` columns; a rule that
    fires again in the same file is not explained again."""
    out: list[str] = []
    shown_path = printable(path)
    explained: set[str] = set()
    # The last line shown: its text, whether it is blank, its cells (once per line, not per
    # finding: a long line with many findings would cost its length times theirs).
    last: tuple[int, str, bool, Cells | None] = (-1, "", False, None)
    for d in diagnostics:
        line, col = index.position(d.span[0])
        end_line, end_col = index.position(d.span[1])
        out.append(f"{style.bold(f'{shown_path}:{line + 1}:{col + 1}:')} "
                   f"{style.severity(d.severity)} {style.bold(d.code)} {printable(d.summary)}")
        if last[0] != line:
            text = index.line_text(line) if index.starts else ""
            last = (line, text, bool(text.strip()), None)
        text = last[1]
        gutter = " " * len(f"{line + 1}")
        chain = printable(" -> ".join(d.layers)) if len(d.layers) > 1 else ""
        if last[2]:
            stop = end_col if end_line == line else len(text)
            if last[3] is None:
                last = (line, text, True, line_cells(text))
            shown, column, caret = snippet(text, col, stop, last[3])
            out.append(f" {line + 1} | {shown}")
            under = f" {gutter} | {' ' * column}"
            if chain and len(under) + caret + 1 + len(chain) <= width:
                out.append(f"{under}{style.caret('^' * caret)} {style.dim(chain)}")
                chain = ""
            else:
                out.append(f"{under}{style.caret('^' * caret)}")
        if chain:
            out.append(f" {gutter} = {style.dim(chain)}")
        for r in d.related:
            rl, rc = index.position(r.span[0])
            where = f"{shown_path}:{rl + 1}:{rc + 1}:"
            said = _fitted(printable(r.message), width - len(gutter) - len(where) - 5)
            out.append(f" {gutter} = {style.dim(where)} {said}")
        if d.explanation and d.code not in explained:
            explained.add(d.code)
            out.extend(explanation_lines(d.explanation, len(gutter) + 3, width))
    return "".join(ci_safe(line) + "\n" for line in out)


def render_concise(path: str, index: LineIndex, diagnostics: list[Diagnostic],
                   style: Style) -> str:
    """``path:line:col: CODE summary``, one line per finding (as ruff's and gcc's)."""
    shown_path = printable(path)
    out = []
    for d in diagnostics:
        line, col = index.position(d.span[0])
        out.append(f"{style.bold(f'{shown_path}:{line + 1}:{col + 1}:')} "
                   f"{style.bold(d.code)} {printable(d.summary)}")
    return "".join(ci_safe(line) + "\n" for line in out)
