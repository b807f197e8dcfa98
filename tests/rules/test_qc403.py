"""QC403 expansion-without-shell; real python3 shows the program gets the characters."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _support import Finder
from harness.stubs import StubDir

CODE = "QC403"
python = Finder(CODE, host="python")
docker = Finder(CODE, host="dockerfile")
systemd = Finder(CODE, host="systemd")


def test_the_program_gets_the_dollar_name(tmp_path: Path) -> None:
    stubs = StubDir(tmp_path, names=["backup"])
    program = 'import subprocess\nsubprocess.run(["backup", "$HOME/data", "~/logs"])\n'
    (tmp_path / "app.py").write_text(program)
    subprocess.run([sys.executable, "app.py"], cwd=tmp_path,
                   env=stubs.env({**os.environ, "HOME": str(tmp_path)}), timeout=30, check=True)
    assert stubs.records() == [["backup", "$HOME/data", "~/logs"]]
    [(line, col, d)] = python(program)  # one per launch, at the first
    assert (line, col) == (2, 28) and d.message.value("shown") == "$HOME"
    assert d.severity == "warning"


@pytest.mark.parametrize(("finder", "source"), [
    (docker, 'FROM debian\nCMD ["python3", "app.py", "--out", "${OUT_DIR}"]\n'),
    (docker, 'FROM debian\nENTRYPOINT ["./run", "--user", "$(id -u)"]\n'),
    (systemd, "[Service]\nExecStart=/usr/bin/app --pid `cat /run/x.pid`\n"),
    (systemd, "[Service]\nExecStart=/usr/bin/app --dir ~/data\n"),
    (python, 'import os\nos.execvp("app", ["app", "--home", "~/x"])\n'),
])
def test_found(finder: Finder, source: str) -> None:
    assert len(finder(source)) == 1


@pytest.mark.parametrize(("finder", "source"), [
    (systemd, "[Service]\nExecStart=/usr/bin/app --home ${HOME} $OPTS\n"),  # systemd's own
    (docker, 'FROM debian\nCMD ["sh", "-c", "exec app --out $OUT_DIR"]\n'),
    (docker, "FROM debian\nCMD app --out $OUT_DIR\n"),
    (python, 'import subprocess\nsubprocess.run(["ssh", "h", "ls $HOME"])\n'),
    (python, 'import subprocess\nsubprocess.run(["awk", "{print $1}", "f"])\n'),
    (python, 'import subprocess\nsubprocess.run(["grep", "-E", "^\\\\$[A-Z]+", "f"])\n'),
    (python, 'import subprocess\nsubprocess.run(["git", "log", "--format=$H"])\n'),
])
def test_not_found(finder: Finder, source: str) -> None:
    assert finder(source) == []


kubernetes = Finder(CODE, host="kubernetes")
compose = Finder(CODE, host="compose")

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: debian
{body}"""


@pytest.mark.parametrize("shell", ["dash", "bash"])
def test_a_shell_without_dash_c_opens_its_text_as_a_file(shell: str, tmp_path: Path) -> None:
    # clp's results-cache init container ran ["/bin/sh", "set -e\n..."]: the shell takes its
    # first operand for a script file's name, and none of the text runs.
    exe = shutil.which(shell)
    if exe is None:
        pytest.skip(f"no {shell}")
    text = "set -e\ntouch ran\n"
    run = subprocess.run([exe, text], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert run.returncode != 0 and "No such file" in run.stderr
    assert not (tmp_path / "ran").exists()
    subprocess.run([exe, "-c", text], cwd=tmp_path, timeout=30, check=True)
    assert (tmp_path / "ran").exists()
    bad = POD.format(body=f'      command:\n        - "/bin/{shell}"\n        - |\n'
                          "          set -e\n          touch ran\n")
    [(line, col, d)] = kubernetes(bad)
    assert (line, col, d.severity) == (12, 11, "error")
    assert d.message.value("shell") == shell
    good = bad.replace(f'"/bin/{shell}"\n', f'"/bin/{shell}"\n        - "-c"\n')
    assert kubernetes(good) == []


@pytest.mark.parametrize(("finder", "source"), [
    (docker, 'FROM debian\nCMD ["/bin/sh", "echo start; exec app"]\n'),
    (python, 'import subprocess\nsubprocess.run(["bash", "cd /srv && make"])\n'),
    (compose, 'services:\n  a:\n    image: x\n    command: ["sh", "-e", "app > /log"]\n'),
])
def test_script_text_as_a_script_file_in_other_hosts(finder: Finder, source: str) -> None:
    [(_line, _col, d)] = finder(source)
    assert d.severity == "error" and d.message.kind == "shell-text-as-script-file"


def test_a_program_word_with_its_arguments_is_no_program(tmp_path: Path) -> None:
    # kubernetes#3575: `command: ["/bin/bash /opt/run.sh"]`; execve() of that one word fails
    # (real Python's subprocess shows it), the words as items run.
    (tmp_path / "run.sh").write_text("touch ran\n")
    word = f"/bin/sh {tmp_path}/run.sh"
    with pytest.raises(FileNotFoundError):
        subprocess.run([word], cwd=tmp_path, timeout=30, check=False)
    subprocess.run(word.split(), cwd=tmp_path, timeout=30, check=True)
    assert (tmp_path / "ran").exists()
    [(line, col, d)] = kubernetes(
        POD.format(body="      command:\n        - /bin/bash /opt/run.sh\n"))
    assert (line, col, d.severity) == (10, 11, "error")
    assert d.message.value("word") == "/bin/bash /opt/run.sh"
    assert kubernetes(POD.format(body='      command: ["/bin/bash", "/opt/run.sh"]\n')) == []


@pytest.mark.parametrize("word", ["/usr/bin/python3 -u", "./run ./conf", "/bin/bash ~/x.sh"])
def test_a_path_and_then_an_option_or_a_path(word: str) -> None:
    source = f'import subprocess\nsubprocess.run(["{word}", "x"])\n'
    assert [d.severity for _l, _c, d in python(source)] == ["error"]


def test_a_path_with_a_blank_is_a_program_name() -> None:
    # (a directory named with a blank is a path like any other)
    source = 'import subprocess\nsubprocess.run(["/opt/My App/bin/run", "-x"])\n'
    assert python(source) == []


def test_compose_words_that_may_go_to_the_images_entrypoint_are_information() -> None:
    source = 'services:\n  a:\n    image: x\n    command: ["/usr/bin/app --x"]\n'
    [(_line, _col, d)] = compose(source)
    assert d.severity == "info"


def test_the_words_after_the_dash_c_string_are_not_expanded(tmp_path: Path) -> None:
    # `sh -c 'script' NAME ARG`: NAME is $0, ARG $1, both as written (real dash shows it)
    dash = shutil.which("dash")
    if dash is None:
        pytest.skip("no dash")
    out = subprocess.run([dash, "-c", 'echo "$1"', "sh", "$HOME/data"], capture_output=True,
                         text=True, timeout=30, check=True).stdout
    assert out == "$HOME/data\n"
    [(line, _col, d)] = kubernetes(POD.format(
        body='      command: ["sh", "-c", "tar czf \\"$1\\" /d", "sh", "$HOME/b.tgz"]\n'))
    assert line == 9 and d.message.value("shown") == "$HOME"
    assert kubernetes(POD.format(
        body='      command: ["sh", "-c", "tar czf \\"$HOME/b.tgz\\" /d"]\n')) == []


def test_compose_argument_words_are_not_expanded_whatever_the_entrypoint() -> None:
    # (`$$OUT` reaches the container as `$OUT`; with no `entrypoint:` the image's ENTRYPOINT
    # takes the words, and gets this one as an argument all the same)
    [(line, col, d)] = compose('services:\n  a:\n    image: x\n    command: app --out $$OUT\n')
    assert (line, col, d.severity) == (4, 24, "warning")
    assert "any one gets `$OUT`" in d.message.explanation
