"""What the cross-layer findings suggest: escape the `$`, pass the value as an argument,
quote it for the inner layer."""

from __future__ import annotations

from collections.abc import Sequence

from quotecheck.diagnostics import Edit, Fix
from quotecheck.layers.model import Layer
from quotecheck.rules._fixes import layer_edit
from quotecheck.rules.api import CheckContext
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Expansion
from quotecheck.rules.crosslayer.inner_shells import (
    ENVIRONMENT_NAMES,
    describe,
    is_eval,
    is_ssh_shell,
    program_of,
    runs_shell_program,
)
from quotecheck.rules.crosslayer.text import single_quote, text_index


def escape_fix(ctx: CheckContext, exp: Expansion) -> tuple[Fix, ...]:
    start = exp.span[0]
    if exp.part.quoting not in ("double", "none", "heredoc") or ctx.source[start:start + 1] != "$":
        return ()
    edit: Edit | None = Edit((start, start), "\\")
    if exp.layer.parent is not None:
        # The expanding shell's text sits in an outer layer's quotes (`sh -c "... \$x ..."`):
        # the backslash has to be written in that quoting, or the outer shell eats it.
        at = text_index(exp.layer, start)
        edit = None if at is None else layer_edit(ctx, exp.layer, at, at, "\\")
    if edit is None:
        return ()
    return (Fix(f"write \\{exp.text} so that the inner layer expands it", (edit,), "unsafe"),)


def outer_label(exp: Expansion) -> str:
    return f"the {exp.layer.label()}"


def quote_advice(ctx: CheckContext, an: Analysis, exp: Expansion, land: Layer) -> str:
    """A sentence: how to pass the outer value to ``land`` without it becoming code."""
    trace = ctx.trace
    value = f'"{exp.text}"'
    if is_ssh_shell(trace, land) or is_eval(trace, land):
        where = "the remote shell" if is_ssh_shell(trace, land) else "eval"
        if exp.layer.dialect in ("bash", "zsh"):
            return (f"Quote it for {where}: write `$(printf %q {value})` in place of "
                    f"`{exp.text}` (or `'{exp.text}'` if the value can never hold a `'`)")
        return (f"Quote it for {where}: single-quote it (`'{exp.text}'`) if the value can "
                "never hold a `'`, else replace each `'` in it by `'\\''` first")
    direct = next((x for x in reversed(land.chain(trace.layers)[:-1]) if x.kind == "shell"),
                  None) is exp.layer
    if direct and runs_shell_program(land) and land.text:
        n = max(len(land.positional), 1)
        ref = f"${n}" if n < 10 else f"${{{n}}}"
        prog = program_of(land)
        if len(land.text) <= 70 and not land.positional:
            rewritten = replace_sources(land, exp.sources, f'"{ref}"')
            if rewritten is not None:
                return (f"Pass it as an argument instead: `{prog} -c "
                        f"{single_quote(rewritten)} {prog} {value}`")
        return (f"Pass it as an argument instead: write `\"{ref}\"` in the script and add "
                f"{value} after the existing words (the first word after the script is $0)")
    if land.process and len(land.process) > 1 and land.process[1] == "-c":
        way = "" if direct else ", quoted for each shell on the way"
        return ("Pass it as an argument instead: write `\"$1\"` in the script and put the "
                f"value after the script as its own word{way} (the first word after the "
                "script becomes $0, the next one $1)")
    return (f"Quote it for {describe(trace, land)} (`printf %q`), or pass it as an argument "
            "instead of splicing it into the code")


def local_value(name: str) -> str:
    if name in ENVIRONMENT_NAMES:
        return f"this machine's {name}"
    return "the local value (often empty)"


def lowercase_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def replace_sources(layer: Layer, sources: Sequence[int], text: str) -> str | None:
    idx = sorted(i for i in (text_index(layer, s) for s in sources) if i is not None)
    if not idx or layer.text is None:
        return None
    lo, hi = idx[0], idx[-1] + 1
    return layer.text[:lo] + text + layer.text[hi:]
