"""QC202 grep-finds-itself.

The fact behind it is checked with the real ps and grep: the script is fed to `bash -s` so that
no shell's command line holds the pattern, and the only match left is grep's own process.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from _support import Finder

CODE = "QC202"
found = Finder(CODE)


def run_stdin_script(script: str) -> str:
    # ps cuts its lines at $COLUMNS when that is set (pytest sets it): a script has none.
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    res = subprocess.run(["bash", "-s"], input=script, capture_output=True, text=True,
                         timeout=60, env=env)
    return res.stdout.strip()


def test_grep_counts_itself_and_the_bracket_does_not() -> None:
    marker = "qc202_marker_nobody_runs"
    # The pipeline's processes start together, so ps usually (not always: it can scan /proc
    # before grep has been exec'd) sees grep's own command line.
    counts = [int(run_stdin_script(f"ps aux | grep -c {marker}\n")) for _ in range(5)]
    assert max(counts) >= 1
    assert run_stdin_script(f"ps aux | grep -c '[q]{marker[1:]}'\n") == "0"
    assert run_stdin_script(f"ps aux | grep {marker} | grep -v grep | wc -l\n") == "0"
    assert run_stdin_script(f"pgrep -c -f {marker}\n") == "0"
    # and the rule says the same about these four pipelines
    assert len(found(f"ps aux | grep -c {marker}")) == 1
    assert found(f"ps aux | grep -c '[q]{marker[1:]}'") == []
    assert found(f"ps aux | grep {marker} | grep -v grep | wc -l") == []
    assert found(f"pgrep -c -f {marker}") == []


def test_grep_v_grep_after_the_count_filters_the_number() -> None:
    """aircrack-ng/aircrack-ng#1733 (airmon-ng): `grep -c P | grep -v grep` counts grep's own
    line first; the `grep -v grep` after it reads the number, which holds no `grep`."""
    marker = "qc202_count_marker_nobody_runs"
    late = f"ps -ef | grep -c '{marker}\\|{marker}_b' | grep -v grep\n"
    first = f"ps -ef | grep '{marker}\\|{marker}_b' | grep -v grep | wc -l\n"
    assert max(int(run_stdin_script(late)) for _ in range(5)) >= 1
    assert run_stdin_script(first) == "0"
    for src, pos in [
        (f'n=$(ps -ef | grep -c "{marker}" | grep -v grep)', (1, 22)),
        ('P="wpa_cli\\|dhclient"\nn="$(ps -ef | grep -c "$P" | grep -v grep)"', (2, 23)),
        ("ps aux | grep -o 'myapp [0-9]*' | grep -v grep | wc -l", (1, 18)),
        ("if ps aux | grep --count myapp | grep -qv grep; then echo up; fi", (1, 26)),
    ]:
        hits = found(src)
        assert [(line, col) for line, col, _ in hits] == [pos], src
        assert "comes after `grep -" in hits[0][2].text, src
    assert found(first.strip()) == []
    assert found(f"ps -ef | grep -v grep | grep -c {marker}") == []


@pytest.mark.parametrize(("src", "pos", "words"), [
    ("ps aux | grep nginx | wc -l", (1, 15), "one too high"),
    ("ps aux | grep -c nginx", (1, 18), "one too high"),
    ("if ps aux | grep -q myapp; then echo up; fi", (1, 21), "always succeeds"),
    ("ps aux | grep myapp > /dev/null && echo up", (1, 15), "always succeeds"),
    ("pids=$(ps aux | grep myapp | awk '{print $2}')", (1, 22), "captured value"),
    ("ps aux | grep python3 | awk '{print $2}' | xargs kill", (1, 15), "No such process"),
    ("ps -ef | grep -i MyApp | wc -l", (1, 18), "one too high"),
    ("ps aux | awk '/myapp/ {print $2}' | xargs kill", (1, 14), "No such process"),
    ("ps aux | grep \"$NAME\" | wc -l", (1, 15), "comes from a variable"),
    ("ps aux | grep java | grep -i java | wc -l", (1, 15), "one too high"),
])
def test_reported(src: str, pos: tuple[int, int], words: str) -> None:
    hits = found(src)
    assert [(line, col) for line, col, _ in hits] == [pos], src
    assert words in hits[0][2].text


def test_message_offers_fixes_that_really_exclude_grep() -> None:
    msg = found("ps aux | grep python3 | awk '{print $2}' | xargs kill")[0][2].text
    assert "`grep '[p]ython3'`" in msg and "`pgrep -f python3`" in msg
    msg = found("ps aux | grep -F 'a.b' | wc -l")[0][2].text
    assert "`pgrep -f 'a\\.b'`" in msg and "[a]" not in msg  # brackets are literal under -F
    msg = found("ps aux | grep 'a\\|b' | wc -l")[0][2].text
    assert "[a]" not in msg  # `[a]\|b` would still match its own `b`
    msg = found("ps aux | awk '/myapp/ {print $2}' | xargs kill")[0][2].text
    assert "`awk '/[m]yapp/ {print $2}'`" in msg


@pytest.mark.parametrize("src", [
    "ps aux | grep nginx",  # only shown
    "ps aux | grep '[n]ginx' | wc -l",
    "ps aux | grep nginx | grep -v grep | wc -l",
    "ps -e | grep nginx | wc -l",  # process names only: grep's is `grep`
    "ps -C nginx -o pid= | wc -l",
    "pgrep -c nginx",
    "ps aux | grep -f patterns.txt | wc -l",
    "grep -c nginx /var/log/syslog",
    "ps aux | grep 'ngin[x]' | wc -l",
    # neither grep's own line holds the other grep's pattern
    "ps aux | grep java | grep tomcat | wc -l",
])
def test_not_reported(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize("src", [
    # apache/linkis bad400a77b9502a68ec229ce6a5aedab6f039b28
    # linkis-dist/package/sbin/kill-process-by-pid.sh: one pid's process group only.
    "kill -- -$(ps -o pgid \"$killProcessPID\" | grep [0-9] | tr -d ' ')",
    "kill -- -$(ps -o pgid $$ | grep [0-9] | tr -d ' ')",
    "n=$(ps -o pid,args 4242 | grep -c java)",
    # every process, but no column holds a command line
    "kill -- -$(ps -e -o pgid,user | grep [0-9] | tr -d ' ')",
    "n=$(ps -e -o pid= | grep -c 42)",
])
def test_ps_of_one_pid_or_without_commands_cannot_list_grep(src: str) -> None:
    assert found(src) == [], src


def test_run_time_words_are_not_read_as_ps_options() -> None:
    # The letters of `$opts` are not BSD options (`o` would take `pts` as the format): not
    # known, so the columns asked for stand.
    assert found('n=$(ps -e -o pid,args $opts | grep -c java)')
    # A format known only at run time may hold the command name.
    assert found('n=$(ps -e -o "$fmt" | grep -c grep)')


def test_inside_a_remote_script_it_points_into_the_quoted_text() -> None:
    src = "ssh h '\nn=$(ps aux | grep worker | wc -l)\necho $n\n'\n"
    hits = found(src)
    assert [(line, col) for line, col, _ in hits] == [(2, 19)]
    assert hits[0][2].layers[-1] == "remote shell"


# -- issue 13: ps that runs in another pid namespace -------------------------------------------

# dokku/dokku 33896f5d7efc3b03d0ea94934d8413cddbce07fd, tests/ci/setup.sh lines 145-148 (MIT):
# ps runs inside the container, grep on the host.
DOKKU_CHECK_CONTAINER = '''is_up=$(
  docker exec dokku ps -ef | grep "/usr/sbin/sshd -D" &>/dev/null
  echo $?
)
'''


@pytest.mark.parametrize("src", [
    DOKKU_CHECK_CONTAINER,
    'n=$(kubectl exec web-0 -- ps aux | grep -c java)',
    'if podman exec db ps -ef | grep -q postgres; then echo up; fi',
])
def test_ps_in_a_container_cannot_list_the_local_grep(src: str) -> None:
    assert found(src) == []


def test_the_local_ps_still_lists_it() -> None:
    [_] = found('n=$(ps aux | grep -c java)')


def test_a_ps_in_another_pid_namespace_does_not_see_grep() -> None:
    # The fact, with a pid namespace of our own (what `docker exec` runs ps in).
    probe = subprocess.run(["unshare", "-pf", "--mount-proc", "true"], capture_output=True,
                           timeout=30, check=False)
    if probe.returncode != 0:
        pytest.skip("unshare of a pid namespace is not allowed here")
    script = ("unshare -pf --mount-proc ps -ef | grep -c qc202-needle-x\n"
              "ps -ef | grep -c qc202-needle-x\n")
    assert run_stdin_script(script).split() == ["0", "1"]


def test_a_pgrep_test_finds_the_shell_that_runs_it() -> None:
    """Real bash: pgrep leaves itself out but not the `bash -c` whose command line holds the
    pattern, so the test succeeds with nothing else running; the bracket form does not."""
    pattern = "qc202_no_such_trainer"
    src = f'bash -c "pgrep -f {pattern} && echo RUNNING"'
    [d] = found.diagnostics(src)
    assert d.severity == "warning" and d.message.kind == "finds-its-shell"
    assert f"[q]{pattern[1:]}" in d.text
    ran = subprocess.run(["bash", "-c", src], capture_output=True, text=True, timeout=10,
                         check=False)
    assert ran.returncode == 0 and ran.stdout.endswith("RUNNING\n")
    fixed = src.replace(pattern, f"'[q]{pattern[1:]}'")
    assert not found.diagnostics(fixed)
    ran = subprocess.run(["bash", "-c", fixed], capture_output=True, text=True, timeout=10,
                         check=False)
    assert (ran.returncode, ran.stdout) == (1, "")


@pytest.mark.parametrize("src", [
    'ssh h "pgrep -f trainer && echo RUNNING"',
    'ssh h "if pgrep -f train.py >/dev/null; then echo up; fi"',
])
def test_a_remote_pgrep_test_matches_the_remote_shell(src: str) -> None:
    [d] = found.diagnostics(src)
    assert d.message.kind == "finds-its-shell" and "remote shell" in d.text


@pytest.mark.parametrize("src", [
    "pgrep -f trainer && echo RUNNING",  # this script's shell: its command line is the file
    'ssh h "pgrep trainer && echo RUNNING"',  # by name: the shell's name is sh or bash
    'ssh h "pgrep -f \'[t]rainer\' && echo RUNNING"',
    'ssh h "pgrep -f trainer; echo done"',  # the answer is not used
])
def test_pgrep_that_cannot_find_its_shell_or_whose_answer_is_unused(src: str) -> None:
    assert not [d for d in found.diagnostics(src) if d.message.kind == "finds-its-shell"]
