"""Regression cases for the lexer (scanner.py, words.py), each checked against the real shell.

Most words here were mis-segmented once (found by tests/test_words_properties.py); the others
guard the edges of those fixes. A static word must segment to exactly what bash (or dash) prints
for it; a word that expands must be called dynamic, with a part of the expected kind, and the
shell must really change it.
"""

from __future__ import annotations

import pytest
from harness.shells import bash_words, dash_words
from strategies import PREFIX, shell_word_lists

from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import Dialect, scan
from quotecheck.parsing.tree import SimpleCommand, walk
from quotecheck.parsing.words import Word, decode_ansi_c, segment


def seg(word: str, dialect: Dialect = "bash") -> Word:
    """Segment ``word`` as an argument of ``printf``, the way the shell reads it."""
    line = PREFIX + word
    return segment(scan(line, dialect), len(PREFIX), len(line), dialect)


# -- static words: value equals the shell's ------------------------------------------------

STATIC_BASH = [
    # A tilde-prefix with any quoting in it is not expanded.
    "~''",
    '~""',
    "~\\x",
    "~'x'/y",
    "~:'x'",
    "~=~'x'",
    # $'...' works on bytes: \xHH and \ooo are bytes, not code points.
    "$'\\xff'",
    "$'\\xc3\\xa9'",
    "$'\\303\\251'",
    "$'\\xBa'",
    "$'\\xc3'$'\\xa9'",
    "$'\\xe2\\x82'\"\"$'\\xac'",
    # A NUL ends the $'...' string; the word goes on after it.
    "$'a\\0b'",
    "$'a\\x00b'c",
    "$'\\400x'",
    "$'\\c@x'",
    "$'\\c x'",
    "$'\\x{}\\ud'",
    "$'\\u0\\u41'",
    # \x{...}, \c?, \c\\ and \c before a multibyte character.
    "$'\\x{41}'",
    "$'\\x{4142}z'",
    "$'\\x{'",
    "$'\\c?'",
    "$'\\c\\\\x'",
    "$'\\cé'",
    "$'\\cF\\cO'",
    # \u and \U beyond Unicode: bash writes the (invalid) UTF-8 bytes, or nothing.
    "$'\\ud800'",
    "$'\\U110000'",
    "$'\\U7fffffff'",
    "$'\\U80000000b'",
    "$'\\UE46a459B\\uZ'",
    "$'\\U0001F600'",
    # Braces that do not expand.
    "{1..a}",
    "{..Z}",
    "{1..3..x}",
    "{1..3..}",
    "{a}",
    "{}",
    "{},a}",
    '{"a,b"}',
    "{a\\,b}",
    # Brackets that are not a pattern: a slash inside them.
    "[/]",
    "a[b/c]",
    "[a/]b]",
    # `$` then a line continuation then a quote: still $'...' / $"...".
    "$\\\n'a\\tb'",
    '$\\\n"q"',
    "$\\\n%",
]

STATIC_DASH = [
    "~''",
    "~\\x",
    "~:x",
    "~=~",
    "~+",
    "a=~",
    "x=a:~",
    "$'\\xff'",
    "$\\\n'a\\tb'",
]


@pytest.mark.parametrize("word", STATIC_BASH)
def test_static_word_matches_bash(word: str) -> None:
    w = seg(word)
    assert not w.dynamic, w.parts
    assert bash_words(word) == [w.value]
    assert len(w.value) == len(w.offsets)


@pytest.mark.parametrize("word", STATIC_DASH)
def test_static_word_matches_dash(word: str) -> None:
    w = seg(word, "sh")
    assert not w.dynamic, w.parts
    assert dash_words(word) == [w.value]


# -- words that expand ---------------------------------------------------------------------

DYNAMIC_BASH = [
    # Arguments that look like assignments are tilde-expanded after `=` and `:`.
    ("a=~", "tilde"),
    ("x+=~/d", "tilde"),
    ("a=x:~", "tilde"),
    ("a[1]=~", "tilde"),
    ("a=~:'x'", "tilde"),
    # Tildes bash expands that were taken literally.
    ("~+", "tilde"),
    ("~:x", "tilde"),
    ("~=~", "tilde"),
    ("\\\n~", "tilde"),
    ("~\\\n/x", "tilde"),
    # Brace expansion decided on the whole word, quotes included.
    ('{a,b"c"}', "brace"),
    ("{'a',b}", "brace"),
    ("{a,\\\n}", "brace"),
    ("{a..\\\nc}", "brace"),
    ("x{},a}", "brace"),
    ("{a..c..2}", "brace"),
    ("{1..a}{b,c}", "brace"),
    # Bracket patterns with quoted members, or empty-looking ones.
    ('[a"b"]', "glob"),
    ("[a'b']", "glob"),
    ('[a"]"]', "glob"),
    ("[]", "glob"),
    ("[!]", "glob"),
    ("[a\\/b]", "glob"),
    # `$` followed by a line continuation still starts an expansion.
    ("$\\\nx", "parameter"),
    ('"$\\\nx"', "parameter"),
    ("$\\\n{x}", "parameter"),
    ("$\\\n(echo a)", "command"),
    ('"$\\\n(echo b)"', "command"),
    ("$\\\n((1+2))", "arithmetic"),
    ("$\\\n\\\n#", "special"),
]


@pytest.mark.parametrize(("word", "kind"), DYNAMIC_BASH)
def test_dynamic_word_really_expands(word: str, kind: str) -> None:
    w = seg(word)
    assert w.dynamic
    assert kind in [p.kind for p in w.parts], w.parts
    # Under nullglob (see strategies.shell_word_lists) a pattern matching nothing disappears,
    # so every one of these words comes out different from its value as written.
    [out] = shell_word_lists("bash", [word])
    assert out != [w.value]


def test_dash_has_no_brace_expansion_nor_assignment_tilde() -> None:
    words = ["{a,b}", "a=~", "{1..3}"]
    assert dash_words(" ".join(words)) == [seg(w, "sh").value for w in words]
    assert not any(seg(w, "sh").dynamic for w in words)


# -- offsets of decoded characters ---------------------------------------------------------


def test_bytes_joined_across_quotes_point_at_the_first_escape() -> None:
    word = "$'\\xc3'$'\\xa9'"
    w = seg(word)
    assert bash_words(word) == ["é"] == [w.value]
    assert w.offsets == (len(PREFIX) + 2,)  # the backslash of \xc3


def test_undecodable_bytes_of_one_escape_point_into_it() -> None:
    value, offs = decode_ansi_c("\\U110000", 10)
    assert bash_words("$'\\U110000'") == [value]
    assert offs == [10, 11, 12, 13]
    assert value.encode("utf-8", "surrogateescape") == b"\xf4\x90\x80\x80"


def test_expansion_after_line_continuation_keeps_its_text() -> None:
    word = "$\\\n(echo a)"
    w = seg(word)
    [part] = w.parts
    assert (part.kind, part.value) == ("command", word)
    assert bash_words(word) == ["a"]


# -- the scanner is bounded --------------------------------------------------------------------


@pytest.mark.parametrize("opener", ['"${', "${", '${x-"', '$("${'])
def test_deep_quote_nesting_is_reported_not_a_recursion_error(opener: str) -> None:
    text = opener * 2000
    sc = scan(text)
    assert any(p.code == "QC002" for p in sc.problems)
    assert all(k < end <= len(text) for k, end in sc.ends.items())
    # The segmenter copes with what the scanner gave up on.
    segment(sc, 0, len(text))


# -- the mask keeps nested scripts apart from the words around them ------------------------


def _commands(text: str) -> list[list[str]]:
    return [[w.value for w in c.words] for c, _ in walk(parse_script(text))
            if isinstance(c, SimpleCommand)]


@pytest.mark.parametrize(
    "text",
    [
        # The double quote around a $(...) does not fill the script's own words into one.
        "echo \"$(printf '%s\\0' x 'y z')\"",
        "echo \"${v:-$(printf '%s\\0' x 'y z')}\"",
        "[[ -n \"$(printf '%s\\0' x 'y z')\" ]]",
        # An unquoted heredoc body is not blanked before its $(...) is scanned.
        "cat <<E\n$(printf '%s\\0' x 'y z')\nE\n",
        # Command substitutions inside $((...)) are nested scripts too.
        "echo $(( $(printf '%s\\0' x 'y z') + 1 ))",
        "echo $(( \"$(printf '%s\\0' x 'y z')\" ))",
    ],
)
def test_nested_script_keeps_its_words(text: str) -> None:
    inner = [c for c in _commands(text) if c[0] == "printf"]
    assert inner == [["printf", "%s\\0", "x", "y z"]]
    assert bash_words("x 'y z'") == inner[0][2:]


@pytest.mark.parametrize("word", ["a$(\necho x\n)b", "$\\\n(echo y)z", "\"$(\necho x\n)\""])
def test_multiline_substitution_stays_one_word(word: str) -> None:
    [printf] = [c for c in _commands(PREFIX + word) if c[0] == "printf"]
    assert len(printf) == 4  # printf, format, sentinel, the word
    assert printf[3] == seg(word).value
    assert len(bash_words(word)) == 1


@pytest.mark.parametrize("word, kind, name", [
    ("${10}", "special", "10"), ("${#}", "special", "#"), ("${#x}", "parameter", "x"),
    ("${!}", "special", "!"), ("${!x}", "parameter", "x"), ("${@}", "special", "@"),
    ("${1:-a}", "special", "1"),
])
def test_braced_parameter_names(word: str, kind: str, name: str) -> None:
    # bash: `set -- a b c d e f g h i j; echo "${10} ${#}"` prints `j 10`
    from quotecheck.parsing.scanner import scan
    from quotecheck.parsing.words import segment

    part = segment(scan(word), 0, len(word)).parts[0]
    assert (part.kind, part.name) == (kind, name)
