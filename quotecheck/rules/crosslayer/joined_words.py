"""Words that ssh (or watch) joins with spaces for an inner shell to split again (QC102)."""

from __future__ import annotations

from quotecheck.diagnostics import Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, Layer, Trace
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.words import EXPANSION_KINDS
from quotecheck.records import FrozenRecord
from quotecheck.rules.crosslayer.analysis import Analysis
from quotecheck.rules.crosslayer.expansions import Expansion

_ASSIGNMENT_HEAD = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")

_OPERATORS = {
    ";": "a command separator",
    "&": "a background (or `&&`) operator",
    "|": "a pipe",
    "<": "a redirection",
    ">": "a redirection",
    "(": "a subshell parenthesis",
    ")": "a subshell parenthesis",
}


class Issue(FrozenRecord):
    kind: str  # empty, split, operator, comment, glob, quote, newline
    detail: str

    @property
    def severity(self) -> Severity:
        return "info" if self.kind == "glob" else "warning"


def word_issues(word: str) -> list[Issue]:
    """How a POSIX shell would read ``word`` differently from one literal word."""
    if word == "":
        return [Issue("empty", "is empty and disappears: the remote command gets one "
                               "argument fewer")]
    issues: dict[str, Issue] = {}
    quote: str | None = None
    at_start = True
    i = 0
    while i < len(word):
        c = word[i]
        if quote == "'":
            if c == "'":
                quote = None
            i += 1
            continue
        if quote == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                quote = None
            i += 1
            continue
        if c == "\\":
            nxt = word[i + 1:i + 2]
            if nxt == "":
                issues.setdefault("backslash", Issue(
                    "backslash", "ends in `\\`, which escapes the joining space after it and "
                                 "glues the next word on"))
            elif nxt.isalnum() or nxt in "_-./,:=+%@^":
                # Not escaping anything special: the remote shell just drops the backslash.
                issues.setdefault("backslash", Issue(
                    "backslash", f"holds `\\{nxt}`, which the remote shell reads as an escape "
                                 f"and turns into `{nxt}`"))
            i += 2
            at_start = False
            continue
        if c in "'\"":
            quote = c
            at_start = False
        elif c in " \t":
            issues.setdefault("split", Issue("split", "is split at its whitespace into "
                                                      "several words"))
            at_start = True
            i += 1
            continue
        elif c == "\n":
            issues.setdefault("newline", Issue("newline", "holds a newline, which ends the "
                                                          "command there"))
            at_start = True
            i += 1
            continue
        elif c in _OPERATORS:
            issues.setdefault("operator", Issue(
                "operator", f"holds `{c}`, which the remote shell reads as {_OPERATORS[c]}"))
        elif c == "#" and at_start:
            issues.setdefault("comment", Issue(
                "comment", "starts with `#`: the remote shell ignores it and every word after "
                           "it"))
        elif c in "*?[":
            issues.setdefault("glob", Issue(
                "glob", f"holds `{c}`, which the remote shell expands as a file name pattern "
                        "on its side"))
        at_start = False
        i += 1
    if quote is not None:
        issues["quote"] = Issue("quote", f"holds an unmatched `{quote}`: the remote shell "
                                         "reads the rest as quoted text (or fails)")
    return list(issues.values())


# What of the first command word's text reaches past its own end into the words joined after
# it; everything else in it (spaces, operators, globs) is read exactly as when it is sent alone.
_REACHES_ON = ("quote", "comment", "empty")


def _ends_in_backslash(word: str) -> bool:
    """``word`` ends in an unescaped backslash: it escapes the space ssh puts after it."""
    return (len(word) - len(word.rstrip("\\"))) % 2 == 1


def joined_issues(words: list[Arg], k: int) -> list[Issue]:
    """How word ``k`` of the joined ``words`` comes out differently once joined, by its own
    literal text. The first word is remote shell code (`ssh h 'bash -s' "$a"`: the remote
    shell is meant to split `bash -s`, as it does when that word is sent alone), so only what
    it does to the words after it counts: an unmatched quote, a `#` comment, a trailing
    backslash, or being empty (the next word becomes the command). A first word written as an
    assignment whose value was quoted here (`ssh h DEVICES="a b" ./run.sh`) is no such code:
    its value was meant as one word, and the remote shell runs what follows its blank."""
    text = literal_view(words[k])
    issues = word_issues(text)
    if k > 0 or quoted_assignment(words[k]):
        return issues
    return [i for i in issues if i.kind in _REACHES_ON
            or (i.kind == "backslash" and _ends_in_backslash(text))]


def assignment_head(text: str) -> str | None:
    """The `NAME=` (or `NAME+=`) that makes ``text`` an assignment at a command's start."""
    m = _ASSIGNMENT_HEAD.match(text)
    return m.group(0) if m else None


def quoted_assignment(arg: Arg) -> bool:
    """``arg`` was written `NAME=...` with its name unquoted and something after the `=`
    quoted or escaped here: an assignment whose value the writer protected as one word."""
    word = arg.word
    if word is None or not word.parts:
        return False
    head = word.parts[0]
    if head.quoting != "none" or head.kind != "literal" or assignment_head(head.value) is None:
        return False
    return any(p.quoting != "none" for p in word.parts[1:]) or "\\" in word.raw


def literal_view(arg: Arg) -> str:
    """``arg``'s value with each expansion replaced by a neutral character: what the word's
    own (literal) text does once joined, whatever the values."""
    if arg.word is None or not arg.dynamic:
        return arg.value
    return "".join("x" if p.kind in EXPANSION_KINDS else p.value for p in arg.word.parts)


def joined_words(trace: Trace, layer: Layer) -> list[Arg] | None:
    """The command words an ssh layer or a `watch` join layer joins (None when not such a
    layer, or when the words are not known)."""
    if layer.kind == "ssh":
        pass
    elif not (layer.kind == "join" and layer.via == "watch"):
        return None
    argv, h = layer.handoff_argv, layer.handoff
    if isinstance(h, ho.SshHandoff) and layer.kind == "ssh":
        if h.subsystem or h.no_command:
            return None
        indices = list(h.command)
    elif isinstance(h, ho.JoinHandoff) and h.wrapper == "watch" and layer.kind == "join":
        indices = list(h.words)
    else:
        return None
    return [argv[i] for i in indices if i < len(argv)]


def joined_word_issue(an: Analysis, exp: Expansion) -> bool:
    """The expansion's word is one of several words ssh/watch joins, and the word's own text
    already breaks (QC102 reports the word: one finding for one mistake)."""
    for layer_id in an.opened(exp.view):
        if layer_id not in an.joined:
            # Once per layer, not once per expansion (a line of n words was O(n^2)).
            words = joined_words(an.trace, an.trace.layers[layer_id])
            at: dict[int, list[int]] = {}
            for k, arg in enumerate(words or ()):
                if arg.word is not None:
                    at.setdefault(id(arg.word), []).append(k)
            an.joined[layer_id] = (words, at) if words and len(words) >= 2 else None
        found = an.joined[layer_id]
        if found is None:
            continue
        words, at = found
        for k in at.get(id(exp.word), ()):
            if any(i.kind != "glob" for i in joined_issues(words, k)):
                return True
    return False
