"""`quotecheck fix`: safe and unsafe fixes, output modes, idempotence on every fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quotecheck.checker import Options
from quotecheck.cli import main
from quotecheck.diagnostics import Diagnostic, Edit, Fix, Message
from quotecheck.files import local_dialect
from quotecheck.fixer import applicable, apply_edits, choose_fixes, fix_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.sh"))
HOSTKEY = 'ssh -o StrictHostKeyChecking=no h "ls"'


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["fix", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_unsafe_fixes_need_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--command", HOSTKEY)
    assert out == HOSTKEY + "\n" and code == 1
    assert "suggestion QC301" in err and "needs --unsafe-fixes" in err
    code, out, err = run(capsys, "--unsafe-fixes", "--select", "QC301", "--command", HOSTKEY)
    assert out == 'ssh -o StrictHostKeyChecking=accept-new h "ls"\n' and code == 0


def test_safe_fix_applied_by_default_and_meaning_kept(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    import subprocess

    cmd = "sh -c 'echo hi &> /dev/null; echo done'"
    code, out, _ = run(capsys, "--select", "QC207", "--command", cmd)
    assert code == 0
    fixed = out.rstrip("\n")
    assert fixed != cmd and "&>" not in fixed
    # dash now runs it as bash meant it: `echo hi` silenced, `done` printed
    res = subprocess.run(["bash", "-c", fixed], capture_output=True, text=True, timeout=10)
    assert res.stdout == "done\n"


def test_diff_and_write(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "deploy.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    code, out, _ = run(capsys, "--unsafe-fixes", "--select", "QC301", "--diff", "deploy.sh")
    assert out.splitlines()[:2] == ["--- a/deploy.sh", "+++ b/deploy.sh"]
    assert code == 0 and "-ssh -o StrictHostKeyChecking=no" in out
    assert "+ssh -o StrictHostKeyChecking=accept-new" in out
    assert script.read_text() == f"#!/bin/bash\n{HOSTKEY}\n"  # --diff writes nothing
    code, out, err = run(capsys, "--unsafe-fixes", "--select", "QC301", "--write", "deploy.sh")
    assert code == 0 and out == "" and "fixed deploy.sh (1 fix)" in err
    assert "accept-new" in script.read_text()
    # fixing a fixed file changes nothing
    code, out, err = run(capsys, "--unsafe-fixes", "--select", "QC301", "--write", "deploy.sh")
    assert code == 0
    assert err == "quotecheck: 0 files fixed, 0 fixes applied, 0 fixes left as suggestions\n"


def test_several_inputs_need_diff_or_write(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.sh").write_text("ls\n")
    (tmp_path / "b.sh").write_text("ls\n")
    code, _, err = run(capsys, str(tmp_path / "a.sh"), str(tmp_path / "b.sh"))
    assert code == 2 and "--diff or --write" in err


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    d1 = Diagnostic("QC1", "a", "warning", Message("m"), (0, 5),
                    fixes=(Fix("x", (Edit((0, 5), "A"),), "safe"),))
    d2 = Diagnostic("QC2", "b", "warning", Message("m"), (3, 8),
                    fixes=(Fix("y", (Edit((3, 8), "B"),), "safe"),))
    d3 = Diagnostic("QC3", "c", "warning", Message("m"), (9, 9),
                    fixes=(Fix("z", (Edit((9, 9), "!"),), "unsafe"),))
    chosen = choose_fixes([d2, d1, d3], unsafe=False)
    assert [d.code for d, _ in chosen] == ["QC1"]
    assert [d.code for d, _ in choose_fixes([d1, d2, d3], unsafe=True)] == ["QC1", "QC3"]
    assert apply_edits("0123456789", [Edit((0, 5), "A"), Edit((9, 9), "!")]) == "A5678!9"
    assert not applicable(Fix("t", (), "display-only"), unsafe=True)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("script", FIXTURES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_fix_is_idempotent_and_leaves_no_applicable_fix(script: Path, unsafe: bool) -> None:
    text = script.read_text()
    options = Options(dialect=local_dialect(text))
    once = fix_source(text, options, unsafe=unsafe, path=str(script))
    assert not choose_fixes(once.remaining, unsafe), [
        (d.code, d.text) for d, _ in choose_fixes(once.remaining, unsafe)]
    twice = fix_source(once.text, options, unsafe=unsafe, path=str(script))
    assert twice.text == once.text


def test_fix_edits_are_lsp_text_edits_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "json", "--select", "QC301", "--command", HOSTKEY]) == 1
    doc = json.loads(capsys.readouterr().out)
    d = doc["files"][0]["diagnostics"][0]
    (fix,) = d["data"]["fixes"]
    assert fix["applicability"] == "unsafe"
    (edit,) = fix["edits"]
    assert edit["newText"] == "accept-new"
    assert edit["range"]["start"] == {"line": 0, "character": 29}
    assert HOSTKEY[29:31] == "no"
