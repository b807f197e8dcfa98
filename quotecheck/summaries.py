"""A finding's summary line as people read it, and the text of a parser's problem as a message.

A rule gives its summary and its explanation apart (``diagnostics.Message``); a summary longer
than ``SUMMARY_LIMIT`` is shortened for its line here: asides in parentheses dropped, long code
spans cut, then words. The explanation (or, without one, the whole message) keeps what that
leaves out. The parser's problems (QC001, QC002) are still one text each, written as
``what: detail``: ``problem_parts`` takes the part before the first top-level ``: ``, ``; ``
or ``. `` as the summary.
"""

from __future__ import annotations

SUMMARY_LIMIT = 120  # characters of a summary line (without the path and code before it)
CODE_SPAN_KEPT = 24  # characters a shortened code span keeps


def _top_level(message: str) -> list[tuple[int, str]]:
    """(index, character) of every character outside backticks and brackets."""
    out: list[tuple[int, str]] = []
    in_code = False
    depth = 0
    for i, ch in enumerate(message):
        if ch == "`":
            in_code = not in_code
        elif in_code:
            continue
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append((i, ch))
    return out


def top_level_stops(text: str) -> list[int]:
    """Where the sentences of ``text`` end: each top-level ``.`` before a space or the end."""
    return [i for i, ch in _top_level(text)
            if ch == "." and (i + 1 == len(text) or text[i + 1] == " ")
            and text[max(0, i - 3):i] not in ("e.g", "i.e", "etc")]


def problem_parts(text: str) -> tuple[str, str, str]:
    """(summary, joint, explanation) of a parser problem's ``text``: up to its first top-level
    ``:``, ``;`` or ``.`` followed by a space (or the end), that character, then the rest."""
    for i, ch in _top_level(text):
        if ch in ":;." and (i + 1 == len(text) or text[i + 1] == " "):
            if ch == "." and text[max(0, i - 3):i] in ("e.g", "i.e", "etc"):
                continue
            return text[:i].strip(), ch, text[i + 1:].strip()
    return text.strip(), "", ""


def _without_asides(text: str) -> str:
    """``text`` without its top-level ``( ... )`` groups (and the space before each)."""
    out: list[str] = []
    in_code = False
    depth = 0
    for ch in text:
        if ch == "`" and depth == 0:
            in_code = not in_code
        if not in_code and ch == "(":
            depth += 1
            if depth == 1:
                while out and out[-1] == " ":
                    out.pop()
                continue
        if depth:
            if not in_code and ch == ")":
                depth -= 1
            continue
        out.append(ch)
    return "".join(out)


def _short_code(text: str, kept: int) -> str:
    """``text`` with each code span longer than ``kept`` characters cut to ``kept``."""
    parts = text.split("`")
    for i in range(1, len(parts), 2):  # the odd parts are inside backticks
        if len(parts[i]) > kept:
            parts[i] = parts[i][:kept - 1].rstrip() + "…"
    return "`".join(parts)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    kept = text[:cut if cut > limit // 2 else limit - 1].rstrip(" ,:;(")
    if kept.count("`") % 2:  # do not leave a code span open
        kept = kept[:kept.rfind("`")].rstrip(" ,:;(")
    return kept + "…"


def shorten(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """``text`` in at most ``limit`` characters, losing the least: asides first, then the
    middle of long code spans, then the words at the end."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    text = _without_asides(text)
    if len(text) > limit:
        text = _short_code(text, CODE_SPAN_KEPT)
    return _cut(text, limit)
