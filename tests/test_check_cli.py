"""`quotecheck check`: inputs, exit codes, output formats, configuration and directives.

These use QC001 (parse error) and QC002 so they do not depend on any other rule's details.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from quotecheck.cli import main

BAD = 'echo ok\necho "unterminated\n'  # QC001 at 2:6
GOOD = "echo 'fine'\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "--color", "never", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def scripts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.sh").write_text(BAD)
    (tmp_path / "good.sh").write_text(GOOD)
    return tmp_path


def test_text_format_and_exit_codes(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "good.sh")
    assert (code, out) == (0, "")
    code, out, _ = run(capsys, "bad.sh", "good.sh")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("bad.sh:2:6: error QC001 unterminated double quote")
    assert lines[1] == ' 2 | echo "unterminated'
    assert lines[2] == "   |      " + "^" * 13


def test_missing_file_is_exit_2_and_others_still_checked(
        scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "nope.sh", "bad.sh")
    assert code == 2
    assert "nope.sh: no such file" in err
    assert "bad.sh:2:6" in out


def test_command_and_stdin(capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, "--command", "ssh h 'echo \"x'")
    assert code == 1 and out.startswith("<command>:1:13: error QC001")
    # the finding at the inner layer shows the chain of layers, beside the caret
    assert "   |             ^^ local bash -> ssh -> remote shell\n" in out

    class Stdin:
        import io
        buffer = io.BytesIO(BAD.encode())

    monkeypatch.setattr("sys.stdin", Stdin())
    code, out, _ = run(capsys, "-")
    assert code == 1 and out.startswith("<stdin>:2:6:")


def test_json_is_lsp_shaped_with_position_encodings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # Two astral characters before the error: 2 UTF-16 units and 4 UTF-8 bytes each.
    (tmp_path / "u.sh").write_text('echo "😀😀" \'open\n')
    docs: dict[str, Any] = {}
    for enc in ("utf-16", "utf-8", "utf-32"):
        code, out, _ = run(capsys, "--format", "json", "--position-encoding", enc, "u.sh")
        assert code == 1
        docs[enc] = json.loads(out)
    doc = docs["utf-16"]
    assert doc["version"] == 1 and doc["positionEncoding"] == "utf-16"
    entry = doc["files"][0]
    assert entry["path"] == "u.sh" and entry["uri"].startswith("file://")
    d = entry["diagnostics"][0]
    assert d["code"] == "QC001" and d["severity"] == 1 and d["source"] == "quotecheck"
    href = d["codeDescription"]["href"]
    # The link names a document that exists: the rule's page shipped with the package.
    assert href.startswith("file://") and href.endswith("/QC001.md")
    assert Path(unquote(urlparse(href).path)).read_text().startswith("# QC001")
    assert d["data"]["rule"] == "parse-error"
    cols = {enc: docs[enc]["files"][0]["diagnostics"][0]["range"]["start"]["character"]
            for enc in docs}
    assert cols == {"utf-32": 10, "utf-16": 12, "utf-8": 16}


def test_sarif(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--format", "sarif", "bad.sh")
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "quotecheck"
    by_id = {r["id"]: r for r in driver["rules"]}
    assert by_id["QC001"]["shortDescription"]["text"]
    assert by_id["QC001"]["fullDescription"]["text"].startswith("Text that a shell layer")
    assert "## Why it breaks" in by_id["QC001"]["help"]["text"]
    result = doc["runs"][0]["results"][0]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert result["ruleId"] == "QC001" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.sh"
    assert (region["startLine"], region["startColumn"]) == (2, 6)


def test_github_annotations(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--format", "github", "bad.sh")
    assert code == 1
    assert out.startswith("::error file=bad.sh,line=2,col=6,endLine=3,endColumn=1,"
                          "title=QC001::QC001 unterminated double quote")


def test_config_in_pyproject_and_overrides(scripts: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (scripts / "pyproject.toml").write_text('[tool.quotecheck]\nignore = ["QC0"]\n')
    assert run(capsys, "bad.sh")[0] == 0
    # command-line selection overrides the file's
    assert run(capsys, "--select", "QC001", "bad.sh")[0] == 1
    assert run(capsys, "--no-config", "bad.sh")[0] == 1


def test_dot_config_found_upward_and_per_path(scripts: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    sub = scripts / "deploy"
    sub.mkdir()
    (sub / "bad.sh").write_text(BAD)
    (scripts / ".quotecheck.toml").write_text('[per-path-ignores]\n"deploy/*" = ["QC001"]\n')
    assert run(capsys, "deploy/bad.sh")[0] == 0
    assert run(capsys, "bad.sh")[0] == 1


def test_configured_limits_reach_the_checker(scripts: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (scripts / "nested.sh").write_text('echo "$(echo "$(echo "$(date)")")"\n')
    assert run(capsys, "nested.sh")[0] == 0
    (scripts / ".quotecheck.toml").write_text("[limits]\nmax-nesting = 1\n")
    code, out, _ = run(capsys, "nested.sh")
    assert code == 1 and "QC002" in out and "nested deeper than 1 levels" in out, out
    (scripts / ".quotecheck.toml").write_text('[limits]\nmax-file-size = "20 B"\n')
    code, out, err = run(capsys, "nested.sh", "good.sh")
    assert code == 2 and "nested.sh: too large" in err and "max-file-size" in err, err
    (scripts / ".quotecheck.toml").write_text("[limits]\nmax-nesting = 0\n")
    assert run(capsys, "good.sh")[0] == 2


@pytest.mark.parametrize("content, message", [
    ('[tool.quotecheck]\nfoo = 1\n', "unknown setting(s) foo"),
    ('[tool.quotecheck]\nignore = ["QC9"]\n', "matches no rule"),
    ('[tool.quotecheck]\nseverity = "loud"\n', "severity must be one of"),
    ('[tool.quotecheck\n', "invalid TOML"),
])
def test_bad_config_is_exit_2(scripts: Path, capsys: pytest.CaptureFixture[str],
                              content: str, message: str) -> None:
    (scripts / "pyproject.toml").write_text(content)
    code, _, err = run(capsys, "good.sh")
    assert code == 2 and message in err


def test_directives(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text("echo ok\n# quotecheck: disable=QC001\necho 'open\n")
    assert run(capsys, "a.sh")[0] == 0
    # a directive covers the next command only
    (tmp_path / "b.sh").write_text("echo ok\n# quotecheck: disable=QC001\necho a\necho 'x\n")
    code, out, _ = run(capsys, "b.sh")
    assert code == 1 and "b.sh:4:6" in out
    # unknown codes and malformed directives are reported, not ignored
    (tmp_path / "c.sh").write_text("# quotecheck: disable=QC999\n# quotecheck: frobnicate\n"
                                   "# shellcheck disable=SC2086\necho ok\n")
    code, out, _ = run(capsys, "c.sh")
    assert code == 1
    assert "c.sh:1:1: warning QC002 unknown rule code `QC999`" in out
    assert "c.sh:2:1: warning QC002 malformed quotecheck directive" in out
    assert ":3:" not in out  # ShellCheck's directives are left alone


def test_directory_walk_picks_shell_scripts(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src" / ".git").mkdir(parents=True)
    (tmp_path / "src" / "a.sh").write_text(BAD)
    (tmp_path / "src" / "deploy").write_text("#!/usr/bin/env bash\n" + BAD)
    (tmp_path / "src" / "notes.txt").write_text(BAD)
    (tmp_path / "src" / "tool.py").write_text("#!/bin/sh\n" + BAD)
    (tmp_path / "src" / ".git" / "hook.sh").write_text(BAD)
    code, out, _ = run(capsys, "src")
    assert code == 1
    reported = sorted({line.split(":")[0] for line in out.splitlines() if ": error " in line})
    assert reported == [os.path.join("src", "a.sh"), os.path.join("src", "deploy")]


def test_binary_and_non_utf8_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin.sh").write_bytes(b"\x7fELF\x00\x01\x02")
    (tmp_path / "latin.sh").write_bytes(b"echo caf\xe9\necho 'open\n")
    code, out, _ = run(capsys, "bin.sh", "latin.sh")
    assert code == 1
    assert "bin.sh:1:1: warning QC002 binary file" in out
    assert "latin.sh:1:9: warning QC002 the file is not valid UTF-8" in out
    # positions after the bad byte are still right
    assert "latin.sh:2:6: error QC001" in out


def test_rules_and_rule_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("QC001  parse-error")
    assert main(["rule", "qc002"]) == 0
    assert capsys.readouterr().out.startswith("# QC002 not-analysed")
    assert main(["rule", "QC999"]) == 2
    assert "no rule 'QC999'" in capsys.readouterr().err


def test_nothing_to_check_and_bad_select(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys)[0] == 2
    code, _, err = run(capsys, "--select", "XX1", "--command", "ls")
    assert code == 2 and "matches no rule" in err


def test_wheel_ships_every_rule_document(tmp_path: Path) -> None:
    """`quotecheck rule` and SARIF help read the documents from the installed package."""
    import subprocess
    import sys
    import zipfile

    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "-w", str(tmp_path), str(root)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("quotecheck-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    docs = {p.name for p in (root / "rules").glob("QC*.md")}
    assert docs and {f"quotecheck/rules/docs/{d}" for d in docs} <= names


# -- the conventions ruff and ShellCheck users expect --------------------------------------

INFO_ONLY = 'cmd=$1\neval "$cmd"\n'  # one QC103 at info: a command string built to be run
WARNING = "read -r dir\nssh h ls $dir\n"  # one QC103 at warning (a value read from input)


def test_the_default_threshold_is_warning(scripts: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (scripts / "info.sh").write_text(INFO_ONLY)
    assert run(capsys, "info.sh")[:2] == (0, "")
    code, out, _ = run(capsys, "--severity", "info", "info.sh")
    assert code == 1 and "info.sh:2:7: info QC103 " in out
    # the setting still says otherwise
    (scripts / ".quotecheck.toml").write_text('severity = "info"\n')
    assert run(capsys, "info.sh")[0] == 1
    # `fix` decides its exit status on the same threshold
    (scripts / ".quotecheck.toml").unlink()
    assert main(["fix", "info.sh"]) == 0
    capsys.readouterr()


def test_the_editor_still_shows_info_findings(scripts: Path) -> None:
    from quotecheck.lsp.engine import options_for

    assert options_for(scripts / "info.sh", INFO_ONLY, scripts).severity == "info"
    (scripts / ".quotecheck.toml").write_text('severity = "error"\n')
    assert options_for(scripts / "info.sh", INFO_ONLY, scripts).severity == "error"


def test_closing_line_counts_severities_files_and_fixes(
        scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # in the background, QC208 is a warning (in a foreground script it is info)
    (scripts / "warn.sh").write_text(
        "read -r dir\nssh h ls $dir &\nssh h 'echo $HOME' &\n")  # QC103: a value read
    code, out, _ = run(capsys, "bad.sh", "warn.sh", "good.sh")
    assert code == 1
    last = out.splitlines()[-1]
    assert last == ("3 files checked: 4 findings (1 error, 3 warnings); fixable: 2 with "
                    "`quotecheck fix --unsafe-fixes`")
    # -q: the findings only
    code, quiet, _ = run(capsys, "-q", "bad.sh", "warn.sh", "good.sh")
    assert code == 1 and quiet == out[:out.rindex(last)]
    (scripts / "safe.sh").write_text('#!/bin/sh\n[ "$a" == b ]\n')  # QC207's fix: safe
    code, out, _ = run(capsys, "--select", "QC207", "safe.sh", "warn.sh")
    assert out.splitlines()[-1] == ("2 files checked: 1 finding (1 error); fixable: 1 with "
                                    "`quotecheck fix`")
    # machine formats have no closing line
    code, out, _ = run(capsys, "--format", "json", "bad.sh")
    json.loads(out)


def test_statistics_counts_each_code(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (scripts / "two.sh").write_text(BAD.replace("echo ok", "read -r a b\nssh h ls $a\nssh h ls $b"))
    code, out, _ = run(capsys, "--statistics", "--select", "QC001,QC103", "two.sh", "bad.sh")
    assert code == 1
    assert out.splitlines() == ["2  QC001  parse-error", "2  QC103  value-becomes-code",
                                "2 files checked: 4 findings (2 errors, 2 warnings)"]
    code, out, _ = run(capsys, "--statistics", "--format", "json", "--select", "QC001",
                       "two.sh", "bad.sh")
    assert json.loads(out) == [{"code": "QC001", "name": "parse-error", "count": 2}]
    code, _, err = run(capsys, "--statistics", "--format", "sarif", "bad.sh")
    assert code == 2 and "--statistics" in err


def test_exit_zero(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--exit-zero", "bad.sh")
    assert code == 0 and "bad.sh:2:6: error QC001" in out
    # an error is still an error
    assert run(capsys, "--exit-zero", "nope.sh", "bad.sh")[0] == 2


def test_stdin_filename_names_the_input_for_output_configuration_and_shell(
        scripts: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    def stdin(text: str) -> None:
        class Stdin:
            buffer = io.BytesIO(text.encode())

            def isatty(self) -> bool:
                return False

        monkeypatch.setattr("sys.stdin", Stdin())

    stdin(BAD)
    code, out, _ = run(capsys, "--stdin-filename", "ci/deploy.sh")
    assert code == 1 and out.startswith("ci/deploy.sh:2:6: error QC001")
    stdin(BAD)
    code, out, _ = run(capsys, "--stdin-filename", "ci/deploy.sh", "--format", "json", "-")
    entry = json.loads(out)["files"][0]
    assert entry["path"] == "ci/deploy.sh" and entry["uri"].endswith("/ci/deploy.sh")
    # the configuration's per-path ignores apply to the name given
    (scripts / ".quotecheck.toml").write_text('[per-path-ignores]\n"ci/*" = ["QC001"]\n')
    stdin(BAD)
    assert main(["check", "--stdin-filename", "ci/deploy.sh", "-"]) == 0
    stdin(BAD)
    assert main(["check", "--stdin-filename", "other/deploy.sh", "-"]) == 1
    (scripts / ".quotecheck.toml").unlink()
    capsys.readouterr()
    # and its extension picks the shell: zsh syntax is not a bash parse error
    zsh = "files=(**/*.sh(N.))\nprint -l ${files:t}\n"
    stdin(zsh)
    code, out, _ = run(capsys, "--stdin-filename", "x.zsh", "--severity", "info")
    assert "QC001" not in out and "QC002" in out
    stdin(zsh)
    assert "QC001" in run(capsys, "--stdin-filename", "x.sh")[1]
    # with paths, it is a usage error
    assert run(capsys, "--stdin-filename", "x.sh", "bad.sh")[0] == 2


def test_output_file(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--output-file", "report.txt", "bad.sh")
    assert (code, out) == (1, "")
    text = (scripts / "report.txt").read_text()
    assert text.startswith("bad.sh:2:6: error QC001") and "\x1b" not in text
    code, _, err = run(capsys, "--output-file", str(scripts / "no" / "dir.txt"), "bad.sh")
    assert code == 2 and "--output-file" in err


def test_text_is_the_full_format(scripts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--format", "text", "bad.sh") == run(capsys, "--format", "full",
                                                             "bad.sh") == run(capsys, "bad.sh")


def test_explanations_wrap_to_the_terminal_width(
        scripts: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (scripts / "warn.sh").write_text(WARNING)
    for columns in (60, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        _, out, _ = run(capsys, "warn.sh")
        explanation = [line for line in out.splitlines()
                       if line.startswith("    ") and " | " not in line]
        assert len(explanation) >= 2 and all(len(line) <= columns for line in explanation)
        assert max(len(line) for line in explanation) > columns - 15


def test_fix_still_applies_the_fixes_of_notes(scripts: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # An info QC208 (ssh in a foreground script) with a fix: `check` does not show it by
    # default, `fix` applies it; the exit status is decided by what is left at warning and above.
    (scripts / "h.sh").write_text('#!/bin/bash\nssh deploy-host systemctl restart app\n')
    assert run(capsys, "h.sh")[:2] == (0, "")
    main(["fix", "--unsafe-fixes", "h.sh"])
    fixed, _ = capsys.readouterr()
    assert "ssh -o BatchMode=yes -o ConnectTimeout=10 deploy-host systemctl restart app" in fixed
