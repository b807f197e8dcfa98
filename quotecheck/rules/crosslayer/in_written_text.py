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

from quotecheck.diagnostics import Related, Severity
from quotecheck.lazy_regex import lazy_compile
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
    text = body.raw
    severity: Severity
    if exp.pclass == "named" and exp.name is not None:
        known = knowledge(ctx, exp)
        if known is not None and known.local:
            return None  # the script's own value, pasted on purpose
        where = _assigned_before(text, exp.name, at)
        if where is None:
            return None
        severity = "error"
        why = (f"the text sets `{exp.name}` itself (`{one_line_escaped(where, 40)}`), so "
               f"the `{exp.text}` after it means that value; {outer_label(exp)} puts its own "
               "in its place (empty when it is not set there)")
    elif exp.part.kind in ("command", "backtick"):
        block = _open_block(text, at)
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


def _assigned_before(text: str, name: str, at: int) -> str | None:
    """The assignment of ``name`` (`name=`, `export name=`, `for name in`, `read name`) that
    the body makes in a command before offset ``at``, or None."""
    n = re.escape(name)
    pattern = re.compile(
        rf"(?:(?<=[\s;&|(`])|^)(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?{n}\+?="
        rf"|\bfor\s+{n}\s+in\b|\bread\s+(?:-\w+\s+)*(?:\w+\s+)*{n}\b", re.MULTILINE)
    handover = re.compile(rf"\"?\$\{{?{n}\b")
    for m in pattern.finditer(text, 0, at):
        if m.group(0).endswith("=") and handover.match(text, m.end()):
            return None  # `X="$X"`: this shell's value handed over, the same as here
        # a different command: not `X=$X:...`, which reads the old value in its own word
        if _BOUNDARY.search(text, m.end(), at):
            line_end = text.find("\n", m.start())
            return text[m.start():line_end if line_end >= 0 else len(text)].strip()
    return None


def _open_block(text: str, at: int) -> str | None:
    """The keyword of the innermost `if`/`for`/`while`/`until`/`case` block of the body that
    is open at offset ``at``, or None. A block counts only when the body also has its second
    keyword after the opener and its closing keyword after ``at``: prose that says "if" is no
    block."""
    stack: list[tuple[str, int]] = []
    for m in _BLOCK.finditer(text, 0, at):
        word = m.group(1)
        if word in _OPENS:
            stack.append((word, m.end()))
        elif stack:
            stack.pop()
    if not stack:
        return None
    word, end = stack[-1]
    partner, closer = _PAIRS[word]
    if not re.search(rf"\b{partner}\b", text[end:]) or not any(
            m.group(1) == closer for m in _BLOCK.finditer(text, at)):
        return None
    return word


_PAIRS = {"if": ("then", "fi"), "for": ("do", "done"), "while": ("do", "done"),
          "until": ("do", "done"), "case": ("in", "esac")}
