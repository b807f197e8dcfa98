"""The language server's pure parts, on their own: positions, Markdown, edits, directives.

(The server as a whole is tested over stdio in test_lsp_server.py and in Neovim.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotecheck.lsp import engine
from quotecheck.lsp.actions import disable_edit, minimal_edit, wanted
from quotecheck.lsp.hover import code
from quotecheck.lsp.positions import offset_at


def _check(text: str) -> engine.CheckOutcome:
    return engine.check(text, engine.Options(), None)


@pytest.mark.parametrize("encoding,character,offset", [
    ("utf-16", 1, 1), ("utf-16", 2, 1), ("utf-16", 3, 2), ("utf-16", 4, 3),  # 😀: 2 units
    ("utf-8", 1, 1), ("utf-8", 3, 1), ("utf-8", 5, 2), ("utf-8", 7, 3),  # 😀: 4 bytes, é: 2
    ("utf-32", 2, 2), ("utf-32", 99, 4),  # past the end of the line: its end
])
def test_offset_at_counts_the_negotiated_units(encoding: engine.Encoding, character: int,
                                               offset: int) -> None:
    index = engine.LineIndex("a😀éb\nnext\n")
    assert offset_at(index, 0, character, encoding) == offset


def test_offset_at_lines() -> None:
    text = "ab\ncd"
    index = engine.LineIndex(text)
    assert offset_at(index, 1, 1, "utf-16") == 4
    assert offset_at(index, 7, 0, "utf-16") == len(text)
    assert offset_at(index, -1, 5, "utf-16") == 0


@pytest.mark.parametrize("value,shown", [
    ("ls", "`ls`"), ("", "` `"), ("a`b", "``a`b``"), ("`x`", "`` `x` ``"),
    ("a\nb\tc\x01", "`a\\nb\\tc\\x01`"),
])
def test_code_spans_hold_any_value(value: str, shown: str) -> None:
    assert code(value) == shown


def test_long_values_are_cut() -> None:
    assert code("x" * 100, limit=10) == "`" + "x" * 9 + "…`"


@given(st.text(max_size=40), st.text(max_size=40))
def test_minimal_edit_turns_old_into_new(old: str, new: str) -> None:
    (start, end), replacement = minimal_edit(old, new)
    assert old[:start] + replacement + old[end:] == new


def test_kind_filter_is_by_prefix() -> None:
    assert wanted("source.fixAll.quotecheck", ["source.fixAll"])
    assert wanted("source.fixAll.quotecheck", ["source"])
    assert not wanted("source.fixAll.quotecheck", ["quickfix"])
    assert not wanted("quickfix", ["source.fixAll"])
    assert wanted("quickfix", None)


def test_no_directive_line_between_a_heredoc_and_its_body() -> None:
    text = "cat <<EOF; ssh -o BatchMode=yes -o ConnectTimeout=5 h \"echo $HOME\"\nbody\nEOF\n"
    outcome = _check(text)
    qc101 = [d for d in outcome.diagnostics if d.code == "QC101"]
    assert qc101
    assert disable_edit(text, outcome.top_spans, qc101[0]) is None


def test_a_crlf_file_gets_a_crlf_directive_line() -> None:
    text = "true\r\nssh -o BatchMode=yes -o ConnectTimeout=5 h \"echo $HOME\"\r\n"
    outcome = _check(text)
    qc101 = next(d for d in outcome.diagnostics if d.code == "QC101")
    found = disable_edit(text, outcome.top_spans, qc101)
    assert found is not None
    ((start, end), new), whole_file = found
    assert not whole_file
    fixed = text[:start] + new + text[end:]
    assert fixed == ("true\r\n# quotecheck: disable=QC101\r\n"
                     "ssh -o BatchMode=yes -o ConnectTimeout=5 h \"echo $HOME\"\r\n")
    assert "QC101" not in [d.code for d in _check(fixed).diagnostics]


@pytest.mark.parametrize("path,language_id,text,expected", [
    (None, "shellscript", "", True),
    (None, "sh", "", True),
    (Path("/x/deploy.bash"), "plaintext", "", True),
    (Path("/x/deploy"), None, "#!/usr/bin/env bash\nls\n", True),
    (Path("/x/tool.py"), "python", "import os\n", False),
    (Path("/x/notes"), "plaintext", "ssh h 'kill $!'\n", False),
])
def test_which_documents_are_shell_scripts(path: Path | None, language_id: str | None,
                                           text: str, expected: bool) -> None:
    assert engine.is_shell_document(path, language_id, text) is expected
