"""The one decision for every expansion: which of QC101, QC103, QC104 and QC105 it gets, if any.

1. an expansion in an unquoted heredoc body that feeds an inner shell's stdin script: QC104
   (``in_heredoc``), except for a variable the script sets before the hand-off, which is meant
   to be expanded there (nothing, or QC103 when its known value breaks the inner code);
2. an expansion whose text lands inside an awk/sed/perl/jq/python program: QC105
   (``in_program``);
3. the inner layer (the first one that parses it unquoted, as code) uses the same name for
   something of its own (`$!`, `$?`, `$1` of an `sh -c` script, a variable the inner script
   assigns, the remote machine's `$HOME`), or the command substitution was probably meant to
   run there: QC101 (``in_code``);
4. otherwise the outer value is what the writer meant, and it is spliced unquoted into the
   inner layer's code: QC103 (``in_code``; quoted for the inner layer: no finding). What the
   script itself says about the value decides (``known``, from ``quotecheck.values``): a plain
   word or a number is no finding, a value known to hold a blank or a metacharacter is an
   error naming it.

`{}` of `find -exec`/`xargs -I` spliced into an inner shell's script is QC103 whatever the
quoting around it (``placeholders``). An expansion in a word that ssh joins and whose own text
already breaks is left to QC102 (``joined_words``).
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.layers.model import Layer
from quotecheck.rules.api import CheckContext, Finding
from quotecheck.rules.crosslayer.advice import outer_label
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Code, Expansion, Landing, Result, expansions_of
from quotecheck.rules.crosslayer.in_code import code_result, container_env_results, decided_here
from quotecheck.rules.crosslayer.in_heredoc import heredoc_result
from quotecheck.rules.crosslayer.in_program import program_result
from quotecheck.rules.crosslayer.in_written_text import written_text_result
from quotecheck.rules.crosslayer.joined_words import joined_word_issue
from quotecheck.rules.crosslayer.placeholders import placeholder_results
from quotecheck.rules.crosslayer.sure_fixes import escape_is_sure


def analyse(ctx: CheckContext) -> Analysis:
    """The decision for every expansion of the check, made once for the four rules."""
    def make() -> Analysis:
        analysis = Analysis(ctx.trace)
        _run(ctx, analysis)
        return analysis
    return ctx.memo.get_or_compute("crosslayer", ctx.trace, make)


def findings(ctx: CheckContext, code: Code) -> Iterator[Finding]:
    for r in analyse(ctx).results:
        if r.code == code:
            yield r.finding


def _run(ctx: CheckContext, an: Analysis) -> None:
    trace = ctx.trace
    layers = trace.layers
    own: dict[int, set[int]] = {}
    # For each layer, the expansion offsets of its shell ancestors (shared sets, not copies:
    # a long script with many commands must not make this quadratic).
    outer: dict[int, tuple[set[int], ...]] = {}
    for layer in layers:
        parent = layers[layer.parent] if layer.parent is not None else None
        if parent is None:
            outer[layer.id] = ()
        elif parent.kind == "shell":
            outer[layer.id] = (*outer.get(parent.id, ()), own.get(parent.id, set()))
        else:
            outer[layer.id] = outer.get(parent.id, ())
        if layer.kind != "shell":
            continue
        mine: set[int] = set()
        for view in layer.commands:
            for exp in expansions_of(layer, view, outer[layer.id]):
                mine.update(exp.sources)
                result = judge(ctx, an, exp)
                if result is not None:
                    if result.finding.fixes and not escape_is_sure(an, exp,
                                                                    result.finding.layer):
                        f = result.finding
                        result.finding = Finding(f.span, f.message, f.layer, f.related, (),
                                                 f.severity)
                    an.results.append(result)
        own[layer.id] = mine
    for layer in layers:
        if layer.kind == "exec":
            an.results.extend(placeholder_results(ctx, an, layer))
            an.results.extend(container_env_results(ctx, an, layer))
    if trace.host is not None and trace.host.values:
        from quotecheck.rules.crosslayer.host_values import host_value_results

        an.results.extend(host_value_results(ctx, an))


def landings(an: Analysis, exp: Expansion, shells: list[Layer]) -> list[Landing]:
    """The inner shell layers that read the expansion's text, outermost first.

    What counts is the inner part holding the expansion's first character (its `$` or
    backtick): the characters after it are replaced by the value, so how the inner layer
    would have parsed them (`$(pwd)` as a command `pwd`) does not matter.
    """
    out: list[Landing] = []
    first = exp.sources[0]
    for layer in shells:
        info = an.chars(layer).get(first)
        if info is not None:
            out.append(Landing(layer, (info,)))
    return out


def judge(ctx: CheckContext, an: Analysis, exp: Expansion) -> Result | None:
    below = an.subtree(an.opened(exp.view))
    shells = [x for x in below if x.kind == "shell"]
    if exp.heredoc is not None:
        for land in landings(an, exp, shells):
            if land.layer.stdin_script:
                return heredoc_result(ctx, an, exp, land, below)
        if any(x.stdin_script for x in shells):
            return None  # a shell reads the body now, but not this part of it
        return written_text_result(ctx, an, exp)
    lands = landings(an, exp, shells)
    # QC105: the text lands in a program (awk, sed, perl, jq, python).
    for layer in [exp.layer, *below]:
        for prog in an.programs(layer):
            if prog.view is not None and layer is exp.layer and prog.view is not exp.view:
                continue
            if any(s in prog.sources for s in exp.sources):
                found = program_result(ctx, an, exp, prog)
                if found is None and lands:  # `cd d && sed "s#x#$(pwd)#"` sent on
                    found = decided_here(ctx, an, exp, lands[0], outer_label(exp))
                return found
    if not lands or joined_word_issue(an, exp):
        return None
    damage = next((land for land in lands if land.unquoted), None)
    first = lands[0]
    return code_result(ctx, an, exp, first, damage)
