"""QC405 cron-percent: an unescaped `%` in a crontab command ends the command there.

cron turns each `%` of an entry's command into a newline and hands everything after the first
one to the command as its standard input (crontab(5)); only `\\%` is a `%`. So
``date +%Y-%m-%d`` in a cron line runs ``date +``, and a `%` inside quotes leaves the shell an
unterminated quote: the job fails every time, and cron mails the error to a mailbox nobody
reads, if it mails at all.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Applicability, Edit, Fix, Severity
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_CUT = Template(
    "percent-ends-command",
    "cron ends the command at this `%`: {what}",
    "cron reads an unescaped `%` as the end of the command and hands the rest of the line "
    "to it as standard input, each further `%` a newline. {consequence} Write `\\%` for a "
    "literal `%` (the fix does); keep a bare `%` only where the rest of the line is meant "
    "as standard input.")


def _unbalanced(text: str) -> bool:
    quote = None
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if ch in "'\"" and quote in (None, ch):
            quote = None if quote == ch else ch
        i += 1
    return quote is not None


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "crontab":
        return
    source = ctx.trace.source
    for ref in host.references:
        at = ref.span[0]
        line_start = source.rfind("\n", 0, at) + 1
        line_end = source.find("\n", at)
        line_end = len(source) if line_end < 0 else line_end
        launch = next((x for x in host.launches if x.span[0] <= at < x.span[1]), None)
        command = launch.text.value if launch is not None and launch.text else \
            source[line_start:at]
        word = command.rsplit(None, 1)[-1] if command.split() else ""
        severity: Severity
        applicability: Applicability
        if _unbalanced(command):
            what = "the shell gets an unterminated quote"
            consequence = ("The shell that runs the rest fails with a syntax error, every "
                           "time.")
            severity, applicability = "error", "safe"
        elif word.startswith("+") or "date" in command.split()[-2:-1] or word.endswith("+"):
            what = f"`{word}` loses its format"
            consequence = "The command gets a cut-off format string and the rest as input."
            severity, applicability = "error", "safe"
        else:
            what = "the rest of the line becomes its standard input"
            consequence = ("If the `%` was meant as a character, the command is cut short "
                           "there.")
            severity, applicability = "warning", "unsafe"
        edits = tuple(Edit((k, k), "\\") for k in range(at, line_end)
                      if source[k] == "%" and source[k - 1] != "\\")
        yield Finding(ref.span, _CUT(what=what, consequence=consequence), ctx.trace.root,
                      (), (Fix("Escape each `%` for cron", edits, applicability),), severity)


RULE = Rule("QC405", "cron-percent", "An unescaped `%` in a crontab command ends the command",
            "error", check, fix="safe", tags=("host",),
            trigger=Trigger(formats=frozenset({"crontab"})))
