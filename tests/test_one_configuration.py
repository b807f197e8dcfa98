"""One configured project, three ways in: `quotecheck check`, the language server and
`quotecheck explain` report the same findings, because all three build their options from the
project's configuration in one place (config.build_options).

Each is the real thing: the CLI as a subprocess, the server over stdio through the test
client (harness/lsp_client.py). Every setting of the project changes what is reported, so a
way in that drops one of them reports something else.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.lsp_client import LspClient, server_env

Finding = tuple[str, int, int]  # code, line, column (0-based, UTF-16 units, as LSP says)

PYPROJECT = """\
[project]
name = "deploy-scripts"

[tool.quotecheck]
select = ["QC1", "QC3"]
extend-select = ["QC201", "QC207"]   # QC201 and QC207 although QC2 is not selected
ignore = ["QC108"]
severity = "warning"                 # QC103 and QC208 are info here: not reported
remote-shell = "bash"                # bash runs a lone `pkill -f` as itself: no QC201 on line 4
external-sources = true              # helpers.sh's on_host is known: QC201 on line 3

[tool.quotecheck.per-path-ignores]
"ci/*" = ["QC301"]
"""

HELPERS = """\
# Sourced by the ci scripts.
on_host() {
  ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$1" "$2"
}
"""

# No #! line: the .dash extension makes it a POSIX sh script (QC207 on line 7).
SCRIPT = """\
. "$(dirname "$0")/helpers.sh"
target=$1
on_host web1 "pkill -f worker.py; nohup python3 worker.py > /dev/null 2>&1 &"
ssh -o BatchMode=yes -o ConnectTimeout=5 web1 "pkill -f cleanup"
ssh -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no web1 "echo \\$'a\\tb'"
ssh web1 uptime
if [[ -n $target ]]; then
  ssh -o BatchMode=yes -o ConnectTimeout=5 web1 "rm -rf /srv/$target"
fi
ssh -o BatchMode=yes -o ConnectTimeout=5 web1 "cd $HOME/app && ls"
ssh -o BatchMode=yes -o ConnectTimeout=5 web1 rm -rf "/srv/my app"
"""

# What the configuration leaves, by (code, 1-based line). Without it the same file also has
# QC201 on line 4, QC301 and QC108 on line 5, QC208 on line 6 and QC103 on line 8, and loses
# QC201 on line 3 (helpers.sh is not read) and QC207 on line 7 (QC2 is not selected).
CONFIGURED = [("QC201", 3), ("QC207", 7), ("QC101", 10), ("QC102", 11)]


def project(root: Path) -> Path:
    (root / "ci").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "ci" / "helpers.sh").write_text(HELPERS)
    script = root / "ci" / "restart.dash"
    script.write_text(SCRIPT)
    return script


def quotecheck(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quotecheck", *args], capture_output=True,
                          text=True, cwd=cwd, env=server_env(), timeout=300)


def findings(diagnostics: list[dict[str, Any]]) -> list[Finding]:
    return sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
                  for d in diagnostics)


def by_check(root: Path) -> list[Finding]:
    done = quotecheck(root, "check", "--format", "json", "ci/restart.dash")
    assert done.returncode == 1, done.stderr  # findings at or above the configured severity
    [file] = json.loads(done.stdout)["files"]
    return findings(file["diagnostics"])


def by_explain(root: Path) -> list[Finding]:
    done = quotecheck(root, "explain", "--format", "json", "--file", "ci/restart.dash")
    assert done.returncode == 0, done.stderr
    return findings(json.loads(done.stdout)["diagnostics"])


def by_language_server(root: Path, script: Path) -> list[Finding]:
    with LspClient(cwd=root) as client:
        client.initialize(root)
        uri = script.as_uri()
        client.open(uri, script.read_text())
        found = findings(client.diagnostics(uri, 1))
        assert client.shutdown_and_exit() == 0
    return found


def test_check_the_editor_and_explain_report_the_same_findings(tmp_path: Path) -> None:
    root = tmp_path / "deploy-scripts"
    script = project(root)
    checked = by_check(root)
    # Every setting took effect in check...
    assert sorted((code, line + 1) for code, line, _ in checked) == sorted(CONFIGURED)
    # ...and the editor and explain read the same configuration the same way.
    assert by_language_server(root, script) == checked
    assert by_explain(root) == checked


def test_explain_refuses_a_broken_configuration_as_check_does(tmp_path: Path) -> None:
    (tmp_path / ".quotecheck.toml").write_text('ignore = ["QC999"]\n')
    explained = quotecheck(tmp_path, "explain", "ssh h 'echo $x'")
    checked = quotecheck(tmp_path, "check", "-c", "ssh h 'echo $x'")
    assert explained.returncode == checked.returncode == 2
    assert "`QC999` matches no rule" in explained.stderr
    assert explained.stderr == checked.stderr


def test_the_shell_option_beats_a_shell_directive_in_explain_as_in_check(tmp_path: Path) -> None:
    """`--shell` is the dialect, whatever the text's directive says, in both commands (explain
    used to take it as a default that the directive replaced)."""
    script = tmp_path / "x.sh"
    script.write_text("# quotecheck: shell=bash\nif [[ -n $x ]]; then :; fi\n")
    checked = quotecheck(tmp_path, "check", "--format", "json", "--shell", "sh", "x.sh")
    explained = quotecheck(tmp_path, "explain", "--format", "json", "--shell", "sh", "-f", "x.sh")
    assert explained.returncode == 0, explained.stderr
    [file] = json.loads(checked.stdout)["files"]
    assert findings(file["diagnostics"]) == [("QC207", 1, 3)]  # `[[` in a POSIX sh script
    assert findings(json.loads(explained.stdout)["diagnostics"]) == [("QC207", 1, 3)]
