"""QC107 quote-closes-early: a quote meant to nest inside another of the same kind closes it.

`ssh h 'echo 'a b''` is read by the local shell as `'echo '` + `a`, then a new word `b` + `''`:
the inner quotes were never nested, `a b` was unquoted at the outer layer, and the inner layer
gets `echo a b`. Found from the word as written: in a word that becomes an inner layer's text
(ssh's command words, an `sh -c` string, `eval`/`watch` words, an awk program), two quoted
regions of the same kind with an unquoted run between them, when the shape shows nesting was
meant (an empty `''`/`""` closing the word, the run split over two words, an expansion taken
out of double quotes, the run delimited as an inner word). `'\\''` and `'"'"'` are escapes and
other-kind quotes, never unquoted runs, so they are not reported.

The same shape split over words is a mistake wherever it is: in an assignment
(`ARG="--opt="a b""` sets `ARG` to `--opt=a`; `b""` is the next assignment or the command)
and in any program's argument (`sake exec h 'awk -F'-' '{print $1}''` gives sake two words and
expands `$1` here), so those are judged too (real bash in the tests), without a fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix, Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.words import Word
from quotecheck.programs import DECLARATION_BUILTINS
from quotecheck.records import FrozenRecord
from quotecheck.rules._handoffs import (
    TextWord,
    Token,
    code,
    script_span,
    text_words,
    tokens,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

# Text handed to another layer; or quotes anywhere: an assignment or a command's argument cut
# by the same shape.
TRIGGER = Trigger(handoffs=True, text=("'", '"'))
_ASSIGNED = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")
_OPENERS = (" ", "\t", "\n", "=", "(")
_CLOSERS = (" ", "\t", "\n", ";", ")", "|", "&")


class Match(FrozenRecord):
    first: Token  # the quoted region whose closing quote was meant to open a nested one
    last: Token  # the same-kind region whose opening quote was meant to close it
    middle: list[Token]  # the unquoted runs between (over one or more words)
    words: tuple[int, ...]  # argv indices involved
    why: str
    severity: Severity


def _quote(kind: str) -> str:
    return "'" if kind == "single" else '"'


def _in_word(toks: list[Token], text: str, index: int) -> Iterator[Match]:
    for k in range(len(toks) - 2):
        q1, u, q2 = toks[k], toks[k + 1], toks[k + 2]
        if q1.kind not in ("single", "double") or u.kind != "unquoted" or q2.kind != q1.kind:
            continue
        inner1, inner2 = q1.inner(text), q2.inner(text)
        empty_close = inner2 == "" and k + 2 == len(toks) - 1
        delimited = inner1.endswith(_OPENERS) and (inner2 == "" or inner2.startswith(_CLOSERS))
        if q1.kind == "double" and u.expansion and (
                delimited or empty_close or inner1.endswith(_OPENERS)):
            # (where neither side reads as a nested quote's edge, `"$name"[$i]="$v"` joins
            # three parts on purpose)
            why = ("the expansion between them is outside any quotes: the local shell expands "
                   "it, then splits and globs the result")
            yield Match(q1, q2, [u], (index,), why, "warning")
        elif empty_close and (u.expansion or u.pattern):
            what = "expansion" if u.expansion else "pattern"
            why = f"the {what} between them is unquoted and handled by the outer shell"
            yield Match(q1, q2, [u], (index,), why, "warning")
        elif q1.kind == "single" and delimited and u.pattern and not u.expansion:
            why = "the pattern between them is unquoted and expanded by the outer shell"
            yield Match(q1, q2, [u], (index,), why, "warning")
        elif (empty_close or delimited) and not u.expansion:
            why = ("the text between them is outside any quotes (harmless for this text, "
                   "but the quotes do not do what they look like)")
            yield Match(q1, q2, [u], (index,), why, "info")


def _across_words(view: CommandView, text: str, start: int,
                  words: list[Word] | None = None) -> Match | None:
    """`'echo 'a b''`: word `start` ends with a quoted region and an unquoted run, the next
    words are unquoted runs, and a later word starts with an unquoted run and a region of the
    same kind. ``words``: the command's words (by default), or its assignments' values and
    then its words."""
    if words is None:
        words = view.command.words
    if start >= len(words):
        return None
    raw = words[start].raw
    if not raw or raw[-1] in "'\"" or ("'" not in raw and '"' not in raw):
        return None  # (no quoted region followed by unquoted text: most words, told cheaply)
    first = tokens(text, words[start])
    if len(first) < 2 or first[-1].kind != "unquoted" or first[-2].kind not in ("single",
                                                                              "double"):
        return None
    kind = first[-2].kind
    middle = [first[-1]]
    for j in range(start + 1, min(len(words), start + 8)):
        toks = tokens(text, words[j])
        if all(t.kind == "unquoted" for t in toks):
            middle.extend(toks)
            continue
        if len(toks) >= 2 and toks[0].kind == "unquoted" and toks[1].kind == kind:
            middle.append(toks[0])
            q1, q2 = first[-2], toks[1]
            inner1, inner2 = q1.inner(text), q2.inner(text)
            if not (inner1.endswith(_OPENERS) or inner2 == "" or inner2.startswith(_CLOSERS)):
                return None
            why = ("the unquoted space between them splits the text into separate words of the "
                   "outer command")
            return Match(q1, q2, middle, tuple(range(start, j + 1)), why, "warning")
        return None
    return None


def _argv_index(view: CommandView, word_index: int) -> int:
    """argv index of ``view.command.words[word_index]`` (aliases may shift it)."""
    target = view.command.words[word_index]
    for i, a in enumerate(view.argv):
        if a.word is target:
            return i
    return word_index


def _received(view: CommandView, t: TextWord, m: Match) -> str:
    """What the inner layer really gets, as evidence."""
    values = view.values
    h = t.handoff
    if isinstance(h, ho.SshHandoff):
        return f"ssh sends the remote shell {code(h.sends(values))}"
    if isinstance(h, ho.JoinHandoff):
        return f"{h.wrapper} hands on {code(h.sends(values))}"
    if isinstance(h, ho.ShellHandoff):
        script = h.script_text(values)
        name = "shell" if h.shell == "unknown" else h.shell
        extra = ""
        if h.script is not None and h.mode == "c":
            spilled = [i for i in (_argv_index(view, w) for w in m.words) if i > h.script]
            if spilled:
                which = " ".join(f"‹{values[i]}›" for i in spilled if i < len(values))
                verb = "becomes its $0" if len(spilled) == 1 else "become its $0, $1..."
                extra = f", and {which} {verb}"
        return f"the inner {name} gets the script {code(script or '')}{extra}"
    if isinstance(h, ho.AwkHandoff):
        return f"awk gets the program {code(h.program_text(values) or '')}"
    return "the inner layer gets " + " ".join(f"‹{v}›" for v in values[t.index:t.index + 1])


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer, view in ctx.commands():
        text = view.context.script.text
        done: set[int] = set()
        for t, m in _matches(ctx, view):
            if m.first.start in done:
                continue
            done.add(m.first.start)
            yield _finding(ctx, layer, view, m, text, _received(view, t, m), t)
        for m, received, assignment in _split_words(ctx, view, text):
            if m.first.start in done:
                continue
            done.add(m.first.start)
            yield _finding(ctx, layer, view, m, text, received, None, assignment)


def _split_words(ctx: CheckContext, view: CommandView,
                 text: str) -> Iterator[tuple[Match, str, str | None]]:
    """The same nested shape split over words, in words that are no other layer's text: an
    assignment's value (`X="--opt="a b""` sets `X` to `--opt=a`, and `b""` is the next
    assignment or the command) or a command's argument (`tool 'awk -F'-' '{print $1}''` gives
    the tool two words, `$1` expanded here). Whatever reads them, the value is cut at the
    space: the words differ from the one that was written."""
    cmd = view.command
    assigned = [a.value for a in cmd.assignments]
    words = [*assigned, *cmd.words]
    if len(words) < 2:
        return
    texts = {w.index for w in text_words(ctx, view)}
    argv_of = {id(a.word): i for i, a in enumerate(view.argv) if a.word is not None}
    for k in range(len(words)):
        if k >= len(assigned) and argv_of.get(id(words[k])) in texts:
            continue  # judged as that layer's text
        m = _across_words(view, text, k, words)
        if m is None:
            continue
        # Point at the first quote that closed early: `'awk -F'-' '{print $1}''` closes at
        # `-F'`, before the region that the split follows.
        toks = tokens(text, words[k])
        j = len(toks) - 2
        while j >= 2 and toks[j - 1].kind == "unquoted" and toks[j - 2].kind == m.first.kind:
            j -= 2
        if j != len(toks) - 2:
            m = Match(toks[j], m.last, toks[j + 1:-1] + m.middle, m.words, m.why, m.severity)
        parts = [words[i] for i in m.words]
        shown = " ".join(f"‹{w.value}›" for w in parts)
        if k < len(assigned):
            a = cmd.assignments[k]
            rest = m.words[-1]
            if rest < len(assigned):
                after = f"{code(cmd.assignments[rest].name + '=...')} is a separate assignment"
            elif cmd.words and words[rest] is cmd.words[0]:
                after = f"‹{words[rest].value}› is run as a command, with `{a.name}` in its " \
                    "environment"
            else:
                after = "the rest are words of the command"
            why = (f"the unquoted space between them ends the assignment of `{a.name}`")
            received = (f"`{a.name}` is set to ‹{a.value.value}› alone, and {after} "
                        f"(the words: {shown})")
            yield Match(m.first, m.last, m.middle, m.words, why, "warning"), received, a.name
        elif (program := view.values[0] if view.values else "") in DECLARATION_BUILTINS and (
                named := _ASSIGNED.match(parts[0].value)) is not None:
            name = named.group(1)
            why = f"the unquoted space between them ends the value of `{name}`"
            received = (f"{code(program)} sets `{name}` to ‹{parts[0].value[named.end():]}› "
                        f"alone and gets the rest as other words (the words: {shown})")
            yield Match(m.first, m.last, m.middle, m.words, why, "warning"), received, name
        else:
            program = program or "the command"
            why = ("the unquoted space between them splits the text into separate words of the "
                   "command")
            if any(t.expansion for t in m.middle):
                why += ", and the expansion between them is done by this shell"
            received = f"{code(program)} gets {len(parts)} words, {shown}, where one was written"
            yield Match(m.first, m.last, m.middle, m.words, why, "warning"), received, None


def closes_early(ctx: CheckContext, view: CommandView) -> bool:
    """Whether this rule reports a quote of ``view`` that closes early. QC102 asks: the words
    such a quote produced were split by mistake, and re-quoting them as split would keep the
    mistake."""
    return any(True for _ in _matches(ctx, view))


def _matches(ctx: CheckContext, view: CommandView) -> Iterator[tuple[TextWord, Match]]:
    text = view.context.script.text
    # Each word's index, looked up once per view (a scan per text word was O(n^2)).
    index: dict[int, int] = {}
    for i, w in enumerate(view.command.words):
        index.setdefault(id(w), i)
    for t in text_words(ctx, view):
        word = view.argv[t.index].word
        wi = None if word is None else index.get(id(word))
        if wi is None:
            continue
        across = _across_words(view, text, wi)
        if across is not None:
            yield t, across
        yield from ((t, m) for m in _in_word(tokens(text, view.command.words[wi]), text, wi))


_CLOSES_QUOTE_OPENED_AT = Template(
    "closes-quote-opened-at",
    "this {q} closes the quote opened at {code} instead of opening a nested one, and "
    "the {q} after {code2} opens a new quote",
    "{why}. Result: {received}; {code2} reaches it unquoted. To nest quotes of the "
    "same kind, write {nested}.")


_ASSIGNMENT_CUT = Template(
    "assignment-cut",
    "this {q} closes the quote opened at {code} instead of opening a nested one, and "
    "the {q} after {code2} opens a new quote",
    "{why}. Result: {received}. Quotes inside a variable's value are not read again when it "
    "is expanded: to hand a later command words with spaces, use an array "
    "(`{name}=(--opt=\"a b\")`, expanded as `\"${{{name}[@]}}\"`); for one string, "
    "write {nested}.")


def _finding(ctx: CheckContext, layer: Layer, view: CommandView, m: Match, text: str,
             received: str, t: TextWord | None, assignment: str | None = None) -> Finding:
    q = _quote(m.first.kind)
    close_at = m.first.end - 1
    span = script_span(view, close_at, close_at + 1) or view.source_span or (0, 0)
    middle = text[m.middle[0].start:m.middle[-1].end]
    if m.first.kind == "single":
        nested = "`'\\''` for each inner single quote, or double quotes outside"
    else:
        nested = '`\\"` for each inner double quote, or single quotes outside'
    template = _CLOSES_QUOTE_OPENED_AT if assignment is None else _ASSIGNMENT_CUT
    message = template(q=q, code=code(text[m.first.start:m.first.end]), code2=code(middle),
                       why=m.why, received=received, nested=nested, name=assignment or "")
    fixes: tuple[Fix, ...] = ()
    if t is not None and layer.parent is None and span == (
            view.context.script.origin[close_at],
            (view.context.script.origin[close_at] or 0) + 1):
        fixes = _fix(ctx, view, m)
    return Finding(span, message, layer, fixes=fixes, severity=m.severity)


def _fix(ctx: CheckContext, view: CommandView, m: Match) -> tuple[Fix, ...]:
    origin = view.context.script.origin
    a, b = origin[m.first.end - 1], origin[m.last.start]
    if a is None or b is None:
        return ()
    q = _quote(m.first.kind)
    if ctx.source[a:a + 1] != q or ctx.source[b:b + 1] != q:
        return ()
    if m.first.kind == "single":
        if any(t.expansion for t in m.middle):
            return ()  # meant local or remote expansion? only the author knows
        new = "'\\''"
        title = "nest the single quotes as '\\''"
    else:
        new = '\\"'
        title = 'nest the double quotes as \\"'
    return (Fix(title, (Edit((a, a + 1), new), Edit((b, b + 1), new)), "unsafe"),)


RULE = Rule("QC107", "quote-closes-early",
            "A quote meant to nest inside another of the same kind closes it instead",
            "warning", check, fix="unsafe",
            trigger=TRIGGER)
