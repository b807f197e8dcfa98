"""``quotecheck guard``, run as an agent's hook runs it: a real process, the payload on stdin or
the command in ``--command``, the decision in the exit status, stderr and stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quotecheck.commands.guard import command_from_payload, summary
from quotecheck.commands.init import snippet

ROOT = Path(__file__).resolve().parent.parent
SEED = (ROOT / "fixtures" / "dflash" / "restart.sh").read_text()
HARMLESS = "ls -l /tmp"


def guard(*args: str, stdin: bytes = b"", cwd: Path | None = None
          ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "quotecheck", "guard", *args], input=stdin,
                          capture_output=True, timeout=120, env=env, cwd=cwd)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(),
                                       proc.stderr.decode())


def payload(command: str, tool: str = "Bash") -> bytes:
    return json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": {"command": command, "description": "d"}}).encode()


def corrected_by_fix(command: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "quotecheck", "fix", "--unsafe-fixes",
                           "--command", command], capture_output=True, text=True, timeout=120,
                          env=env, check=True)
    return proc.stdout


def assert_seed_blocked(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    qc201 = [line for line in lines if line.startswith("  QC201 ")]
    assert qc201 == [qc201[0]] and qc201[0].startswith("  QC201 2:15 `grep '[p]ython3"), lines
    assert len(qc201[0]) < 150  # a summary, not the whole message
    # Only error-level findings block by default: the seed's warnings are not listed.
    assert not any(line.startswith(("  QC205", "  QC206", "  QC301")) for line in lines)
    assert "Run this instead" in result.stderr
    corrected = result.stderr.split("read it first):\n", 1)[1]
    assert corrected == corrected_by_fix(SEED)
    assert "bash -s <<'EOF'" in corrected and "pgrep -f" in corrected
    assert result.stdout == ""


def test_seed_blocked_from_command() -> None:
    assert_seed_blocked(guard("--command", SEED))


def test_seed_blocked_from_hook_payload() -> None:
    assert_seed_blocked(guard(stdin=payload(SEED)))


def test_seed_blocked_from_bare_command_payload() -> None:
    assert_seed_blocked(guard(stdin=json.dumps({"command": SEED}).encode()))


@pytest.mark.parametrize("how", ["command", "payload"])
def test_harmless_command_allowed(how: str) -> None:
    result = (guard("--command", HARMLESS) if how == "command"
              else guard(stdin=payload(HARMLESS)))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("data, note", [
    (b"not json at all", "not a JSON hook payload"),
    (b"\xff\xfe\x00", "not a JSON hook payload"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"tool_name": "Bash", "tool_input": {}}', "holds no command"),
    (b'{"tool_name": "Bash", "tool_input": {"command": 7}}', "holds no command"),
    (b"", "not a JSON hook payload"),
])
def test_malformed_payload_allowed_with_a_note(data: bytes, note: str) -> None:
    result = guard(stdin=data)
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.startswith("quotecheck guard: ") and note in result.stderr
    assert result.stderr.rstrip().endswith("allowed")


def test_other_tools_are_not_judged() -> None:
    # The seed as the content of a file an agent writes is not a command about to run.
    result = guard(stdin=payload(SEED, tool="Write"))
    assert result.returncode == 0 and "not a shell command (tool Write)" in result.stderr


def test_json_decisions() -> None:
    blocked = guard("--format", "json", "--command", SEED)
    assert blocked.returncode == 2 and blocked.stderr == ""
    doc = json.loads(blocked.stdout)
    assert doc["decision"] == "block"
    assert [(f["code"], f["line"], f["column"], f["severity"]) for f in doc["findings"]] == [
        ("QC201", 2, 15, "error")]
    assert doc["findings"][0]["message"].startswith(doc["findings"][0]["summary"].rstrip("…"))
    assert doc["corrected"] == corrected_by_fix(SEED)
    assert "QC201 2:15" in doc["reason"]
    allowed = guard("--format", "json", stdin=payload(HARMLESS))
    assert allowed.returncode == 0
    assert json.loads(allowed.stdout) == {
        "decision": "allow", "reason": "quotecheck guard: no finding at the threshold; allowed",
        "findings": [], "corrected": None}
    unread = guard("--format", "json", stdin=b"{")
    assert unread.returncode == 0 and json.loads(unread.stdout)["decision"] == "allow"


def test_claude_code_decisions() -> None:
    denied = guard("--format", "claude-code", stdin=payload(SEED))
    assert denied.returncode == 0  # Claude Code reads the JSON only on status 0
    out = json.loads(denied.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert "QC201 2:15" in out["permissionDecisionReason"]
    # No finding is no opinion: the agent's own permission rules still decide.
    allowed = guard("--format", "claude-code", stdin=payload(HARMLESS))
    assert (allowed.returncode, allowed.stdout) == (0, "")


def test_severity_threshold() -> None:
    warned = "ssh -o StrictHostKeyChecking=no h uptime"  # QC301, a warning
    assert guard("--command", warned).returncode == 0
    result = guard("--severity", "warning", "--command", warned)
    assert result.returncode == 2 and "  QC301 1:8 " in result.stderr
    assert "Run this instead" in result.stderr and "accept-new" in result.stderr


def test_unanalysable_command_does_not_block() -> None:
    result = guard("--command", 'echo "unterminated')  # QC001 is about quotecheck's reading
    assert result.returncode == 0, result


def test_configuration_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / ".quotecheck.toml").write_text('ignore = ["QC201"]\n')
    assert guard("--command", SEED, cwd=tmp_path).returncode == 0
    assert guard("--no-config", "--command", SEED, cwd=tmp_path).returncode == 2
    (tmp_path / ".quotecheck.toml").write_text('ignore = ["QC9"]\n')
    broken = guard("--command", SEED, cwd=tmp_path)
    assert broken.returncode == 0 and "configuration not read" in broken.stderr


def test_guard_never_runs_the_command(tmp_path: Path) -> None:
    made = tmp_path / "made"
    for command in (f"touch {made}", f'echo "$(touch {made})" > {made}',
                    f"{SEED}\ntouch {made}"):
        for args, stdin in ((("--command", command), b""), ((), payload(command))):
            assert guard(*args, stdin=stdin).returncode in (0, 2)
            assert not made.exists()


def test_summary_is_the_first_sentence_outside_code() -> None:
    assert summary("Use `a. b` here. Then more.") == "Use `a. b` here."
    long = "word " * 60
    cut = summary(long)
    assert cut.endswith("…") and len(cut) <= 121 and " " not in cut[-2:]
    assert summary("bell \x07 in it.") == "bell \\x07 in it."


def test_payload_shapes() -> None:
    assert command_from_payload(payload("ls")) == ("ls", None)
    assert command_from_payload(b'{"command": "ls"}') == ("ls", None)
    assert command_from_payload(b'{"tool_name": "Edit", "command": "ls"}')[0] is None


def test_init_prints_the_snippets() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for shell in ("bash", "zsh"):
        proc = subprocess.run([sys.executable, "-m", "quotecheck", "init", shell],
                              capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0 and proc.stdout == snippet(shell)
        assert 'quotecheck guard --command="$line"' in proc.stdout
        check = subprocess.run([shell, "-n"], input=proc.stdout, capture_output=True,
                               text=True, timeout=60)
        assert check.returncode == 0, check.stderr
    bad = subprocess.run([sys.executable, "-m", "quotecheck", "init", "fish"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2
