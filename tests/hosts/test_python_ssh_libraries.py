"""Python's ssh libraries as hosts: paramiko's `exec_command` and fabric's `Connection.run`
send their string to sshd (the remote login shell parses it); `Connection.sudo` sends
`sudo -S -p '[sudo] password: ' COMMAND` (invoke's `Context.sudo`, which fabric uses, builds
"sudo -S -p '{prompt}' {user_flags}{command}" with `-H -u USER ` for `user=`; neither library
is installed here, so the documented construction is the reference)."""

from __future__ import annotations

from quotecheck.checker import Options, check_source
from quotecheck.hosts.python import read_python


def sends(source: str) -> list[tuple[str, str]]:
    trace = check_source(source, Options(host="python", select=["QC001"])).trace
    return [(x.destination or "", x.sends or "") for x in trace.layers if x.kind == "ssh"]


def test_paramiko_exec_command() -> None:
    src = ("import paramiko\nc = paramiko.SSHClient()\nc.connect('gpu1')\n"
           "c.exec_command('pkill -f train.py; nohup python3 train.py &')\n")
    assert sends(src) == [("?", "pkill -f train.py; nohup python3 train.py &")]


def test_exec_command_of_another_library_is_not_read() -> None:
    src = "import numpy.distutils.exec_command as e\ne.exec_command('ls')\n"
    assert read_python(src).launches == ()


def test_fabric_run_and_sudo() -> None:
    src = ("from fabric import Connection\nc = Connection('deploy@gpu1')\n"
           "c.run('cd /srv && make')\nc.sudo('systemctl restart app')\n"
           "c.sudo('whoami', user='svc')\nConnection('h2').run('uptime')\n")
    assert sends(src) == [
        ("deploy@gpu1", "cd /srv && make"),
        ("deploy@gpu1", "sudo -S -p '[sudo] password: ' systemctl restart app"),
        ("deploy@gpu1", "sudo -S -p '[sudo] password: ' -H -u svc whoami"),
        ("h2", "uptime")]


def test_fabric_sudo_of_a_shell_builtin_is_found() -> None:
    src = "from fabric import Connection\nc = Connection('h')\nc.sudo('cd /srv && make')\n"
    result = check_source(src, Options(host="python"))
    [d] = [x for x in result.diagnostics if x.code == "QC110"]
    assert src[d.span[0]:d.span[1]] == "cd"
