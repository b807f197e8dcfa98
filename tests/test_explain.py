"""`quotecheck explain`: the CLI, the JSON contract and the checked-in fixture outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quotecheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
DFLASH = ROOT / "fixtures" / "dflash"


def explain_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["explain", "--format", "json", *args]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_seed_layers_and_values(capsys: pytest.CaptureFixture[str]) -> None:
    source = (DFLASH / "restart.sh").read_text()
    doc = explain_json(capsys, "--file", str(DFLASH / "restart.sh"))
    assert doc["version"] == 1
    assert doc["source"] == source
    layers = doc["layers"]
    assert [layer["kind"] for layer in layers[:4]] == ["shell", "ssh", "shell", "awk"]
    local, ssh, remote, awk = layers[:4]
    # ssh receives the quoted script as one word and sends exactly its content.
    argv = local["commands"][0]["argv"]
    assert argv[:5] == ["ssh", "-o", "StrictHostKeyChecking=no", "-p", "10638"]
    start = source.index("'") + 1
    script = source[start:source.index("'\n", start)]
    assert argv[6] == script
    assert ssh["sends"] == script and ssh["destination"] == "root@[REDACTED_IP]"
    # The unquoted `[REDACTED_IP]` is a glob: its value is only known at run time.
    assert 5 in local["commands"][0]["dynamic"]
    assert remote["text"] == script and remote["where"] == "remote:root@[REDACTED_IP]"
    assert remote["process"][1:] == ["-c", script]
    # awk receives `{print $2}`: the remote shell removed the backslash.
    assert awk["text"] == "{print $2}" and awk["parent"] == remote["id"]
    assert source[awk["span"][0]:awk["span"][1]] == '"{print \\$2}"'
    names = [c["argv"][0] for c in remote["commands"]]
    assert names[:6] == ["ps", "grep", "awk", "xargs", "sleep", "echo"]
    grep = remote["commands"][1]
    assert grep["argv"] == ["grep", "[p]ython3.*train_dflash"]
    # Spans point into the original file even for the remote layer's commands.
    s, e = grep["span"]
    assert source[s:e] == 'grep "[p]ython3.*train_dflash"'
    kill = next(c for c in remote["commands"] if c["argv"][:2] == ["kill", "-0"])
    assert kill["dynamic"] == [2] and kill["argv"][2] == "$!"


def test_remote_layer_characters_map_back_to_source() -> None:
    from quotecheck.trace import build_trace

    source = (DFLASH / "restart.sh").read_text()
    trace = build_trace(source)
    remote = trace.layers[2]
    assert remote.text is not None and remote.origin is not None
    for i, ch in enumerate(remote.text):
        offset = remote.origin[i]
        assert offset is not None and source[offset] == ch


def test_ssh_joins_words_with_spaces(capsys: pytest.CaptureFixture[str]) -> None:
    doc = explain_json(capsys, 'ssh -p 2222 host ls "my file" \'a;b\'')
    ssh = next(x for x in doc["layers"] if x["kind"] == "ssh")
    assert ssh["sends"] == "ls my file a;b"
    remote = next(x for x in doc["layers"] if x.get("where", "").startswith("remote:"))
    assert [c["argv"] for c in remote["commands"]] == [["ls", "my", "file", "a"], ["b"]]


def test_sh_c_positional_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    doc = explain_json(capsys, "sh -c 'printf \"%s\\n\" \"$1\"' sh 'a b'")
    inner = doc["layers"][1]
    assert inner["kind"] == "shell" and inner["dialect"] == "sh"
    assert inner["positional"] == ["sh", "a b"]
    assert inner["commands"][0]["argv"] == ["printf", "%s\\n", "$1"]
    assert inner["commands"][0]["dynamic"] == [2]
    assert inner["process"] == ["sh", "-c", 'printf "%s\\n" "$1"', "sh", "a b"]


def test_bash_s_heredoc_over_ssh(capsys: pytest.CaptureFixture[str]) -> None:
    cmd = "ssh h bash -s <<'EOF'\necho \"$HOME\"\nEOF\n"
    doc = explain_json(capsys, cmd)
    kinds = [(x["kind"], x.get("where")) for x in doc["layers"]]
    assert kinds == [("shell", "local"), ("ssh", "local"), ("shell", "remote:h"),
                     ("shell", "remote:h")]
    stdin_shell = doc["layers"][3]
    assert stdin_shell["stdin_script"] is True
    assert stdin_shell["text"] == 'echo "$HOME"\n'
    assert stdin_shell["process"] == ["bash", "-s"]


def test_stdin_and_remote_shell_option(capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    class FakeStdin:
        buffer = io.BytesIO(b"ssh h 'echo $0'")

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    doc = explain_json(capsys, "--remote-shell", "dash", "-")
    remote = doc["layers"][2]
    assert remote["dialect"] == "sh" and remote["process"][0] == "dash"


@pytest.mark.parametrize("name", ["restart", "probe"])
def test_checked_in_fixture_outputs(name: str) -> None:
    """The fixture outputs are regenerated only on purpose (see fixtures/dflash/README.md)."""
    rel = f"fixtures/dflash/{name}.sh"
    for fmt, suffix in (("json", "json"), ("text", "txt")):
        out = subprocess.run(
            [sys.executable, "-m", "quotecheck", "explain", "--file", rel, "--format", fmt,
             "--color", "never"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout
        # URIs in related locations name the checkout; it sits elsewhere on other machines.
        expected = (DFLASH / f"{name}.explain.{suffix}").read_text()
        assert out.replace(ROOT.as_uri(), "file://<root>") == expected


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["explain"]) == 2
    assert "nothing to explain" in capsys.readouterr().err
    assert main(["explain", "--file", str(tmp_path / "missing.sh")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["explain", "--format", "xml", "ls"]) == 2


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    from quotecheck import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"quotecheck {__version__}"
    assert main(["explain", "--help"]) == 0
    assert "--remote-shell" in capsys.readouterr().out


def test_cli_import_does_not_load_bashlex() -> None:
    code = "import sys, quotecheck.cli; print('bashlex' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_text_output_fits_80_columns() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "quotecheck", "explain", "--file", "fixtures/dflash/restart.sh",
         "--color", "always"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    assert "\x1b[" in out  # --color always colours even when not a tty
    import re

    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert max(len(line) for line in plain.splitlines()) <= 80
    assert "‹{print $2}›" in plain


def test_shebang_decides_the_local_dialect(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s"
    script.write_text("#!/bin/sh\necho $'a'\n")
    doc = explain_json(capsys, "--file", str(script))
    root = doc["layers"][0]
    # dash reads `$'a'` as a literal `$` and a quoted `a`
    out = subprocess.run(["dash", "-c", "printf '%s' $'a'"], capture_output=True, text=True,
                         check=True).stdout
    assert root["dialect"] == "sh" and root["commands"][0]["argv"] == ["echo", out]
    doc = explain_json(capsys, "--shell", "bash", "--file", str(script))
    assert doc["layers"][0]["commands"][0]["argv"] == ["echo", "a"]
