"""``check --format text``: ``path:line:col: severity QCnnn message``, the line, a caret span."""

from __future__ import annotations

from quotecheck.diagnostics import Diagnostic
from quotecheck.output.style import Style
from quotecheck.positions import LineIndex


def render_text(path: str, index: LineIndex, diagnostics: list[Diagnostic], style: Style) -> str:
    out: list[str] = []
    for d in diagnostics:
        line, col = index.position(d.span[0])
        end_line, end_col = index.position(d.span[1])
        out.append(f"{style.bold(f'{path}:{line + 1}:{col + 1}:')} {style.severity(d.severity)} "
                   f"{style.bold(d.code)} {d.message}")
        text = index.line_text(line) if index.starts else ""
        if text.strip():
            number = f"{line + 1}"
            gutter = " " * len(number)
            shown = text.expandtabs(1)
            width = (end_col if end_line == line else len(text)) - col
            width = max(1, min(width, max(len(shown) - col, 1)))
            out.append(f" {number} | {shown}")
            out.append(f" {gutter} | {' ' * col}{style.caret('^' * width)}")
            if len(d.layers) > 1:
                out.append(f" {gutter} = {style.dim(' -> '.join(d.layers))}")
        for r in d.related:
            rl, rc = index.position(r.span[0])
            out.append(f" {' ' * len(str(line + 1))} = {style.dim(f'{path}:{rl + 1}:{rc + 1}:')}"
                       f" {r.message}")
    return "\n".join(out) + ("\n" if out else "")
