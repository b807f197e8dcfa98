"""Hypothesis strategies for shell words and scripts, and a batched real-shell oracle.

Words are built from *pieces* (an unquoted run, a backslash escape, a single-, double-, ``$'...'``
or ``$"..."``-quoted string, an expansion...), so every quoting form and their mixtures come up.
Each generated :class:`GenWord` says whether it holds a piece that may expand (``may_expand``):
``Word.dynamic`` must never be true for a word without one, so it cannot be used to dodge a check.

:func:`shell_word_lists` runs many words through one real ``printf '%s\\0'`` call (with a
separator word between them) so a property example costs one shell process, not one per word.

Profiles: ``default`` (300 examples per property), ``nightly`` (5000), ``ci`` (100); pick one
with ``HYPOTHESIS_PROFILE=nightly``. They are registered here, not in conftest.py. Properties that
repeat a check another one already makes use :func:`examples` to run a share of that number.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from harness.shells import ShellWordsError, run_shell
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

__all__ = [
    "PREFIX",
    "SEPARATOR",
    "GenScript",
    "GenWord",
    "examples",
    "gen_word",
    "shell_scripts",
    "shell_text",
    "shell_word_lists",
    "word_lines",
]

# The default and ci profiles draw the same examples on every run (derandomize), so that a
# test run on a fresh machine checks what the last run here checked; "nightly" explores.
settings.register_profile(
    "default",
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "nightly",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def examples(share: float) -> settings:
    """Settings running ``share`` of the active profile's number of examples (at least 10)."""
    active = settings.default
    assert active is not None
    return settings(max_examples=max(10, int(active.max_examples * share)))


# What the shell sees before the generated words; words are scanned in this context too.
PREFIX = "printf '%s\\0' qc-sentinel "
SEPARATOR = "qc-sep"

Dialect = str  # "bash" or "sh"


@dataclass(frozen=True)
class GenWord:
    """A generated shell word: its source text and whether any piece of it may expand."""

    source: str
    may_expand: bool


# -- characters --------------------------------------------------------------------------------

# Never special unquoted, anywhere in a word (no glob, brace, tilde, quote, expansion, operator).
_SAFE_ASCII = "ABCXYZabcxyz0189_./:,@%+=-^!]}#"
# Non-ASCII letters, digits and symbols (emoji): bash and dash take them literally.
_unicode_letters = st.characters(
    categories=["Lu", "Ll", "Lo", "Nd", "So"], min_codepoint=0x80, max_codepoint=0x1FFFF
)
_safe_char = st.one_of(st.sampled_from(_SAFE_ASCII), _unicode_letters)
# Anything but NUL and lone surrogates (they cannot be passed through a C string / UTF-8).
_any_char = st.one_of(
    st.characters(codec="utf-8", exclude_characters="\x00", exclude_categories=["Cs"]),
    st.sampled_from("'\"\\$`\n\t {}[]*?~#;&|<>()\x01\x7f"),
)

# -- pieces ------------------------------------------------------------------------------------
# A piece is (text, may_expand).

Piece = tuple[str, bool]


def _lit(s: st.SearchStrategy[str]) -> st.SearchStrategy[Piece]:
    return s.map(lambda t: (t, False))


def _exp(s: st.SearchStrategy[str]) -> st.SearchStrategy[Piece]:
    return s.map(lambda t: (t, True))


_unquoted = _lit(st.text(_safe_char, min_size=1, max_size=6))
# Characters that are special unquoted only in some combinations: `{a,b}`, `[ab]`, `*`, `~`...
_unquoted_special = _exp(st.text(st.sampled_from("{},[]*?~.ab1/:="), min_size=1, max_size=5))
_escape = _lit(st.builds(lambda c: "\\" + c, _any_char))
_line_continuation = _lit(st.just("\\\n"))
_single = _lit(st.text(_any_char.filter(lambda c: c != "'"), max_size=8).map(lambda s: f"'{s}'"))
# `'\''` and `'"'"'` put a quote into a single-quoted string: they stand between two parts of it.
_idioms = _lit(st.sampled_from([
    "'it'\\''s'", "'it'\"'\"'s'", "''\\'''", "'a'\\'''", "''", '""', "\"'\"", "'\"'",
]))
# `$` that stays literal: followed by a character that starts no expansion.
_literal_dollar = _lit(st.sampled_from(["$%", "$,", "$.", "$/", "$:", "$=", "$+", "$^", "$]",
                                        "$\\\n%"]))

_PARAM_EXPANSIONS = [
    "$x", "${x}", "${x:-a b}", "${x-\"}\"}", "${#x}", "${x%%a}", "$1", "$#", "$?", "${$}", "$@",
    "$*", "$-", "$0", "${10}", "$_", "${x:-'}'}", "${x:+$(echo b)}",
    # Line continuations vanish first, even inside an expansion.
    "$\\\nx", "${x\\\n}", "$x\\\ny", "$\\\n{x}", "$\\\n#",
]
_COMMAND_EXPANSIONS = [
    "$(echo a)", "$(echo \"a b\")", "`echo a`", "$((1+2))", "$(( 3 * 4 ))", "$(echo ')')",
    "$(case a in a) echo c;; esac)", "`echo \\`echo d\\``", "$\\\n(echo a)", "$\\\n((1))",
]
_expansion = _exp(st.sampled_from(_PARAM_EXPANSIONS + _COMMAND_EXPANSIONS))
_glob = _exp(st.sampled_from(["*", "?", "[ab]", "[!a]", "*.x"]))
_brace = _exp(st.sampled_from(["{a,b}", "{1..3}", "{a..c}", "{,x}", "x{a,}", "{a,{b,c}}"]))

# Inside double quotes.
_dq_plain = _lit(st.text(_any_char.filter(lambda c: c not in '"\\$`'), min_size=1, max_size=6))
_dq_escape = _lit(st.sampled_from(["\\$", "\\`", '\\"', "\\\\", "\\\n", "\\a", "\\n", "\\'",
                                   "\\ ", "\\é"]))
_dq_literal_dollar = _lit(st.sampled_from(["$%", "$ ", "$'", "$,", "$.", "$/"]))
_dq_expansion = _exp(st.sampled_from(_PARAM_EXPANSIONS + _COMMAND_EXPANSIONS))
_dq_inner = st.lists(
    st.one_of(_dq_plain, _dq_escape, _dq_literal_dollar, _lit(st.just("'")), _dq_expansion),
    max_size=5,
)


def _join(prefix: str, pieces: list[Piece], suffix: str) -> Piece:
    return (prefix + "".join(t for t, _ in pieces) + suffix, any(e for _, e in pieces))


_double = _dq_inner.map(lambda ps: _join('"', ps, '"'))
_locale = _dq_inner.map(lambda ps: _join('$"', ps, '"'))

# Inside $'...': every escape bash knows, and some it does not.
_hex = "0123456789abcdefABCDEF"
_ANSI_SIMPLE = ["\\a", "\\b", "\\e", "\\E", "\\f", "\\n", "\\r", "\\t", "\\v", "\\\\", "\\'",
                '\\"', "\\?"]
_ansi_escape = st.one_of(
    st.sampled_from(_ANSI_SIMPLE),
    st.text(st.sampled_from("01234567"), min_size=1, max_size=3).map(lambda d: "\\" + d),
    st.text(st.sampled_from(_hex), min_size=1, max_size=2).map(lambda d: "\\x" + d),
    st.text(st.sampled_from(_hex), max_size=4).map(lambda d: "\\x{" + d + "}"),
    st.text(st.sampled_from(_hex), min_size=1, max_size=4).map(lambda d: "\\u" + d),
    st.text(st.sampled_from(_hex), min_size=1, max_size=8).map(lambda d: "\\U" + d),
    # Well-formed code points, the common case.
    st.characters(codec="utf-8", exclude_categories=["Cs"], min_codepoint=1).map(
        lambda c: f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
    ),
    st.sampled_from([chr(c) for c in range(0x20, 0x7F) if chr(c) != "'"]).map(
        lambda c: "\\c" + ("\\\\" if c == "\\" else c)
    ),
    st.sampled_from(["\\z", "\\q", "\\%", "\\ ", "\\x", "\\xg", "\\u", "\\U", "\\uZ", "\\c",
                     "\\\n", "\\é", "\\😀", "\\8", "\\9"]),
)
# Not \x01 or \x7f: bash marks them internally (CTLESC, CTLNUL) before decoding `$'...'`, and
# after a backslash (`\<x01>`, `\c<x7f>`) that marking leaks into the result. quotecheck does not
# model that bash quirk; those characters are checked in every other context.
_ansi_plain = st.text(_any_char.filter(lambda c: c not in "'\\\x01\x7f"), min_size=1,
                      max_size=5)
_ansi_body = st.lists(st.one_of(_ansi_escape, _ansi_plain), max_size=5).map("".join)
_ansi = _lit(st.builds(lambda lc, b: f"${lc}'{b}'", st.sampled_from(["", "", "\\\n"]),
                       _ansi_body))


def _base_pieces(dialect: Dialect) -> st.SearchStrategy[Piece]:
    common = [
        _unquoted, _unquoted, _unquoted_special, _escape, _line_continuation, _single, _single,
        _idioms, _literal_dollar, _double, _double, _locale, _expansion, _glob,
    ]
    if dialect == "bash":
        return st.one_of(*common, _ansi, _ansi, _brace)
    # dash: `$'...'` is `$` then a single-quoted string, so a `\'` inside would end the quote.
    dash_ansi = _lit(
        _ansi_body.filter(lambda b: "\\'" not in b and not b.endswith("\\")).map(
            lambda b: f"$'{b}'"
        )
    )
    return st.one_of(*common, dash_ansi)


# Brace expressions and bracket patterns around other pieces, quoted ones included: whether
# `{a,"b c"}`, `{"a,b"}`, `[a"]"]`, `{1..a}` expand is decided on the whole word.
# No capitals: `{Z..a}` holds a backquote, which bash then takes for a command substitution.
_SEQ_ENDS = ["1", "3", "-2", "+1", "01", "10", "a", "c", "e", "é", "x1", "", "\\ 1", '"1"']


@st.composite
def _bracketed(draw: st.DrawFn, dialect: Dialect) -> Piece:
    inner = _base_pieces(dialect)
    form = draw(st.sampled_from(["list", "list", "seq", "single", "bracket", "slash"]))
    items = draw(st.lists(inner, max_size=3))
    texts = [t for t, _ in items]
    if form == "list":
        text = "{" + ",".join(texts) + "}"
    elif form == "seq":
        ends = draw(st.lists(st.sampled_from(_SEQ_ENDS), min_size=2, max_size=3))
        text = "{" + "..".join(ends) + "}"
    elif form == "single":
        text = "{" + "".join(texts) + "}"
    elif form == "bracket":
        text = "[" + "".join(texts) + "]"
    else:
        text = "[" + "".join(texts) + "/" + "]"
    return (text, True)


def _pieces(dialect: Dialect) -> st.SearchStrategy[Piece]:
    return st.one_of(_base_pieces(dialect), _bracketed(dialect))


# An argument that looks like an assignment: bash (not dash) tilde-expands after `=` and `:`.
_ASSIGNMENT_PREFIXES = ["a=", "PATH=", "x+=", "a[1]=", "_b2="]
_ASSIGNMENT_VALUES = [("~", True), ("~/d", True), ("x:~", True), ("~:y", True), ("'~'", False),
                      ("\\~", False), ("", False), ("x~", False)]


@st.composite
def gen_word(draw: st.DrawFn, dialect: Dialect = "bash", max_pieces: int = 5) -> GenWord:
    """One shell word from ``max_pieces`` pieces of any quoting form."""
    pieces = draw(st.lists(_pieces(dialect), min_size=1, max_size=max_pieces))
    start = draw(st.integers(0, 11))
    if start in (0, 1):
        pieces.insert(0, ("~" if start == 0 else "~/", True))
    elif start == 2:
        value = draw(st.sampled_from(_ASSIGNMENT_VALUES))
        prefix = draw(st.sampled_from(_ASSIGNMENT_PREFIXES))
        # `a[1]=` is also a bracket pattern.
        pieces.insert(0, (prefix + value[0], value[1] or "[" in prefix))
        if draw(st.booleans()):
            del pieces[1:]
    text, may_expand = _join("", pieces, "")
    # The word must stay one word starting here: not a comment, not nothing at all.
    stripped = text
    while stripped.startswith("\\\n"):
        stripped = stripped[2:]
    if not stripped or stripped.startswith("#"):
        text = "w" + text
    return GenWord(text, may_expand)


def word_lines(dialect: Dialect = "bash", max_words: int = 12) -> st.SearchStrategy[
        list[GenWord]]:
    """Several words, to be checked together in one shell run."""
    return st.lists(gen_word(dialect), min_size=1, max_size=max_words)


# -- scripts -----------------------------------------------------------------------------------

_COMMAND_NAMES = ["echo", "printf '%s\\n'", "ssh h", "sh -c", "bash -c", "cat", "env a=1 echo"]
_SEPARATORS = ["; ", " | ", " && ", " || ", "\n", " &\n"]


@dataclass(frozen=True)
class GenScript:
    """A generated script: ``commands`` simple commands of generated words, joined by list and
    pipeline operators and newlines."""

    source: str
    commands: int


@st.composite
def shell_scripts(draw: st.DrawFn, dialect: Dialect = "bash", max_commands: int = 4) -> GenScript:
    """A syntactically valid script of simple commands whose arguments are :func:`gen_word`."""
    n = draw(st.integers(1, max_commands))
    parts: list[str] = []
    for k in range(n):
        if k:
            parts.append(draw(st.sampled_from(_SEPARATORS)))
        words = draw(st.lists(gen_word(dialect), min_size=1, max_size=4))
        parts.append(" ".join([draw(st.sampled_from(_COMMAND_NAMES)), *(w.source for w in words)]))
    return GenScript("".join(parts) + "\n", n)


# -- arbitrary text for the scanner ------------------------------------------------------------

_SHELLISH = [
    "'", '"', "$", "(", ")", "`", "\\", "\n", " ", "\t", "{", "}", "[", "]", "<", ">", "|", "&",
    ";", "#", "=", "a", "b", "x", "EOF", "-", "*", "~", ",", ".", "é", "<<", "<<-", "$(", "${",
    "$((", "((", "))", "[[", "]]", "$'", '$"', "<(", ">(", "case", "esac", "in", "a=(", "\\\n",
    "cat <<EOF\n", "cat <<'EOF'\n", "EOF\n", "<<<",
]


@st.composite
def shell_text(draw: st.DrawFn, max_size: int = 60) -> str:
    """Random shell-ish text: quotes, expansions, nesting, heredocs; usually invalid."""
    tokens = draw(st.lists(st.sampled_from(_SHELLISH), max_size=max_size))
    if draw(st.integers(0, 7)) == 0:
        # Deep nesting, which the scanner must bound instead of overflowing the stack.
        opener = draw(st.sampled_from(['"${', "${", "$(", '"$(', "$((", "<(", "`", "$(\"${",
                                       "${x-\"", "$'", "a=(", "[[ "]))
        depth = draw(st.sampled_from([10, 100, 400, 1000, 2000]))
        tokens = [opener * depth, *tokens]
    return "".join(tokens)


# -- the oracle --------------------------------------------------------------------------------

def shell_word_lists(shell: str, words: list[str], timeout: float = 20) -> list[list[str]]:
    """For each source word, the list of words ``shell`` produces for it.

    Runs ``printf '%s\\0' qc-sentinel W1 qc-sep W2 qc-sep ...`` once, in the same sandbox as
    ``harness.shells.shell_words`` (empty directory, ``PATH`` an empty directory, ``HOME``
    ``/nonexistent``, ``LC_ALL=C.UTF-8``), and splits the output at the separator words. Bash
    runs with ``nullglob``, so a pattern that matches nothing disappears instead of passing
    through unchanged: a glob the lexer missed shows up as a difference. Raises
    :class:`ShellWordsError` if the shell fails or writes to stderr.
    """
    source = f" {SEPARATOR} ".join(words)
    prelude = "shopt -s nullglob; " if shell == "bash" else ""
    with tempfile.TemporaryDirectory(prefix="qc-words-") as tmp:
        empty_bin = os.path.join(tmp, "bin")
        cwd = os.path.join(tmp, "cwd")
        os.mkdir(empty_bin)
        os.mkdir(cwd)
        env = {"PATH": empty_bin, "HOME": "/nonexistent", "LC_ALL": "C.UTF-8"}
        res = run_shell(shell, prelude + PREFIX + source, env, timeout=timeout, cwd=cwd)
    if res.returncode != 0 or res.stderr:
        raise ShellWordsError(f"{shell} exited {res.returncode} for {source!r}: {res.stderr}")
    if not res.stdout.endswith("\0"):
        raise ShellWordsError(f"{shell} printed no words for {source!r}: {res.stdout!r}")
    out = res.stdout[:-1].split("\0")
    if out[0] != "qc-sentinel":
        raise ShellWordsError(f"unexpected output for {source!r}: {res.stdout!r}")
    groups: list[list[str]] = [[]]
    for w in out[1:]:
        if w == SEPARATOR:
            groups.append([])
        else:
            groups[-1].append(w)
    if len(groups) != len(words):
        raise ShellWordsError(f"{shell}: {len(groups)} groups for {len(words)} words: {out!r}")
    return groups
