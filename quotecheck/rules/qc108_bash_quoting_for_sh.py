"""QC108 bash-quoting-for-sh: bash-only quoting sent to a layer that may be POSIX sh.

`$'...'` and `$"..."` are bash (and ksh/zsh) quoting. dash and other POSIX shells read `$'a\\tb'`
as a literal `$` followed by the single-quoted `a\\tb` (verified with dash 0.5.12). bash's
`printf %q` and `${x@Q}` produce `$'...'` for values holding control characters (newline, tab,
escape...), so text quoted with them is only safe for a bash reader.

Reported: `$'...'`/`$"..."` in the text of an inner layer run by sh/dash or by a login shell of
unknown kind; and `printf %q`/`printf -v v %q`/`${x@Q}` output spliced into such a text (as
a hint when the reader is only unknown: for values without control characters the output is
plain POSIX quoting).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from quotecheck.diagnostics import Related, Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import DECLARATION_BUILTINS, NEVER_BASH, POSIX_SHELLS
from quotecheck.rules._handoffs import (
    TextWord,
    code,
    descendants,
    outer_dynamic_offsets,
    part_span,
    posix_risk,
    shell_program,
    text_words,
    view_words,
    where_label,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import HANDOFFS

_PRINTF_Q = lazy_compile(r"%[-#0 +']*(?:\d+|\*)?(?:\.(?:\d+|\*))?q")
_PRINTF_CMD = lazy_compile(r"^(?:\$\(|`)\s*(?:builtin\s+|command\s+)?printf\b(?P<rest>.*)", re.S)
_AT_Q = lazy_compile(r"@Q\}$")


def check(ctx: CheckContext) -> Iterator[Finding]:
    yield from _literal_quoting(ctx)
    yield from _quoted_output(ctx)


# -- $'...' and $"..." in an inner layer's text ---------------------------------------------------


def _bash_quotes(view: CommandView, word: Word) -> Iterator[tuple[Part, str, str]]:
    """(first part, written form, POSIX sh reading) for each `$'...'`/`$"..."` in ``word``."""
    text = view.context.script.text
    parts = word.parts
    for k, p in enumerate(parts):
        if p.quoting in ("ansi_c", "locale"):
            written = text[p.span[0]:p.span[1]]
            body = written[2:-1] if len(written) >= 3 else ""
            yield p, written, "$" + body
        elif (p.quoting == "none" and p.kind == "literal" and p.value.endswith("$")
              and k + 1 < len(parts) and parts[k + 1].quoting in ("single", "double")
              and parts[k + 1].span[0] == p.span[1]):
            # Parsed as POSIX sh already: `$` then a quoted region.
            q = parts[k + 1]
            end = q.span[1]
            for later in parts[k + 2:]:
                if later.quoting != q.quoting or later.span[0] != end:
                    break
                end = later.span[1]
            written = text[p.span[1] - 1:end]
            body = written[2:-1] if len(written) >= 3 else ""
            yield p, written, "$" + body


def _literal_quoting(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.parent is None:
            continue
        risk = posix_risk(layer)
        if risk is None:
            continue
        outer = outer_dynamic_offsets(layer)
        program = shell_program(layer)
        for view in layer.commands:
            origin = view.context.script.origin
            for word in view_words(view):
                for p, written, reading in _bash_quotes(view, word):
                    off = origin[p.span[0]]
                    if off is not None and off in outer:
                        continue  # text an outer layer fills in at run time
                    span = part_span(view, p) or view.source_span or (0, 0)
                    if p.quoting == "none":
                        span = (span[1] - 1, span[1])  # the `$` before the quote
                    yield _literal_finding(layer, risk, program, span, written, reading)


_DOLLAR_QUOTE_REACHES_SH = Template(
    "dollar-quote-reaches-sh",
    "{code} reaches {who}",
    "{maybe}, so it reads it as a literal `$` followed by quoted text and gets "
    "{code2}. To be portable, {instead}{extra}.")


def _literal_finding(layer: Layer, risk: str, program: str, span: tuple[int, int],
                     written: str, reading: str) -> Finding:
    kind = "`$'...'`" if written.startswith("$'") else '`$"..."`'
    who = where_label(layer)
    severity: Severity
    if risk == "sh":
        if program in NEVER_BASH:
            maybe = f"{program} does not know {kind} quoting"
            severity = "error"
        else:
            maybe = (f"`{program}` is dash on Debian and Ubuntu (and another POSIX sh "
                     f"elsewhere), which does not know {kind} quoting")
            severity = "warning"
    else:
        maybe = (f"the login shell there is not known: if it is dash or another POSIX sh, it "
                 f"does not know {kind} quoting")
        severity = "warning"
    if written.startswith("$'"):
        instead = ("write the characters themselves inside ordinary quotes, produce them with "
                   "`printf` (`\"$(printf 'a\\tb')\"`), or run the text with bash "
                   "(`bash -c '...'`)")
    else:
        instead = "use plain double quotes (gettext translation is bash-only), or run bash"
    extra = ("" if risk == "sh" else
             "; if the remote login shell is bash, say so with `--remote-shell bash`")
    return Finding(
        span,
        _DOLLAR_QUOTE_REACHES_SH(code=code(written), who=who, maybe=maybe, code2=code(reading),
                                 instead=instead,
                 extra=extra),
        layer,
        severity=severity,
    )


# -- printf %q and ${x@Q} output spliced into such a text -----------------------------------------


def _produces_q(part: Part) -> str | None:
    """`printf %q` or `${x@Q}` if the part expands to bash-quoted text."""
    if part.kind in ("command", "backtick"):
        m = _PRINTF_CMD.match(part.value)
        if m and _PRINTF_Q.search(m.group("rest")):
            return "printf %q"
    elif part.kind == "parameter" and _AT_Q.search(part.value):
        return "${...@Q}"
    return None


def _printf_v_target(view: CommandView) -> str | None:
    """NAME of `printf -v NAME FORMAT...` when FORMAT holds %q."""
    values = view.values
    if len(values) < 4 or values[0] not in ("printf", "builtin") or view.argv[0].dynamic:
        return None
    i = 1 if values[0] == "printf" else 2
    if values[0] == "builtin" and (len(values) < 5 or values[1] != "printf"):
        return None
    if values[i] != "-v" or i + 2 >= len(values):
        return None
    fmt = view.argv[i + 2]
    if fmt.dynamic or not _PRINTF_Q.search(fmt.value):
        return None
    return values[i + 1]


def _quoted_vars(layer: Layer) -> dict[str, list[tuple[CommandView, tuple[int, int], str]]]:
    """Variables of ``layer`` assigned bash-quoted text: name -> [(view, span, how)]."""
    out: dict[str, list[tuple[CommandView, tuple[int, int], str]]] = {}
    for view in layer.commands:
        name = _printf_v_target(view)
        if name:
            out.setdefault(name, []).append((view, view.source_span or (0, 0), "printf -v %q"))
        for a in view.command.assignments:
            for p in a.value.parts:
                how = _produces_q(p)
                if how:
                    span = view.context.script.origin.span(*a.span) or (0, 0)
                    out.setdefault(a.name, []).append((view, span, how))
        if view.values and view.values[0] in DECLARATION_BUILTINS:
            for w in view.command.words[1:]:
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=", w.raw)
                if not m:
                    continue
                for p in w.parts:
                    how = _produces_q(p)
                    if how:
                        span = view.context.script.origin.span(*w.span) or (0, 0)
                        out.setdefault(m.group(1), []).append((view, span, how))
    return out


def _quoted_output(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        if layer.kind != "shell":
            continue
        qvars = _quoted_vars(layer)
        for view in layer.commands:
            targets = text_words(ctx, view)
            for t in targets:
                if t.kind == "awk":
                    continue
                target = t.target
                if t.kind == "join" and target == "same":
                    continue  # eval: the same (bash) shell reads it
                if target in POSIX_SHELLS:
                    risk = "sh"
                elif target == "unknown":
                    risk = "unknown"
                else:
                    continue
                arg = view.argv[t.index]
                if arg.word is None:
                    continue
                for p in arg.word.parts:
                    how = _produces_q(p)
                    related: tuple[Related, ...] = ()
                    if how is None and p.kind == "parameter" and p.name in qvars:
                        sources = [s for s in qvars[p.name]
                                   if (s[0].source_span or (0, 0))[0]
                                   <= (view.source_span or (0, 0))[0]]
                        if not sources:
                            continue
                        _, src_span, how = sources[-1]
                        related = (Related(src_span, f"`{p.name}` is set from `{how}` here"),)
                    if how is None:
                        continue
                    span = part_span(view, p) or view.source_span or (0, 0)
                    yield _output_finding(ctx, layer, view, t, risk, how, p, span, related)


_QUOTES_BASH_S = Template(
    "quotes-bash-s",
    "{code} quotes with bash's `{how}` for {reader}",
    "for a value holding a newline, tab or other control character bash writes "
    "`$'...'` (`$'a\\nb'`), and {doubt} passes that through as a literal `$` and "
    "backslashes (`$a\\nb`). Pass the value as an argument instead (`sh -c 'cmd \"$1\"' "
    "sh \"$value\"`, or `ssh h bash -s -- ARGS <<'EOF'`), quote it for POSIX sh "
    "(single quotes, each `'` written as `'\\''`), or run the inner layer with bash.")


def _login_shell_of(t: TextWord) -> tuple[str, str] | None:
    """(user, program) when the text is run by a user's login shell that su or runuser
    starts: `su USER -c TEXT`, `runuser -u USER -c TEXT` (`root` when su names nobody)."""
    h = t.handoff
    if isinstance(h, ho.ShellHandoff) and h.shell == "unknown" and h.wrapper in (
            "su", "runuser") and h.mode == "c":
        return h.runs_as or "root", h.wrapper
    return None


def _output_finding(ctx: CheckContext, layer: Layer, view: CommandView, t: TextWord,
                    risk: str, how: str, part: Part, span: tuple[int, int],
                    related: tuple[Related, ...]) -> Finding:
    kind, target = t.kind, t.target
    switch = _login_shell_of(t)
    reader = {"ssh": "the remote login shell", "join": f"the `{target}` that parses it"}.get(
        kind, f"the inner `{target}`")
    severity: Severity
    if switch is not None:
        # su runs the user's shell from passwd: the file does not show it, and `useradd`
        # gives a new user /bin/sh (Debian: dash). Whether a value holds a control character
        # is not shown either. Both only possible: information, saying so.
        reader = f"the login shell of `{switch[0]}` that `{switch[1]}` starts"
        doubt = (f"{reader} is whatever its passwd entry names, which this file does not show "
                 "(`useradd` gives new users /bin/sh, dash on Debian; `su -s /bin/bash` "
                 "settles it); if it is dash or another POSIX sh, it")
        severity = "info"
    elif risk == "sh":
        doubt = f"{reader} may be dash, which"
        severity = "warning"
    else:
        doubt = (f"{reader} is not known (if it is bash, say so with `--remote-shell bash`); "
                 f"if it is dash or another POSIX sh, it")
        severity = "hint"
    inner = layer
    for x in descendants(ctx, view):
        if x.kind == "shell":
            inner = x
            break
    return Finding(
        span,
        _QUOTES_BASH_S(code=code(part.value), how=how, reader=reader, doubt=doubt),
        inner,
        related=related,
        severity=severity,
    )


RULE = Rule("QC108", "bash-quoting-for-sh",
            "bash-only quoting ($'...', printf %q, ${x@Q}) reaches a layer that may be POSIX sh",
            "warning", check,
            trigger=HANDOFFS)
