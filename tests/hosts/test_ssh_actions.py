"""GitHub Actions steps that send a script over ssh: appleboy/ssh-action and
garygrossgarten/github-action-ssh as an ssh layer below the workflow.

What the actions do was read in their sources (snapshots through the project's code search):

* appleboy/ssh-action 1530429 (tags v1 = v1.2.5): action.yml hands `script` to drone-ssh as
  the environment variable INPUT_SCRIPT; up to v1.0.3 a Docker action, a composite one since.
* appleboy/drone-ssh 2dd9201 (v1.8.2), plugin.go: for each name of `envs` (upper-cased) a line
  `export NAME=<value in single quotes>` (escapeArg); then scriptCommands(): each script
  trimmed with strings.TrimSpace, blank ones dropped; with `script_stop` the script is split
  at line feeds, each line trimmed, and after each line that does not end in `\\` the line
  `DRONE_SSH_PREV_COMMAND_EXIT_CODE=$? ; if [ $DRONE_SSH_PREV_COMMAND_EXIT_CODE -ne 0 ]; then
  exit $DRONE_SSH_PREV_COMMAND_EXIT_CODE; fi;` is added; everything joined with "\\n" and sent
  with easyssh's Stream, one `exec` request (golang.org/x/crypto ssh Session.Start).
* appleboy/ssh-action 1c1ad10: `script_stop` removed from action.yml (first in v1.2.1).
* garygrossgarten/github-action-ssh 3d6a341, src/index.ts: `command` read with
  core.getInput (trimmed) and passed to node-ssh's exec as one command string.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from quotecheck.checker import Options, check_source
from quotecheck.hosts.github_actions import read_workflow

STOP_LINE = ("DRONE_SSH_PREV_COMMAND_EXIT_CODE=$? ; if [ $DRONE_SSH_PREV_COMMAND_EXIT_CODE -ne 0 "
             "]; then exit $DRONE_SSH_PREV_COMMAND_EXIT_CODE; fi;")


def _workflow(uses: str, inputs: str) -> str:
    return ("on: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - name: deploy\n        uses: {uses}\n        with:\n"
            + "".join(f"          {line}\n" for line in inputs.splitlines()))


def _sends(source: str) -> str:
    trace = check_source(source, Options(host="github-actions", select=["QC001"])).trace
    [ssh] = [x for x in trace.layers if x.kind == "ssh"]
    assert ssh.sends is not None
    return ssh.sends


def test_the_script_is_sent_trimmed_after_the_export_lines() -> None:
    source = _workflow("appleboy/ssh-action@v1.2.5", "host: gpu1\nenvs: tag, run_id\n"
                       "script: |\n\n  cd /srv/app\n  ./restart.sh \"$TAG\"\n\n")
    assert _sends(source) == ("export TAG={TAG}\nexport RUN_ID={RUN_ID}\n"
                              "cd /srv/app\n./restart.sh \"$TAG\"")
    [launch] = read_workflow(source).launches
    assert launch.ssh and launch.destination == "gpu1" and launch.shell is None
    # each character of the script stands where it is written
    text = launch.text
    assert text is not None
    at = text.value.index("./restart.sh")
    assert source[text.offsets[at]:text.offsets[at] + 12] == "./restart.sh"


def test_script_stop_adds_a_status_check_after_each_line_up_to_v1_2_0() -> None:
    inputs = ("host: gpu1\nscript_stop: true\n"
              "script: |\n  cd /srv/app\n  make \\\n    all\n  echo done\n")
    sends = _sends(_workflow("appleboy/ssh-action@v1.0.3", inputs))
    assert sends == "\n".join(["cd /srv/app", STOP_LINE, "make \\", "all", STOP_LINE,
                               "echo done", STOP_LINE])
    # from v1.2.1 on the input is gone: the script is sent as written
    assert _sends(_workflow("appleboy/ssh-action@v1.2.5", inputs)) == \
        "cd /srv/app\nmake \\\n  all\necho done"


def test_the_status_check_lines_stop_the_script_at_a_failure(tmp_path: Path) -> None:
    """What drone-ssh's added lines do, run by a real sh: the line after a failure is not run."""
    inputs = "script_stop: true\nscript: |\n  echo one\n  false\n  echo two\n"
    sends = _sends(_workflow("appleboy/ssh-action@v0.1.10", inputs))
    run = subprocess.run(["sh", "-c", sends], capture_output=True, text=True, timeout=30)
    assert run.stdout == "one\n" and run.returncode == 1


def test_a_version_the_ref_does_not_name_makes_script_stop_a_guess() -> None:
    inputs = "script_stop: true\nscript: cd /srv/app; make\n"
    source = _workflow("appleboy/ssh-action@0ff4204d59e8e51228ff73bce53f80d53301dee2", inputs)
    [launch] = read_workflow(source).launches
    assert launch.uncertain is not None and "script_stop" in launch.uncertain
    assert _sends(source) == "cd /srv/app; make"


def test_garygrossgarten_sends_the_command_as_written() -> None:
    source = _workflow("garygrossgarten/github-action-ssh@release",
                       "host: ${{ secrets.HOST }}\ncommand: |\n  cd app && git pull\n")
    assert _sends(source) == "cd app && git pull"
    [launch] = read_workflow(source).launches
    assert launch.destination == "${{ secrets.HOST }}"  # (as written: known at run time)


def test_an_action_that_is_not_an_ssh_action_is_not_read() -> None:
    source = _workflow("actions/github-script@v7", "script: |\n  console.log('x; y')\n")
    assert read_workflow(source).launches == ()


def test_the_remote_shell_killing_itself_is_found_in_the_workflow() -> None:
    source = _workflow("appleboy/ssh-action@v1", "host: gpu1\nscript: |\n"
                       "  pkill -f 'python train.py'\n  nohup python train.py > log 2>&1 &\n")
    result = check_source(source, Options(host="github-actions"))
    [kill] = [d for d in result.diagnostics if d.code == "QC201"]
    assert kill.severity == "error"
    assert source[kill.span[0]:kill.span[1]] == "'python train.py'"


def test_an_expression_in_the_script_is_remote_code_and_the_advice_is_envs() -> None:
    source = _workflow("appleboy/ssh-action@v1", "host: gpu1\nscript: |\n"
                       "  echo \"${{ github.event.issue.title }}\"\n")
    result = check_source(source, Options(host="github-actions"))
    [found] = [d for d in result.diagnostics if d.code == "QC407"]
    assert found.severity == "error"
    assert "envs: TITLE" in found.text and "over ssh" in found.text
    assert source[found.span[0]:found.span[1]] == "${{ github.event.issue.title }}"


def test_the_added_status_checks_are_the_check_qc206_asks_for() -> None:
    script = "script: |\n  cd /srv/app\n  ./run.sh\n"
    stopped = _workflow("appleboy/ssh-action@v1.0.3", "host: gpu1\nscript_stop: true\n" + script)
    plain = _workflow("appleboy/ssh-action@v1.2.5", "host: gpu1\nscript_stop: true\n" + script)
    codes = [d.code for d in check_source(stopped, Options(host="github-actions")).diagnostics]
    assert "QC206" not in codes
    codes = [d.code for d in check_source(plain, Options(host="github-actions")).diagnostics]
    assert "QC206" in codes
