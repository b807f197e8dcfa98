"""The Ansible reader against the module documentation (docs.ansible.com:
`ansible.builtin.shell`, `.command`, `.raw`; quoted in each test): no Ansible runs here."""

from __future__ import annotations

import re
import subprocess
from pathlib import PurePath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.hosts.ansible import read_ansible
from quotecheck.hosts.kinds import host_format

PLAY = "- hosts: gpus\n  tasks:\n{tasks}"


def launches(tasks: str) -> list[object]:
    return list(read_ansible(PLAY.format(tasks=tasks)).launches)


def test_shell_runs_sh_on_the_remote_node() -> None:
    # shell: "It is almost exactly like the command module but runs the command through a
    # shell (/bin/sh) on the remote node"; `executable`: "change the shell used".
    [plain, bash] = read_ansible(PLAY.format(tasks=(
        "    - shell: echo $HOME > /tmp/h chdir=/srv\n"
        "    - ansible.builtin.shell:\n        cmd: echo hi\n        executable: /bin/bash\n"
    ))).launches
    assert plain.shell == ("/bin/sh", "-c") and plain.where == "remote:gpus"
    assert plain.text is not None and plain.text.value == "echo $HOME > /tmp/h"
    assert bash.shell == ("/bin/bash", "-c")


def test_command_runs_no_shell() -> None:
    # command: "The command(s) will not be processed through the shell, so variables like
    # $HOSTNAME and operations like "*", "<", ">", "|", ";" and "&" will not work."
    [free, argv] = read_ansible(PLAY.format(tasks=(
        "    - command: ls -l '/srv/my app' creates=/x\n"
        "    - ansible.builtin.command:\n        argv: [ls, '-l', '/srv/my app']\n"
    ))).launches
    assert [a.value for a in free.argv] == ["ls", "-l", "/srv/my app"]
    assert [a.value for a in argv.argv] == ["ls", "-l", "/srv/my app"]


def test_raw_goes_to_the_remote_login_shell() -> None:
    [raw] = read_ansible(PLAY.format(tasks="    - raw: uptime; df -h\n")).launches
    assert raw.ssh and raw.text is not None and raw.text.value == "uptime; df -h"


def test_jinja_is_rendered_first_and_quote_quotes_once() -> None:
    host = read_ansible(PLAY.format(tasks="    - shell: rm -rf {{ d | quote }} {{ e }}\n"))
    [launch] = host.launches
    assert launch.text is not None and launch.text.value == "rm -rf {d} {e}"
    assert [(v.written, v.quoted) for v in host.values] == [("{{ d | quote }}", True),
                                                           ("{{ e }}", False)]


def test_a_jinja_string_holding_braces_is_one_expression() -> None:
    # kubespray: `--format='{{ '{{ .Image }}' }}'` renders to `--format='{{ .Image }}'`.
    tasks = "    - shell: \"docker ps --format='{{ '{{ .Image }}' }}'\"\n"
    [launch] = read_ansible(PLAY.format(tasks=tasks)).launches
    assert launch.text is not None
    assert launch.text.value.startswith("docker ps --format='{")
    assert launch.text.value.endswith("}'") and len(launch.text.dynamic_ranges) == 1
    result = check_source(PLAY.format(tasks=tasks), Options(host="ansible"))
    assert "QC001" not in [d.code for d in result.diagnostics]  # the shell text parses


def test_blocks_handlers_and_role_task_files() -> None:
    src = ("- name: t\n  block:\n    - command: a\n  rescue:\n    - command: b\n"
           "- name: u\n  shell: c\n")
    assert [a.argv[0].value if a.argv else a.text.value  # type: ignore[attr-defined]
            for a in read_ansible(src).launches] == ["a", "b", "c"]
    assert host_format(PurePath("roles/web/tasks/main.yml"), "") == "ansible"
    assert host_format(PurePath("roles/web/handlers/main.yml"), "") == "ansible"
    assert host_format(PurePath("site.yml"), "- hosts: all\n  tasks: []\n") == "ansible"
    assert host_format(PurePath("vars.yml"), "a: 1\n") is None


def test_a_pipe_in_command_is_found() -> None:
    src = PLAY.format(tasks="    - command: ls /srv | grep log\n")
    result = check_source(src, Options(host="ansible"))
    assert [d.code for d in result.diagnostics] == ["QC402"]


def test_command_words_are_expanded_by_python_on_the_target() -> None:
    # command (ansible-core 2.16+): "environment variables are resolved via Python, not shell,
    # see expand_argument_vars and are left unchanged if not matched"; expand_argument_vars:
    # "Expands the arguments that are variables, for example $HOME will be expanded."
    [free, off] = read_ansible(PLAY.format(tasks=(
        "    - command: cp ${HOME}/a ~/b $NOPE/c '$X y'\n"
        "    - command: echo $HOME\n      args:\n        expand_argument_vars: false\n"
    ))).launches
    assert [(a.value, a.dynamic) for a in free.argv] == [
        ("cp", False), ("{HOME}/a", True), ("{home}/b", True), ("{NOPE}/c", True),
        ("{X} y", True)]
    assert [(a.value, a.dynamic) for a in off.argv] == [("echo", False), ("$HOME", False)]
    src = PLAY.format(tasks="    - command: ansible-galaxy install -p ${HOME}/roles x\n")
    assert "QC403" not in [d.code for d in check_source(src, Options(host="ansible")).diagnostics]


@settings(max_examples=200, deadline=None)
@given(word=st.text(alphabet=st.sampled_from(list("$ab_{}/~.-1é")), max_size=14))
def test_the_run_time_parts_are_what_python_expands(word: str) -> None:
    """Python's own os.path.expandvars, with every name defined as a marker, changes exactly
    the parts the reader holds as run-time values."""
    import os

    from quotecheck.hosts.ansible import _python_expanded
    from quotecheck.hosts.model import HostText

    expanded = _python_expanded(HostText(word, range(len(word))))
    names = {m.group(1)[1:-1] if m.group(1).startswith("{") else m.group(1)
             for m in re.finditer(r"\$(\w+|\{[^}]*\})", word, re.ASCII)}
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update({n: "\x01" for n in names if n and "=" not in n})
        reference = os.path.expandvars(word)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if word.startswith("~"):  # then expanduser: the whole `~user` part is the target's
        assert expanded.dynamic_ranges[0][0] == 0
        return
    assert reference.count("\x01") == len(expanded.dynamic_ranges) or any(
        not n or "=" in n for n in names)


def test_a_cron_tasks_job_is_the_command_cron_runs() -> None:
    # ansible.builtin.cron: "job: The command to execute or, if env is set, the value of
    # environment variable"; "When using symbols such as %, they must be properly escaped":
    # the module writes the job after the time fields as it is, and cron cuts it at a `%`
    # (crontab(5)). The command is the one the crontab reader cuts from the line the module
    # writes, and a real /bin/sh shows that what is left cannot even be parsed.
    from quotecheck.hosts.crontab import read_crontab

    job = "curator delete --timestring '%Y.%m.%d' --prefix logstash-"
    host = read_ansible(PLAY.format(tasks=(
        '    - name: clean\n      cron:\n        minute: "0"\n        hour: "1"\n'
        f'        job: "{job}"\n')))
    [launch] = host.launches
    [line] = read_crontab(f"0 1 * * * {job}\n").launches
    assert launch.text is not None and line.text is not None
    assert launch.shell == ("/bin/sh", "-c") and launch.where == "remote:gpus"
    assert launch.text.value == line.text.value == "curator delete --timestring '"
    assert [r.written for r in host.references] == ["%", "%", "%"]
    run = subprocess.run(["/bin/sh", "-c", launch.text.value], capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 2 and re.search(r"nterminated|unexpected EOF", run.stderr)
    escaped = read_ansible(PLAY.format(tasks=(
        "    - ansible.builtin.cron:\n        name: d\n"
        "        job: \"date +\\\\%F > /tmp/day # {% raw %}x{% endraw %}\"\n")))
    [launch] = escaped.launches
    assert launch.text is not None and escaped.references == ()
    assert launch.text.value.startswith("date +%F > /tmp/day")


@pytest.mark.parametrize("flags", ["env: true", "state: absent", "disabled: yes"])
def test_cron_tasks_that_run_no_command(flags: str) -> None:
    # "env: If set, manages a crontab's environment variable"; "disabled: If the job should be
    # disabled (commented out) in the crontab"; `state: absent` removes the entry
    assert launches(f"    - cron:\n        name: x\n        job: date +%F\n        {flags}\n") \
        == []
