"""An expansion in an unquoted heredoc body that an inner shell reads as its script (QC104)."""

from __future__ import annotations

from quotecheck.diagnostics import Related, Severity
from quotecheck.layers.model import Layer
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.advice import escape_fix, local_value, outer_label
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import ARITH_NAMES, Expansion, Landing, Result
from quotecheck.rules.crosslayer.inner_shells import (
    ENVIRONMENT_NAMES,
    describe,
    environment_differs,
    has_own_arguments,
)
from quotecheck.rules.crosslayer.known import knowledge, known_unsafe
from quotecheck.rules.crosslayer.text import article, line_around

_HEREDOC_DELIMITER_UNQUOTED_SO = Template(
    "heredoc-delimiter-unquoted-so",
    "unquoted heredoc delimiter `{delim}`: {local} expands `{shown}` before {inner} gets the "
    "script",
    "{why}. To keep it for the inner shell, quote the delimiter (<<'{delim}') or "
    "write `\\{text}`; to send a local value, quote the delimiter and pass the value "
    "as an argument (`bash -s -- \"$(printf %q \"$x\")\" <<'EOF'`, then \"$1\" in the "
    "script).",
    lead="the heredoc delimiter `{delim}` is unquoted, so {local} expands `{shown}` in the "
    "body before {inner} gets the script (`{snippet}`)")


def heredoc_result(ctx: CheckContext, an: Analysis, exp: Expansion, land: Landing,
                   below: list[Layer]) -> Result | None:
    trace = ctx.trace
    layer = land.layer
    heredoc = exp.heredoc
    assert heredoc is not None
    delim = heredoc.heredoc.spec.delimiter if heredoc.heredoc is not None else "EOF"
    inner = describe(trace, layer)
    snippet = line_around(layer, exp.sources)
    local = outer_label(exp)
    env_differs = environment_differs(trace, exp.layer, layer)
    related: list[Related] = []
    if heredoc.heredoc is not None:
        span = exp.script.origin.span(*heredoc.heredoc.spec.delimiter_span)
        if span is not None:
            related.append(Related(span, "this delimiter is unquoted: write it as "
                                         f"'{delim}' to keep the body as written"))
    name = exp.name
    pclass = exp.pclass
    severity: Severity = "warning"
    why = "its local value replaces it"
    handed_over = any(i.assigns == name for i in land.infos) and (
        name not in ENVIRONMENT_NAMES)
    known = knowledge(ctx, exp)
    if known is not None and known.local:
        # The script set it before the hand-off: the local value is the one meant (escaping
        # it would send an empty or another variable). Only a value that breaks the inner
        # script's code is a finding, and then one of QC103's.
        if land.unquoted and known.kind == "exact" and known.unsafe_value is not None:
            return known_unsafe(ctx, an, exp, known, layer, snippet)
        return None
    if pclass == "named" and name is not None and not handed_over and any(
            not a.handover for a in an.assigned(layer).get(name, [])):
        severity = "error"
        why = (f"the script sets `{name}` itself, but {local_value(name)} replaces "
               "every use before it runs")
    elif pclass == "special":
        severity = "error" if name in ("!", "?") else "warning"
        why = {"!": "the PID of this shell's last background job replaces it",
               "?": "the exit status of the local command before replaces it",
               "$": "this shell's PID replaces it"}.get(name or "", why)
    elif pclass == "positional":
        if has_own_arguments(layer):
            severity = "error"
            why = "the outer script's argument replaces it, not the one passed to the shell"
        else:
            why = "the local script's argument replaces it" + (
                ", unquoted, as code" if land.unquoted else "")
    elif exp.part.kind in ("command", "backtick"):
        why = "the command runs on this machine first and its output replaces it"
    elif exp.part.kind == "arithmetic":
        names = set(ARITH_NAMES.findall(exp.text[3:-2]))
        if names & set(an.assigned(layer)):
            severity = "error"
            why = "it is computed with local values, not the ones the script sets"
        else:
            severity = "info"
            why = "it is computed locally"
    elif pclass == "named" and name is not None:
        if name in ENVIRONMENT_NAMES and env_differs and name not in an.assigned(exp.layer):
            why = f"this machine's {name} replaces it"
        elif not land.unquoted:
            severity = "info"
            why = "its local value replaces it (quoted in the script)"
        else:
            why = "its local value replaces it, unquoted, as code"
    for prog in (p for x in below for p in an.programs(x)):
        if any(s in prog.sources for s in exp.sources):
            severity = "error"
            why += (f"; it sits inside {article(prog.language)} program, which never sees "
                    f"`{exp.text}`")
            break
    if known is not None:
        why += (f"; the outer script never sets `{exp.shown}`, so what replaces it is not "
                "known before run time")
    msg = (_HEREDOC_DELIMITER_UNQUOTED_SO(delim=delim, local=local, shown=exp.shown, inner=inner,
                                          snippet=snippet, why=why, text=exp.text))
    return Result("QC104", Finding(exp.span, msg, layer, tuple(related),
                                   escape_fix(ctx, exp), severity))
