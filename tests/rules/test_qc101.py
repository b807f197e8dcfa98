"""QC101 expands-too-early: an outer shell expands text meant for an inner layer."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _support import CROSSLAYER, Finder, at, fixture_test, fixtures
from harness.shells import run_shell

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic

CODE = "QC101"
MINE = list(CROSSLAYER)
found = Finder(CODE, group=CROSSLAYER).diagnostics


def mine(src: str) -> list[Diagnostic]:
    return [d for d in check_source(src, Options(select=MINE)).diagnostics if d.code in MINE]


test_fixture_expectations = fixture_test(
    "crosslayer", [CODE], lambda path, text: found(text, path=str(path)))


def test_fixture_directory_has_enough_scripts() -> None:
    scripts = fixtures("crosslayer")
    assert len(scripts) >= 10
    clean = [p for p in scripts if "# expect: none" in p.read_text()]
    assert len(clean) >= 3
    codes = {c for p in scripts for c in re.findall(r"(QC10[1-5])@", p.read_text())}
    assert codes == set(MINE)


# -- the brief's cases ---------------------------------------------------------------------------


def test_bang_in_double_quoted_ssh_command_is_an_error_at_the_remote_layer() -> None:
    src = 'ssh host "nohup ./job > j.log 2>&1 & echo $!"'
    [d] = found(src)
    assert d.severity == "error"
    assert src[d.span[0]:d.span[1]] == "$!"
    assert d.layers == ("local bash", "ssh", "remote shell")
    assert d.message.kind == "outer-last-job-pid"
    assert d.message.value("own").startswith("the inner script starts a background job itself")
    assert "\\$!" in d.message.value("own")


def test_bang_without_inner_job_still_reported_for_another_machine() -> None:
    [d] = found('ssh host "kill $!"')
    assert d.severity == "error"
    assert d.message.kind == "outer-last-job-pid" and "means nothing there" in d.explanation


def test_bang_for_sh_c_on_the_same_machine_without_inner_job_is_the_outer_pid() -> None:
    # The inner sh starts no job: its own $! is empty, so the outer PID is what is meant.
    assert not found('sleep 5 & watch "ps -p $!"')
    assert not found('sleep 5 & sh -c "kill $!"')
    # ... but once the inner script starts a job itself, $! belongs to it.
    [d] = found('sh -c "sleep 1 & wait $!"')
    assert d.severity == "error"


def test_status_is_an_error() -> None:
    [d] = found('ssh host "make; echo status $?"')
    assert d.severity == "error"
    assert d.message.kind == "outer-exit-status"


def test_positional_parameter_of_sh_c_is_an_error_and_suggests_an_argument() -> None:
    src = 'sh -c "echo $1" "$?"'
    [d] = found(src)
    assert d.severity == "error"
    assert at(src, d) == (1, 13)
    assert d.layers == ("local bash", "local sh")
    assert d.message.kind == "outer-positional"
    assert d.message.value("given") == "it was given only `$0`, so its own `$1` is empty"


# docker-mailserver test/test_helper/common.bash (MIT): an inner shell given no words after its
# script has no `$1` of its own to mean; the outer one is meant (QC103's to judge).
def test_positional_parameter_of_sh_c_without_arguments_is_the_outer_one() -> None:
    src = 'wait_up() { sh -c "docker logs ${1} | grep \'is up\'"; }\nwait_up mail\n'
    assert found(src) == []


def test_positional_parameter_when_the_inner_shell_has_arguments() -> None:
    [d] = found('sh -c "echo $1" zero inner')
    assert d.severity == "error"
    assert d.message.value("given") == "it was given its own arguments"


def test_positional_parameter_proved_with_real_bash() -> None:
    # The fact behind the rule: the outer $1 replaces the inner one before sh starts.
    res = run_shell("bash", 'set -- outer; sh -c "echo [$1]" zero inner', None, timeout=10)
    assert res.stdout == "[outer]\n"
    res = run_shell("bash", "set -- outer; sh -c 'echo [$1]' zero inner", None, timeout=10)
    assert res.stdout == "[inner]\n"


def test_variable_the_inner_script_assigns_is_an_error_pointing_at_the_assignment() -> None:
    src = 'ssh host "v=\\$(uname -r); echo kernel $v"'
    [d] = found(src)
    assert d.severity == "error"
    assert src[d.span[0]:d.span[1]] == "$v"
    assert d.related and src[d.related[0].span[0]:].startswith("v=")
    res = run_shell("bash", 'v=local; sh -c "v=inner; echo $v"', None, timeout=10)
    assert res.stdout == "local\n"


def test_handing_a_local_value_over_to_a_remote_variable_is_not_qc101() -> None:
    # `dir=$dir` copies the local value on purpose: what is left is the unquoted splice.
    src = 'dir=$1; ssh host "dir=$dir; cd \\$dir && ls"'
    assert [d.code for d in mine(src)] == ["QC103"]
    # A value the script set to a plain word cannot break the remote code: nothing to report.
    assert not mine('dir=/srv/a; ssh host "dir=$dir; cd \\$dir && ls"')
    assert not mine("dir=/srv/a; ssh host \"dir='$dir'; cd \\\"\\$dir\\\"\"")
    # ... but `PATH=$PATH:...` meant to extend the remote PATH gets the local one.
    [d] = found('ssh host "export PATH=$PATH:/opt/bin; tool"')
    assert d.severity == "error"
    assert d.message.kind == "inner-script-sets-it"
    assert d.message.value("local_value") == "this machine's PATH"


def test_environment_variable_sent_to_another_machine_is_a_warning_showing_both_ways() -> None:
    [d] = found('ssh host "ls $HOME/logs"')
    assert d.severity == "warning"
    assert d.message.kind == "local-environment-value" and d.message.value("name") == "HOME"
    assert "\\$HOME" in d.explanation  # keep it for the remote side
    assert 'printf %q "$HOME"' in d.message.value("advice")  # or quote the local value


def test_command_substitution_in_ssh_command_runs_locally() -> None:
    src = 'ssh host "cd $(pwd) && make"'
    [d] = found(src)
    assert src[d.span[0]:d.span[1]] == "$(pwd)"
    assert d.message.kind == "substitution-runs-here"
    assert d.severity == "warning"


def test_process_substitution_sent_to_another_host() -> None:
    [d] = found("ssh host diff /etc/hosts <(cat /etc/hosts)")
    assert d.severity == "error"
    assert d.message.kind == "process-substitution-path"


def test_arithmetic_using_a_variable_the_inner_script_sets() -> None:
    [d] = found('ssh host "n=\\$(nproc); make -j$((n + 1))"')
    assert d.severity == "error"


def test_span_inside_a_multi_line_remote_script() -> None:
    src = 'ssh host "\n  cd /srv\n  ./run &\n  echo pid=$!\n"\n'
    [d] = found(src)
    assert at(src, d) == (4, 12)


def test_deeper_layer_one_shell_further() -> None:
    src = "ssh host \"sh -c 'echo \\$0 $1' zero\""
    [d] = found(src)
    assert d.layers == ("local bash", "ssh", "remote shell", "remote sh")
    assert src[d.span[0]:d.span[1]] == "$1"


def test_fix_escapes_the_dollar_and_the_finding_goes_away() -> None:
    src = 'ssh host "nohup job & echo $!"'
    [d] = found(src)
    assert d.fixes and d.fixes[0].applicability == "unsafe"
    fixed = src
    for edit in sorted(d.fixes[0].edits, key=lambda e: -e.span[0]):
        fixed = fixed[:edit.span[0]] + edit.text + fixed[edit.span[1]:]
    assert fixed == 'ssh host "nohup job & echo \\$!"'
    assert not mine(fixed)


# -- one finding per mistake, and what is not QC101 ------------------------------------------------


@pytest.mark.parametrize("src, code", [
    ('ssh host "rm -rf $dir"', "QC103"),  # a local value meant as such
    ('sh -c "cat $f"', "QC103"),
    ('eval "echo $1"', "QC103"),  # eval: same shell, same $1
    ('ssh host bash -s <<EOF\necho $!\nEOF\n', "QC104"),  # heredocs are QC104's
    ('ssh host "awk \'{print $2}\'"', "QC105"),  # program text is QC105's
    ('ssh host "echo $1"', "QC103"),  # the remote shell has no $1: the local one is meant
])
def test_other_rule_takes_the_case(src: str, code: str) -> None:
    diags = mine(src)
    assert [d.code for d in diags] == [code]


@pytest.mark.parametrize("src", [
    "ssh host 'echo $HOME; kill $!'",
    'ssh host "echo \\$HOME; kill \\$!"',
    'ssh host "$(printf \'%q \' "$@")"',
    "sh -c 'cmd \"$1\"' sh \"$x\"",
    "ssh host bash -s <<'EOF'\nnohup job & echo $!\nEOF\n",
    'ssh host "echo \'$USER\'"',  # quoted for the remote shell: the local value is meant
    'eval "$(ssh-agent -s)"',
    'ssh host "cd $(printf %q "$PWD") && make"',
    'ssh host "echo ${dir@Q}"',
    'ps aux | awk "{print \\$2}"',
    "ssh host 'echo '\\''a b'\\'''",
    "ssh host 'echo '\"'\"'a b'\"'\"''",
])
def test_correct_code_is_not_reported(src: str) -> None:
    assert not found(src)


@pytest.mark.parametrize("src", [
    '"$prog" -c "echo $1"', "$cmd \"$x\"", "", "\n", "ssh", "ssh host", "sh -c",
    'ssh host "echo \'unterminated $x"', 'sh -c "if then $1"', 'ssh host "$(',
    'ssh host <<EOF\n$x', 'ssh host "ssh g \\"ssh k \\\\\\"echo \\\\\\$x $1\\\\\\"\\""',
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=MINE))
    assert not [d for d in result.diagnostics if "failed on this input" in d.text]


def test_sudo_s_escapes_the_outer_arguments_and_keeps_the_inner_script() -> None:
    # apache/bookkeeper 9590a97f67c81a2964c79a92c7c58976894588f3, docker/scripts/entrypoint.sh
    # line 44 (Apache-2.0): sudo -s escapes every word, so the inner bash gets `exec "$@"` as
    # its script and the outer arguments as its own $1 $2 ... after `--`.
    src = ('function run_command() {\n'
           '    if [ "$(id -u)" = \'0\' ]; then\n'
           '        exec sudo -s -E -u "$BK_USER" /bin/bash -c \'exec "$@"\' -- "$@"\n'
           '    fi\n'
           '}\n')
    assert mine(src) == []


def test_an_inner_export_of_the_outer_value_carries_it_on_purpose() -> None:
    # apache/storm 73da988d9ac3f2c9b83ec224bc54edb038654f75, integration-test/run-it.sh lines
    # 83-86 (Apache-2.0): su resets the environment; the script hands JAVA_HOME over.
    src = ('function start_storm_process() {\n'
           '    echo starting: storm $1\n'
           '    sudo su storm -c "export JAVA_HOME=\\"${JAVA_HOME}\\" && cd /usr/share/storm'
           ' && storm $1" &\n'
           '}\n')
    assert [d for d in mine(src) if d.text.startswith("`${JAVA_HOME}`")] == []
    assert mine('sudo sh -c "export PATH=\\"${PATH}\\"; make install"') == []


def test_an_inner_assignment_that_changes_the_name_still_sets_it_itself() -> None:
    found = mine('su - u -c "export PATH=\\"${PATH}:/opt/x\\"; make"')
    assert [d.code for d in found if "`${PATH}`" in d.text] == ["QC101"]


def test_the_outer_pid_as_a_name_both_sides_share() -> None:
    # The outer `$$` names the remote file and the local copy: one name, as meant.
    src = ('tmp=/tmp/ps.$$\n'
           'ssh -o BatchMode=yes "$host" "ps aux > /tmp/ps.$$"\n'
           'scp "$host:/tmp/ps.$$" "$tmp"\n')
    assert [d for d in mine(src) if d.code == "QC101"] == []
    # Used only inside the remote command, it is still reported.
    [d] = mine('ssh -o BatchMode=yes "$host" "echo $$ > /var/run/job.pid"')
    assert d.code == "QC101"


def _sudo_runs_without_password() -> bool:
    import shutil
    import subprocess
    if shutil.which("sudo") is None:
        return False
    return subprocess.run(["sudo", "-n", "true"], capture_output=True, timeout=20,
                          check=False).returncode == 0


def test_a_dollar_in_a_sudo_s_command_expands_in_sudos_shell() -> None:
    # The shell sudo -s starts expands `$1` before `sh -c` sees it, single quotes or not, and
    # no backslash can stop it: the finding says so and offers no fix that cannot work.
    src = "sudo -s sh -c 'echo \"[$1]\"' _ x\n"
    [d] = mine(src)
    assert d.code == "QC101" and d.message.kind == "sudo-shell-expands" and d.fixes == ()
    if not _sudo_runs_without_password():
        pytest.skip("sudo not installed, or it asks for a password")
    import subprocess
    # A harmless command as the fixture: sudo runs printf through its shell.
    got = subprocess.run(["sudo", "-n", "-s", "sh", "-c", 'echo "[$1]"', "_", "x"],
                         capture_output=True, text=True, timeout=20, check=False)
    assert got.stdout == "[]\n"
    escaped = subprocess.run(["sudo", "-n", "-s", "sh", "-c", 'echo "[\\$1]"', "_", "x"],
                             capture_output=True, text=True, timeout=20, check=False)
    assert escaped.stdout == "[\\]\n"  # the backslash is kept, `$1` still expands


def test_a_variable_the_script_sets_before_the_hand_off_is_not_qc101() -> None:
    # Set locally and again inside: the local value is what the author pasted in.
    assert not found('X=/srv; ssh host "X=/tmp; ls $X"')
    # ... but only set inside the remote text: the local value is empty, QC101 stays.
    [d] = found('ssh host "X=/tmp; ls $X"')
    assert d.severity == "error"
    # A HOME the script sets itself is not this machine's HOME by surprise.
    assert not found('HOME=/srv/app; ssh host "ls $HOME"')


def _fixed(src: str, d: Diagnostic) -> str:
    out = src
    for edit in sorted(d.fixes[0].edits, key=lambda e: -e.span[0]):
        out = out[:edit.span[0]] + edit.text + out[edit.span[1]:]
    return out


@pytest.mark.parametrize("src, loop", [
    ('ssh h "until [ -f $(cat /r/f) ]; do sleep 1; done"', "until"),
    ('timeout 30 sh -c "until [ $(cat /tmp/s) = x ]; do sleep 1; done"', "until"),
    ('ssh h "while pgrep -f $(cat /r/name) >/dev/null; do sleep 5; done"', "while"),
])
def test_a_substitution_in_an_inner_loop_condition_runs_once(src: str, loop: str) -> None:
    [d] = found(src)
    assert d.severity == "warning" and d.message.kind == "substitution-in-loop-condition"
    assert d.message.value("loop") == loop
    assert src[d.span[0]:d.span[1]].startswith("$(")
    fixed = _fixed(src, d)
    assert "\\$(" in fixed and not found(fixed)


@pytest.mark.parametrize("src", [
    'ssh h "echo $(cat /r/f); while true; do sleep 1; done"',  # not in the condition
    'ssh h "until [ -f \\$(cat /r/f) ]; do sleep 1; done"',  # the loop runs it
    'until [ -f "$(cat /r/f)" ]; do sleep 1; done',  # no inner layer: run every round
])
def test_substitutions_the_loop_runs_itself_or_outside_a_condition(src: str) -> None:
    assert not [d for d in found(src) if d.message.kind == "substitution-in-loop-condition"]


def test_the_loop_waits_on_the_value_it_was_given_with_real_sh(tmp_path: Path) -> None:
    """Real dash: the condition fixed when the text was built never sees the file change;
    the fixed one does."""
    state = tmp_path / "state"

    def waits(inner_text: str) -> bool:
        state.write_text("busy\n")
        script = (f"sh -c \"{inner_text}\" & sleep 0.3; echo done > {state}; "
                  "wait $!")
        done = subprocess.run(["timeout", "3", "dash", "-c", script], capture_output=True,
                              text=True, check=False)
        return done.returncode == 124

    broken = f"until [ $(cat {state}) = done ]; do sleep 0.05; done"
    assert waits(broken)
    src = f'sh -c "{broken}"'
    [d] = found(src)
    assert not waits(_fixed(src, d)[len('sh -c "'):-1])


def _with_stub(tmp_path: Path, name: str, body: str, script: str) -> str:
    """Run ``script`` with bash, a stub ``name`` first on PATH whose sh text is ``body``."""
    stub = tmp_path / "bin" / name
    stub.parent.mkdir(exist_ok=True)
    stub.write_text("#!/bin/sh\n" + body)
    stub.chmod(0o755)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin"}
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                          timeout=10, check=True).stdout


def _with_stub_srun(tmp_path: Path, script: str) -> str:
    """`srun` a stub that starts its command as four tasks, each with its own SLURM_PROCID
    (srun(1), OUTPUT ENVIRONMENT VARIABLES)."""
    return _with_stub(tmp_path, "srun", 'while [ "${1#-}" != "$1" ]; do shift; shift; done\n'
                      'for i in 0 1 2 3; do SLURM_PROCID=$i "$@"; done\n', script)


def test_a_task_variable_expanded_before_srun_starts_the_tasks(tmp_path: Path) -> None:
    src = 'srun -n 4 sh -c "echo rank=$SLURM_PROCID"'
    [d] = found(src)
    assert d.severity == "warning" and d.message.kind == "task-value-expanded-here"
    assert _with_stub_srun(tmp_path, src).split() == ["rank="] * 4  # every task the same
    fixed = _fixed(src, d)
    assert not found(fixed)
    assert _with_stub_srun(tmp_path, fixed).split() == [f"rank={i}" for i in range(4)]


def test_a_task_variable_through_a_variable_of_the_script(tmp_path: Path) -> None:
    src = 'ARGS="--rank $SLURM_PROCID"\nsrun -n 4 sh -c "echo app $ARGS"\n'
    [d] = found(src)
    assert d.message.kind == "task-value-expanded-here"
    assert src[d.span[0]:d.span[1]] == "$ARGS" and "`ARGS` holds `$SLURM_PROCID`" in d.text
    assert _with_stub_srun(tmp_path, src).splitlines() == ["app --rank"] * 4


def _with_stub_mpirun(tmp_path: Path, script: str) -> str:
    """`mpirun` a stub that starts its program as four processes, each with its own
    OMPI_COMM_WORLD_RANK (Open MPI mpirun(1), "Environment Variables"), after its options
    `-np N`, `-x NAME`, `--mca K V`."""
    return _with_stub(tmp_path, "mpirun", 'while :; do case "$1" in\n'
                      '  --mca|-mca) shift 3 ;;\n  -np|-x) shift 2 ;;\n  *) break ;;\n'
                      'esac; done\nfor i in 0 1 2 3; do OMPI_COMM_WORLD_RANK=$i "$@"; done\n',
                      script)


def test_mpirun_single_dash_options_and_a_rank_through_a_variable(tmp_path: Path) -> None:
    src = ('ARGS="--rank $OMPI_COMM_WORLD_RANK"\n'
           'mpirun -np 4 --mca btl tcp,self -x PATH sh -c "echo app $ARGS"\n')
    [d] = found(src)
    assert d.message.kind == "task-value-expanded-here" and d.severity == "warning"
    assert src[d.span[0]:d.span[1]] == "$ARGS"
    assert _with_stub_mpirun(tmp_path, src).splitlines() == ["app --rank"] * 4
    # the advice: keep the `$` where ARGS is set; each process then expands its own rank
    assert "where `ARGS` is set" in d.text
    fixed = src.replace('ARGS="--rank $OMPI_COMM_WORLD_RANK"',
                        "ARGS='--rank $OMPI_COMM_WORLD_RANK'")
    assert _with_stub_mpirun(tmp_path, fixed).splitlines() == [
        f"app --rank {i}" for i in range(4)]
    assert not [x for x in found(fixed) if x.message.kind == "task-value-expanded-here"]


@pytest.mark.parametrize("src", [
    'srun -n 4 sh -c "echo rank=\\$SLURM_PROCID"',  # each task expands its own
    'bash -c "echo $SLURM_PROCID"',  # no launcher between
    'RANK=3\nsrun -n 1 sh -c "echo $RANK"',  # the script's own value, set before
])
def test_task_variables_the_tasks_expand_or_that_no_launcher_splits(src: str) -> None:
    assert not [d for d in found(src) if d.message.kind == "task-value-expanded-here"]


def _with_stub_docker(tmp_path: Path, script: str) -> str:
    """`docker` a stub that runs `run [-e K=V]... IMAGE CMD...` as the docker run reference
    describes: CMD executed without a shell, with the `-e` variables in its environment."""
    return _with_stub(tmp_path, "docker", 'shift\nset -- "$@"\nvars=""\n'
                      'while [ "$1" = -e ]; do vars="$vars $2"; shift 2; done\n'
                      'shift\nexec env $vars "$@"\n', script)


@pytest.mark.parametrize("src", [
    "docker run -e X=1 img echo $X",
    'docker exec -e X=1 c sh -c "echo $X"',
])
def test_a_variable_set_for_the_container_expanded_on_the_host(src: str, tmp_path: Path
                                                                ) -> None:
    [d] = found(src)
    assert d.severity == "warning" and "`$X`" in d.text
    if src.startswith("docker run"):
        assert "`-e X=1` sets `X` inside the container" in d.text
        assert _with_stub_docker(tmp_path, src) == "\n"  # the host's X: unset
        assert _with_stub_docker(tmp_path, "docker run -e X=1 img sh -c 'echo \"$X\"'") == "1\n"


@pytest.mark.parametrize("src", [
    'docker run -e TOKEN="$TOKEN" img login "$TOKEN"',  # the same value passed on
    "docker run --env X img echo $X",
    "X=2\ndocker run -e X=1 img echo $X",  # the script's own X, meant here
    "docker run -e X=1 img sh -c 'echo \"$X\"'",
])
def test_container_variables_read_where_they_are_meant(src: str) -> None:
    assert not found(src)


def test_a_task_variable_in_the_argv_srun_runs(tmp_path: Path) -> None:
    """No shell in the task expands the argv: every task runs with the launcher's value."""
    src = "srun -n 4 echo rank=$SLURM_PROCID"
    [d] = found(src)
    assert d.severity == "warning" and d.message.kind == "task-value-in-argv"
    assert src[d.span[0]:d.span[1]] == "$SLURM_PROCID"
    assert _with_stub_srun(tmp_path, src).split() == ["rank="] * 4
    advised = "srun -n 4 sh -c 'echo rank=\"$SLURM_PROCID\"'"
    assert "`srun ... sh -c 'echo ... \"$SLURM_PROCID\"'`" in d.text
    assert _with_stub_srun(tmp_path, advised).split() == [f"rank={i}" for i in range(4)]
    assert not found(advised)


def _with_stub_kubectl(tmp_path: Path, script: str) -> str:
    """`kubectl` a stub for `exec POD -- CMD...`: CMD runs without a shell, in an environment
    of the pod's own (its HOSTNAME the pod's name, HOME=/root, VAR=in-pod)."""
    return _with_stub(tmp_path, "kubectl", 'shift\npod=$1\nshift 2\n'
                      'exec env -i HOSTNAME="$pod" HOME=/root VAR=in-pod PATH=/usr/bin:/bin '
                      '"$@"\n', script)


@pytest.mark.parametrize(("src", "kind", "pod_says"), [
    ("kubectl exec web-0 -- echo $VAR", "printed-here", "in-pod"),
    ('kubectl exec web-0 -- echo "$HOSTNAME"', "host-value-in-container", "web-0"),
    ("kubectl exec web-0 -- echo $HOME", "host-value-in-container", "/root"),
])
def test_a_value_of_the_pod_expanded_on_this_machine(tmp_path: Path, src: str, kind: str,
                                                     pod_says: str) -> None:
    [d] = found(src)
    assert d.severity == "warning" and d.message.kind == kind
    host_env = "HOSTNAME=this-host HOME=/home/me VAR=host-value"
    here = _with_stub_kubectl(tmp_path, f"{host_env}; export HOSTNAME HOME VAR; {src}").strip()
    assert here != pod_says  # what the command got is this machine's
    name = src[d.span[0]:d.span[1]].strip('"$')
    program = src.split("-- ", 1)[1].split(" $", 1)[0].split(' "', 1)[0]
    advised = f"kubectl exec web-0 -- sh -c '{program} \"${name}\"'"
    assert _with_stub_kubectl(tmp_path, f"{host_env}; {advised}").strip() == pod_says
    assert not found(advised)


@pytest.mark.parametrize("src", [
    "docker run -v $HOME:$HOME -w $HOME img ls $HOME",  # this home, mounted at the same path
    "MSG=hi\ndocker exec c echo $MSG",  # the script's own value
    "docker exec c echo $PATH",  # a printer of a name every machine has: not only the container's
    "srun hostname",
    "SLURM_PROCID=0\nsrun echo $SLURM_PROCID",
    "docker exec c ls $DATA_DIR",  # a setting of the caller's, used on purpose
    "sudo ls $HOME",  # the same machine: the user's home on purpose
])
def test_argv_values_meant_for_this_side(src: str) -> None:
    assert not [d for d in found(src) if d.code == "QC101"]


def _with_stub_ssh(tmp_path: Path, script: str, cwd: Path) -> str:
    """`ssh HOST WORDS...` a stub that does what sshd does with the words: joins them with
    blanks and runs the string with `sh -c` (here, on this machine, from the home directory)."""
    stub = tmp_path / "bin" / "ssh"
    stub.parent.mkdir(exist_ok=True)
    stub.write_text('#!/bin/sh\nshift\ncd "$HOME" && exec sh -c "$*"\n')
    stub.chmod(0o755)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=10, check=True).stdout


@pytest.mark.parametrize("src", [
    "ssh h \"cd /tmp && sed -n 's#^#$(pwd) #p' /etc/hostname\"",  # single-quoted there
    'ssh h "cd /tmp; echo \\"$PWD\\""',
])
def test_this_directory_read_after_the_inner_cd(tmp_path: Path, src: str) -> None:
    [d] = [x for x in found(src) if x.code == "QC101"]
    assert d.message.kind == "directory-before-cd" and d.severity == "warning"
    here = tmp_path / "here"
    here.mkdir()
    assert _with_stub_ssh(tmp_path, src, here).split()[0] == str(here)  # not /tmp
    token = src[d.span[0]:d.span[1]]
    if "single quotes" in d.text:  # the advice: out of the inner single quotes
        assert "`'...'\"\\$(pwd)\"'...'`" in d.text
        fixed = src.replace(token, "'\\\"\\" + token + "\\\"'")
    else:
        fixed = src.replace(token, "\\" + token)
    assert _with_stub_ssh(tmp_path, fixed, here).split()[0] == "/tmp"
    assert not [x for x in found(fixed) if x.code == "QC101"]


def test_a_fact_of_this_machine_tested_by_the_remote_if(tmp_path: Path) -> None:
    src = 'ssh h "if [ \\"$(id -un)\\" = nobody-here ]; then echo remote-user; fi"'
    [d] = [x for x in found(src) if x.code == "QC101"]
    assert d.message.kind == "machine-fact-tested-here" and "the `if` of" in d.text
    # what the remote shell gets: this machine's answer, pasted in
    stub = tmp_path / "bin" / "ssh"
    stub.parent.mkdir()
    record = tmp_path / "argv"
    stub.write_text(f'#!/bin/sh\nshift\nprintf "%s" "$*" > {record}\n')
    stub.chmod(0o755)
    subprocess.run(["bash", "-c", src], env={"PATH": f"{stub.parent}:/usr/bin:/bin"},
                   check=True, timeout=10)
    me = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
    assert record.read_text().startswith(f'if [ "{me}" = nobody-here ]')
    fixed = src.replace("$(id", "\\$(id")
    subprocess.run(["bash", "-c", fixed], env={"PATH": f"{stub.parent}:/usr/bin:/bin"},
                   check=True, timeout=10)
    assert record.read_text().startswith('if [ "$(id -un)" = nobody-here ]')
    assert not [x for x in found(fixed) if x.code == "QC101"]


@pytest.mark.parametrize("src", [
    'ssh h "cd \\"$(pwd)\\" && make"',  # the cd's own argument: this directory, mirrored
    'ssh h "echo built on \\"$(hostname)\\""',  # a value, not a test
    'sh -c "if [ \\"$(uname)\\" = Linux ]; then ps; fi"',  # the same machine
    'ssh h "tar czf /tmp/b.tgz -C \\"$PWD\\" ."',
    # openhpc/ohpc, tests/ci/setup_slurm_and_run_tests.sh line 114 (Apache-2.0): the login
    # moves the inner shell to the user's home; the cd takes it back to this directory.
    'sudo --user="${USER}" --login bash -c "cd ${PWD}/tests; find ./ -name \'*.log\' -delete"',
    'ssh h "cd $PWD && make"',
])
def test_this_machines_facts_sent_as_values(src: str) -> None:
    assert not [x for x in found(src) if x.code == "QC101"]


def test_an_inner_cd_to_its_own_pwd_goes_nowhere(tmp_path: Path) -> None:
    """The inner shell's own `$PWD` as a `cd` target is where it already is: `cd $PWD/tests`
    there is `cd tests`. Only this shell's value makes the `cd` move anywhere."""
    home = tmp_path / "home"
    (home / "tests").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    inner = 'cd; bash -c "cd \\${PWD}/tests && pwd"'  # the inner value: escaped
    outer = 'cd; bash -c "cd ' + str(tmp_path) + '/tests && pwd"'  # what this shell pastes
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    got = [subprocess.run(["bash", "-c", c], capture_output=True, text=True, env=env,
                          timeout=10, check=True).stdout.strip() for c in (inner, outer)]
    assert got == [str(home / "tests"), str(tmp_path / "tests")]


@pytest.mark.parametrize("src", [
    'ssh h "cd /x; ls $PWD"',  # not a cd target
    'ssh h "cd /a && cd $PWD/b"',  # after the inner cd: the inner value differs
])
def test_pwd_elsewhere_in_the_inner_text_is_still_reported(src: str) -> None:
    assert [x.severity for x in found(src) if x.code == "QC101"] == ["warning"]


def test_a_variable_kubectl_run_sets_for_the_pod(tmp_path: Path) -> None:
    src = ('kubectl run check --image=busybox --restart=Never --env="GREETING=hello" '
           '-- echo "$GREETING"')
    [d] = [x for x in found(src) if x.code == "QC101"]
    assert d.severity == "warning" and "`--env GREETING=hello` sets `GREETING`" in d.text
    # a stub: the words after `--` run with only the --env variables, no shell
    body = ('vars=""\nwhile [ "$1" != -- ]; do case "$1" in --env=*) vars="$vars ${1#--env=}";; '
            'esac; shift; done\nshift\nexec env -i $vars "$@"\n')
    assert _with_stub(tmp_path, "kubectl", body, src) == "\n"
    advised = src.replace('-- echo "$GREETING"', "-- sh -c 'echo \"$GREETING\"'")
    assert _with_stub(tmp_path, "kubectl", body, advised) == "hello\n"
    assert not [x for x in found(advised) if x.code == "QC101"]


def test_intel_mpirun_r_names_its_remote_shell() -> None:
    """`mpirun -r ssh ...`: `ssh` is the value of -r (the launcher of the daemons), not the
    program run; `-genv PATH $X:$PATH` hands this shell's value on to the ranks, as meant."""
    src = "mpirun -r ssh -machinefile $NODES -genv PATH $MPIBIN:$PATH -n 4 ./radioss -i in.rad"
    assert not [d for d in found(src) if d.code == "QC101"]
