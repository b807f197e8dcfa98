"""What the script says about the value of an expansion (``quotecheck.values``), asked once per
layer and kept in the check's memo, so a check that never reaches the cross-layer rules'
named-variable cases never walks the script for values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotecheck.diagnostics import Related
from quotecheck.layers.model import Layer
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.advice import outer_label, quote_advice
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Expansion, Result
from quotecheck.rules.crosslayer.inner_shells import describe
from quotecheck.rules.runtime.word_values import layer_values

if TYPE_CHECKING:
    from quotecheck.values import Knowledge


def knowledge(ctx: CheckContext, exp: Expansion) -> Knowledge | None:
    """What `$name` of ``exp`` holds where it is read, or None (not a named variable, or read
    in a text the analysis does not cover: a backtick script)."""
    name = exp.name
    if exp.pclass != "named" or name is None:
        return None
    layer_script = exp.layer.script
    if layer_script is None or exp.script.text is not layer_script.text:
        return None
    values = layer_values(ctx, exp.layer)
    if values is None:
        return None
    return values.at(name, exp.part.span[0])


def output_is_plain(ctx: CheckContext, exp: Expansion) -> bool:
    """A `$( )` whose output is one plain word or a number (`$(hostname)`, `$(nproc)`)."""
    layer_script = exp.layer.script
    if exp.part.kind != "command" or layer_script is None or \
            exp.script.text is not layer_script.text:
        return False
    values = layer_values(ctx, exp.layer)
    return values is not None and values.output_kind(exp.part) in ("word", "number")


def evidence(k: Knowledge | None, shown: str) -> str:
    """A sentence on what the finding's certainty rests on."""
    if k is None:
        return ""
    return f" ({k.describe(shown)}.)" if k.kind != "environment" else \
        f" (`{shown}` is not set by the script: its value is not known before run time.)"


_KNOWN_VALUE_BECOMES_CODE = Template(
    "known-value-becomes-code",
    "{describe}",
    "{outer_label} pastes it without quotes into the code that {describe2} parses "
    "(`{snippet}`), and the value holds {what}. {quote_advice}.")


def known_unsafe(ctx: CheckContext, an: Analysis, exp: Expansion, known: Knowledge,
                 where: Layer, snippet: str) -> Result:
    """QC103 as an error: the script itself set the value, and it holds a blank or a shell
    metacharacter that the inner shell reads."""
    bad = known.unsafe_value or ""
    blank = next((c for c in bad if c in " \t\n"), None)
    if blank is not None:
        what = "a blank, so the inner shell splits it into several words"
        meta = next((c for c in bad if not c.isalnum() and c not in " \t\n_./:,+%@-"), None)
        if meta is not None:
            what += f" and reads its `{meta}` as shell syntax"
    else:
        meta = next((c for c in bad if not c.isalnum() and c not in "_./:,+%@-"), "?")
        what = f"`{meta}`, which the inner shell reads as shell syntax"
    # (a value set in a file the script sources is placed at the `source` command)
    label = f"`{known.name}` is set in {known.sourced[0][0]}, sourced here" \
        if known.only_sourced else f"`{known.name}` is set here"
    related = tuple(Related(ctx.span_in_source(exp.layer, at, at + 1), label)
                    for at in known.offsets[:1])
    msg = (_KNOWN_VALUE_BECOMES_CODE(describe=known.describe(exp.shown),
                                     outer_label=outer_label(exp),
                    describe2=describe(ctx.trace, where), snippet=snippet, what=what,
                    quote_advice=quote_advice(ctx, an, exp, where)))
    return Result("QC103", Finding(exp.span, msg, where, related, (), "error"))
