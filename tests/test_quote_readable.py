"""`quote` writes the simplest quoting that is still exact, puts no keyword or assignment in
command position, and refuses layers it does not know (run by real bash, dash and zsh)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.programs import RESERVED_WORDS
from quotecheck.quoting import CannotQuote, compose, quote_argv, quote_word

SHELLS = [s for s in ("bash", "dash", "zsh") if shutil.which(s)]
COMMAND_NAMES = [*sorted(RESERVED_WORDS - {"!", "{", "}"}), "A=1", "x+=y", "a[1]=2", "=ls", "-"]


def test_the_simplest_quoting_is_chosen() -> None:
    assert compose(["echo", "a b"], [["ssh", "h"]], "bash", "sh")[0] == "ssh h \"echo 'a b'\""
    assert quote_word("it's", "sh", shortest=True) == '"it\'s"'
    assert quote_word("$x 'y'", "sh", shortest=True) == "'$x '\\''y'\\'"
    assert quote_word("plain", "sh", shortest=True) == "plain"
    assert quote_word("", "sh", shortest=True) == "''"
    # Fixes keep plain single quotes.
    assert quote_word("it's", "sh") == "'it'\"'\"'s'"


@pytest.mark.parametrize("via", [
    "sshpass -p pw ssh h", "autossh -M 0 h", "sg root -c", "python3 -c", "perl -e",
    "fish -c", "csh -c", "python3 run.py",
])
def test_unknown_layers_are_refused(via: str) -> None:
    with pytest.raises(CannotQuote, match="cannot tell how"):
        compose(["echo", "$(echo INJECTED)"], [via.split()], "bash", "sh")


def test_unknown_layer_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from quotecheck.cli import main

    assert main(["quote", "--via", "sshpass -p pw ssh h", "--", "echo", "x"]) == 2
    assert "cannot tell how" in capsys.readouterr().err


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PATH directory with a program named after each keyword and assignment-like word,
    printing its own name and arguments."""
    bindir = tmp_path_factory.mktemp("bin")
    for name in COMMAND_NAMES:
        prog = bindir / name
        prog.write_text('#!/bin/sh\nprintf "%s\\0" "${0##*/}" "$@"\n')
        prog.chmod(0o755)
    return bindir


def run_line(shell: str, line: str, bindir: Path) -> list[str]:
    out = subprocess.run([shell, "-c", line], capture_output=True, timeout=10,
                         env={"PATH": f"{bindir}:/usr/bin:/bin"}, check=False).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")[:-1]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_a_keyword_or_assignment_as_command_runs_the_program(
        shell: str, name: str, programs: Path) -> None:
    argv = [name, "-v", "it's"]
    for shortest in (False, True):
        assert run_line(shell, quote_argv(argv, shell, shortest=shortest), programs) == argv


WORD = st.text(alphabet=st.sampled_from(list("ab '\"\\$`!*?[]{}~#;&|<>()=\t\n-%é")),
               max_size=10)


@settings(max_examples=150, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5))
def test_shortest_quoting_is_exact_in_every_shell(words: list[str]) -> None:
    for shell in SHELLS:
        line = "printf '%s\\0' " + " ".join(quote_word(w, shell, shortest=True) for w in words)
        out = subprocess.run([shell, "-c", line], capture_output=True, timeout=10,
                             check=True).stdout
        assert out.decode().split("\0")[:-1] == words, (shell, line)
