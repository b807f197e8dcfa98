"""Messages as people read them: a one-line summary (what is wrong, where), then the
explanation; the same split in every format, and the seed's report on one screen."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source
from quotecheck.cli import main
from quotecheck.diagnostics import Diagnostic, Message, problem_message
from quotecheck.output.check_text import explanation_lines
from quotecheck.summaries import SUMMARY_LIMIT, shorten

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_rule_docs import examples  # noqa: E402


def every_finding() -> list[tuple[str, Diagnostic]]:
    """Every finding of every fixture script and every rule document's examples."""
    out: list[tuple[str, Diagnostic]] = []
    for example in examples():
        options = Options(remote_shell=example.options.get("remote-shell"),
                          dialect=example.options.get("shell", "bash"), severity="hint",
                          host=example.options.get("host"))
        result = check_source(example.text, options, path=example.options.get("path"))
        out.extend((str(example), d) for d in result.diagnostics)
    for script in sorted((ROOT / "fixtures").rglob("*.sh")):
        text = script.read_text(errors="replace")
        out.extend((script.relative_to(ROOT).as_posix(), d)
                   for d in check_source(text, Options(severity="hint"), str(script)).diagnostics)
    return out


FINDINGS = every_finding()


def test_every_rule_is_seen() -> None:
    from quotecheck.rules.registry import all_rules

    assert {d.code for _, d in FINDINGS} >= set(all_rules()) - {"QC002"}


def test_every_summary_is_one_short_line_and_every_rule_explains() -> None:
    long = [(where, d.code, d.summary) for where, d in FINDINGS
            if not d.summary or len(d.summary) > SUMMARY_LIMIT or "\n" in d.summary]
    assert not long, long
    # Every finding of a rule says why and what to do, on lines of its own.
    bare = [(where, d.code, d.text) for where, d in FINDINGS
            if not d.explanation and d.code not in ("QC001", "QC002")]
    assert not bare, bare


def test_every_summary_is_the_rules_own_field() -> None:
    # The summary is a field the rule (or the checker) set, never cut out of a text: it is
    # where the message's text starts (unless the rule gives a longer lead), and the text
    # is the summary (or lead), the joint and the explanation, nothing else.
    for where, d in FINDINGS:
        said = d.message
        assert said.summary.strip() and said.kind, (where, d.code)
        head = said.summary if said.lead is None else said.lead
        assert d.text.startswith(head), (where, d.code)
        assert d.text == head + said.joint + (" " + said.explanation if said.explanation
                                             else ""), (where, d.code)
        # What people read: the field itself, or its short form when it is too long.
        if said.lead is None and len(" ".join(said.summary.split())) <= SUMMARY_LIMIT:
            assert d.summary == " ".join(said.summary.split()), (where, d.code)
        else:
            assert d.summary == shorten(said.summary), (where, d.code)
        if d.code not in ("QC001", "QC002"):
            assert said.kind != "parse-problem", (where, d.code)


def test_a_message_is_filled_from_named_values() -> None:
    from quotecheck.rules.api import Template

    t = Template("k", "`{x}` is wrong", "because {y}. Do {z}.", ";")
    m = t(x="a: b", y="c", z="d")
    # a value holding `: ` does not move where the summary ends
    assert (m.summary, m.explanation, m.kind) == ("`a: b` is wrong", "because c. Do d.", "k")
    assert m.value("y") == "c" and m.text == "`a: b` is wrong; because c. Do d."
    assert m.noted("guess").explanation == "because c. Do d. (guess)"
    assert Message("no explanation", joint="").noted("guess").summary == "no explanation (guess)"


def test_problem_message() -> None:
    # The parser's problems are one text each: its first part is the summary.
    m = problem_message("`x` is wrong here (an aside): the evidence. The remedy, e.g. `a: b`.")
    assert (m.summary, m.explanation) == ("`x` is wrong here (an aside)",
                                          "the evidence. The remedy, e.g. `a: b`.")
    assert problem_message("`a: b` (c: d) fails: why").summary == "`a: b` (c: d) fails"
    assert problem_message("unterminated quote").text == "unterminated quote"
    long = "`" + "c" * 200 + "` " + "word " * 40 + "(" + "aside " * 10 + ")"
    summary = Diagnostic("QC001", "parse-error", "error", problem_message(long), (0, 0)).summary
    assert len(summary) <= SUMMARY_LIMIT and summary.endswith("…")
    assert summary.count("`") % 2 == 0 and "aside" not in summary
    assert len(shorten("w " * 200)) <= SUMMARY_LIMIT


def test_an_explanation_is_cut_to_its_start_and_its_remedy() -> None:
    text = ("First sentence of evidence. " + "Evidence goes on and on. " * 30
            + "Do this instead.")
    lines = explanation_lines(text, 4, 60, limit=3)
    assert len(lines) <= 3 and all(len(line) <= 60 for line in lines)
    joined = " ".join(line.strip() for line in lines)
    assert joined.startswith("First sentence of evidence.") and joined.endswith(
        "… Do this instead.")
    assert explanation_lines("Short.", 4, 60) == ["    Short."]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "--color", "never", "--no-config", *args])
    out, err = capsys.readouterr()
    return code, out, err


def seed_findings(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    code, out, _ = run(capsys, "--format", "json", str(SEED))
    assert code == 1
    diagnostics: list[dict[str, object]] = json.loads(out)["files"][0]["diagnostics"]
    return diagnostics


def test_the_seed_report_fits_on_one_screen(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)
    found = seed_findings(capsys)
    code, out, _ = run(capsys, "fixtures/dflash/restart.sh")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) <= 50, len(lines)
    headers = [n for n, line in enumerate(lines) if line.startswith("fixtures/dflash/restart.sh:")]
    assert len(headers) == len(found) >= 8
    for n, d in zip(headers, found, strict=True):
        rng = d["range"]["start"]  # type: ignore[index]
        where = f"restart.sh:{rng['line'] + 1}:{rng['character'] + 1}:"  # type: ignore[index]
        # every finding's summary line, whole, and its layer chain below it
        assert lines[n].endswith(f" {d['code']} {d['message']}") and where in lines[n]
        layers = d["data"]["layers"]  # type: ignore[index]
        block = lines[n + 1:n + 5]
        if len(layers) > 1:
            assert any(line.endswith(" -> ".join(layers)) for line in block), (d, block)
    # the explanation lines (not the header and the source lines) keep to 100 columns
    explanation = [line for line in lines if line.startswith("    ") and " | " not in line]
    assert explanation and all(len(line) <= 100 for line in explanation)
    assert lines[-1] == ("1 file checked: 8 findings (1 error, 7 warnings); fixable: 1 with "
                         "`quotecheck fix`, 7 more with --unsafe-fixes")


def test_a_rule_that_fires_again_in_a_file_is_not_explained_again(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)  # pytest may set it
    code, out, _ = run(capsys, "--select", "QC205", "fixtures/dflash/restart.sh")
    assert code == 1
    blocks = re.split(r"(?m)^(?=fixtures/dflash/restart\.sh:)", out)[1:]
    assert len(blocks) == 2
    first, second = (block.splitlines() for block in blocks)
    assert any(line.startswith("    ") and "Print it only on success" in line for line in first)
    # the second: its summary, source line and caret with the chain, then the closing line
    assert len(second) == 4 and second[-1].startswith("1 file checked: 2 findings")


def test_machine_formats_carry_summary_and_explanation(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    found = seed_findings(capsys)
    qc201 = next(d for d in found if d["code"] == "QC201")
    assert qc201["message"] == ("`grep '[p]ython3.*train_dflash'` (basic regex) matches the "
                                "remote shell that runs this script on root@[REDACTED_IP]")
    assert str(qc201["data"]["explanation"]).startswith(  # type: ignore[index]
        "its own command line holds the script")
    # --severity info: QC208 (info in a foreground script) first, as the seed's first finding
    _, out, _ = run(capsys, "--format", "sarif", "--severity", "info", "fixtures/dflash/restart.sh")
    results = json.loads(out)["runs"][0]["results"]
    first = results[0]["message"]
    assert "\n" not in first["text"] and len(first["text"]) <= SUMMARY_LIMIT
    assert first["markdown"].startswith(first["text"] + "\n\n") and "BatchMode" in first[
        "markdown"]
    _, out, _ = run(capsys, "--format", "github", "--severity", "info",
                    "fixtures/dflash/restart.sh")
    annotation = out.splitlines()[0]
    assert annotation.split("::", 2)[2].startswith(
        "QC208 ssh without `BatchMode=yes` and `ConnectTimeout` (it is in a script)%0A%0A")


def test_concise_is_one_line_a_finding(capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    found = seed_findings(capsys)
    code, out, _ = run(capsys, "--format", "concise", "fixtures/dflash/restart.sh")
    assert code == 1
    lines = out.splitlines()
    assert lines[:-1] == [
        f"fixtures/dflash/restart.sh:{d['range']['start']['line'] + 1}:"  # type: ignore[index]
        f"{d['range']['start']['character'] + 1}: {d['code']} {d['message']}"  # type: ignore
        for d in found]
    assert lines[-1].startswith("1 file checked: 8 findings")


def test_the_editor_hover_shows_the_explanation() -> None:
    from quotecheck.lsp.hover import diagnostic_markdown

    d = check_source('ssh h "echo $HOME"', Options()).diagnostics
    qc = next(x for x in d if x.code == "QC101")
    text = diagnostic_markdown(qc)
    assert qc.explanation and qc.explanation in text


def test_the_readme_examples_are_the_real_output(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("`deploy.sh`:\n\n```sh\n")
    script, full, concise = re.findall(r"```(?:sh|text)\n(.*?)```", readme[start:], re.S)[:3]
    (tmp_path / "deploy.sh").write_text(script)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert run(capsys, "deploy.sh")[1] == full
    assert run(capsys, "--format", "concise", "deploy.sh")[1] == concise
