"""QC103 in host files: a value the host program builds into a command (an f-string field, a
``%s``) and the shells that parse it as code.

A value pasted into the text a shell parses is code there: quotes, `;`, `$(...)` in it run.
Who controls the value decides how loud that is. Where the expression reads a web request,
someone else's text becomes code here: a warning. The program's own arguments, environment
and input come from the user who runs it, and a function's parameter from anywhere: there the
harm depends on values the text does not hold (information). A value quoted by
``shlex.quote`` is one word for the first shell that reads it, and for no other: reaching a
second shell (ssh's remote shell after the local ``sh -c``), or standing inside quotes in the
first, it is split or mangled again.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.hosts.model import HostValue
from quotecheck.layers.model import Layer
from quotecheck.rules._host_layers import shells_over
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Result
from quotecheck.rules.crosslayer.inner_shells import describe

_HOST_VALUE_IN_CODE = Template(
    "host-value-in-code",
    "`{written}` is pasted into the text that {inner} parses as code",
    "a quote, `;`, `&&` or `$(...)` in the value is run there, and a blank splits it "
    "({origin}). Quote it for that shell (`shlex.quote(...)` in the program), or pass it as "
    "an argument instead: `[\"sh\", \"-c\", 'cmd \"$1\"', \"sh\", value]`.")
_QUOTED_TWICE = Template(
    "host-value-quoted-once",
    "`{written}` is quoted for one shell, but {inner} parses it again",
    "`shlex.quote` makes the value one word for the first shell that reads it; {why}, so "
    "the value is split and its quotes, `;` and `$` are code there. Quote it once for each "
    "shell that parses it (`shlex.quote(shlex.quote(x))` for two), or send the value "
    "another way (an argument, stdin).")


def _shells(ctx: CheckContext, an: Analysis, value: HostValue) -> list[tuple[Layer, str]]:
    """The shell layers that read the value's first character, outermost first, each with the
    quoting it stands in there."""
    out: list[tuple[Layer, str]] = []
    for layer in shells_over(ctx, value.span[0]):  # (outermost first)
        info = an.chars(layer).get(value.span[0])
        if info is not None:
            out.append((layer, info.quoting))
    return out


def host_value_results(ctx: CheckContext, an: Analysis) -> Iterator[Result]:
    host = ctx.trace.host
    if host is None or host.format == "github-actions":
        return  # (`${{ }}` expressions: QC407 judges those)
    for value in host.values:
        shells = _shells(ctx, an, value)
        if not shells:
            continue
        first, quoting = shells[0]
        if first.text is not None and first.origin is not None and \
                first.dynamic_ranges == [(0, len(first.text))]:
            continue  # the whole command is the value: a command string meant to be run
        if value.quoted:
            if len(shells) == 1 and quoting == "none":
                continue  # quoted once, read once: the value is one word there
            where, why = (shells[1][0], "the text then reaches a second shell") \
                if len(shells) > 1 else (first, "there it stands inside quotes already")
            message = _QUOTED_TWICE(written=value.written, inner=describe(ctx.trace, where),
                                    why=why)
            yield Result("QC103", Finding(value.span, message, where, (), (), "warning"))
            continue
        origin = ("it comes from a web request, from someone other than the program's user"
                  if value.outside else
                  "where the value comes from is not in this file: information")
        message = _HOST_VALUE_IN_CODE(written=value.written,
                                      inner=describe(ctx.trace, first), origin=origin)
        yield Result("QC103", Finding(value.span, message, first, (), (),
                                      "warning" if value.outside else "info"))
