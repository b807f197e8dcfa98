"""What the output formats print from hostile input: nothing raw, nothing a CI log runs, carets
under the right characters, and links that lead somewhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotecheck.cli import main
from quotecheck.output.check_text import SNIPPET_WIDTH, snippet
from quotecheck.output.terminal import ci_safe, printable, width

ESC_TITLE = "\x1b]0;pwned\x07"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def shown_and_caret(out: str) -> tuple[str, str]:
    """The source line and the caret line (without the layer chain beside the caret) of the
    first finding of text output."""
    lines = out.splitlines()
    i = next(n for n, line in enumerate(lines) if re.match(r" \d+ \| ", line))
    caret = lines[i + 1].split(" | ", 1)[1]
    return lines[i].split(" | ", 1)[1], caret[:caret.rfind("^") + 1]


def test_printable_escapes_controls_and_direction_marks() -> None:
    assert printable(ESC_TITLE) == "\\e]0;pwned\\x07"
    assert printable("a\u202eb\x9bc\x7f") == "a\\u202eb\\x9bc\\x7f"
    assert printable("中文 é 😀") == "中文 é 😀"
    assert printable("x\ty\n") == "x\\ty\\n"


@given(st.text())
def test_printable_leaves_no_control_character(text: str) -> None:
    shown = printable(text)
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 for c in shown)
    assert "\u202e" not in shown
    if text.isprintable() and text.isascii():
        assert shown == text


def test_ci_safe_breaks_workflow_commands() -> None:
    assert not ci_safe("::error::x").lstrip().startswith("::")
    assert not ci_safe("  ::set-output name=x::1").lstrip().startswith("::")
    assert "##[" not in ci_safe("a ##[group]b")
    assert ci_safe("plain: text") == "plain: text"


def test_text_output_prints_no_escape_sequence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name = "evil\x1b[2Jname.sh"
    (tmp_path / name).write_text(f'# {ESC_TITLE}\nssh h "echo {ESC_TITLE} $HOME"\n')
    code, out = run(capsys, "check", "--color", "never", name)
    assert code == 1 and "QC101" in out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\e]0;pwned\\x07" in out and "evil\\e[2Jname.sh" in out


def test_caret_sits_under_the_span_after_escapes_wide_characters_and_tabs(
        capsys: pytest.CaptureFixture[str]) -> None:
    # `$HOME` after a tab (to column 8), two wide characters (4 columns), an escape (2).
    command = 'ssh h "\t中文\x1b $HOME"'
    code, out = run(capsys, "check", "--color", "never", "--select", "QC101",
                    "--command", command)
    assert code == 1
    shown, caret = shown_and_caret(out)
    assert shown == 'ssh h " 中文\\e $HOME"'
    # ssh h " = 7 columns, the tab goes to 8, 中文 takes 4, \e 2, the blank 1: 15.
    assert caret == " " * 15 + "^" * 5
    assert width(shown[:shown.index("$HOME")]) == 15


def test_a_long_line_is_cut_to_a_window_around_the_caret(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    filler = "x" * 50_000
    (tmp_path / "long.sh").write_text(f'echo {filler}; ssh h "echo $HOME" # {filler}\n')
    code, out = run(capsys, "check", "--color", "never", "--select", "QC101", "long.sh")
    assert code == 1
    shown, caret = shown_and_caret(out)
    assert len(shown) <= SNIPPET_WIDTH + 2 and shown.startswith("…") and shown.endswith("…")
    start = len(caret) - len(caret.lstrip(" "))
    assert shown[start:start + 5] == "$HOME" and caret.strip() == "^^^^^"
    assert len(out) < 2_000


@given(st.text(alphabet=st.sampled_from("ab\t中😀\x1b\u0301 "), max_size=300),
       st.integers(0, 300), st.integers(0, 20))
def test_snippet_caret_points_at_the_span(text: str, start: int, length: int) -> None:
    start = min(start, len(text))
    end = min(start + length, len(text))
    shown, column, caret = snippet(text, start, end)
    assert caret >= 1 and width(shown) <= SNIPPET_WIDTH + 2
    if start < len(text) and text[start] == "a":
        # The shown character at the caret's column is the one the span starts with.
        col = 0
        for ch in shown:
            if col == column and width(ch):  # (a combining mark shares its base's column)
                assert ch == "a"
                break
            col += width(ch)


def test_github_annotations_carry_no_escape_and_no_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # A pkill pattern that holds a newline followed by a workflow command.
    (tmp_path / "a.sh").write_text(
        "ssh h \"pkill -f 'x\n::error::fake ##[group]g'; nohup x &\"\n"
        f"ssh h 'echo {ESC_TITLE}' \"$HOME\"\n")
    for fmt in ("github", "text"):
        code, out = run(capsys, "check", "--format", fmt, "--color", "never", "a.sh")
        assert code == 1
        assert "\x1b" not in out and "\x07" not in out
        assert "##[" not in out
        ours = re.compile(r"::(error|warning|notice) file=a\.sh,")
        for line in out.splitlines():
            if line.lstrip().startswith("::"):
                assert fmt == "github" and ours.match(line), line


def test_sarif_has_column_kind_encoded_uris_and_help_documents(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "a b#.sh").write_text('ssh h "echo $HOME"\n')
    code, out = run(capsys, "check", "--format", "sarif", "my dir/a b#.sh")
    assert code == 1
    run_ = json.loads(out)["runs"][0]
    assert run_["columnKind"] == "unicodeCodePoints"
    uri = run_["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/a%20b%23.sh"
    for rule in run_["tool"]["driver"]["rules"]:
        # The document is the help; no helpUri names a file on this machine.
        assert "helpUri" not in rule
        assert rule["help"]["markdown"].startswith(f"# {rule['id']}")


def test_explain_marks_run_time_values_without_colour_and_shows_env_and_redirects(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "explain", "--color", "never",
                    'A=1 nohup python3 t.py "$HOME/x" ~/y > train.log 2>&1 &')
    assert code == 0
    assert "‹python3›" in out and "«$HOME/x»" in out and "«~/y»" in out
    assert "‹$HOME/x›" not in out
    assert "env A=‹1›" in out
    assert "redirects > ‹train.log› 2>&1" in out
    assert "in the background (&)" in out


def test_explain_escapes_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "explain", "--color", "never", f"echo '{ESC_TITLE}' > '\x1b.log'")
    assert code == 0
    assert "\x1b" not in out and "\\e]0;pwned\\x07" in out and "‹\\e.log›" in out
