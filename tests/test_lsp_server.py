"""``quotecheck lsp`` as an editor uses it: the real server process over stdio, driven by the
JSON-RPC client in harness/lsp_client.py (no part of the server replaced).

Every wait is bounded; nothing here measures time (benchmarks/lsp_speed.py does).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness.lsp_client import (
    REPO,
    LspClient,
    apply_edits,
    server_env,
    workspace_edits,
)

SEED = REPO / "fixtures" / "dflash" / "restart.sh"


@pytest.fixture
def client() -> Iterator[LspClient]:
    with LspClient() as c:
        yield c


def codes(diagnostics: list[dict[str, Any]]) -> list[str]:
    return [d["code"] for d in diagnostics]


def hover_text(client: LspClient, uri: str, line: int, character: int) -> str:
    result = client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
    assert result is not None
    text: str = result["contents"]["value"]
    return text


def code_actions(client: LspClient, uri: str, diagnostic: dict[str, Any],
                 only: list[str] | None = None) -> list[dict[str, Any]]:
    context: dict[str, Any] = {"diagnostics": [diagnostic]}
    if only is not None:
        context["only"] = only
    result: list[dict[str, Any]] = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diagnostic["range"], "context": context}) or []
    return result


def change_and_wait(client: LspClient, uri: str, version: int, text: str
                    ) -> list[dict[str, Any]]:
    seen = len(client.notifications)
    client.change(uri, version, text)
    return client.diagnostics(uri, version, after=seen)


def test_the_seed_session_open_hover_action_edit_save_shutdown(client: LspClient) -> None:
    init = client.initialize()
    caps = init["capabilities"]
    assert caps["positionEncoding"] == "utf-16"  # the client offered none
    assert caps["hoverProvider"] and caps["codeActionProvider"]
    uri = SEED.as_uri()
    text = SEED.read_text()
    client.open(uri, text)
    diagnostics = client.diagnostics(uri, 1)
    assert "QC201" in codes(diagnostics)
    qc201 = next(d for d in diagnostics if d["code"] == "QC201")
    assert qc201["range"]["start"] == {"line": 1, "character": 14}  # the grep pattern
    assert qc201["severity"] == 1 and qc201["source"] == "quotecheck"

    # Hover on `ssh`: the remote shell's commands, each with its argv.
    shown = hover_text(client, uri, 0, 1)
    for command in ("`ps` `aux`", "`grep`", "`awk`", "`xargs` `-r` `kill`", "`nohup`"):
        assert command in shown
    assert "ssh to root@" in shown and "awk program" in shown
    assert "_`$!`_" in shown  # a value known only at run time is marked
    assert "QC208" in shown  # the diagnostic on `ssh` too, with its rule's document
    assert "rules/QC208.md" in shown

    # The QC208 fix is a quick fix with an edit that adds the options.
    qc208 = next(d for d in diagnostics if d["code"] == "QC208")
    actions = code_actions(client, uri, qc208)
    fixes = [a for a in actions if a["kind"] == "quickfix" and "BatchMode" in a["title"]]
    assert len(fixes) == 1
    fix = fixes[0]
    assert "changes behaviour" in fix["title"] and not fix.get("isPreferred")  # unsafe
    fixed = apply_edits(text, workspace_edits(fix["edit"], uri))
    assert fixed.startswith("ssh -o BatchMode=yes -o ConnectTimeout=10 -o ")
    assert fix["edit"]["documentChanges"][0]["textDocument"]["version"] == 1

    # The text becomes a harmless command: the diagnostics clear.
    assert change_and_wait(client, uri, 2, "ls -l /tmp\n") == []
    # Saving checks again (the same text: nothing to report).
    seen = len(client.notifications)
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, 2, after=seen) == []

    assert client.shutdown_and_exit() == 0


def test_applied_fix_and_disable_directive_remove_the_finding(client: LspClient) -> None:
    client.initialize()
    uri = SEED.as_uri()
    text = SEED.read_text()
    client.open(uri, text)
    qc208 = next(d for d in client.diagnostics(uri, 1) if d["code"] == "QC208")
    actions = code_actions(client, uri, qc208)
    fix = next(a for a in actions if "BatchMode" in a["title"])
    after_fix = change_and_wait(client, uri, 2, apply_edits(text, workspace_edits(fix["edit"],
                                                                                   uri)))
    assert "QC208" not in codes(after_fix) and "QC201" in codes(after_fix)

    # On the file's only command the directive covers the whole file, and says so.
    disable = next(a for a in actions if a["title"].startswith("Disable QC208"))
    assert "this file" in disable["title"]
    disabled_text = apply_edits(text, workspace_edits(disable["edit"], uri))
    assert disabled_text.startswith("# quotecheck: disable=QC208\nssh ")
    after_disable = change_and_wait(client, uri, 3, disabled_text)
    assert "QC208" not in codes(after_disable) and "QC201" in codes(after_disable)
    assert client.shutdown_and_exit() == 0


def test_disable_covers_only_its_command_and_joins_a_directive_above(client: LspClient,
                                                                     tmp_path: Path) -> None:
    client.initialize(tmp_path)
    script = tmp_path / "two.sh"
    text = ("#!/bin/bash\n"
            "ssh -o BatchMode=yes -o ConnectTimeout=5 h \"echo $HOME\"\n"
            "  cd /tmp; ssh -o BatchMode=yes -o ConnectTimeout=5 h \"echo $HOME\"\n")
    script.write_text(text)
    uri = script.as_uri()
    client.open(uri, text)
    found = [d for d in client.diagnostics(uri, 1) if d["code"] == "QC101"]
    assert [d["range"]["start"]["line"] for d in found] == [1, 2]

    # The second: a command in the middle of a line gets a directive line of its own.
    second = code_actions(client, uri, found[1])
    disable = next(a for a in second if a["title"].startswith("Disable QC101"))
    assert "this command" in disable["title"]
    new = apply_edits(text, workspace_edits(disable["edit"], uri))
    assert "  cd /tmp;\n  # quotecheck: disable=QC101\n  ssh" in new
    assert subprocess.run(["bash", "-n"], input=new.encode(), timeout=30).returncode == 0
    left = [d for d in change_and_wait(client, uri, 2, new) if d["code"] == "QC101"]
    assert [d["range"]["start"]["line"] for d in left] == [1]  # the first is still reported

    assert client.shutdown_and_exit() == 0


def test_disable_joins_the_directive_line_above(client: LspClient, tmp_path: Path) -> None:
    client.initialize(tmp_path)
    uri = (tmp_path / "joined.sh").as_uri()
    ssh = "ssh -o BatchMode=yes -o ConnectTimeout=5 h"
    text = f"true\n# quotecheck: disable=QC102\n{ssh} 'echo $HOME' ~/x\n"
    client.open(uri, text)
    diagnostics = client.diagnostics(uri, 1)
    assert codes(diagnostics) == ["QC109"]
    disable = next(a for a in code_actions(client, uri, diagnostics[0])
                   if a["title"].startswith("Disable QC109"))
    new = apply_edits(text, workspace_edits(disable["edit"], uri))
    assert new == f"true\n# quotecheck: disable=QC102,QC109\n{ssh} 'echo $HOME' ~/x\n"
    assert change_and_wait(client, uri, 2, new) == []
    assert client.shutdown_and_exit() == 0


def test_fix_all_safe_is_what_quotecheck_fix_prints(client: LspClient) -> None:
    client.initialize()
    uri = SEED.as_uri()
    text = SEED.read_text()
    client.open(uri, text)
    diagnostics = client.diagnostics(uri, 1)
    # Safe fixes are preferred quick fixes (QC207: `source` -> `.`).
    qc207 = next(d for d in diagnostics if d["code"] == "QC207")
    safe = [a for a in code_actions(client, uri, qc207) if a.get("isPreferred")]
    assert len(safe) == 1 and "changes behaviour" not in safe[0]["title"]

    whole = code_actions(client, uri, diagnostics[0], only=["source.fixAll"])
    assert [a["kind"] for a in whole] == ["source.fixAll.quotecheck"]
    fixed = apply_edits(text, workspace_edits(whole[0]["edit"], uri))
    cli = subprocess.run([sys.executable, "-m", "quotecheck", "fix", str(SEED)],
                         capture_output=True, text=True, env=server_env(), timeout=120)
    assert fixed == cli.stdout and fixed != text
    assert client.shutdown_and_exit() == 0


def test_fix_all_resolved_on_demand_for_a_client_that_resolves(client: LspClient) -> None:
    client.initialize(capabilities={"textDocument": {"codeAction": {
        "resolveSupport": {"properties": ["edit"]}}}})
    uri = SEED.as_uri()
    text = SEED.read_text()
    client.open(uri, text)
    diagnostics = client.diagnostics(uri, 1)
    whole = code_actions(client, uri, diagnostics[0], only=["source.fixAll"])
    assert len(whole) == 1 and "edit" not in whole[0]
    resolved = client.request("codeAction/resolve", whole[0])
    # No documentChanges capability was offered: plain `changes`.
    assert "changes" in resolved["edit"]
    fixed = apply_edits(text, workspace_edits(resolved["edit"], uri))
    assert ". /root/venv/bin/activate" in fixed and "source /root" not in fixed
    assert client.shutdown_and_exit() == 0


@pytest.mark.parametrize("offered,chosen", [
    (["utf-8", "utf-16"], "utf-8"), (["utf-32"], "utf-32"), (["utf-16"], "utf-16"),
    (None, "utf-16")])
def test_positions_in_the_negotiated_encoding(offered: list[str] | None, chosen: str,
                                              tmp_path: Path) -> None:
    # Characters of 2, 3 and 4 UTF-8 bytes (the last two UTF-16 units) before the finding.
    prefix = 'x="é€😀"; '
    line = prefix + 'ssh -o BatchMode=yes -o ConnectTimeout=5 h "echo $HOME"\n'
    text = "#!/bin/bash\n" + line
    capabilities: dict[str, Any] = {}
    if offered is not None:
        capabilities["general"] = {"positionEncodings": offered}
    with LspClient() as client:
        init = client.initialize(tmp_path, capabilities)
        assert init["capabilities"]["positionEncoding"] == chosen
        uri = (tmp_path / "enc.sh").as_uri()
        client.open(uri, text)
        qc101 = next(d for d in client.diagnostics(uri, 1) if d["code"] == "QC101")
        at = line.index("$HOME")
        codec = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[chosen]
        unit = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[chosen]
        want = len(line[:at].encode(codec)) // unit
        assert qc101["range"]["start"] == {"line": 1, "character": want}
        # A hover position in the same units lands on `ssh`.
        ssh_at = len(line[:line.index("ssh")].encode(codec)) // unit
        assert "ssh to h" in hover_text(client, uri, 1, ssh_at + 1)
        assert client.shutdown_and_exit() == 0


def test_only_shell_scripts_are_checked(client: LspClient, tmp_path: Path) -> None:
    client.initialize(tmp_path)
    python = (tmp_path / "tool.py").as_uri()
    client.open(python, 'import os\nos.system("ssh h kill $!")\n', language_id="python")
    # No extension, no shell language id: the #! line says it is one.
    script = (tmp_path / "deploy").as_uri()
    client.open(script, "#!/bin/sh\nssh host 'echo $HOME' &\nwait\n", language_id="plaintext")
    assert "QC208" in codes(client.diagnostics(script, 1))
    assert not [m for m in client.notifications
                if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == python]
    assert client.request("textDocument/hover", {
        "textDocument": {"uri": python}, "position": {"line": 1, "character": 3}}) is None
    assert client.shutdown_and_exit() == 0


def test_settings_come_from_the_nearest_config(client: LspClient, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "ci").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[tool.quotecheck]\nignore = ["QC301"]\n'
        '[tool.quotecheck.per-path-ignores]\n"ci/*" = ["QC201"]\n')
    client.initialize(project)
    text = SEED.read_text()
    top = (project / "restart.sh").as_uri()
    inner = (project / "ci" / "restart.sh").as_uri()
    client.open(top, text)
    top_codes = codes(client.diagnostics(top, 1))
    assert "QC301" not in top_codes and "QC201" in top_codes and "QC208" in top_codes
    client.open(inner, text)
    inner_codes = codes(client.diagnostics(inner, 1))
    assert "QC301" not in inner_codes and "QC201" not in inner_codes and "QC208" in inner_codes
    assert client.shutdown_and_exit() == 0


def test_a_failing_check_is_logged_and_the_last_diagnostics_stay(client: LspClient,
                                                                 tmp_path: Path) -> None:
    config = tmp_path / ".quotecheck.toml"
    config.write_text('ignore = ["QC301"]\n')
    client.initialize(tmp_path)
    script = tmp_path / "restart.sh"
    script.write_text(SEED.read_text())
    uri = script.as_uri()
    client.open(uri, SEED.read_text())
    assert "QC201" in codes(client.diagnostics(uri, 1))
    config.write_text("ignore = [\n")  # broken TOML: the CLI would stop with exit status 2
    seen = len(client.notifications)
    client.change(uri, 2, "ls -l /tmp\n")
    logged = client.wait_for(lambda m: m.get("method") == "window/logMessage"
                             and "configuration error" in m["params"]["message"], after=seen)
    assert logged["params"]["type"] == 1 and "invalid TOML" in logged["params"]["message"]
    shown = client.wait_for(lambda m: m.get("method") == "window/showMessage", after=seen)
    assert "configuration error" in shown["params"]["message"]
    # The check that failed published nothing: the editor keeps QC201 and the rest.
    assert not [m for m in client.notifications[seen:]
                if m.get("method") == "textDocument/publishDiagnostics"]
    config.write_text('ignore = ["QC301"]\n')
    seen = len(client.notifications)
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, 2, after=seen) == []
    assert client.shutdown_and_exit() == 0


def test_a_document_over_max_file_size_is_not_checked(client: LspClient,
                                                       tmp_path: Path) -> None:
    (tmp_path / ".quotecheck.toml").write_text('[limits]\nmax-file-size = 500\n')
    client.initialize(tmp_path)
    uri = (tmp_path / "restart.sh").as_uri()
    seen = len(client.notifications)
    client.open(uri, SEED.read_text())  # 810 bytes
    logged = client.wait_for(lambda m: m.get("method") == "window/logMessage"
                             and "max-file-size" in m["params"]["message"], after=seen)
    assert "not checked" in logged["params"]["message"]
    assert client.shutdown_and_exit() == 0


def test_hostile_documents_do_not_take_the_server_down(client: LspClient,
                                                       tmp_path: Path) -> None:
    client.initialize(tmp_path)
    inputs = {
        "nul.sh": "echo a\0b\nssh h 'kill $!'\n",
        "deep.sh": "echo " + "$(" * 3000 + "x" + ")" * 3000 + "\n",
        "open.sh": "ssh h 'echo \"unterminated\n",
        "crlf.sh": "ssh h 'echo $HOME'\r\necho ok\r\n",
        "empty.sh": "",
    }
    for name, text in inputs.items():
        uri = (tmp_path / name).as_uri()
        client.open(uri, text)
        client.diagnostics(uri, 1)  # a result for each
        client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}})
    assert client.process.poll() is None
    assert client.shutdown_and_exit() == 0


def _big_script(lines: int) -> str:
    """Real fixture scripts, repeated to ``lines`` lines."""
    texts = [p.read_text() for p in sorted((REPO / "fixtures").rglob("*.sh"))]
    out: list[str] = []
    total = 0
    while total < lines:
        for t in texts:
            out.append(t if t.endswith("\n") else t + "\n")
            total += out[-1].count("\n")
    return "".join(out)


def check_processes(client: LspClient) -> list[int]:
    """The server's child processes (its checks), from /proc."""
    pid = client.process.pid
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.extend(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def gone(pids: list[int], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() for p in pids):
            return True
        time.sleep(0.05)
    return False


def test_a_long_check_blocks_neither_other_documents_nor_a_newer_edit(
        client: LspClient, tmp_path: Path) -> None:
    client.initialize(tmp_path)
    big = (tmp_path / "big.sh").as_uri()
    small = (tmp_path / "small.sh").as_uri()
    client.open(big, _big_script(10_000))
    client.open(small, SEED.read_text())
    # The small document is checked and served while the big one is still being checked.
    assert "QC201" in codes(client.diagnostics(small, 1))
    assert "ps" in hover_text(client, small, 0, 1)
    published_big = [m for m in client.notifications
                     if m.get("method") == "textDocument/publishDiagnostics"
                     and m["params"]["uri"] == big]
    assert not published_big
    checking = check_processes(client)
    assert checking  # the big document's check, in a process of its own
    # A newer text replaces the big one: its check is stopped (its process killed), and the
    # last diagnostics published for the document are those of the newer text.
    seen = len(client.notifications)
    client.change(big, 2, "ls -l /tmp\n")
    assert client.diagnostics(big, 2, after=seen) == []
    assert gone(checking)
    assert hover_text(client, big, 0, 0).endswith("\n- 1:1 `ls` `-l` `/tmp`")
    published = [m["params"].get("version") for m in client.notifications
                 if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"]["uri"] == big]
    assert published[-1] == 2
    # A check still running at shutdown dies with the server.
    client.open((tmp_path / "big2.sh").as_uri(), _big_script(10_000))
    client.request("textDocument/hover", {"textDocument": {"uri": small},
                                          "position": {"line": 0, "character": 0}})
    running = check_processes(client)
    assert running
    assert client.shutdown_and_exit() == 0
    assert gone(running)


def test_exit_without_shutdown_is_status_1(client: LspClient) -> None:
    client.initialize()
    client.notify("exit", None)
    assert client.wait() == 1


def test_the_cli_does_not_import_pygls(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from quotecheck.cli import main\n"
        f"main(['check', {str(SEED)!r}])\n"
        f"main(['fix', {str(SEED)!r}])\n"
        "main(['explain', 'ls'])\n"
        "main(['--help'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pygls', 'lsprotocol', 'cattrs', 'quotecheck.lsp') or m.startswith('quotecheck.lsp'))\n"
        "print('IMPORTED', heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=server_env(), timeout=120, cwd=tmp_path)
    assert "IMPORTED []" in proc.stderr, proc.stderr
    assert "lsp" in proc.stdout  # --help lists the command
