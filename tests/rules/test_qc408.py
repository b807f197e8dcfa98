"""QC408 compose-interpolates. A real `sh -c` shows what the container's shell runs once
Compose has put the host's value in, and what it runs after the fix."""

from __future__ import annotations

import subprocess

import pytest
from _support import Finder

from quotecheck.checker import Options, check_source
from quotecheck.fixer import fix_source

CODE = "QC408"
found = Finder(CODE, host="compose")

SRC = ("services:\n  trainer:\n    image: x\n    environment:\n      OUT_DIR: /out\n"
       "    command: sh -c 'echo \"out=$OUT_DIR\"'\n")


def _container_runs(source: str, host_value: str) -> str:
    """The sh -c text with Compose's interpolation done (the stand-in replaced by the host's
    value), run by a real sh with the container's own OUT_DIR."""
    trace = check_source(source, Options(host="compose", select=["QC001"])).trace
    [shell] = [x for x in trace.layers if x.kind == "shell"]
    assert shell.text is not None
    text = shell.text.replace("{OUT_DIR}", host_value)
    return subprocess.run(["sh", "-c", text], env={"OUT_DIR": "/out", "PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=30).stdout


def test_the_container_gets_the_hosts_value_and_the_fix_gives_it_its_own() -> None:
    assert _container_runs(SRC, "") == "out=\n"  # unset where compose runs
    [(line, col, d)] = found(SRC)
    assert (line, col) == (6, 31) and d.severity == "warning"
    fixed = fix_source(SRC, Options(host="compose")).text
    assert "$$OUT_DIR" in fixed and found(fixed) == []
    assert _container_runs(fixed, "") == "out=/out\n"


@pytest.mark.parametrize("command", [
    'command: ["--tag", "${TAG}"]',  # an argv word: Compose's value is the one meant
    "command: sh -c 'run --tag ${TAG:-dev}'",  # Compose's own syntax
    "command: sh -c 'echo $$OUT_DIR'",
])
def test_not_found(command: str) -> None:
    assert found(f"services:\n  a:\n    image: x\n    {command}\n") == []


def _compose(environment: str, command: str) -> str:
    return (f"services:\n  web:\n    image: x\n    environment:\n{environment}"
            f"    command: {command}\n")


def test_a_default_for_the_containers_own_variable_is_composes() -> None:
    # heroku-container-tools#136: `${PORT:-3000}` is Compose's syntax, but the service sets
    # PORT itself: Compose puts in its own value or the default, never the container's 5000.
    src = _compose('      PORT: "5000"\n', "sh -c 'echo port=${PORT:-3000}'")
    trace = check_source(src, Options(host="compose", select=["QC001"])).trace
    [shell] = [x for x in trace.layers if x.kind == "shell"]
    assert shell.text is not None
    env = {"PORT": "5000", "PATH": "/usr/bin:/bin"}
    compose_unset = shell.text.replace("{PORT}", "3000")  # unset where Compose runs
    assert subprocess.run(["sh", "-c", compose_unset], env=env, capture_output=True, text=True,
                          timeout=30).stdout == "port=3000\n"
    [(line, col, d)] = found(src)
    assert (line, col, d.severity) == (6, 31, "warning")
    fixed = fix_source(src, Options(host="compose")).text
    assert "$${PORT:-3000}" in fixed and found(fixed) == []
    [shell] = [x for x in check_source(fixed, Options(host="compose", select=["QC001"]))
               .trace.layers if x.kind == "shell"]
    assert shell.text is not None
    assert subprocess.run(["sh", "-c", shell.text], env=env, capture_output=True, text=True,
                          timeout=30).stdout == "port=5000\n"


def test_the_containers_own_variable_in_words_no_shell_reads() -> None:
    # compose#3959: `command: tar czf $BACKUP_DIR/data.tgz` with BACKUP_DIR in the service's
    # environment: Compose puts in its own value (empty here); `$$` alone would give tar the
    # text `$BACKUP_DIR`, so the finding offers no fix and says to add a shell.
    src = _compose("      BACKUP_DIR: /backups\n", "tar czf $BACKUP_DIR/data.tgz -C /data .")
    trace = check_source(src, Options(host="compose", select=["QC001"])).trace
    [view] = trace.layers[0].commands
    assert [a.value for a in view.argv][:3] == ["tar", "czf", "{BACKUP_DIR}/data.tgz"]
    [(line, col, d)] = found(src)
    assert (line, col, d.severity, d.fixes) == (6, 22, "warning", ())
    assert "sh -c" in d.message.explanation
    good = _compose("      BACKUP_DIR: /backups\n",
                    "sh -c 'tar czf \"$$BACKUP_DIR/data.tgz\" -C /data .'")
    assert found(good) == []


@pytest.mark.parametrize(("environment", "command"), [
    ("      - PORT\n", "sh -c 'run -p ${PORT:-3000}'"),  # handed on from where Compose runs
    ("      PORT:\n", "sh -c 'run -p ${PORT:-3000}'"),
    ("      PORT: ${PORT:-5000}\n", "sh -c 'run -p ${PORT:-3000}'"),  # Compose's value again
    ("      OTHER: x\n", "sh -c 'run -p ${PORT:-3000}'"),
    ("      OTHER: x\n", "run --tag $TAG"),  # an argv word, no sign of the container's own
    ("      PORT: '5000'\n", "run -p $$PORT"),  # QC403's: no shell expands it
])
def test_not_the_containers_own(environment: str, command: str) -> None:
    assert found(_compose(environment, command)) == []


def test_a_list_environment_sets_names_too() -> None:
    assert len(found(_compose("      - PORT=5000\n", "sh -c 'run -p ${PORT:-3000}'"))) == 1
