"""Where each character of a YAML scalar is read from, against PyYAML's own reading.

PyYAML writes a value in each of YAML's five scalar styles (plain, single- and double-quoted,
literal and folded blocks, folded at many widths, nested in lists); quotecheck's reading must
give PyYAML's value with every character placed on a piece of the file that PyYAML itself reads
as that character: the character itself, an escape, `''`, or a folded line break."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.hosts.yaml_scalars import scalar_text, scalar_tokens

VALUE = st.text(alphabet=st.sampled_from(list("ab c:#'\"\\\t\n-$é{},\r\x85\u2028\x07")),
                max_size=50)
STYLE = st.sampled_from([None, "'", '"', "|", ">"])


def _scalar(node: Any, key: str) -> Any:
    """The value node of the first mapping key ``key`` anywhere in the tree."""
    if node.id == "mapping":
        for k, v in node.value:
            if k.value == key:
                return v
            found = _scalar(v, key)
            if found is not None:
                return found
    elif node.id == "sequence":
        for item in node.value:
            found = _scalar(item, key)
            if found is not None:
                return found
    return None


def _reads_as(spelled: str, char: str, style: str | None) -> bool:
    if spelled == char:
        return True
    if style == '"' and spelled.startswith("\\"):
        return bool(yaml.safe_load('"' + spelled + '"') == char)
    if style == "'" and spelled == "''":
        return char == "'"
    breaks = ("\n", "\r\n", "\r", "\x85")  # each read as one line feed
    if char == " ":  # a folded line break with the blanks of the next line
        return any(spelled.startswith(b) and not spelled[len(b):].strip(" \t") for b in breaks)
    return char == "\n" and spelled in breaks


@settings(max_examples=400, deadline=None)
@given(value=VALUE, style=STYLE, width=st.integers(8, 60), nested=st.booleans())
def test_each_character_stands_on_its_own_spelling(value: str, style: str | None, width: int,
                                                   nested: bool) -> None:
    doc: Any = {"jobs": [{"run": value}]} if nested else {"run": value}
    text = yaml.dump(doc, default_style=style, width=width, allow_unicode=True)
    node = _scalar(yaml.compose(text), "run")
    tokens = scalar_tokens(text, node)
    assert tokens is not None, (text, node.style)
    for (_, _, end), (_, start, _) in pairwise(tokens):
        assert end <= start
    for char, a, b in tokens:
        assert _reads_as(text[a:b], char, node.style), (text, text[a:b], char)
    placed = scalar_text(text, node)
    assert placed.value == node.value
    assert list(placed.offsets) == [a for _, a, _ in tokens]


def test_a_folded_block_is_placed_line_by_line() -> None:
    text = "run: >\n  make all\n  install\n\n    indented\n  done\n"
    node = _scalar(yaml.compose(text), "run")
    placed = scalar_text(text, node)
    assert placed.value == "make all install\n\n  indented\ndone\n"
    at = placed.value.index("install")
    assert text[placed.offsets[at]:placed.offsets[at] + 7] == "install"
    assert text[placed.offsets[at - 1]] == "\n"  # the folded space stands on the line break
    at = placed.value.index("indented")
    assert text[placed.offsets[at]:placed.offsets[at] + 8] == "indented"


def test_double_quoted_escapes_stand_at_their_backslash() -> None:
    text = 'run: "echo \\"$HOME\\" \\\n   && ls"\n'
    node = _scalar(yaml.compose(text), "run")
    placed = scalar_text(text, node)
    assert placed.value == 'echo "$HOME" && ls'
    assert text[placed.offsets[5]:placed.offsets[5] + 2] == '\\"'
    at = placed.value.index("&&")
    assert text[placed.offsets[at]:placed.offsets[at] + 2] == "&&"


def test_an_explicit_indentation_counts_from_the_collection() -> None:
    text = "jobs:\n  - run: |2\n        indented\n      x\n"
    node = _scalar(yaml.compose(text), "run")
    assert node.value == "  indented\nx\n"
    tokens = scalar_tokens(text, node)
    assert tokens is not None
    assert text[tokens[2][1]:tokens[2][1] + 8] == "indented"


def test_a_tab_before_a_continuation_line_keeps_the_order() -> None:
    text = "run: 'a\n\tb'\n"  # a tab starting a continuation line
    node = _scalar(yaml.compose(text), "run")
    placed = scalar_text(text, node)
    assert placed.value == node.value
    offsets = [o for o in placed.offsets if o is not None]
    assert offsets == sorted(offsets)


def test_libyaml_gives_the_nodes_and_marks_of_the_python_parser() -> None:
    """compose_documents uses libyaml's parser where PyYAML has it: every node of the YAML
    fixtures and of the property test's kind of text has the same value, tag, style and place
    as the pure-Python parser gives."""
    from pathlib import Path

    from quotecheck.hosts.yaml_scalars import compose_documents

    root = Path(__file__).resolve().parents[2] / "fixtures" / "hosts"
    texts = [p.read_text() for p in sorted(root.rglob("*.y*ml"))]
    texts.append(yaml.dump({"run": "a 'b' \"c\"\n\n  d\\e é", "k": [1, "x: y"]}, width=12,
                           default_style='"'))
    assert len(texts) > 5
    for text in texts:
        fast = compose_documents(text, "yaml")
        assert isinstance(fast, list)
        slow = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        fast_nodes, slow_nodes = _all_nodes(fast), _all_nodes(slow)
        assert len(fast_nodes) == len(slow_nodes)
        for f, s in zip(fast_nodes, slow_nodes, strict=True):
            assert (f.tag, f.start_mark.index, f.end_mark.index) == \
                (s.tag, s.start_mark.index, s.end_mark.index)
            if isinstance(s.value, str):
                assert (f.value, f.style) == (s.value, s.style)


def _all_nodes(documents: list[Any]) -> list[Any]:
    out: list[Any] = []
    stack = list(reversed(documents))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node.value, list):
            for item in reversed(node.value):
                stack.extend(reversed(item) if isinstance(item, tuple) else (item,))
    return out
