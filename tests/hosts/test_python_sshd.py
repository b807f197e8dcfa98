"""A Python file's ssh launches against the test sshd: what sshd receives as the command
(`SSH_ORIGINAL_COMMAND`, recorded by its ForceCommand) is what the trace's ssh layer sends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from harness.sshd import SshServer

from quotecheck.checker import Options, check_source

CASES = [
    'subprocess.run(["ssh", "gpu1", "pkill -f train.py; nohup python3 train.py &"])',
    'subprocess.run(["ssh", "gpu1", "ls", "/srv/my app", "&&", "echo", "a  b"])',
    'subprocess.run(["ssh", "-o", "LogLevel=ERROR", "gpu1", "echo", "\'q\'", "$HOME"])',
    'subprocess.run("ssh gpu1 \'echo $HOME; echo \\"x y\\"\'", shell=True)',
    'os.system("ssh gpu1 echo " + "one" + " two")',
    'os.execvp("ssh", ["ssh", "gpu1", "printf", "%s\\\\n", "a b"])',
]


@pytest.mark.parametrize("call", CASES)
def test_sshd_receives_what_the_trace_sends(call: str, remote: SshServer,
                                            tmp_path: Path) -> None:
    program = f"import os\nimport subprocess\n{call}\n"
    (tmp_path / "app.py").write_text(program)
    subprocess.run([sys.executable, "app.py"], cwd=tmp_path, env=remote.client_env(),
                   capture_output=True, timeout=60)
    [received] = remote.ssh_records()
    trace = check_source(program, Options(host="python", select=["QC001"])).trace
    [ssh] = [x for x in trace.layers if x.kind == "ssh"]
    assert ssh.sends == received
    assert not ssh.sends_dynamic
