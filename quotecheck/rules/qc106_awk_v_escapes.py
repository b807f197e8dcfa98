"""QC106 awk-v-escapes: an `awk -v name=value` value goes through awk's escape processing.

awk treats a `-v` value (and a `name=value` operand) like the inside of a string constant:
`\\t` becomes a tab, `\\n` a newline, `\\\\` one backslash, and implementations disagree on
unknown escapes (mawk keeps `\\.`, gawk drops the backslash). ENVIRON and ARGV values are
passed through untouched. Reported: a value holding a backslash (showing what awk makes of it)
and, as information, a value only known at run time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.awk import awk_unescape
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.tree import walk
from quotecheck.programs import basename
from quotecheck.rules._handoffs import arg_span, code, descendants
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.crosslayer.programs import _sed_programs as sed_programs
from quotecheck.rules.triggers import HANDOFFS

# Escapes an author writes because awk turns them into a character: a value made only of
# these and punctuation (`-v OFS='\t'`, `-v RS='\n\n'`, `-v FS='\\|'`) means what it says.
_INTENDED_ESCAPE = lazy_compile(r"\\(?:[tnrfvab\\\"/]|[0-7]{1,3})")
# Names of values that often hold backslashes: regexes, paths, separators, formats.
_PATHISH = lazy_compile(r"(?i)pat|regex|re$|^re|path|dir|file|sep|fs$|delim|fmt|format|glob|mask")
# Expansions that can only produce digits (or a sign): no backslash can come from them.
_NUMERIC_PARAMETER = lazy_compile(r"\$(?:[#$?!]|\{#[^}]*\}|\{[#$?!]\})")


def _value_start(arg: Arg, a: ho.AwkAssignment) -> int:
    return max(len(arg.value) - len(a.raw), 0)


def _intended(raw: str) -> bool:
    """The value is made of escapes meant as escapes (a separator such as `\\t`)."""
    rest = _INTENDED_ESCAPE.sub("", raw)
    return "\\" not in rest and not any(ch.isalnum() for ch in rest)


def _dynamic_parts(arg: Arg, start: int) -> list[str] | None:
    """Texts of the run-time parts inside the value (None when an outer layer fills some in,
    so the parts are not known)."""
    if arg.word is None:
        return None
    out: list[str] = []
    at = 0
    own: list[tuple[int, int]] = []
    for p in arg.word.parts:
        end = at + len(p.value)
        if p.dynamic and end > start:
            out.append(p.value)
        if p.dynamic:
            own.append((at, end))
        at = end
    for s, e in arg.dynamic_ranges:
        if e > start and not any(a <= s and e <= b for a, b in own):
            return None  # filled in by an outer layer: unknown text
    return out


def _may_hold_backslash(part: str) -> bool:
    return not (part.startswith(("$((", "$[")) or _NUMERIC_PARAMETER.fullmatch(part))


def _layer(ctx: CheckContext, layer: Layer, view: CommandView) -> Layer:
    for x in descendants(ctx, view):
        if x.kind == "awk":
            return x
    return layer


def _suggestion(name: str, program_known: bool) -> str:
    return (f"pass it through the environment, which awk does not escape-process: "
            f"`{name}=VALUE awk '... ENVIRON[\"{name}\"] ...'`, or as an operand read in BEGIN "
            f"(`awk 'BEGIN {{ {name} = ARGV[1]; delete ARGV[1] }} ...' VALUE`)"
            if program_known else
            f"pass it through the environment (`ENVIRON[\"{name}\"]`) or ARGV instead")


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer, view in ctx.commands():
        for h in view.handoffs:
            if not isinstance(h, ho.AwkHandoff):
                continue
            impl = "gawk" if h.implementation == "gawk" else "mawk"
            for a in h.assignments:
                if not 0 <= a.index < len(view.argv):
                    continue
                arg = view.argv[a.index]
                yield from _judge(ctx, layer, view, h, a, arg, impl)


_ESCAPE_PROCESSED_AWK = Template(
    "escape-processed-awk",
    "{what} is escape-processed by awk",
    "the value written {code} is not what the program sees: {result}. Backslashes in "
    "paths and regular expressions are changed or lost. To pass the text unchanged, "
    "{suggestion}.")
_TAKES_VALUE_FROM_KNOWN = Template(
    "takes-value-from-known",
    "{what} takes its value from {shown}, known only at run time, and awk "
    "escape-processes it",
    "a backslash in it (a Windows path, a regex such as `a\\.b`) reaches the program "
    "changed (`\\t` becomes a tab, `\\\\` one backslash; gawk drops unknown escapes). "
    "If the value may hold a backslash, {suggestion}.")


_BUILT_WITH_BACKSLASHES = Template(
    "built-with-backslashes",
    "{what} takes {shown}, which {sed} fills with backslashes, and awk escape-processes them",
    "awk reads the value of an assignment as a string constant: gawk turns `\\.` into `.` "
    "(with a warning; mawk keeps it) and every awk turns `\\\\` into one backslash, so the "
    "pattern matches what the backslashes were there to exclude. {suggestion}.",
    ";")


def _replacement_writes_backslash(script: str) -> bool:
    """The sed script (as sed reads it: the shell is done with it) has an `s` command whose
    replacement holds an escaped backslash, which writes one backslash into the output: the
    replacements of `s/[.]/\\\\&/g`, `s/\\./\\\\./g` and `s/x/\\\\\\\\/` in single quotes."""
    i = 0
    n = len(script)
    while i < n:
        j = i
        while j < n and script[j] in " \t":
            j += 1
        before = script[:i].rstrip(" \t")[-1:]
        if j + 1 < n and script[j] == "s" and (before in ("", ";", "\n", "{", "}", "/", "$", "!")
                                                or before.isdigit()):
            delim = script[j + 1]
            if delim not in "\\\n" and not delim.isalnum() and not delim.isspace():
                k = j + 2
                fields: list[str] = []
                cur: list[str] = []
                while k < n and len(fields) < 2:
                    c = script[k]
                    if c == "\\" and k + 1 < n:
                        cur.append(script[k:k + 2])
                        k += 2
                        continue
                    if c == delim:
                        fields.append("".join(cur))
                        cur = []
                    else:
                        cur.append(c)
                    k += 1
                if len(fields) == 2 and "\\\\" in _pairs(fields[1]):
                    return True
                i = max(k, i + 1)
                continue
        i += 1
    return False


def _pairs(text: str) -> list[str]:
    """``text`` cut into escape pairs (`\\x`) and single characters."""
    out: list[str] = []
    k = 0
    while k < len(text):
        step = 2 if text[k] == "\\" and k + 1 < len(text) else 1
        out.append(text[k:k + step])
        k += step
    return out


def _sed_adds_backslash(substitution: str) -> bool:
    """The `$(...)` (or backquoted) text runs a sed whose script writes a backslash."""
    if substitution.startswith("$("):
        inner = substitution[2:-1]
    else:  # inside backquotes, `\\`, `\$` and `\`` lose their backslash first
        inner = re.sub(r"\\([\\$`])", r"\1", substitution[1:-1])
    for cmd, _ctx in walk(parse_script(inner)):
        values = [w.value for w in cmd.words]
        if not values or basename(values[0]) != "sed":
            continue
        for index, at in sed_programs(values):
            if not cmd.words[index].dynamic and _replacement_writes_backslash(
                    values[index][at:]):
                return True
    return False


def _built_with_backslashes(ctx: CheckContext, layer: Layer, parts: list[str]) -> str | None:
    """The `$(... | sed ...)` every assignment of the one variable in ``parts`` comes from,
    when that sed puts backslashes into the value."""
    if len(parts) != 1:
        return None
    m = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", parts[0])
    if m is None:
        return None
    from quotecheck.rules.crosslayer.decide import analyse

    sets = analyse(ctx).assigned(layer).get(m.group(1), [])
    found: str | None = None
    for assigned in sets:
        subs = [p.value for p in (assigned.value.parts if assigned.value else ())
                if p.kind in ("command", "backtick")]
        if len(subs) != 1 or not _sed_adds_backslash(subs[0]):
            return None
        found = found or subs[0]
    return found


def _judge(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.AwkHandoff,
           a: ho.AwkAssignment, arg: Arg, impl: str) -> Iterator[Finding]:
    start = _value_start(arg, a)
    what = (f"`-v {a.name}=...`" if a.kind == "option"
            else f"the operand assignment `{a.name}=...`")
    dynamic = any(e > start for _, e in arg.dynamic_ranges) or (
        arg.dynamic and not arg.dynamic_ranges)
    static_raw = a.raw
    if dynamic:
        parts = _dynamic_parts(arg, start)
        if parts is not None:
            for p in parts:
                static_raw = static_raw.replace(p, "")
    span = arg_span(ctx, layer, view, arg)
    target = _layer(ctx, layer, view)
    if "\\" in static_raw and not _intended(static_raw):
        mawk = awk_unescape(a.raw, "mawk")
        gawk = awk_unescape(a.raw, "gawk")
        named = {"mawk": mawk, "gawk": gawk}.get(h.implementation)
        if named == a.raw:
            return  # the awk the command names keeps this value as written (mawk: `\.`)
        if mawk == gawk:
            result = f"awk gives `{a.name}` the value {code(mawk)}"
        else:
            result = (f"mawk (Debian's default awk) gives `{a.name}` the value {code(mawk)}, "
                      f"gawk gives {code(gawk)} (with a warning)")
        yield Finding(
            span,
            _ESCAPE_PROCESSED_AWK(what=what, code=code(a.raw), result=result,
                                  suggestion=_suggestion(a.name, h.program is not None)),
            target,
        )
        return
    if not dynamic:
        return
    parts = _dynamic_parts(arg, start)
    if parts is not None and not any(_may_hold_backslash(p) for p in parts):
        return
    shown = ", ".join(code(p) for p in parts) if parts else code(a.raw)
    sed = _built_with_backslashes(ctx, layer, parts or [])
    if sed is not None:
        # The script builds the value to hold backslashes: certain to be changed.
        advice = _suggestion(a.name, h.program is not None)
        yield Finding(span, _BUILT_WITH_BACKSLASHES(
            what=what, shown=shown, sed=code(sed, 60),
            suggestion=advice[0].upper() + advice[1:]), target)
        return
    # Information when the value is likely to hold a backslash (a pattern, a path, a
    # separator, a script argument); a hint otherwise (`-v host="$host"`).
    likely = _PATHISH.search(a.name) or any(
        _PATHISH.search(p) or re.fullmatch(r"\$\{?[1-9@*]\}?", p) for p in parts or [a.raw])
    yield Finding(
        span,
        _TAKES_VALUE_FROM_KNOWN(what=what, shown=shown,
                                suggestion=_suggestion(a.name, h.program is not None)),
        target,
        severity="info" if likely else "hint",
    )


RULE = Rule("QC106", "awk-v-escapes",
            "An awk -v value (or name=value operand) is escape-processed by awk",
            "warning", check,
            trigger=HANDOFFS)
