"""Tests for quotecheck.parsing.bashlex_adapter: bashlex with our grammar actions, safe_parse,
validate."""

from __future__ import annotations

import copy
import glob
import importlib
import json
import marshal
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from typing import Any

import pytest

from quotecheck.parsing import bashlex_adapter
from quotecheck.parsing.bashlex_adapter import ParseOutcome, parse_masked, safe_parse, validate
from quotecheck.parsing.bashlex_tokenizer import make_tokenizer_class

# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True, scope="module")
def _private_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Keep this module's first bashlex load from writing tables into the user's ~/.cache."""
    saved = os.environ.get("QUOTECHECK_CACHE_DIR")
    os.environ["QUOTECHECK_CACHE_DIR"] = str(tmp_path_factory.mktemp("tables"))
    yield
    if saved is None:
        os.environ.pop("QUOTECHECK_CACHE_DIR", None)
    else:
        os.environ["QUOTECHECK_CACHE_DIR"] = saved


def parse_ok(text: str) -> list[Any]:
    nodes = parse_masked(text)
    assert validate(nodes, text) is None
    return nodes


def only(text: str) -> Any:
    nodes = parse_ok(text)
    assert len(nodes) == 1
    return nodes[0]


def inner(text: str, kind: str) -> Any:
    """The `kind` node wrapped in the single top-level compound of `text`."""
    top = only(text)
    assert top.kind == "compound"
    assert len(top.list) == 1
    assert top.list[0].kind == kind
    return top.list[0]


def shape(node: Any, text: str) -> str:
    """A compact structural rendering: leaves as kind:'text', containers as kind[...]."""
    if node.kind in ("word", "assignment", "reservedword", "operator", "pipe", "redirect"):
        return f"{node.kind}:{text[node.pos[0] : node.pos[1]]!r}"
    inside = " ".join(shape(c, text) for c in bashlex_adapter.child_nodes(node))
    return f"{node.kind}[{inside}]"


def shapes(text: str) -> list[str]:
    return [shape(n, text) for n in parse_ok(text)]


def parts(node: Any, text: str) -> list[tuple[str, str, tuple[int, int]]]:
    """(kind, spelled text, pos) of a node's direct parts."""
    return [(p.kind, text[p.pos[0] : p.pos[1]], p.pos) for p in node.parts]


def keywords(node: Any) -> list[str]:
    return [p.word for p in node.parts if p.kind == "reservedword"]


def at(text: str, needle: str, start: int = 0) -> tuple[int, int]:
    i = text.index(needle, start)
    return (i, i + len(needle))


# --------------------------------------------------------------------------------------------
# case
# --------------------------------------------------------------------------------------------


def test_case_all_clause_forms_exact_spans() -> None:
    text = "case x in a) b;; c|d) e;& (f) ;;& g) esac"
    case = inner(text, "case")
    assert case.pos == (0, 41)
    kinds = [(k, s) for k, s, _ in parts(case, text)]
    assert kinds == [
        ("reservedword", "case"),
        ("word", "x"),
        ("reservedword", "in"),
        ("pattern", "a) b;;"),
        ("pattern", "c|d) e;&"),
        ("pattern", "(f) ;;&"),
        ("pattern", "g)"),
        ("reservedword", "esac"),
    ]
    p1, p2, p3, p4 = case.parts[3:7]
    assert parts(p1, text) == [
        ("word", "a", (10, 11)),
        ("reservedword", ")", (11, 12)),
        ("command", "b", (13, 14)),
        ("reservedword", ";;", (14, 16)),
    ]
    assert parts(p2, text) == [
        ("word", "c", (17, 18)),
        ("reservedword", "|", (18, 19)),
        ("word", "d", (19, 20)),
        ("reservedword", ")", (20, 21)),
        ("command", "e", (22, 23)),
        ("reservedword", ";&", (23, 25)),
    ]
    assert parts(p3, text) == [
        ("reservedword", "(", (26, 27)),
        ("word", "f", (27, 28)),
        ("reservedword", ")", (28, 29)),
        ("reservedword", ";;&", (30, 33)),
    ]
    assert parts(p4, text) == [("word", "g", (34, 35)), ("reservedword", ")", (35, 36))]
    assert (p1.pos, p2.pos, p3.pos, p4.pos) == ((10, 16), (17, 25), (26, 33), (34, 36))
    assert case.parts[1].word == "x"


def test_case_multiline_with_newlines_everywhere() -> None:
    text = textwrap.dedent(
        """\
        case x
        in

          a|b|c)
            one
            two
            ;;

          *)
            ;;
        esac
        """
    )
    case = inner(text, "case")
    assert keywords(case) == ["case", "in", "esac"]
    first, second = [p for p in case.parts if p.kind == "pattern"]
    assert [text[w.pos[0] : w.pos[1]] for w in first.parts if w.kind == "word"] == ["a", "b", "c"]
    assert first.parts[0].pos == (text.index("a|b"), text.index("a|b") + 1)
    body = first.parts[-2]
    assert body.kind == "list"
    assert [shape(c, text) for c in body.parts if c.kind == "command"] == [
        "command[word:'one']",
        "command[word:'two']",
    ]
    assert first.parts[-1].word == ";;"
    assert first.parts[-1].pos == at(text, ";;")
    assert parts(second, text)[0] == ("word", "*", at(text, "*"))
    assert [p.kind for p in second.parts] == ["word", "reservedword", "reservedword"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "case x in esac",
            "case[reservedword:'case' word:'x' reservedword:'in' reservedword:'esac']",
        ),
        (
            "case x in\nesac",
            "case[reservedword:'case' word:'x' reservedword:'in' reservedword:'esac']",
        ),
        (
            "case x\nin esac",
            "case[reservedword:'case' word:'x' reservedword:'in' reservedword:'esac']",
        ),
        (
            "case x in a) esac",
            "case[reservedword:'case' word:'x' reservedword:'in' "
            "pattern[word:'a' reservedword:')'] reservedword:'esac']",
        ),
        (
            "case x in a) b\nesac",
            "case[reservedword:'case' word:'x' reservedword:'in' "
            "pattern[word:'a' reservedword:')' command[word:'b']] reservedword:'esac']",
        ),
        (
            "case x in (a) ;; esac",
            "case[reservedword:'case' word:'x' reservedword:'in' "
            "pattern[reservedword:'(' word:'a' reservedword:')' reservedword:';;'] "
            "reservedword:'esac']",
        ),
        (
            "case x in a) b; c;; esac",
            "case[reservedword:'case' word:'x' reservedword:'in' "
            "pattern[word:'a' reservedword:')' list[command[word:'b'] operator:';' "
            "command[word:'c']] reservedword:';;'] reservedword:'esac']",
        ),
        (
            "case x in a) b &\n;; esac",
            "case[reservedword:'case' word:'x' reservedword:'in' "
            "pattern[word:'a' reservedword:')' list[command[word:'b'] operator:'&'] "
            "reservedword:';;'] reservedword:'esac']",
        ),
    ],
)
def test_case_small_forms(text: str, expected: str) -> None:
    assert shape(inner(text, "case"), text) == expected


def test_case_patterns_may_be_reserved_words() -> None:
    text = "case x in\n  done) a;;\n  in|time|if)\n  ;;\n  esac"
    case = inner(text, "case")
    words = [
        text[w.pos[0] : w.pos[1]]
        for p in case.parts
        if p.kind == "pattern"
        for w in p.parts
        if w.kind == "word"
    ]
    assert words == ["done", "in", "time", "if"]
    assert case.parts[-1].word == "esac"


def test_case_redirect_after_esac_and_in_pipelines_and_lists() -> None:
    text = "case x in a) b;; esac > out 2>&1"
    top = only(text)
    assert top.kind == "compound"
    assert [shape(r, text) for r in top.redirects] == ["redirect:'> out'", "redirect:'2>&1'"]
    assert top.pos == (0, len(text))
    assert shapes("x | case y in a) b;; esac | z") == [
        "pipeline[command[word:'x'] pipe:'|' compound[case[reservedword:'case' word:'y' "
        "reservedword:'in' pattern[word:'a' reservedword:')' command[word:'b'] "
        "reservedword:';;'] reservedword:'esac']] pipe:'|' command[word:'z']]"
    ]
    (lst,) = parse_ok("case x in a) b;; esac && c || d")
    assert [p.kind for p in lst.parts] == ["compound", "operator", "command", "operator", "command"]


@pytest.mark.parametrize(
    "text",
    [
        "for i in a b; do case _i in a) x;; esac; done",
        "while a; do case x in a) y;; esac; done",
        "f() { case x in a) y;; esac; }",
        "function f { case x in\n a) y\n ;;\n esac\n}",
        "if a; then case x in a) y;; esac; elif b; then case y in *) ;; esac; fi",
        "case x in a) case y in b) z;; esac;; c) if b; then c; fi;; esac",
        "case x in a) while d; do e; done;; b) (f; g);; esac",
    ],
)
def test_case_nested_everywhere(text: str) -> None:
    nodes = parse_ok(text)
    cases = [n for n in bashlex_adapter.iter_nodes(nodes) if n.kind == "case"]
    assert cases
    for case in cases:
        assert case.parts[0].word == "case"
        assert case.parts[-1].word == "esac"
        assert text[case.pos[0] : case.pos[1]].startswith("case")
        assert text[case.pos[0] : case.pos[1]].endswith("esac")


# --------------------------------------------------------------------------------------------
# if / elif / else
# --------------------------------------------------------------------------------------------


def test_if_elif_else_flattened_in_textual_order() -> None:
    text = "if a; then b; elif c; then d; elif e; then f; else g; fi"
    node = inner(text, "if")
    assert keywords(node) == ["if", "then", "elif", "then", "elif", "then", "else", "fi"]
    expected = []
    start = 0
    for kw in ["if", "then", "elif", "then", "elif", "then", "else", "fi"]:
        span = at(text, kw + " " if kw != "fi" else kw, start)
        span = (span[0], span[0] + len(kw))
        expected.append(span)
        start = span[1]
    assert [p.pos for p in node.parts if p.kind == "reservedword"] == expected
    # every part is a node in order, and the bodies sit between their keywords
    bodies = [text[p.pos[0] : p.pos[1]] for p in node.parts if p.kind != "reservedword"]
    assert bodies == ["a;", "b;", "c;", "d;", "e;", "f;", "g;"]
    assert all(hasattr(p, "kind") for p in node.parts)


def test_if_multiline_and_nested_else_if() -> None:
    text = "if a\nthen\n  b\nelif c\nthen\n  d\nelse\n  e\nfi\n"
    node = inner(text, "if")
    assert keywords(node) == ["if", "then", "elif", "then", "else", "fi"]
    text2 = "if a; then b; else if c; then d; fi; fi"
    outer = inner(text2, "if")
    assert keywords(outer) == ["if", "then", "else", "fi"]
    nested = [n for n in bashlex_adapter.iter_nodes([outer]) if n.kind == "if"]
    assert len(nested) == 2


def test_validate_rejects_bashlex_own_elif_tree() -> None:
    import bashlex

    text = "if a; then b; elif c; then d; elif e; then f; else g; fi"
    # bashlex itself stores the second elif and the else as a 'reservedword' whose word is a list
    problem = validate(bashlex.parse(text), text)
    assert problem is not None


# --------------------------------------------------------------------------------------------
# loops
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("while a\ndo b\ndone", "while"),
        ("while a\n\n\ndo\nb\ndone", "while"),
        ("until a\ndo b; done", "until"),
        ("while a; b\ndo c; done", "while"),
        ("while a && b\ndo c\ndone", "while"),
    ],
)
def test_while_until_do_on_next_line(text: str, kind: str) -> None:
    node = inner(text, kind)
    assert keywords(node) == [kind, "do", "done"]
    assert [p.kind for p in node.parts][0::2] == ["reservedword", "reservedword", "reservedword"]
    assert node.parts[2].pos == at(text, "do")
    assert node.parts[-1].pos == at(text, "done")


@pytest.mark.parametrize(
    ("text", "words", "keys"),
    [
        ("for x in a b\ndo c; done", ["x", "a", "b"], ["for", "in", "do", "done"]),
        ("for x in a b\n\n\ndo c; done", ["x", "a", "b"], ["for", "in", "do", "done"]),
        ("for x in a b; do c; done", ["x", "a", "b"], ["for", "in", ";", "do", "done"]),
        ("for x\ndo c; done", ["x"], ["for", "do", "done"]),
        ("for x; do c; done", ["x"], ["for", ";", "do", "done"]),
        ("for x\nin a b\ndo c; done", ["x", "a", "b"], ["for", "in", "do", "done"]),
        ("for x in; do c; done", ["x"], ["for", "in", ";", "do", "done"]),
        ("for x in a; { c; }", ["x", "a"], ["for", "in", ";", "{", "}"]),
    ],
)
def test_for_forms(text: str, words: list[str], keys: list[str]) -> None:
    node = inner(text, "for")
    assert [p.word for p in node.parts if p.kind == "word"] == words
    assert keywords(node) == keys


def test_select_is_a_for_shaped_select_node() -> None:
    text = "select x in a b; do c; done"
    node = inner(text, "select")
    assert parts(node, text) == [
        ("reservedword", "select", (0, 6)),
        ("word", "x", (7, 8)),
        ("reservedword", "in", (9, 11)),
        ("word", "a", (12, 13)),
        ("word", "b", (14, 15)),
        ("reservedword", ";", (15, 16)),
        ("reservedword", "do", (17, 19)),
        ("list", "c;", (20, 22)),
        ("reservedword", "done", (23, 27)),
    ]
    assert keywords(inner("select x in a b\ndo c\ndone", "select")) == [
        "select",
        "in",
        "do",
        "done",
    ]


# --------------------------------------------------------------------------------------------
# time, !, functions, coproc, misc
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("time a", "pipeline[reservedword:'time' command[word:'a']]"),
        (
            "time -p a | b",
            "pipeline[reservedword:'time' reservedword:'-p' command[word:'a'] pipe:'|' "
            "command[word:'b']]",
        ),
        (
            "time -p -- a",
            "pipeline[reservedword:'time' reservedword:'-p' reservedword:'--' command[word:'a']]",
        ),
        ("time ! a", "pipeline[reservedword:'time' reservedword:'!' command[word:'a']]"),
        ("! time a", "pipeline[reservedword:'!' reservedword:'time' command[word:'a']]"),
        ("! a | b", "pipeline[reservedword:'!' command[word:'a'] pipe:'|' command[word:'b']]"),
        ("a | time b", "pipeline[command[word:'a'] pipe:'|' command[word:'time' word:'b']]"),
        ("echo time", "command[word:'echo' word:'time']"),
        ("time", "pipeline[reservedword:'time']"),
        ("time;", "list[pipeline[reservedword:'time'] operator:';']"),
        ("!", "pipeline[reservedword:'!']"),
        (
            "time { a; }",
            "pipeline[reservedword:'time' compound[reservedword:'{' list[command[word:'a'] "
            "operator:';'] reservedword:'}']]",
        ),
    ],
)
def test_time_and_bang(text: str, expected: str) -> None:
    assert shapes(text) == [expected]


def test_time_alone_then_more_commands() -> None:
    assert shapes("time\nb") == ["pipeline[reservedword:'time']", "command[word:'b']"]
    assert shapes("a; time; b") == [
        "list[command[word:'a'] operator:';' pipeline[reservedword:'time'] operator:';' "
        "command[word:'b']]"
    ]
    assert shapes("for x in a; do time; done")[0].count("reservedword:'time'") == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "function f { a; }",
            "function[reservedword:'function' word:'f' compound[reservedword:'{' "
            "list[command[word:'a'] operator:';'] reservedword:'}']]",
        ),
        (
            "f() ( a )",
            "function[word:'f' reservedword:'(' reservedword:')' compound[reservedword:'(' "
            "command[word:'a'] reservedword:')']]",
        ),
        (
            "function f() { a; }",
            "function[reservedword:'function' word:'f' reservedword:'(' reservedword:')' "
            "compound[reservedword:'{' list[command[word:'a'] operator:';'] reservedword:'}']]",
        ),
        (
            "function f (a)",
            "function[reservedword:'function' word:'f' compound[reservedword:'(' "
            "command[word:'a'] reservedword:')']]",
        ),
        (
            "f()\n{\n  a\n}",
            "function[word:'f' reservedword:'(' reservedword:')' compound[reservedword:'{' "
            "command[word:'a'] reservedword:'}']]",
        ),
    ],
)
def test_function_forms(text: str, expected: str) -> None:
    assert shapes(text) == [expected]


def test_function_body_redirects() -> None:
    text = "f() { a; } > x"
    fn = only(text)
    assert fn.kind == "function"
    assert fn.name.word == "f"
    assert [shape(r, text) for r in fn.body.redirects] == ["redirect:'> x'"]
    assert fn.pos == (0, len(text))


def test_coproc_is_a_clear_error() -> None:
    bashlex_errors = pytest.importorskip("bashlex.errors")
    with pytest.raises(bashlex_errors.ParsingError, match="coproc is not supported"):
        parse_masked("coproc a")
    outcome = safe_parse("echo hi\ncoproc x { a; }")
    assert outcome.nodes is None
    assert outcome.error is not None and "coproc is not supported" in outcome.error
    assert outcome.error_offset == 8


def test_brace_words_do_not_make_keywords() -> None:
    assert shapes("echo } fi") == ["command[word:'echo' word:'}' word:'fi']"]
    assert shapes("echo { a }") == ["command[word:'echo' word:'{' word:'a' word:'}']"]


def test_blank_input_and_multiple_commands_have_absolute_positions() -> None:
    assert parse_masked("") == []
    assert parse_masked("  \n\t\n") == []
    text = "a\n\n  b c\nif x; then y; fi\n"
    nodes = parse_ok(text)
    assert [n.kind for n in nodes] == ["command", "command", "compound"]
    assert nodes[1].pos == at(text, "b c")
    assert nodes[2].pos == at(text, "if x; then y; fi")


def test_redirections_and_assignments() -> None:
    text = "a=b c=d e >> x 2>&1 < y <> z 3>&- >| w &> v &>> u"
    (cmd,) = parse_ok(text)
    assert [p.kind for p in cmd.parts] == ["assignment", "assignment", "word"] + ["redirect"] * 8


def test_plain_bashlex_is_left_untouched() -> None:
    import bashlex

    parse_ok("case x in a) b;; esac")
    with pytest.raises(NotImplementedError):
        bashlex.parse("case x in a) b;; esac")


# --------------------------------------------------------------------------------------------
# safe_parse: errors
# --------------------------------------------------------------------------------------------


def _sleeping(seconds: float) -> Any:
    def parse(text: str) -> list[Any]:
        time.sleep(seconds)
        return parse_masked(text)

    return parse


def _raiser(exc: BaseException) -> Any:
    def parse(text: str) -> list[Any]:
        raise exc

    return parse


def _bashlex_exception(name: str) -> Any:
    import bashlex.errors
    import bashlex.tokenizer

    if name == "ParsingError":
        return bashlex.errors.ParsingError("unexpected token 'x'", "echo x", 5)
    tok = bashlex.tokenizer.tokenizer("echo (x", parserstate=set())
    tok._shell_input_line_index = 6
    return bashlex.tokenizer.MatchedPairError(0, "unexpected EOF", tok)


@pytest.mark.parametrize(
    "exc",
    [
        NotImplementedError("arithmetic substitution"),
        AssertionError("token = {while}"),
        AttributeError("'NoneType' object has no attribute 'kind'"),
        ValueError("unknown node kind"),
        TypeError("bad"),
        IndexError("string index out of range"),
        KeyError("x"),
        RecursionError("maximum recursion depth exceeded"),
        MemoryError(),
        RuntimeError("yacc: internal parser error!!!"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_safe_parse_turns_every_exception_into_an_outcome(exc: BaseException) -> None:
    outcome = safe_parse("echo x", parser=_raiser(exc))
    assert outcome.nodes is None
    assert not outcome.ok
    assert outcome.timed_out is False
    assert outcome.error is not None and outcome.error.startswith(type(exc).__name__)
    assert outcome.error_offset is None


@pytest.mark.parametrize("name", ["ParsingError", "MatchedPairError"])
def test_safe_parse_bashlex_errors_carry_offsets(name: str) -> None:
    exc = _bashlex_exception(name)
    outcome = safe_parse("echo x" if name == "ParsingError" else "echo (x", parser=_raiser(exc))
    assert outcome.error is not None and outcome.error.startswith(name)
    assert outcome.error_offset == 5


@pytest.mark.parametrize(
    ("text", "exc_type", "offset"),
    [
        ("a\nb\nfi", "ParsingError", 4),  # in the third top-level command: offset into the text
        ("echo a\n)", "ParsingError", 7),
        ("if a; then b", "ParsingError", 12),  # unexpected EOF: the end of the text
        ("while a; do", "ParsingError", 11),
        ("echo 'unterminated", "MatchedPairError", 18),  # an unmasked quote reaches bashlex
        ("echo $((1+2))", "NotImplementedError", None),
        ("x\na=(1 2)", "ParsingError", 4),  # unmasked array
        ("a <<EOF\nx\nEOF\n", "invalid tree", 2),  # unmasked heredoc: bashlex's redirect
        # span runs to the end of the body, outside its command: validate refuses the tree
    ],
)
def test_safe_parse_real_failures(text: str, exc_type: str, offset: int | None) -> None:
    outcome = safe_parse(text)
    assert outcome.nodes is None
    assert outcome.error is not None and outcome.error.startswith(exc_type), outcome.error
    assert outcome.error_offset == offset


def test_error_offset_maps_substring_positions() -> None:
    import bashlex.errors

    # an error about a sub-string (as raised while expanding one word) maps when unambiguous
    unique = bashlex.errors.ParsingError("bad", "b c", 2)
    assert safe_parse("a b c", parser=_raiser(unique)).error_offset == 4
    ambiguous = bashlex.errors.ParsingError("bad", "b", 0)
    assert safe_parse("b b", parser=_raiser(ambiguous)).error_offset is None


def test_safe_parse_success_and_validation_failure() -> None:
    outcome = safe_parse("case x in a) b;; esac")
    assert outcome.ok and outcome.error is None and not outcome.timed_out
    assert outcome.nodes is not None and outcome.nodes[0].kind == "compound"

    def broken(text: str) -> list[Any]:
        nodes = parse_masked(text)
        del nodes[0].parts[1]  # drop the word `b`: its text is no longer covered
        return nodes

    outcome = safe_parse("a b", parser=broken)
    assert outcome.nodes is None
    assert outcome.error is not None and outcome.error.startswith("invalid tree:")
    assert outcome.error_offset == 2


def test_safe_parse_with_garbage_result() -> None:
    outcome = safe_parse("a", parser=lambda text: None)  # type: ignore[arg-type,return-value]
    assert outcome.error is not None and "invalid tree" in outcome.error


# --------------------------------------------------------------------------------------------
# safe_parse: time limit
# --------------------------------------------------------------------------------------------

# bashlex never returns on this (valid bash): `${` inside single quotes in a word that is not
# wholly single-quoted makes subst._paramexpand return index 0 (str.find gives -1 for the
# missing `}`), so _expandwordinternal restarts the word forever.  After masking no quote or `$`
# reaches bashlex, so masked text cannot trigger it; no other endless loop was found (see the
# fuzz test below), so these tests feed unmasked text or a deliberately slow parser.
KNOWN_HANG = "printf '%s\\n' 'Use ${VAR'\" syntax\""
MINIMAL_HANG = "x'${'"


@pytest.mark.parametrize("text", [KNOWN_HANG, MINIMAL_HANG])
def test_timeout_on_bashlex_endless_loop_in_main_thread(text: str) -> None:
    assert threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    outcome = safe_parse(text, time_limit=0.3)
    elapsed = time.monotonic() - started
    assert outcome.timed_out
    assert outcome.nodes is None and outcome.error is not None
    # The loop is endless: returning at all proves the limit; the bound is generous because
    # wall-clock time on a loaded 2-core machine is not a measurement.
    assert elapsed < 60
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_callers_alarm_is_left_alone() -> None:
    fired: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        # with the caller's timer running, the limit is enforced by a worker thread instead
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        outcome = safe_parse(MINIMAL_HANG, time_limit=0.2)
        assert outcome.timed_out
        assert signal.getsignal(signal.SIGALRM) is handler
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0.0 < remaining <= 30.0
        assert fired == []
        # and the caller's alarm fires on time even while we parse
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        assert safe_parse("a", time_limit=5, parser=_sleeping(0.3)).ok
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    _wait_for_no_worker()


def test_timeout_with_slow_injected_parser() -> None:
    def slow(text: str) -> list[Any]:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pass
        return parse_masked(text)

    outcome = safe_parse("a", time_limit=0.2, parser=slow)
    assert outcome == ParseOutcome(None, outcome.error, None, True)
    assert safe_parse("a", time_limit=None).ok
    assert safe_parse("a", time_limit=0).timed_out


def _wait_for_no_worker() -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not any(t.name == "quotecheck-parse" for t in threading.enumerate()):
            return
        time.sleep(0.02)
    raise AssertionError("a quotecheck-parse worker thread is still running")


def _in_thread(fn: Any) -> Any:
    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(fn()))
    worker.start()
    worker.join(10)
    assert box
    return box[0]


def _swallows_the_first_timeout(give_up_after: float) -> Any:
    """A parser that loops like bashlex's endless loop, and swallows the first _Timeout the way
    a gc callback running at that moment does (hypothesis installs one): only a second one
    stops it. It gives up on its own after ``give_up_after`` s and returns no tree."""

    def parser(text: str) -> list[Any]:
        swallowed = 0
        deadline = time.monotonic() + give_up_after
        while time.monotonic() < deadline:
            try:
                while time.monotonic() < deadline:
                    pass
            except bashlex_adapter._Timeout:
                swallowed += 1
                if swallowed > 1:
                    raise
        return []

    return parser


def test_a_swallowed_timeout_is_raised_again_in_main_thread() -> None:
    # Once, the endless loop went on after its only _Timeout landed in a gc callback, and the
    # xdist worker died of memory (the loop allocates ~70 MB/s).
    before = signal.getsignal(signal.SIGALRM)
    outcome = safe_parse("x", time_limit=0.2, parser=_swallows_the_first_timeout(5.0))
    assert outcome.timed_out
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_swallowed_timeout_is_raised_again_in_a_worker_thread() -> None:
    outcome = _in_thread(lambda: safe_parse("x", time_limit=0.2,
                                            parser=_swallows_the_first_timeout(8.0)))
    assert outcome.timed_out
    # stopped by the time safe_parse returns, not 8 s later when it gives up by itself
    deadline = time.monotonic() + 2
    while any(t.name == "quotecheck-parse" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the parse thread is still running"
        time.sleep(0.02)


def test_timeout_outside_main_thread_uses_a_worker_and_stops_it() -> None:
    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    outcome = _in_thread(lambda: safe_parse(KNOWN_HANG, time_limit=0.3))
    assert outcome.timed_out
    assert time.monotonic() - started < 60
    assert signal.getsignal(signal.SIGALRM) is before
    _wait_for_no_worker()  # the runaway bashlex loop is interrupted, not left spinning


def test_outside_main_thread_success_and_errors() -> None:
    ok = _in_thread(lambda: safe_parse("case x in a) b;; esac"))
    assert ok.ok
    err = _in_thread(lambda: safe_parse("fi"))
    assert err.error is not None and err.error.startswith("ParsingError")
    assert err.error_offset == 0
    slow = _in_thread(lambda: safe_parse("a", time_limit=0.1, parser=_sleeping(1.0)))
    assert slow.timed_out


# --------------------------------------------------------------------------------------------
# validate
# --------------------------------------------------------------------------------------------


def _tree(text: str) -> list[Any]:
    return parse_masked(text)


def test_validate_accepts_good_trees() -> None:
    text = "if a; then b > x; elif c; then d | e; fi\ncase x in a) b;; esac"
    assert validate(_tree(text), text) is None


def test_validate_rejects_pos_outside_text() -> None:
    text = "a b"
    nodes = _tree(text)
    nodes[0].parts[1].pos = (2, 9)
    assert "outside the text" in (validate(nodes, text) or "")


def test_validate_rejects_child_outside_parent() -> None:
    text = "a b; c"
    nodes = _tree(text)
    nodes[0].parts[0].pos = (0, 1)  # the first command now ends before its word `b`
    assert "outside its parent" in (validate(nodes, text) or "")


def test_validate_rejects_siblings_out_of_order() -> None:
    text = "a b c"
    nodes = _tree(text)
    cmd = nodes[0]
    cmd.parts[0], cmd.parts[1] = cmd.parts[1], cmd.parts[0]
    assert "out of order" in (validate(nodes, text) or "")


def test_validate_rejects_overlapping_top_level_nodes() -> None:
    text = "a\nb"
    nodes = _tree(text)
    assert "overlaps" in (validate([nodes[1], nodes[0]], text) or "")


def test_validate_rejects_uncovered_text() -> None:
    text = "a b c"
    nodes = _tree(text)
    del nodes[0].parts[2]
    nodes[0].pos = (0, 3)
    assert "offset 4" in (validate(nodes, text) or "")
    assert validate(_tree("a"), "a x") is not None  # text the parser never saw


def test_validate_rejects_keyword_spelled_differently() -> None:
    text = "if a; then b; fi"
    nodes = _tree(text)
    nodes[0].list[0].parts[0].word = "while"
    assert "'while'" in (validate(nodes, text) or "")


def test_validate_rejects_malformed_nodes() -> None:
    text = "a"
    nodes = _tree(text)
    broken = copy.copy(nodes[0])
    broken.kind = "mystery"
    assert "unknown node kind" in (validate([broken], text) or "")
    nodes[0].pos = None
    assert "pos" in (validate(nodes, text) or "")
    assert validate("not a list", text) is not None  # type: ignore[arg-type]
    assert validate([object()], text) is not None
    word = _tree(text)[0]
    word.parts = [1]
    assert "not a node" in (validate([word], text) or "")


def test_iter_nodes_is_iterative() -> None:
    text = "{ " * 3000 + "a" + "; }" * 3000
    nodes = parse_ok(text)  # validate walks it without recursion
    assert sum(1 for n in bashlex_adapter.iter_nodes(nodes) if n.kind == "compound") == 3000


# --------------------------------------------------------------------------------------------
# robustness on generated input
# --------------------------------------------------------------------------------------------

_WORDS = "a b x=1 -p -- _ { } ( ) ! time if then elif else fi case esac in for select while"
_MORE = "until do done function ; ;; ;& ;;& & && || | |& < > >> 2>&1 <& >& <> >| &> &>> 1"
VOCAB = [*_WORDS.split(" "), *_MORE.split(" "), "\n", "\n", "\n", "\n"]


def test_masked_vocabulary_never_hangs_or_crashes() -> None:
    rng = random.Random(1234)
    for _ in range(3000):
        text = "".join(
            tok if rng.random() < 0.2 else tok + " "
            for tok in (rng.choice(VOCAB) for _ in range(rng.randint(1, 14)))
        )
        outcome = safe_parse(text, time_limit=2.0)
        assert not outcome.timed_out, text
        if not outcome.ok:
            assert outcome.error is not None
            # only syntax errors: no AttributeError/AssertionError from the grammar actions
            assert outcome.error.startswith(("ParsingError", "MatchedPairError")), (
                text,
                outcome.error,
            )


def _generated_script(r: random.Random, depth: int = 0) -> str:
    def simple() -> str:
        return " ".join(r.choice(["a", "b", "c", "x=1"]) for _ in range(r.randint(1, 3)))

    def sep() -> str:
        return r.choice(["; ", "\n", "\n\n", " & ", ";\n"])

    def body() -> str:
        return _generated_script(r, depth + 1)

    if depth > 2 or r.random() < 0.4:
        return r.choice(["", "! ", "time ", "time -p "]) + simple()
    k = r.randrange(7)
    if k == 0:
        elifs = "".join(f"elif {body()}{sep()}then {body()}{sep()}" for _ in range(r.randint(0, 2)))
        return f"if {body()}{sep()}then {body()}{sep()}{elifs}else {body()}{sep()}fi"
    if k == 1:
        return f"{r.choice(['while', 'until'])} {body()}{sep()}do {body()}{sep()}done"
    if k == 2:
        return f"{r.choice(['for', 'select'])} x in a b{sep()}do {body()}{sep()}done"
    if k == 3:
        clauses = " ".join(
            f"{r.choice(['(a', 'a|b', '*', 'done'])}) {body()} {r.choice([';;', ';&', ';;&'])}"
            for _ in range(r.randint(0, 3))
        )
        return f"case a{r.choice([' ', chr(10)])}in{r.choice([' ', chr(10)])}{clauses}\nesac"
    if k == 4:
        return "{ " + body() + "; }" + r.choice(["", " > x"])
    if k == 5:
        return "f() (" + body() + ")"
    return body() + r.choice([" && ", " || ", " | "]) + body()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_generated_scripts_agree_with_bash_n(tmp_path: Any) -> None:
    rng = random.Random(99)
    script = tmp_path / "s.sh"
    disagreements = []
    for _ in range(150):
        text = _generated_script(rng)
        script.write_text(text)
        bash_ok = subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
        outcome = safe_parse(text)
        if bash_ok != outcome.ok:
            disagreements.append((text, outcome.error))
    assert disagreements == []


# --------------------------------------------------------------------------------------------
# the tokenizer's one-step reading of plain words decides exactly what bashlex's own does
# --------------------------------------------------------------------------------------------

_SLOW_TOKENIZER = make_tokenizer_class(
    importlib.import_module("bashlex.tokenizer"), fast=False)


def _token_view(value: Any) -> Any:
    """A word token or string, comparable: type, spelling, flags, position."""
    if isinstance(value, str) or value is None:
        return value
    return (value.ttype.name, value.value, sorted(f.name for f in value.flags),
            value.lexpos, value.endlexpos)


def _full_tree(text: str, expand: bool) -> Any:
    try:
        nodes = parse_masked(text, expand=expand)
    except Exception as exc:  # the same error at the same place, or the test fails
        return ("error", type(exc).__name__, str(exc))
    return [(getattr(n, "kind", repr(n)), getattr(n, "pos", None),
             _token_view(getattr(n, "word", None)), getattr(n, "op", None),
             getattr(n, "type", None), getattr(n, "input", None))
            for n in bashlex_adapter.iter_nodes(nodes)]


def _both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = bashlex_adapter._bashlex()
    for expand in (False, True):
        fast = _full_tree(text, expand)
        with monkeypatch.context() as m:
            m.setattr(loaded, "tokenizer_class", _SLOW_TOKENIZER)
            slow = _full_tree(text, expand)
        assert fast == slow, (text, expand)


def test_plain_words_read_in_one_step_on_generated_text(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(4321)
    texts = [_generated_script(rng) for _ in range(300)]
    extra = ["2>x 3<y 1>&2 4<&- x=1 a+=2 b[1]=3 {fd}>f done=1 for=in",
             "case a in esac) x;; in) y;; esac", "function f { a; }", "function g\n{ b; }",
             "[[ a && b ]] ]] x", "time -p -- a", "! time a | time b", "a\\\nb c\\\n",
             "select x in a; do b; done", "for ((i=0;i<3;i++)) do x; done", "{ a; } }"]
    for _ in range(1500):
        texts.append("".join(
            tok if rng.random() < 0.2 else tok + " "
            for tok in (rng.choice(VOCAB) for _ in range(rng.randint(1, 14)))))
    for text in [*texts, *extra]:
        _both_ways(text, monkeypatch)


@pytest.mark.skipif(not glob.glob("/var/lib/dpkg/info/*.postinst"), reason="no dpkg scripts")
def test_plain_words_read_in_one_step_on_real_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    from quotecheck.parsing.scanner import scan

    paths = sorted(glob.glob("/var/lib/dpkg/info/*.postinst"))[:60]
    for path in paths:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
        _both_ways(text, monkeypatch)  # as written: quotes, expansions and all
        _both_ways(scan(text).masked(0, len(text), 0), monkeypatch)  # as quotecheck parses it


# --------------------------------------------------------------------------------------------
# coverage on real scripts (crude masking of our own, only to find grammar gaps)
# --------------------------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.\-]+))")


def _skip_quoted(s: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(s):
        c = s[j]
        if c == "\\" and quote != "'":
            j += 2
        elif c == quote:
            return j + 1
        elif quote == '"' and c == "$":
            j = max(_skip_dollar(s, j, in_dquote=True), j + 1)
        elif quote == '"' and c == "`":
            j = _skip_quoted(s, j, "`")
        else:
            j += 1
    return len(s)


def _skip_group(s: str, i: int, open_: str, close: str) -> int:
    depth, j = 1, i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"`":
            j = _skip_quoted(s, j, c)
            continue
        if c == "$":
            j = max(_skip_dollar(s, j), j + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)


def _skip_dollar(s: str, i: int, in_dquote: bool = False) -> int:
    j = i + 1
    if j >= len(s):
        return j
    if s.startswith("((", j):
        return _skip_group(s, j + 2, "(", ")") + 1
    if s[j] in "({":
        return _skip_group(s, j + 1, s[j], ")" if s[j] == "(" else "}")
    if s[j] in "'\"" and not in_dquote:
        return _skip_quoted(s, j, s[j])
    name = _NAME.match(s, j)
    if name:
        return name.end()
    return j + 1 if (s[j].isdigit() or s[j] in "@*#?$!-") else j


def crude_mask(src: str) -> str:
    """Length-preserving masking close enough to the project's scanner to measure coverage."""
    s = src.replace("\r", " ")
    out = list(s)
    n = len(s)
    pending: list[tuple[str, bool]] = []
    i, word_start, cmd_start = 0, True, True

    def blank(a: int, b: int, ch: str = "_") -> None:
        for k in range(a, min(b, n)):
            out[k] = ch

    while i < n:
        c = s[i]
        if c == "\n":
            j = i + 1
            for delim, strip in pending:  # heredoc bodies become blank lines
                while j < n:
                    end = s.find("\n", j)
                    end = n if end == -1 else end
                    line = s[j:end].lstrip("\t") if strip else s[j:end]
                    blank(j, end, " ")
                    j = end + 1
                    if line == delim:
                        break
            pending = []
            i, word_start, cmd_start = j, True, True
            continue
        if c in " \t":
            i, word_start = i + 1, True
            continue
        if c == "#" and word_start:
            j = s.find("\n", i)
            j = n if j == -1 else j
            blank(i, j, " ")
            i = j
            continue
        if c == "\\":
            if i + 1 < n and s[i + 1] == "\n":
                blank(i, i + 2, " ")
                i, word_start = i + 2, True
                continue
            blank(i, i + 2)
            i, word_start, cmd_start = i + 2, False, False
            continue
        if s.startswith("<<", i) and not s.startswith("<<<", i) and (i == 0 or s[i - 1] != "<"):
            m = _HEREDOC.match(s, i)
            if m:
                delim = next(g for g in m.groups()[1:] if g is not None)
                pending.append((delim, m.group(1) == "-"))
                out[i + 1] = " "  # `<<EOF` -> `< EOF`
                if m.group(1):
                    out[i + 2] = " "
                k = i + 2 + len(m.group(1))
                while s[k] in " \t":
                    k += 1
                blank(k, m.end())
                i, word_start, cmd_start = m.end(), False, False
                continue
        j = i
        if c in "'\"`":
            j = _skip_quoted(s, i, c)
        elif c == "$":
            j = max(_skip_dollar(s, i), i + 1)
        elif c in "<>" and s.startswith("(", i + 1):
            j = _skip_group(s, i + 2, "(", ")")
        elif (cmd_start or s[max(0, i - 4) : i] == "for ") and s.startswith("((", i):
            j = _skip_group(s, i + 2, "(", ")") + 1
        elif word_start and s.startswith("[[", i) and (i + 2 >= n or s[i + 2] in " \t\n"):
            j = i + 2
            while j < n and not (s.startswith("]]", j) and s[j - 1] in " \t"):
                j = _skip_quoted(s, j, s[j]) if s[j] in "'\"`" else j + (2 if s[j] == "\\" else 1)
            j += 2
        elif c == "(" and i > 0 and s[i - 1] == "=" and not word_start:
            j = _skip_group(s, i + 1, "(", ")")
        if j > i:
            blank(i, j)
            i, word_start, cmd_start = j, False, False
            continue
        if c in ";&|()<>":
            i, word_start, cmd_start = i + 1, True, c in "\n;&|(){}"
            continue
        i, word_start, cmd_start = i + 1, False, False
    return "".join(out)


def test_crude_mask_keeps_offsets() -> None:
    src = 'cat <<EOF >x\nbody $x\nEOF\necho "a $(b "c") d" `e` $((1+2)) [[ -n $y ]] # c\n'
    masked = crude_mask(src)
    assert len(masked) == len(src)
    assert masked.splitlines()[0] == "cat < ___ >x"
    assert "$" not in masked and "#" not in masked and '"' not in masked
    assert validate(parse_ok(masked), masked) is None


DPKG_SCRIPTS = sorted(
    path
    for ext in ("postinst", "preinst", "postrm", "prerm", "config")
    for path in glob.glob(f"/var/lib/dpkg/info/*.{ext}")
)


@pytest.mark.skipif(not DPKG_SCRIPTS, reason="no dpkg maintainer scripts on this machine")
def test_dpkg_maintainer_scripts_coverage() -> None:
    import bashlex

    files = []
    for path in DPKG_SCRIPTS:
        with open(path, "rb") as handle:
            raw = handle.read()
        if raw.startswith(b"#!"):
            files.append(raw.decode("utf-8", "replace"))
    before = after = 0
    failures = []
    for src in files:
        masked = crude_mask(src)
        before += safe_parse(masked, 5.0, parser=bashlex.parse).ok
        outcome = safe_parse(masked, 5.0)
        after += outcome.ok
        if not outcome.ok:
            failures.append(outcome.error)
    print(f"\ndpkg scripts: {len(files)}, plain bashlex {before}, patched {after}")
    assert after >= before
    assert after >= 0.97 * len(files), failures[:5]


# --------------------------------------------------------------------------------------------
# lazy import and the table cache (fresh interpreters)
# --------------------------------------------------------------------------------------------

PROBE = textwrap.dedent(
    """\
    import json, sys
    from quotecheck.parsing import bashlex_adapter
    assert "bashlex" not in sys.modules, "importing bashlex_adapter imported bashlex"
    text = "case x in a|b) c;; esac\\nwhile a\\ndo b\\ndone\\ntime -p x | y"
    nodes = bashlex_adapter.parse_masked(text)
    import bashlex.parser as P
    tables = [sorted((k, sorted(v.items())) for k, v in P.yaccparser.action.items()),
              sorted((k, sorted(v.items())) for k, v in P.yaccparser.goto.items()),
              [p.str for p in P.yaccparser.productions]]
    print(json.dumps({"source": bashlex_adapter.table_source(),
                      "tree": [n.dump() for n in nodes],
                      "tables": tables}))
    """
)


def _probe(cache_dir: str) -> dict[str, Any]:
    env = dict(os.environ, QUOTECHECK_CACHE_DIR=cache_dir)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_table_cache_round_trip(tmp_path: Any) -> None:
    cache = tmp_path / "cache"
    uncached = _probe("")
    assert uncached["source"] == "built"
    first = _probe(str(cache))
    assert first["source"] == "built+cached"
    files = list(cache.glob("bashlex-tables-*.bin"))
    assert len(files) == 1
    second = _probe(str(cache))
    assert second["source"] == "cache"
    # same tables (after bashlex's own corrections) and same trees, whichever way they came
    assert second["tables"] == first["tables"] == uncached["tables"]
    assert second["tree"] == first["tree"] == uncached["tree"]

    good = files[0].read_bytes()
    head, _, payload = good.partition(b"\n")
    assert head == b"quotecheck bashlex tables 2 %08x" % zlib.crc32(payload)
    for damaged in (b"{not tables", good[:-100], good[:-1] + bytes([good[-1] ^ 1])):
        files[0].write_bytes(damaged)
        assert _probe(str(cache))["source"] == "built+cached"  # damaged: rebuilt, rewritten
        assert files[0].read_bytes() == good
    assert _probe(str(cache))["source"] == "cache"

    data = marshal.loads(payload)
    data["key"] = "some other bashlex"
    other = marshal.dumps(data)
    files[0].write_bytes(b"quotecheck bashlex tables 2 %08x\n" % zlib.crc32(other) + other)
    assert _probe(str(cache))["source"] == "built+cached"  # stale key: rebuilt


def test_table_cache_unwritable_location_falls_back(tmp_path: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = _probe(str(blocker / "cache"))
    assert result["source"] == "built"


def test_table_cache_dir_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUOTECHECK_CACHE_DIR", "")
    assert bashlex_adapter.table_cache_dir() is None
    monkeypatch.setenv("QUOTECHECK_CACHE_DIR", "/somewhere")
    assert str(bashlex_adapter.table_cache_dir()) == "/somewhere"
    monkeypatch.delenv("QUOTECHECK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert str(bashlex_adapter.table_cache_dir()) == "/xdg/quotecheck"
