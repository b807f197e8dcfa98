"""Long texts are parsed in pieces cut between top-level commands (quotecheck/parsing/splitter.py).

A cut is right when bashlex parses each piece on its own; the analysis of a text cut into pieces
must be the analysis of the whole text. Both are checked on hand-written constructs that a
naive line splitter gets wrong, on generated scripts, and on a long real-looking script. Last,
the other shortcut of parsing a mask: bashlex need not expand its words."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from quotecheck.checker import Options, check_source
from quotecheck.parsing import bashlex_adapter, parse, splitter
from quotecheck.parsing.scanner import scan
from quotecheck.parsing.tree import walk
from tests.test_fuzz import scripts

ROOT = Path(__file__).resolve().parent.parent


def _masked(text: str) -> str:
    return scan(text).masked(0, len(text), 0)


def _lines_at(text: str, breaks: list[int]) -> list[int]:
    """1-based numbers of the lines that start at ``breaks``."""
    return [text.count("\n", 0, b) + 1 for b in breaks]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\nb\nc\n", [2, 3, 4]),
        ("if x\nthen y\nfi\nz\n", [4, 5]),
        ("for i in 1 2\ndo\n  echo $i\ndone\nz\n", [5, 6]),
        ("while :; do\n  { a\n    b; }\ndone\nz\n", [5, 6]),
        # `)` ends a case pattern, not a subshell; `esac` may come without `;;`
        ("case $x in\n  a) (b)\n  ;;\n  (c|d) e ;;\n  *) f\nesac\nz\n", [7, 8]),
        # a function whose body starts on a later line
        ("f()\n{\n  a\n}\ng\n", [5, 6]),
        ("function f\n{\n  a\n}\ng\n", [5, 6]),
        ("f() (\n  a\n)\ng\n", [4, 5]),
        # a pipeline or list goes on after `|`, `&&`, `||`, even past blank lines
        ("a |\n\n  b &&\n\n  c ||\n  d\ne\n", [7, 8]),
        ("a \\\n  b\nc\n", [3, 4]),
        # reserved words count only where a command starts
        ("echo if while {\necho fi done }\nz\n", [2, 3, 4]),
        # quotes, substitutions, heredocs and comments are blanked by the scanner first
        ("echo \"if\" '(' $(case x in a) b;; esac) # fi (\nz\n", [2, 3]),
        # (a heredoc's body is blank in the mask: its lines open nothing)
        ("cat <<EOF\nif (\nEOF\nz\n", [2, 3, 4, 5]),
        ("a=(1\n2)\nz\n", [3, 4]),
        ("cmd > if\nz\n", [2, 3]),
        ("for i in 1 2; {\n  echo; }\nz\n", [3, 4]),
        ("for i in 1 2; do {\n  echo; }\ndone\nz\n", [4, 5]),
        # `do` right after the name (gzexe's `for i do`): a brace group in the body is no loop
        ("for i do\n  { a; }\ndone\nz\n", [4, 5]),
        ("select x in a\ndo\n  { b; }\ndone\nz\n", [5, 6]),
        ("case $x in\n  a|esac) b\n  ;;\nesac\nz\n", [5, 6]),
        ("( a\n  b )\nz\n", [3, 4]),
    ],
)
def test_breaks_fall_between_top_level_commands(text: str, lines: list[int]) -> None:
    assert _lines_at(text, splitter.top_level_breaks(_masked(text))) == lines


@pytest.mark.parametrize(
    "text",
    [
        "if x\nthen y\nfi\n" * 3,
        "case $x in\n a) b ;;\nesac\n" * 3,
        "f()\n{\n a\n}\n" * 3,
        "a &&\n\n b\n" * 3,
    ],
)
def test_each_piece_parses_on_its_own(text: str) -> None:
    masked = _masked(text)
    cuts = splitter.pieces(masked, 1)
    assert len(cuts) == 3
    assert "".join(masked[a:b] for a, b in cuts) == masked
    for a, b in cuts:
        assert bashlex_adapter.safe_parse(masked[a:b], None).nodes is not None, masked[a:b]


def _findings(text: str) -> list[tuple[str, tuple[int, int], str]]:
    return [(d.code, d.span, d.text)
            for d in check_source(text, Options(dialect="bash")).diagnostics]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_a_text_cut_into_pieces_is_analysed_as_a_whole(source: str) -> None:
    whole = _findings(source)
    saved = parse.PIECE_LINES
    parse.PIECE_LINES = 1  # cut at every top-level break of every text of two lines or more
    try:
        cut = _findings(source)
    finally:
        parse.PIECE_LINES = saved
    assert cut == whole


def test_a_long_script_is_parsed_in_pieces_with_the_same_findings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    one = "".join((ROOT / "fixtures" / "dflash" / name).read_text()
                  for name in ("restart.sh", "restart.fixed.sh"))
    body = "".join(f"f{i}() {{\n{one}}}\n" if i % 2 else one for i in range(16))
    monkeypatch.setattr(parse, "PIECE_LINES", 100)
    calls: list[int] = []
    real = bashlex_adapter.safe_parse

    def counting(text: str, *args: object, **kwargs: object) -> bashlex_adapter.ParseOutcome:
        calls.append(text.count("\n"))
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bashlex_adapter, "safe_parse", counting)
    cut = _findings(body)
    lines = _masked(body).count("\n")  # (a quoted string's lines are one line in the mask)
    assert lines > 400
    assert calls and max(calls) < lines // 2  # never the whole text at once
    monkeypatch.setattr(parse, "PIECE_LINES", 10**9)
    calls.clear()
    assert _findings(body) == cut
    assert max(calls) == lines
    assert any(code == "QC201" for code, _, _ in cut)


def test_a_wrong_cut_is_parsed_again_with_the_next_piece(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(f"echo {i}\n" for i in range(30)) + "while :; do\n  echo x\n  break\ndone\n"
    loop = text.index("while")
    inside = text.index("  break")

    def wrong(masked: str, lines: int) -> list[tuple[int, int]]:  # a cut inside the loop
        return [(0, loop), (loop, inside), (inside, len(masked))]

    monkeypatch.setattr(parse, "PIECE_LINES", 5)
    monkeypatch.setattr(splitter, "pieces", wrong)
    result = check_source(text, Options(dialect="bash"))
    assert not [d for d in result.diagnostics if d.code in ("QC001", "QC002")]
    assert [c.words[0].value for c, _ in walk(result.trace.root.script)][-3:] == \
        [":", "echo", "break"]


def _shape(nodes: list[object]) -> list[tuple[str, object]]:
    # Word nodes' own parts (a tilde, say) exist only when bashlex expands the word.
    return [(n.kind, n.pos) for n in bashlex_adapter.iter_nodes(nodes)  # type: ignore[attr-defined]
            if n.kind not in ("tilde", "parameter", "commandsubstitution",  # type: ignore[attr-defined]
                              "processsubstitution")]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_a_mask_parses_to_the_same_tree_with_or_without_word_expansion(source: str) -> None:
    masked = _masked(source)
    expanded = bashlex_adapter.safe_parse(masked, None)
    plain = bashlex_adapter.safe_parse(masked, None, expand=False)
    assert (expanded.nodes is None) == (plain.nodes is None)
    if expanded.nodes is not None and plain.nodes is not None:
        assert _shape(plain.nodes) == _shape(expanded.nodes)
    else:
        assert (plain.error, plain.error_offset) == (expanded.error, expanded.error_offset)


def test_pieces_left_when_the_time_runs_out_are_one_finding(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(f'ssh h "echo $HOME {i}"\n' for i in range(60))
    monkeypatch.setattr(parse, "PIECE_LINES", 5)
    real = parse._Builder._limit
    calls = {"n": 0}

    def limit(self: parse._Builder) -> float:
        if self.scan.text != text:
            return real(self)  # the remote shells' texts: time enough
        calls["n"] += 1
        return real(self) if calls["n"] <= 3 else 0.0  # time is up after the first piece

    monkeypatch.setattr(parse._Builder, "_limit", limit)
    found = check_source(text, Options(dialect="bash")).diagnostics
    out_of_time = [d for d in found if d.code == "QC002"]
    assert len(out_of_time) == 1, [(d.span, d.text) for d in out_of_time]
    assert "the rest of this text" in out_of_time[0].text
    assert out_of_time[0].span[1] == len(text)
    analysed = [d for d in found if d.code == "QC101"]
    assert analysed and all(d.span[0] < out_of_time[0].span[0] for d in analysed)
