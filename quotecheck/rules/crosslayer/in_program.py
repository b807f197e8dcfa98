"""An expansion whose text lands inside an awk, sed, perl, jq or python program (QC105)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from quotecheck.diagnostics import Severity
from quotecheck.parsing.tree import Compound
from quotecheck.parsing.words import EXPANSION_KINDS
from quotecheck.programs import SCRIPT_SOURCERS
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext, Finding, Template
from quotecheck.rules.crosslayer.advice import escape_fix, outer_label
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.assignments import Assigned
from quotecheck.rules.crosslayer.expansions import Expansion, Result
from quotecheck.rules.crosslayer.inner_shells import describe
from quotecheck.rules.crosslayer.programs import Program
from quotecheck.rules.crosslayer.sed_text import at_address, reads_as_command
from quotecheck.rules.crosslayer.text import article

AWK_BUILTINS = frozenset({
    "NF", "NR", "FNR", "FS", "OFS", "RS", "ORS", "FILENAME", "SUBSEP", "RSTART", "RLENGTH",
    "CONVFMT", "OFMT", "ENVIRON", "ARGC", "ARGV", "RT", "IGNORECASE", "PROCINFO", "FPAT",
    "FIELDWIDTHS", "BINMODE", "LINT", "TEXTDOMAIN", "ERRNO",
})


def _awk_identifier_used(program: str, name: str) -> bool:
    return re.search(rf"(?<![$\w]){re.escape(name)}(?!\w)", program) is not None


def _spliced(exp: Expansion) -> bool:
    return exp.part.quoting == "double" and any(
        p.quoting == "single" for p in exp.word.parts)


def _sed_reads(prog: Program, exp: Expansion) -> bool:
    """The expansion's `$` stands where sed reads an address (`$d`, `1,$p`; not inside a
    command's arguments: `s|}|$HOST|`), and its text reads as an address and a command sed
    accepts (`$d`, `${p}`, `$!N`; not `${PFLOGSUMM_RECIPIENT}`). The program's other
    expansions are values: their sed meaning is not known."""
    idx = sorted(i for i in (prog.index_of(s) for s in exp.sources) if i is not None)
    if not idx:
        return False
    opaque: set[int] = set()
    for word in exp.view.command.words:
        for part in word.parts:
            if part.kind in EXPANSION_KINDS and part is not exp.part:
                srcs = (exp.script.origin[o] for o in part.offsets)
                opaque.update(i for i in (prog.index_of(x) for x in srcs if x is not None)
                              if i is not None)
    return at_address(prog.text, idx[0], opaque) and reads_as_command(
        prog.text, idx[0], idx[-1] + 1, opaque)


def _script_value(assigns: Iterable[Assigned]) -> bool:
    """Every value the script gives the variable is its own text or a number: a constant
    (`CLOSE_ISSUE_THRESHOLD=20`, a jq filter in single quotes) or a `$((...))` result."""
    values = [a.value for a in assigns if not a.declared_only]
    if not values:
        return False
    for v in values:
        if v is None:
            return False
        if v.literal_value is not None:
            continue
        if not all(p.kind == "arithmetic" for p in v.expansions()) or any(
                p.kind == "literal" and not re.fullmatch(r"[\d$.+-]*", p.value)
                for p in v.parts):
            return False
    return True


def _sourced_before(ctx: CheckContext, exp: Expansion) -> bool:
    """The script sources a file (`source $HESTIA/func/domain.sh`, `. ./lib.sh`) before it
    reads ``exp``: a variable the script itself never sets may be that file's (its functions
    set it: `get_web_config_lines "$tpl" "$conf"`, then `sed -n "$top_line,$bottom_line p"`)."""
    layer = exp.layer
    script = layer.script
    if script is None or exp.script.text is not script.text:
        return False

    def offsets() -> list[int]:
        return [v.command.span[0] for v in layer.commands
                if v.argv and v.values[0] in SCRIPT_SOURCERS and not v.argv[0].dynamic
                and v.context.script.text is script.text]
    found: list[int] = ctx.memo.get_or_compute("qc105-sources", layer, offsets)
    return bool(found) and found[0] < exp.part.span[0]


def _library_value(ctx: CheckContext, exp: Expansion) -> bool:
    """A named variable of more than one letter that the script does not set, read after it
    sources a file: the value is most likely that file's, not an empty string
    standing in for the program's `$`. (A one-letter name, `sed "$d"`, `awk "{print $x}"`,
    is the program's own idiom and stays with the program.)"""
    name = exp.name
    return exp.pclass == "named" and name is not None and len(name) > 1 and \
        _sourced_before(ctx, exp)


def _writes_program_code(assigns: Iterable[Assigned]) -> bool:
    """Every value the script gives the variable holds a `$` it wrote itself (`field="\\$$((n +
    1))"`, `f="(\\$(NF$1))"`): the script builds program code on purpose."""
    values = [a.value for a in assigns if not a.declared_only]
    return bool(values) and all(
        v is not None and any(p.kind == "literal" and "$" in p.value for p in v.parts)
        for v in values)


def _all_arguments_in_a_function(exp: Expansion) -> bool:
    """`calc() { awk "BEGIN { print $* }"; }`: a function whose arguments are the program
    text by its contract (no awk, sed, perl or jq reads `$*` or `$@`)."""
    return exp.name in ("*", "@") and any(
        isinstance(a, Compound) and a.kind == "function" for a in exp.view.context.ancestors)


def _function_given(ctx: CheckContext, exp: Expansion) -> str | None:
    """The function whose positional parameter `$N` ``exp`` reads, when the script calls it
    with at least N arguments somewhere (`trap 'report_build_error $LINENO' ERR`): the shell's
    value is then the function's argument, most likely the one the author meant to splice in,
    not an empty string standing in for awk's field."""
    name = exp.name
    if exp.pclass != "positional" or name is None or not name.isdigit():
        return None
    function = next((a.name for a in reversed(exp.view.context.ancestors)
                     if isinstance(a, Compound) and a.kind == "function" and a.name), None)
    if function is None:
        return None
    most = ctx.memo.get_or_compute("function-arguments:" + function, ctx.trace,
                                   lambda: _most_arguments(ctx.source, function))
    return function if most >= int(name) else None


def _most_arguments(source: str, function: str) -> int:
    """The most words any call of ``function`` in ``source`` passes it (read off the text, so
    that a call in a trap string counts too)."""
    call = re.compile(r"(?:^|[\s;&|('\"`{])" + re.escape(function)
                      + r"((?:[ \t]+[^\s;&|()]+)+)")
    return max((len(m.group(1).split()) for m in call.finditer(source)), default=0)


_SITS_PROGRAM_BUT_PROGRAM = Template(
    "sits-program-but-program",
    "`{shown}` sits in {article} program, but the program is in double quotes (or "
    "unquoted) for {local}{layer_note}, which expands it first",
    "{lang} receives {receives}. To let {lang} see `{text}`, {advice}.")
_EXPANDS_INSIDE_PROGRAM_SO = Template(
    "expands-inside-program-so",
    "{local} expands `{shown}` inside {article} program{layer_note}, so the value "
    "becomes {lang} code ({receives})",
    "quotes, backslashes or {lang} syntax in it change the program. {upper}{advice}.")


def program_result(ctx: CheckContext, an: Analysis, exp: Expansion,
                   prog: Program) -> Result | None:
    trace = ctx.trace
    name = exp.name
    pclass = exp.pclass
    lang = prog.language
    local = outer_label(exp)
    assigned = name is not None and name in an.assigned(exp.layer)
    library = not assigned and _library_value(ctx, exp)
    assigned = assigned or library  # (set by the sourced file: a value, not the program's)
    meant: bool  # the text was meant for the program
    if _spliced(exp):
        # `awk '/'"$x"'/'`: the author closed the program's single quotes to put the value in.
        return None
    if lang == "awk":
        # awk reads `$2`, `$NF`, `$i`: never `${2-}`, `$*`, `$#` or `$?`.
        plain = name is not None and exp.text == "$" + name
        meant = plain and name is not None and (name.isdigit() or name in AWK_BUILTINS or (
            pclass == "named" and not assigned and _awk_identifier_used(prog.text, name)))
        advice = ("write `\\$` (`\\" + exp.text + "`) or single-quote the program; pass shell "
                  "values with `-v name=\"$value\"` or through ENVIRON")
    elif lang == "sed":
        # sed's `$` (last line) starts an address: `$d`, `1,$s/a/b/`, `$!N`; and what follows
        # it must read as a sed command (`$PFLOGSUMM_RECIPIENT` does not: `P` takes nothing).
        meant = _sed_reads(prog, exp) and (name == "!" or (
            pclass == "named" and name is not None and not assigned))
        if not meant:
            return None  # `sed "s/$old/$new/"`: deliberate interpolation
        advice = "write `\\$` or single-quote the script"
    elif lang == "perl":
        meant = pclass in ("positional", "special") or (
            name in ("F", "ARGV", "ENV", "INC", "a", "b") and not assigned)
        advice = ("write `\\$` or single-quote the program; pass shell values as arguments "
                  "(@ARGV) or in %ENV")
    elif lang == "jq":
        meant = name is not None and (name in prog.jq_names or name in ("ENV", "__loc__"))
        advice = "write `\\$` or single-quote the filter; pass shell values with --arg"
    else:
        meant = False
        advice = ("single-quote the program and pass shell values as arguments (sys.argv) or "
                  "in the environment (os.environ)")
    if exp.part.kind in ("command", "backtick") and lang != "python":
        meant = False
    given = _function_given(ctx, exp) if meant and lang in ("awk", "perl") else None
    if given is not None:
        meant = False  # (see _function_given: the evidence points the other way)
    if not meant and given is None and name is not None and (
            _script_value(an.assigned(exp.layer).get(name, []))
            or _writes_program_code(an.assigned(exp.layer).get(name, []))):
        return None  # the script's own constant, number or program code: the text intended
    if not meant and _all_arguments_in_a_function(exp):
        return None
    received = _program_as_received(prog, exp, [*an.assigned(exp.layer), *(
        [name] if library and name is not None else [])], given)
    receives = f"`{received}`" if received.strip() else "an empty program"
    layer_note = ""
    shell = prog.layer if prog.layer.kind == "shell" else (
        trace.layers[prog.layer.parent] if prog.layer.parent is not None else prog.layer)
    while shell.kind != "shell" and shell.parent is not None:
        shell = trace.layers[shell.parent]
    if shell is not exp.layer:
        layer_note = (f" (one layer out: {local} builds the command line that "
                      f"{describe(trace, shell)} runs)")
    if meant:
        msg = (_SITS_PROGRAM_BUT_PROGRAM(shown=exp.shown, article=article(lang), local=local,
                                         layer_note=layer_note, lang=lang, receives=receives,
                                         text=exp.text, advice=advice))
        severity: Severity = "error"
    else:
        msg = (_EXPANDS_INSIDE_PROGRAM_SO(local=local, shown=exp.shown, article=article(lang),
                                          layer_note=layer_note, lang=lang, receives=receives,
                                          upper=advice[0].upper(), advice=advice[1:]))
        # Right, but nearly always the intent: a host name, a version, a path spliced in.
        severity = "info"
    target = prog.layer
    return Result("QC105", Finding(exp.span, msg, target, (), escape_fix(ctx, exp)
                                   if meant else (), severity))


def _program_as_received(prog: Program, exp: Expansion, assigned: Iterable[str],
                         function: str | None = None) -> str:
    """The program text with the expansion replaced by what the shell puts there."""
    text = prog.text
    if function is not None:
        stand_in = f"<argument {exp.name} of {function}>"
    elif exp.pclass in ("positional", "special") or (
            exp.name is not None and exp.name not in assigned):
        stand_in = ""
    else:
        stand_in = f"<value of {exp.shown}>"
    idx = sorted(i for i in (prog.index_of(s) for s in exp.sources) if i is not None)
    if idx:
        text = text[: idx[0]] + stand_in + text[idx[-1] + 1:]
    return one_line_escaped(text, 70)
