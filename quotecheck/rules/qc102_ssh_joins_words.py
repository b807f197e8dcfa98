"""QC102 ssh-joins-words: several command words given to ssh (or watch) lose their boundaries.

ssh joins the words after the destination with single spaces, adds no quoting, and the remote
login shell parses the result again (verified with OpenSSH 9.2); procps watch does the same
and runs `sh -c` on it. A word that holds whitespace, an operator, an unmatched quote, a
leading `#`, a glob or nothing at all comes out differently on the other side. Words whose
value is only known at run time (`"$dir"`) are QC103's: their text is a value spliced into code.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence
from itertools import pairwise

from quotecheck.diagnostics import Edit, Fix, Related, Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.layers.ssh import SSH_GRAMMAR
from quotecheck.programs import SHELL_PROGRAMS
from quotecheck.rules import _fixes
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.crosslayer.joined_words import (
    Issue,
    assignment_head,
    joined_issues,
    joined_words,
)
from quotecheck.rules.qc107_quote_closes_early import closes_early
from quotecheck.rules.triggers import HANDOFFS


def _remote_reading(ctx: CheckContext, layer: Layer) -> str | None:
    """How the inner shell splits the joined string: `ls` `my` `file` ; `b`."""
    shells = [x for x in ctx.trace.children(layer) if x.kind == "shell"]
    if not shells:
        return None
    parts: list[str] = []
    for view in shells[0].commands:
        if view.context.in_substitution:
            continue
        words = " ".join(f"`{a.value}`" for a in view.argv[:8])
        if len(view.argv) > 8:
            words += " …"
        parts.append(words or "(nothing)")
        if len(parts) >= 4:
            break
    return " ; ".join(parts) if parts else "nothing at all"


def _remote_quote(word: str) -> str:
    """``word`` quoted as one word for the remote shell, as readably as possible."""
    if "'" not in word:
        return f"'{word}'"
    if not any(c in word for c in "\"$`\\"):
        return f'"{word}"'
    return shlex.quote(word)


def _remote_word(values: Sequence[str], k: int) -> str:
    """Word ``k`` quoted as one word for the remote shell; in the run of assignments that starts
    the command (`A="x y" B=1 cmd`) only the value, so that the word stays an assignment."""
    head = None
    for value in values[:k + 1]:
        head = assignment_head(value)
        if head is None:
            break
    if head is None:
        return _remote_quote(values[k])
    return head + _remote_quote(values[k][len(head):])


def _local_form(remote: str) -> str:
    """``remote`` as one word for the local shell."""
    if not any(c in remote for c in "\"$`\\!"):
        return f'"{remote}"'
    if "'" not in remote:
        return f"'{remote}'"
    return '"' + "".join("\\" + c if c in '"$`\\' else c for c in remote) + '"'


def _fix(ctx: CheckContext, words: Sequence[Arg], replacement: str) -> tuple[Fix, ...]:
    spans = [a.source_span for a in words]
    if any(s is None for s in spans):
        return ()
    known = [s for s in spans if s is not None]
    for (_, end), (start, _) in pairwise(known):
        gap = ctx.source[end:start].replace("\\\n", "")
        if start < end or gap.strip(" \t"):
            return ()
    return (Fix("send the remote command as one string quoted for the remote shell",
                (Edit((known[0][0], known[-1][1]), replacement),), "unsafe"),)


def _split_uncertain(opener: CommandView | None, words: Sequence[Arg]) -> bool:
    """A word before the command is known only at run time in a place that decides the split
    (`ssh "${OPTS[@]}" host ...`, `ssh $OPTS host ...`): which word is the destination and
    where the command starts is a guess, and joining from the guessed start would make the
    command the host name. The value of an option (`-p "$port"`) or a destination that is one
    plain value (`"$host"`) leaves the split as it is."""
    if opener is None or not words:
        return False
    first = next((i for i, a in enumerate(opener.argv) if a is words[0]), None)
    if first is None or first < 2:
        return first is None
    for i in range(1, first):
        arg = opener.argv[i]
        if not arg.dynamic:
            continue
        raw = arg.word.raw if arg.word is not None else ""
        if any(s in raw for s in ("[@]", "[*]", "$@", "$*", "${@", "${*")):
            return True
        prev = opener.argv[i - 1]
        takes_value = (i > 1 and not prev.dynamic and len(prev.value) >= 2
                       and prev.value[0] == "-" and prev.value[-1] in SSH_GRAMMAR.short_values)
        if not takes_value and i != first - 1:
            return True
        if i == first - 1 and not raw.startswith('"'):
            return True  # an unquoted value may be several words
    return False


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer in ctx.layers:
        words = joined_words(ctx.trace, layer)
        if words is None or len(words) < 2:
            continue
        found = _judge(ctx, layer, "ssh" if layer.kind == "ssh" else "watch", words)
        if found is not None:
            yield found


_WORDS_JOINED = Template(
    "words-joined",
    "{joiner} joins its {count} command words with spaces and {shell} parses the "
    "result again, so word boundaries are lost",
    "{what}. {joiner} sends `{sent}`.{read_as}{advice}")


def _judge(ctx: CheckContext, layer: Layer, joiner: str,
           words: list[Arg]) -> Finding | None:
    problems: list[tuple[int, Arg, list[Issue]]] = []
    for k, a in enumerate(words):
        issues = joined_issues(words, k)
        if a.dynamic:
            # Only the word's own text is judged; a value is QC103's (and may be empty).
            issues = [i for i in issues if i.kind not in ("glob", "empty")]
        if issues:
            problems.append((k, a, issues))
    if not problems:
        return None
    values = [a.value for a in words]
    severity: Severity = "info" if all(
        i.severity == "info" for _, _, issues in problems for i in issues) else "warning"
    # `ssh h sh -c 'python x.py'`: only the first word of the string becomes the script.
    for k, _a, issues in problems:
        if (k >= 2 and values[k - 1] == "-c" and ho.basename(values[k - 2]) in SHELL_PROGRAMS
                and any(i.kind == "split" for i in issues)):
            severity = "error"
    sent = layer.text if layer.text is not None else " ".join(values)
    first = problems[0][1]
    described = []
    for _, a, issues in problems[:4]:
        value = " (and the value of its `$...` is pasted in unquoted)" if a.dynamic else ""
        described.append(f"`{a.value}` {' and '.join(i.detail for i in issues)}{value}")
    what = "; ".join(described)
    shell = "the remote shell" if joiner == "ssh" else "`sh -c`"
    reading = _remote_reading(ctx, layer)
    read_as = f" {shell[0].upper()}{shell[1:]} reads it as {reading}." if reading else ""
    fixes: tuple[Fix, ...] = ()
    advice = ""
    if severity == "info":
        advice = (" That is fine if the pattern is meant for the remote side; quote it for "
                  f"the remote shell (`\"'{first.value}'\"`) if it is a literal name.")
    elif not any(a.dynamic for a in words):
        quoted = {k for k, _, issues in problems if any(i.kind != "glob" for i in issues)}
        remote = " ".join(_remote_word(values, k) if k in quoted else v
                          for k, v in enumerate(values))
        local = _local_form(remote)
        advice = (f" Pass the command as one string quoted for {shell}: `{joiner} … {local}` "
                  f"(or send the script on stdin: `{joiner} … bash -s <<'EOF'`)."
                  if joiner == "ssh" else
                  f" Pass the command as one string quoted for `sh -c`: `watch … {local}`.")
        opener = layer.opened_by
        # The replacement is written for the file's own shell: inside another layer's
        # quotes (`sh -c '... ssh h ...'`) it would need that layer's quoting too.
        if layer.parent is not None and _fixes.written_in_file(ctx, ctx.layers[layer.parent]) \
                and (opener is None or not closes_early(ctx, opener)) \
                and not _split_uncertain(opener, words):
            fixes = _fix(ctx, words, local)
    elif not first.dynamic:
        advice = (f" Quote that word for {shell} as well: "
                  f"`{_local_form(_remote_quote(first.value))}`.")
    else:
        shown = first.value
        stdin = (f", or send the command on stdin (`{joiner} … bash -s <<'EOF'`) with the "
                 "values as arguments" if joiner == "ssh" else "")
        advice = (f" Quote that word for {shell}: `\"$(printf %q \"{shown}\")\"` in bash"
                  f"{stdin}." if '"' not in shown else
                  f" Quote that word for {shell} (`printf %q` in bash).")
    msg = (_WORDS_JOINED(joiner=joiner, count=len(words), shell=shell, what=what,
                                       sent=sent, read_as=read_as, advice=advice))
    span = first.source_span or layer.source_span or (0, 0)
    related = tuple(Related(a.source_span, "another word that does not survive the join")
                    for _, a, _ in problems[1:] if a.source_span is not None)
    shells = [x for x in ctx.trace.children(layer) if x.kind == "shell"]
    target = shells[0] if shells else layer
    return Finding(span, msg, target, related, fixes, severity)


RULE = Rule("QC102", "ssh-joins-words",
            "ssh or watch joins several words with spaces; the inner shell splits them again",
            "warning", check, fix="unsafe",
            trigger=HANDOFFS)
