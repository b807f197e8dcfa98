"""QC401 make-swallows-expansion: a recipe's `$HOME`, `$0` or `$(cmd)` is make's, not the shell's.

make expands every `$` of a recipe line before the shell sees it: `$HOME` is make's variable
`H` followed by `OME`, `$1` its variable `1`, `$(date +%s)` a variable whose name has a blank.
None of them is set, so make puts in nothing and the shell runs what is left (`OME`, an empty
argument) without a word. `$$` passes one `$` to the shell. References to variables the file
defines, to make's own (`$(MAKE)`, `$(CURDIR)`, `$@`), to its functions (`$(shell ...)`) and
to names that may come from the environment (`$(HOME)`) are not this rule's.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_SWALLOWED = Template(
    "make-expands-it",
    "make expands `{written}` before the shell sees the recipe line: it puts in nothing",
    "{what} To pass `{shell}` to the shell, write `{escaped}` (make turns `$$` into `$`).")


def _what(name: str, written: str, source: str, end: int) -> tuple[str, str]:
    """What the author most likely meant, and what make does instead."""
    if written[1:].isspace():
        blank = "a newline" if written[1:] == "\n" else \
            "a tab" if written[1:] == "\t" else "a blank"
        return (f"make reads the `$` and {blank} after it as a variable named by that "
                "character, which no Makefile can set, and drops both: the program never "
                "gets the `$` (a sed address `3,$`, an end-of-line anchor, a prompt).", "$")
    if written.startswith("$(") or written.startswith("${"):
        return (f"`{written}` is a reference to a make variable named `{name}`, which is not "
                "set: the command does not run, its output is not there.", written)
    rest = ""
    while end + len(rest) < len(source) and (source[end + len(rest)].isalnum()
                                            or source[end + len(rest)] == "_"):
        rest += source[end + len(rest)]
    if rest:
        return ("make reads `$" + name + f"` (an unset variable) and leaves `{rest}`: the "
                f"shell gets `{rest}` where `${name}{rest}` stood.", f"${name}{rest}")
    return (f"`${name}` is make's variable `{name}`, which is not set.", f"${name}")


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "make":
        return
    source = ctx.trace.source
    for ref in host.references:
        if ref.defined:
            continue
        a, b = ref.span
        what, meant = _what(ref.name, ref.written, source, b)
        escaped = "$" + meant
        fix = Fix("Escape the `$` for make", (Edit((a, a), "$"),), "safe")
        written = ref.written.replace("\n", "\\n").replace("\t", "\\t")
        yield Finding((a, b), _SWALLOWED(written=written, what=what, shell=meant,
                                         escaped=escaped),
                      ctx.trace.root, (), (fix,), "error")


RULE = Rule("QC401", "make-swallows-expansion",
            "make expands a recipe's `$X` or `$(cmd)` meant for the shell, to nothing",
            "error", check, fix="safe", tags=("host",),
            trigger=Trigger(formats=frozenset({"make"})))
