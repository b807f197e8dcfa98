"""``check --format github``: workflow commands that annotate a pull request."""

from __future__ import annotations

from quotecheck.diagnostics import Diagnostic
from quotecheck.output.terminal import printable
from quotecheck.positions import LineIndex

COMMAND = {"error": "error", "warning": "warning", "info": "notice", "hint": "notice"}


def _escape_data(text: str) -> str:
    # The runner decodes these three; every other control character is made visible first,
    # so no escape sequence reaches the log and no `::` or `##[` starts a command.
    text = printable(text).replace("##[", "#\\#[")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(path: str, index: LineIndex, diagnostics: list[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        sl, sc = index.position(d.span[0])
        el, ec = index.position(max(d.span[1], d.span[0] + 1))
        props = (f"file={_escape_property(path)},line={sl + 1},col={sc + 1},"
                 f"endLine={el + 1},endColumn={ec + 1},title={_escape_property(d.code)}")
        # The annotation's first line is the summary, the explanation below it (each escaped on
        # its own: a newline in the input is shown, not taken for a line break).
        text = _escape_data(f"{d.code} {d.summary}")
        if d.explanation:
            text += "%0A%0A" + _escape_data(d.explanation)
        lines.append(f"::{COMMAND[d.severity]} {props}::{text}")
    return "\n".join(lines) + ("\n" if lines else "")
