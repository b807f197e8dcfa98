"""Fuzzing `check` and `explain` with hypothesis: never an exception, every position in the input.

Generated inputs: scripts mixing every quoting form (``tests/strategies.py``'s words), expansions,
compound commands, heredocs, substitutions, and ssh / ``sh -c`` / ``eval`` / ``sudo`` layers quoted
right (``quotecheck.quoting``) or wrong, nested; then the same scripts damaged (a character
dropped, a quote added), arbitrary text, and arbitrary bytes (not UTF-8, NUL, CR).

Properties:

* ``check_source`` returns diagnostics and never raises (nor does any rule: a rule that raises is
  contained as a QC002 "failed on this input", which counts as a failure here, except for the
  known failures of ``KNOWN_RULE_FAILURES``, each pinned by a strict xfail), with the default
  limits and with tiny ones (so the code that cuts off what lies past a limit is fuzzed too);
* every diagnostic span, related span and fix edit, every layer's and command's span lies in the
  input;
* a CRLF copy of a script has the same findings at the same lines and columns, plus one note;
* ``main(["check", "-"])`` on any bytes returns 0 or 1 (2 is for usage errors: there are none),
  and its JSON positions are exactly the checker's spans in the text decoded with replacement
  characters (plus the not-UTF-8 note at the first bad byte);
* a line of bytes that are not UTF-8 put before a script moves every finding down one line and
  nowhere else;
* ``explain --format json`` output parses and its spans lie within its ``source``.

Example counts: each property runs a share (7-30 %) of a base number, the active hypothesis
profile's (``tests/strategies.py``: 300 by default, ``HYPOTHESIS_PROFILE=nightly`` 5,000), or
``QC_FUZZ_EXAMPLES`` when set, for this file alone::

    QC_FUZZ_EXAMPLES=3000 python3 -m pytest -q -n 2 tests/test_fuzz.py   # about 10 minutes

By default the whole file takes under a minute on two cores. For hours of coverage-guided
fuzzing see ``fuzz/README.md``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import examples, gen_word, shell_text

from quotecheck.checker import CheckResult, Options, check_source
from quotecheck.cli import main
from quotecheck.inputs import decode
from quotecheck.limits import Limits
from quotecheck.positions import LineIndex
from quotecheck.quoting import quote_word

_CODE = re.compile(r"QC\d{3}")
_SEVERITIES = {"error", "warning", "info", "hint"}
# The base number of examples (see the module docstring); 0: the hypothesis profile's.
FUZZ_EXAMPLES = int(os.environ.get("QC_FUZZ_EXAMPLES", "0"))
# Rules with a known failure on some inputs, each pinned by a strict xfail test below (which
# starts to fail once the rule is fixed: then take it out of here). The properties let these
# rules fail so that CI does not fail at random on a bug already known.
KNOWN_RULE_FAILURES: set[str] = set()


def _settings(share: float) -> settings:
    base = examples(share) if not FUZZ_EXAMPLES else \
        settings(max_examples=max(10, int(FUZZ_EXAMPLES * share)))
    return settings(base, suppress_health_check=[
        HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
        HealthCheck.large_base_example])


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------

_NAMES = ["echo", "printf '%s\\n'", "cat", "grep -v x", "rm -f", "kill", "pkill -f", "cd",
          "ls", "x=1", "export A=b", "local v", "nohup", "timeout 5", "env A=1", "awk '{print $1}'",
          "xargs -I{} echo {}", "find . -exec rm {} +", "test -n", "[", "read -r line"]
_SEPARATORS = ["; ", " && ", " || ", " | ", "\n", " &\n", " & "]
_HOSTS = ["h", "user@host", "-p 2222 h", "-o BatchMode=yes h", "-t h", "-n h"]
_SHELLS = ["sh -c", "bash -c", "dash -c", "sudo sh -c", "sudo -u svc bash -c", "su -c",
           "eval", "watch", "xargs sh -c", "flock /tmp/l -c", "docker exec c sh -c"]
_DIRECTIVES = ["# quotecheck: disable=QC101\n", "# quotecheck: remote-shell=dash\n",
               "# quotecheck: disable=QC999\n", "# quotecheck: nonsense\n",
               "# shellcheck disable=SC2029\n"]


@st.composite
def _simple(draw: st.DrawFn) -> str:
    words = draw(st.lists(gen_word("bash", max_pieces=3), max_size=3))
    redirect = draw(st.sampled_from(["", "", "", " >/dev/null", " 2>&1", " </dev/null",
                                     " >\"$log\"", " <<<\"$x\""]))
    return " ".join([draw(st.sampled_from(_NAMES)), *(w.source for w in words)]) + redirect


def _quoted(draw: st.DrawFn, inner: str) -> str:
    """``inner`` as one argument: quoted right for sh, or in one of the ways people get wrong."""
    how = draw(st.sampled_from(["right", "right", "single", "double", "bare", "ansi"]))
    if how == "right":
        return quote_word(inner, "sh")
    if how == "single":
        return f"'{inner}'"
    if how == "double":
        return f'"{inner}"'
    if how == "ansi":
        return "$'" + inner.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return inner


@st.composite
def _command(draw: st.DrawFn, depth: int) -> str:
    kinds = ["simple", "simple"]
    if depth < 3:
        kinds += ["compound", "layer", "layer", "heredoc", "substitution", "function"]
    kind = draw(st.sampled_from(kinds))
    if kind == "simple":
        return draw(_simple())
    inner = draw(scripts(depth + 1))
    if kind == "compound":
        form = draw(st.sampled_from(["if", "while", "until", "for", "case", "brace", "subshell",
                                     "if-else", "select"]))
        body = inner.strip() or ":"
        return {
            "if": f"if {draw(_simple())}; then\n{body}\nfi",
            "if-else": f"if {draw(_simple())}; then :; elif true; then {body}\nelse :; fi",
            "while": f"while {draw(_simple())}; do\n{body}\ndone",
            "until": f"until {draw(_simple())}; do {body}; done",
            "for": f"for f in {draw(gen_word('bash', max_pieces=2)).source}; do {body}; done",
            "select": f"select f in a b; do {body}; done",
            "case": f"case \"$1\" in\n  a|b) {body} ;;\n  *) : ;;\nesac",
            "brace": f"{{ {body}; }}",
            "subshell": f"( {body} )",
        }[form]
    if kind == "function":
        return f"f() {{\n{inner.strip() or ':'}\n}}"
    if kind == "layer":
        via = draw(st.sampled_from(["ssh", "shell"]))
        if via == "ssh":
            host = draw(st.sampled_from(_HOSTS))
            if draw(st.booleans()):
                return f"ssh {host} {_quoted(draw, inner.strip())}"
            # several words: ssh joins them with spaces
            return f"ssh {host} " + " ".join(quote_word(w, "sh") for w in inner.split()[:6])
        return f"{draw(st.sampled_from(_SHELLS))} {_quoted(draw, inner.strip())}"
    if kind == "heredoc":
        opener = draw(st.sampled_from(["cat", "ssh h", "ssh h bash -s", "sh", "bash -s --",
                                       "sudo -u svc sh"]))
        quote = draw(st.sampled_from(["", "'", '"']))
        dash = draw(st.sampled_from(["", "-"]))
        body = inner if inner.endswith("\n") else inner + "\n"
        if dash:
            body = "".join("\t" + line for line in body.splitlines(keepends=True))
        return f"{opener} <<{dash}{quote}EOF{quote}\n{body}EOF"
    form = draw(st.sampled_from(['echo "$({})"', "x=$({})", "echo `{}`", "cat <({})",
                                 "echo \"${{v:-$({})}}\""]))
    body = inner.strip().replace("`", "'") if form.startswith("echo `") else inner.strip()
    return form.format(body or ":")


@st.composite
def scripts(draw: st.DrawFn, depth: int = 0) -> str:
    """A script of commands, compound commands, layers, heredocs and substitutions, nested."""
    parts: list[str] = []
    if depth == 0 and draw(st.integers(0, 3)) == 0:
        parts.append(draw(st.sampled_from(["#!/bin/sh\n", "#!/bin/bash\n",
                                           "#!/usr/bin/env bash\n"])))
    for k in range(draw(st.integers(1, 3 if depth else 5))):
        if k:
            parts.append(draw(st.sampled_from(_SEPARATORS)))
        if depth == 0 and draw(st.integers(0, 6)) == 0:
            parts.append(draw(st.sampled_from(_DIRECTIVES)))
        parts.append(draw(_command(depth)))
    return "".join(parts) + ("\n" if depth == 0 else "")


@st.composite
def damaged_scripts(draw: st.DrawFn) -> str:
    """A generated script with a few characters dropped, doubled or inserted."""
    text = draw(scripts())
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        at = draw(st.integers(0, len(text)))
        what = draw(st.sampled_from(["drop", "insert", "insert", "repeat"]))
        if what == "drop":
            text = text[:at] + text[at + 1:]
        elif what == "repeat":
            text = text[:at] + text[at:at + 5] * draw(st.integers(2, 40)) + text[at:]
        else:
            text = text[:at] + draw(st.sampled_from(
                ["'", '"', "`", "$(", "${", "(", ")", "{", "}", "\\", "\n", "<<E\n", "#",
                 ";;", "fi", "done", "\r\n", "$'", "&", "|"])) + text[at:]
    return text


_any_text = st.one_of(
    st.text(max_size=200),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=200),
    shell_text(),
)


@st.composite
def any_bytes(draw: st.DrawFn) -> bytes:
    """Bytes: mostly shell-ish UTF-8 with invalid sequences, NUL and CR mixed in."""
    pieces: list[bytes] = []
    for _ in range(draw(st.integers(0, 8))):
        pieces.append(draw(st.one_of(
            scripts().map(lambda s: s.encode()),
            shell_text(30).map(lambda s: s.encode()),
            st.binary(max_size=20),
            st.sampled_from([b"\xff", b"\xe2\x82", b"\xc3", b"\xed\xa0\x80", b"\r\n", b"\r",
                             b"\x00", b"\xef\xbb\xbf", b"\xe9t\xe9"]),
        )))
    return b"".join(pieces)


# --------------------------------------------------------------------------------------------
# The invariants
# --------------------------------------------------------------------------------------------


def _within(span: Any, size: int) -> bool:
    return (isinstance(span, tuple | list) and len(span) == 2 and isinstance(span[0], int)
            and isinstance(span[1], int) and 0 <= span[0] <= span[1] <= size)


def assert_sane(source: str, result: CheckResult) -> None:
    size = len(source)
    for d in result.diagnostics:
        assert _CODE.fullmatch(d.code), d
        assert d.severity in _SEVERITIES, d
        assert _within(d.span, size), (d.code, d.span, size, d.text)
        assert "failed on this input" not in d.text or any(  # a rule raised
            d.text.startswith(f"rule {code} ") for code in KNOWN_RULE_FAILURES), d.text
        assert "internal error" not in d.text, d.text
        for r in d.related:
            assert _within(r.span, size), (d.code, r)
        for fix in d.fixes:
            for edit in fix.edits:
                assert _within(edit.span, size), (d.code, fix)
    trace = result.trace
    assert trace.source == source
    for layer in trace.layers:
        assert layer.source_span is None or _within(layer.source_span, size), layer
        for view in layer.commands:
            assert view.source_span is None or _within(view.source_span, size), view
        if layer.origin is not None and layer.text is not None:
            for run_start, target, n in layer.origin.runs():
                assert run_start + n <= len(layer.text)
                assert target is None or (target >= 0 and target + n <= size), layer.kind


def checked(source: str, dialect: str = "bash", limits: Limits | None = None) -> CheckResult:
    result = check_source(source, Options(dialect=dialect, limits=limits or Limits()))
    assert_sane(source, result)
    return result


# --------------------------------------------------------------------------------------------
# check_source
# --------------------------------------------------------------------------------------------


@_settings(0.15)
@given(scripts(), st.sampled_from(["bash", "sh"]))
@example("ssh h \"echo $HOME\"; sh -c 'kill $$' &\n", "bash")
@example("if true; then\n" * 70 + "fi\n" * 70, "bash")
@example("cat <<'A'\n$(\nA\n" + "echo $(" * 70 + "\n", "sh")
def test_generated_scripts(source: str, dialect: str) -> None:
    checked(source, dialect)


@_settings(0.12)
@given(damaged_scripts())
def test_damaged_scripts(source: str) -> None:
    checked(source)


def test_qc210_fix_for_a_relaunched_command_without_a_slash() -> None:
    """Found by fuzz/atheris_check.py: QC210's fix raised on a program named ` /`."""
    result = check_source('grep ""|xargs kill\n\' /')
    assert not [d for d in result.diagnostics if "failed on this input" in d.text]
    assert "QC210" in {d.code for d in result.diagnostics}


_tiny_limits = st.builds(
    Limits, max_nesting=st.integers(1, 4), max_layers=st.integers(1, 3),
    parse_time=st.sampled_from([0.001, 0.05, 60.0]), parse_call_time=st.sampled_from([0.01, 5.0]),
    rule_time=st.sampled_from([0.001, 60.0]))


@_settings(0.1)
@given(st.one_of(scripts(), damaged_scripts()), _tiny_limits)
@example("echo \"$(\"$(x)\")\"\nssh h \"echo $HOME\"\n",
         Limits(max_nesting=1))
@example("ssh h " * 5 + "'echo $HOME'\n", Limits(max_layers=1, rule_time=0.001))
def test_scripts_under_tiny_limits(source: str, limits: Limits) -> None:
    """Whatever a limit cuts off is reported inside the input, never raised."""
    result = checked(source, limits=limits)
    for d in result.diagnostics:
        assert d.code != "QC002" or d.text, d


@_settings(0.3)
@given(_any_text)
@example("")
@example("\r\n\r")
@example("\\\r\n")
@example("a\u2028b\x85c\x0cd")  # line breaks str.splitlines knows and the shell does not
def test_arbitrary_text(source: str) -> None:
    checked(source)


def _positions(source: str, result: CheckResult) -> set[tuple[str, int, int, int, int]]:
    index = LineIndex(source)
    out = set()
    for d in result.diagnostics:
        (l0, c0), (l1, c1) = index.position(d.span[0]), index.position(d.span[1])
        out.add((d.code, l0, c0, l1, c1 if l1 == l0 else -1))
    return out


@_settings(0.08)
@given(scripts())
def test_crlf_gives_the_same_findings_at_the_same_places(source: str) -> None:
    source = source.replace("\r", "")
    crlf = source.replace("\n", "\r\n")
    lf_found = _positions(source, checked(source))
    crlf_found = _positions(crlf, checked(crlf))
    if "\n" in source:
        line, col = LineIndex(crlf).position(crlf.index("\r"))
        lf_found.add(("QC002", line, col, line, col + 1))
    assert crlf_found == lf_found


# --------------------------------------------------------------------------------------------
# The command line, in-process: check - and explain --format json -
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _stdio(data: bytes) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def _run(args: list[str], data: bytes) -> tuple[int, str, str]:
    with _stdio(data) as (out, err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


@_settings(0.1)
@given(any_bytes())
@example(b"")
@example(b"\x00\xff")
@example(b"echo caf\xe9 \"$x\"\r\nssh h \"echo $HOME\"\r\n")
def test_check_stdin_bytes(data: bytes) -> None:
    code, out, err = _run(["check", "--no-config", "--color", "never", "--format", "json",
                           "--severity", "info", "--position-encoding", "utf-32", "-"], data)
    assert code in (0, 1), (code, err)
    assert "Traceback" not in err and "internal error" not in err, err
    doc = json.loads(out)
    text = data.decode("utf-8", "replace")
    index = LineIndex(text)
    (entry,) = doc["files"]
    assert bool(entry["diagnostics"]) == (code == 1)
    for d in entry["diagnostics"]:
        for end in ("start", "end"):
            at = d["range"][end]
            assert 0 <= at["line"] < len(index.starts), d
            line_end = (index.starts[at["line"] + 1] if at["line"] + 1 < len(index.starts)
                        else len(text))
            assert 0 <= index.starts[at["line"]] + at["character"] <= line_end, d
    # exactly the checker's spans in the decoded text, and the note at the first bad byte
    assert _json_places(entry) == _expected_places(data), data
    # the text format too: it shows lines of the input, which must not fail either
    code2, _, err2 = _run(["check", "--no-config", "--color", "never", "--severity", "info",
                           "-"], data)
    assert code2 == code, err2


Place = tuple[str, tuple[int, int], tuple[int, int]]


def _json_places(entry: dict[str, Any]) -> list[Place]:
    return [(d["code"], (d["range"]["start"]["line"], d["range"]["start"]["character"]),
             (d["range"]["end"]["line"], d["range"]["end"]["character"]))
            for d in entry["diagnostics"]]


def _expected_places(data: bytes) -> list[Place]:
    """What `check -` must report for ``data``, from check_source on the decoded text."""
    loaded = decode(data)
    if loaded.binary:
        return [("QC002", (0, 0), (0, 0))]
    index = LineIndex(loaded.text)
    spans = [] if loaded.undecodable is None else \
        [("QC002", (loaded.undecodable, loaded.undecodable + 1))]
    spans += [(d.code, d.span) for d in check_source(loaded.text).diagnostics]
    return [(code, index.position(a), index.position(b)) for code, (a, b) in spans]


_NOT_UTF8_LINES = [b"# caf\xe9 \xff\xfe\n", b"echo \xe2\x82 ok\n", b"# \xed\xa0\x80 \xc3\n",
                   b": '\xf0\x9f' \"\xe9t\xe9\"\n"]


@_settings(0.07)
@given(scripts(), st.sampled_from(_NOT_UTF8_LINES))
@example('ssh h "echo $HOME"\n', _NOT_UTF8_LINES[0])
@example("#!/bin/sh\nssh h 'kill $$' &\n", _NOT_UTF8_LINES[1])
def test_a_line_that_is_not_utf8_moves_the_findings_one_line_down(source: str,
                                                                  line: bytes) -> None:
    """Positions after bytes that are not UTF-8 stay right: a line of them added before a
    script (after its shebang) puts every finding one line lower, at the same column, and adds
    the note at the first bad byte."""
    at = source.index("\n") + 1 if source.startswith("#!") else 0
    data = source[:at].encode() + line + source[at:].encode()
    inserted = source[:at].count("\n")  # the line number of the inserted line
    index = LineIndex(source)
    want = set()
    for d in check_source(source).diagnostics:
        (l0, c0), (l1, c1) = index.position(d.span[0]), index.position(d.span[1])
        want.add((d.code, (l0 + (l0 >= inserted), c0), (l1 + (l1 >= inserted), c1)))
    bad = len(line[:next(i for i in range(len(line)) if line[i] >= 0x80)].decode())
    want.add(("QC002", (inserted, bad), (inserted, bad + 1)))
    code, out, err = _run(["check", "--no-config", "--format", "json", "--severity", "info",
                           "--position-encoding", "utf-32", "-"], data)
    assert code == 1, err
    (entry,) = json.loads(out)["files"]
    assert set(_json_places(entry)) == want


@_settings(0.1)
@given(st.one_of(scripts().map(str.encode), any_bytes()))
@example(b"ssh h \"sh -c 'echo \\$1' x\"\n")
def test_explain_json_spans_lie_within_the_source(data: bytes) -> None:
    code, out, err = _run(["explain", "--format", "json", "-"], data)
    assert code == 0, (code, err)
    doc = json.loads(out)
    source = doc["source"]
    assert source == data.decode("utf-8", "replace")
    size = len(source)
    ids = {layer["id"] for layer in doc["layers"]}
    for layer in doc["layers"]:
        assert layer["parent"] is None or layer["parent"] in ids
        span = layer.get("span")
        assert span is None or _within(span, size), layer
        for command in layer.get("commands", []):
            assert command["span"] is None or _within(command["span"], size), command
            assert all(0 <= i < len(command["argv"]) for i in command["dynamic"]), command
            assert all(i in ids for i in command["opens"]), command
    for d in doc["diagnostics"]:
        assert d["range"]["start"]["line"] <= d["range"]["end"]["line"], d
