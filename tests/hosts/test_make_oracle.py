"""The make host layer against real GNU make: the argv its SHELL receives for each recipe line.

``SHELL`` is set to a recording program (named ``sh``, so make treats it as a POSIX shell, or
``rec`` where that matters) that writes its argv and runs nothing. The trace's shell layers
must have exactly that process argv, in the file's order, and each character of the text must
stand where make took it from in the Makefile.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.hosts.make import read_makefile

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="no make")  # .ci/run installs it


def _recorder(directory: Path, name: str) -> Path:
    log = directory / "argv.jsonl"
    program = directory / name
    program.write_text(f"#!{sys.executable}\nimport json, sys\n"
                       f"with open({str(log)!r}, 'a') as f:\n"
                       "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n")
    program.chmod(0o755)
    return program


def make_runs(body: str, directory: Path, shell_name: str = "sh") -> tuple[str, list[list[str]]]:
    """The Makefile (``body`` under a SHELL line) and the argv of each shell make started."""
    directory.mkdir(parents=True, exist_ok=True)
    shell = _recorder(directory, shell_name)
    log = directory / "argv.jsonl"
    log.unlink(missing_ok=True)
    makefile = f"SHELL := {shell}\n{body}"
    (directory / "Makefile").write_text(makefile)
    assert MAKE is not None
    subprocess.run([MAKE, "-s", "-k"], cwd=directory, capture_output=True, timeout=30,
                   env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    runs = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return makefile, runs


def traced(makefile: str) -> list[list[str]]:
    trace = check_source(makefile, Options(host="make", select=["QC001"])).trace
    return [layer.process[1:] for layer in trace.layers
            if layer.kind == "shell" and layer.parent == 0 and layer.process]


def assert_positions(makefile: str) -> None:
    """Each character make passes on stands at its place in the Makefile: itself, or the `$`
    of `$$`, or inside the reference whose value it is."""
    host = read_makefile(makefile)
    spans = [r.span for r in host.references]
    for launch in host.launches:
        assert launch.text is not None
        for i, (ch, at) in enumerate(zip(launch.text.value, launch.text.offsets, strict=True)):
            if any(a <= i < b for a, b in launch.text.dynamic_ranges):
                continue
            assert at is not None, (launch.text.value, i)
            assert makefile[at] == ch or any(a <= at < b for a, b in spans), (
                launch.text.value, i, makefile[at])


CASES = [
    "all:\n\techo hello\n",
    "A = hello   world\nall:\n\t@echo $(A) $$HOME $HOME \"$(date +%s)\" \\\n\t  next  line\n",
    "all:\n\t-  @ +echo two\n\t\tindented\n# comment\n\techo after comment\n\n\techo after\n",
    "Q = @\nAPP = train.py\nall:\n\t$(Q)pkill -f $(APP); nohup python3 $(APP) &\n",
    "all: ; echo inline $$x\n\techo second\n",
    ".POSIX:\nall:\n\techo posix\n",
    ".SHELLFLAGS = -eu -o pipefail -c\nall:\n\techo flags | cat\n",
    ".ONESHELL:\nall:\n\t@echo one\n\t@echo two\n\t-echo three \\\n\tfour\n\t  + echo five\n",
    "X = a\nX += b\nY ?= c\nY ?= d\nall: p q\n\techo $(X) $(Y) $@ $< $^ ${X}\n"
    "p:\n\t@true\nq:\n\t@true\n",
    "define BODY\nline one\nendef\nall:\n\techo '$(BODY)'\n",
    "all:\n\tssh h 'echo $$USER; cd /tmp && ls'\n\tprintf '%s\\n' \"a  b\"\n",
    # a `$` before a blank, a tab or (with .ONESHELL) a line's end: make drops both
    "all:\n\tsed -e '3,$ s/^/# /' -e 's/a$\tb//' f\n",
    ".ONESHELL:\nall:\n\tgrep 'ok$\n\t' f\n",
]


@pytest.mark.parametrize("body", CASES)
def test_each_recipe_line_reaches_the_shell_as_make_hands_it(body: str, tmp_path: Path) -> None:
    makefile, runs = make_runs(body, tmp_path)
    assert runs, "make started no shell"
    assert sorted(traced(makefile)) == sorted(runs)
    assert_positions(makefile)


def test_oneshell_keeps_prefixes_for_a_shell_make_does_not_know(tmp_path: Path) -> None:
    body = ".ONESHELL:\nall:\n\t@echo one\n\t@echo two\n"
    makefile, runs = make_runs(body, tmp_path, shell_name="rec")
    assert runs == [["-c", "echo one\n@echo two"]]
    assert traced(makefile) == runs


_PIECES = ["echo", " ", "  ", "x", "'q w'", '"d q"', "$$x", "$$(pwd)", "$(A)", "${A}", "$(B)",
           "\\\n\t", "\\\n  ", "#c", "%", ";", "|", "$H", "$(date +%s)", "\\$$", "\\\\", "@",
           "-", "$$$$", "$(A)$(B)"]


@settings(max_examples=40, deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from(["", "@", "-", "+", "@-", " @"]),
                                st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8)),
                      min_size=1, max_size=3))
def test_recipe_lines_of_any_shape(lines: list[tuple[str, list[str]]],
                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    recipe = "".join(f"\t{prefix}{''.join(words)}\n" for prefix, words in lines)
    body = f"A = alpha beta\nB := $(A)-b\nall:\n{recipe}"
    makefile, runs = make_runs(body, tmp_path_factory.mktemp("make"))
    assert traced(makefile) == runs
    assert_positions(makefile)


@pytest.mark.parametrize("export", ["export SHELLOPTS\n", ".EXPORT_ALL_VARIABLES:\n", ""])
def test_an_exported_shellopts_turns_the_options_on_in_bash(export: str, tmp_path: Path) -> None:
    """bash reads SHELLOPTS from its environment at start-up: exported from the Makefile, its
    `pipefail` holds in every recipe line; not exported, it never reaches bash."""
    body = ("SHELL := /bin/bash\nSHELLOPTS := pipefail\n" + export +
            "all:\n\tfalse | tee log\n\techo next\n")
    (tmp_path / "Makefile").write_text(body)
    assert MAKE is not None
    run = subprocess.run([MAKE, "-s"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=30, env={"PATH": "/usr/bin:/bin"})
    exported = bool(export)
    assert (run.returncode != 0) == exported and ("next" in run.stdout) != exported
    [first, *_] = traced(body)
    assert (first[:2] == ["-o", "pipefail"]) == exported
    loud = [d for d in check_source(body, Options(host="make", select=["QC206"])).diagnostics]
    assert bool(loud) != exported
