"""QC001 parse-error: a layer's text does not parse.

Not for a zsh layer: the parser reads bash's grammar, and much valid zsh (``for k v in``,
``files=(**/*(N.))``) is not bash; what it cannot parse there is a QC002 note instead.

A text built at run time (an inner layer whose text holds outer expansions) is judged with the
values it could hold (``parsing.runtime_text``): only an error no plain value avoids is one, and
one that only a value read as code could avoid (by being unbalanced code itself) is a warning.
An inner layer whose shell has extglob on (`bash -O extglob -c`, or `eval` in a file that turns
it on) is judged with extglob patterns allowed."""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import problem_message
from quotecheck.layers.model import Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.runtime_text import RunTimeError, run_time_errors
from quotecheck.parsing.shell_options import argv_enables_extglob, enables_extglob
from quotecheck.rules.api import CheckContext, Finding, Rule
from quotecheck.rules.triggers import ALWAYS


def _extglob_from_outside(ctx: CheckContext, layer: Layer) -> bool:
    """Whether the shell reading ``layer`` has extglob on from outside its own text: its
    command line, or (for `eval`, read by the same shell) the text around the eval."""
    if argv_enables_extglob(layer.process or []):
        return True
    join = ctx.parent(layer)
    if join is None or join.via != "eval":
        return False
    shell = ctx.parent(join)
    if shell is None or shell.script is None:
        return False
    return enables_extglob(shell.script.text) or _extglob_from_outside(ctx, shell)


def _cut_by_cron(ctx: CheckContext, layer: Layer) -> bool:
    """A crontab command that cron cut at a `%`: QC405 says why the rest does not parse."""
    host = ctx.trace.host
    if host is None or host.format != "crontab" or layer.parent != 0 or \
            layer.source_span is None:
        return False
    line_end = ctx.trace.source.find("\n", layer.source_span[0])
    line_end = len(ctx.trace.source) if line_end < 0 else line_end
    return any(layer.source_span[0] <= r.span[0] <= line_end for r in host.references)


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.script is None or layer.dialect == "zsh" or _cut_by_cron(ctx, layer):
            continue
        inner = layer.parent is not None
        text = layer.script.text
        errors = [RunTimeError(p) for p in layer.script.problems if p.code == "QC001"]
        if errors and inner:
            extglob = layer.script.dialect == "bash" and (
                enables_extglob(text) or _extglob_from_outside(ctx, layer))
            if layer.dynamic_ranges or extglob:
                errors = run_time_errors(text, layer.script.dialect, layer.dynamic_ranges,
                                         extglob)
        for n, e in enumerate(errors):
            p = e.problem
            span = ctx.span_in_source(layer, p.start, p.end)
            if inner:
                message = (f"{p.message} in the text the {layer.label()} receives: "
                           "it will fail on it too")
            else:
                message = p.message
            if n:
                # bash stops at the first syntax error; a later one is where the parser picked
                # up again, and may follow from the first (precision corpus: judged noise).
                yield Finding(span, problem_message(message + _LATER), layer, severity="info")
            elif e.code_values:
                shown = ", ".join(f"`{text[a:b]}`" for a, b in e.code_values[:3])
                yield Finding(span, problem_message(message + _UNLESS.format(shown)), layer,
                              severity="warning")
            elif not inner and _first_command_of_a_file_without_shebang(ctx, span[0]):
                yield Finding(span, problem_message(message + _NOT_SHELL), layer,
                              severity="info")
            else:
                yield Finding(span, problem_message(message), layer)


def _first_command_of_a_file_without_shebang(ctx: CheckContext, at: int) -> bool:
    """A file with no `#!` line whose first command already does not parse and is a statement
    of another language (`A = load ...;`): nothing in it shows it is a shell script (a Pig
    Latin file named `.sh`), so the error says little about a shell."""
    source = ctx.source
    if ctx.trace.host is not None or ctx.trace.root.kind != "shell" or \
            source.startswith("#!") or not ctx.script_path:
        return False
    start = source.rfind("\n", 0, at) + 1
    end = source.find("\n", at)
    line = source[start:end if end >= 0 else len(source)]
    return _OTHER_LANGUAGE.match(line) is not None and all(
        not line.strip() or line.lstrip().startswith("#")
        for line in source[:start].splitlines())


# A statement of another language: `A = load 'passwd' using PigStorage(':');`, `x = 1`. In a
# shell `A = ...` runs a command named A, which no script means.
_OTHER_LANGUAGE = lazy_compile(r"[ \t]*[A-Za-z_][\w.]*[ \t]+=[ \t]")


_UNLESS = (", unless the value of {} (pasted in where the shell reads code) is itself shell "
           "code that makes it valid")
_NOT_SHELL = (" (the file has no `#!` line and its first command does not parse: it may not "
              "be a shell script at all)")
_LATER = " (a later syntax error: bash stops reading at the first one above)"


RULE = Rule("QC001", "parse-error", "A layer's text does not parse", "error", check,
            trigger=ALWAYS)
