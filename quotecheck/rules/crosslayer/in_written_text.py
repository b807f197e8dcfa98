"""An unquoted heredoc whose body is code that a later shell runs (QC104).

No shell reads the body now: `cat > start.sh <<EOF`, `tee`, `kubectl apply -f - <<EOF` write it
out, and a shell runs it later (the written script, a container's command). The body itself
shows that it is code for that shell when it assigns a variable and then reads it
(`n=\\$(nproc)` ... `echo $n`, `for f in ...; do ... $f`), or runs a command substitution inside
one of its own `if`, `while`, `until` or `case` blocks. The local shell expands those while it
writes the text: the variable becomes this shell's value (usually empty), the command's output
is frozen at writing time, on the writing machine.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from quotecheck.diagnostics import Related, Severity
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.words import Word
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.advice import escape_fix, outer_label
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Expansion, Result
from quotecheck.rules.crosslayer.known import knowledge

# A command boundary in the body: a new command starts after it.
_BOUNDARY = lazy_compile(r"[;&|\n(]|\b(?:then|do|else)\b")
# Keywords that open and close the body's own blocks, at the start of a command.
_BLOCK = lazy_compile(
    r"(?:^|[;&|(]|\b(?:then|do|else)\b)\s*(if|for|while|until|case|fi|done|esac)\b",
    re.MULTILINE)
_OPENS = frozenset({"if", "for", "while", "until", "case"})

_WRITTEN_CODE_EXPANDED_NOW = Template(
    "written-code-expanded-now",
    "`{shown}` is expanded as the heredoc is written, not by the shell that runs the code later",
    "{why}. Write `\\{text}` to keep it for the shell that runs the text, or quote the "
    "delimiter (<<'{delim}') to keep the whole body as written.")


def body_of(ctx: CheckContext, body: Word) -> _Body:
    return ctx.memo.get_or_compute("written-heredoc-body", body, lambda: _Body(body.raw))


def written_text_result(ctx: CheckContext, an: Analysis, exp: Expansion) -> Result | None:
    """QC104 for an expansion in an unquoted heredoc body that no shell reads now."""
    redirect = exp.heredoc
    if redirect is None or redirect.heredoc is None:
        return None
    if not _written_or_fed(exp):
        return None  # shown to the user (`cat <<EOF` of a help text), not run
    body = redirect.heredoc.body
    at = exp.part.span[0] - body.span[0]
    if not 0 <= at < len(body.raw):
        return None
    severity: Severity
    if exp.pclass == "named" and exp.name is not None:
        known = knowledge(ctx, exp)
        if known is not None and known.local:
            return None  # the script's own value, pasted on purpose
        where = body_of(ctx, body).assigned_before(exp.name, at)
        if where is None:
            return None
        severity = "error"
        why = (f"the text sets `{exp.name}` itself (`{one_line_escaped(where, 40)}`), so "
               f"the `{exp.text}` after it means that value; {outer_label(exp)} puts its own "
               "in its place (empty when it is not set there)")
    elif exp.part.kind in ("command", "backtick"):
        block = body_of(ctx, body).open_block(at)
        if block is None:
            return None
        severity = "warning"
        why = (f"it sits inside the text's own `{block}` block, which decides when it runs; the "
               "command runs now instead, once, on this machine, and its output is written in")
    else:
        return None
    delim = redirect.heredoc.spec.delimiter
    related: list[Related] = []
    span = exp.script.origin.span(*redirect.heredoc.spec.delimiter_span)
    if span is not None:
        related.append(Related(span, "this delimiter is unquoted: write it as "
                                     f"'{delim}' to keep the body as written"))
    msg = _WRITTEN_CODE_EXPANDED_NOW(delim=delim, local=outer_label(exp), shown=exp.shown,
                                     why=why, text=exp.text)
    return Result("QC104", Finding(exp.span, msg, exp.layer, tuple(related),
                                   escape_fix(ctx, exp), severity))


_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})


def _written_or_fed(exp: Expansion) -> bool:
    """The heredoc's command writes the text to a file or hands it to a program: not a
    `cat` whose output is the terminal or a substitution's value."""
    view = exp.view
    name = view.argv[0].value.rsplit("/", 1)[-1] if view.argv and not view.argv[0].dynamic \
        else ""
    if name != "cat":
        return bool(name) and name not in ("echo", "printf")
    ctx = view.context
    return any(r.op in _WRITES and r.fd in (None, 1) for r in view.command.redirects) or (
        ctx.in_pipeline and not ctx.pipeline_last)


# Where the body gives a name a value: `NAME=`, `export NAME=`, `for NAME in`, `read ... NAME`.
_ASSIGNS = lazy_compile(
    r"(?:(?<=[\s;&|(`])|^)(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?"
    r"(?P<assign>[A-Za-z_][A-Za-z0-9_]*)\+?="
    r"|\bfor\s+(?P<loop>[A-Za-z_][A-Za-z0-9_]*)\s+in\b"
    r"|\bread(?P<read>(?:[ \t]+-\w+)*(?:[ \t]+[A-Za-z_][A-Za-z0-9_]*)+)", re.MULTILINE)
_PARTNERS = lazy_compile(r"\b(then|do|in)\b")


class _Body:
    """What a heredoc body's own code shows, read once per body: the places each name is
    given a value, and its blocks (so that each expansion is judged without rescanning)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.assigns: dict[str, list[tuple[int, int, bool]]] = {}
        for m in _ASSIGNS.finditer(text):
            if m.group("assign"):
                name = m.group("assign")
                handover = re.match(rf"\"?\$\{{?{name}\b", text[m.end():m.end() + len(name) + 4])
                self.assigns.setdefault(name, []).append((m.start(), m.end(), bool(handover)))
            elif m.group("loop"):
                self.assigns.setdefault(m.group("loop"), []).append((m.start(), m.end(), False))
            else:
                for word in m.group("read").split():
                    if not word.startswith("-"):
                        self.assigns.setdefault(word, []).append((m.start(), m.end(), False))
        # the open blocks after each block keyword, and where partners and closers stand
        self.token_at: list[int] = []
        self.stacks: list[tuple[tuple[str, int], ...]] = []
        self.closers: dict[str, list[int]] = {"fi": [], "done": [], "esac": []}
        stack: list[tuple[str, int]] = []
        for m in _BLOCK.finditer(text):
            word = m.group(1)
            if word in _OPENS:
                stack.append((word, m.end()))
            else:
                self.closers[word].append(m.start())
                if stack:
                    stack.pop()
            self.token_at.append(m.start(1))
            self.stacks.append(tuple(stack))
        self.partners: dict[str, list[int]] = {"then": [], "do": [], "in": []}
        for m in _PARTNERS.finditer(text):
            self.partners[m.group(1)].append(m.start())

    def assigned_before(self, name: str, at: int) -> str | None:
        """The assignment of ``name`` the body makes in a command before offset ``at``, as
        written on its line, or None (`X="$X"` hands this shell's value over: None)."""
        for start, end, handover in self.assigns.get(name, ()):
            if start >= at:
                break
            if handover:
                return None
            # a different command: not `X=$X:...`, which reads the old value in its own word
            if _BOUNDARY.search(self.text, end, at):
                line_end = self.text.find("\n", start)
                return self.text[start:line_end if line_end >= 0 else len(self.text)].strip()
        return None

    def open_block(self, at: int) -> str | None:
        """The keyword of the innermost `if`/`for`/`while`/`until`/`case` block of the body
        open at offset ``at``. A block counts only when its second keyword follows the opener
        and its closing keyword follows ``at``: prose that says "if" is no block."""
        k = bisect_right(self.token_at, at) - 1
        if k < 0 or not self.stacks[k]:
            return None
        word, end = self.stacks[k][-1]
        partner, closer = _PAIRS[word]
        partners, closers = self.partners[partner], self.closers[closer]
        if bisect_right(partners, end - 1) >= len(partners) or \
                bisect_right(closers, at) >= len(closers):
            return None
        return word


_PAIRS = {"if": ("then", "fi"), "for": ("do", "done"), "while": ("do", "done"),
          "until": ("do", "done"), "case": ("in", "esac")}
