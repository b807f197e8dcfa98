"""`quotecheck quote` output, run by real bash, delivers exactly the argv it was given.

Stacks of one to four layers (ssh to the test sshd, `sh -c`, `bash -c`, `dash -c`, exec
wrappers `env` and `timeout`, `su root -c`) with generated argv; under a bash and a dash remote
login shell. The ssh connections share one multiplexed master so that thousands of examples stay
affordable; QC_QUOTE_EXAMPLES sets how many (README: nightly size).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness.sshd import SshServer
from harness.stubs import StubDir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quotecheck.quoting import CannotQuote, compose, quote_word

EXAMPLES = int(os.environ.get("QC_QUOTE_EXAMPLES", "1000"))

LAYERS: dict[str, list[str]] = {
    "ssh": ["ssh", "deploy@gpu-box"],
    "sh -c": ["sh", "-c"],
    "bash -c": ["bash", "-c"],
    "dash -c": ["dash", "-c"],
    "env": ["env", "QC_LAYER=1"],
    "timeout": ["timeout", "60"],
    "su -c": ["su", "root", "-c"],
}

# Any character an argv can hold except NUL (and lone surrogates, which are not characters).
ARG_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("'\"\\$`!*?[]{}~#;&|<>()= \t\n-%")),
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    ),
    max_size=12,
)


@pytest.fixture(scope="module")
def mux(sshd: SshServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A directory with an `ssh` that multiplexes every connection over one master."""
    base = tmp_path_factory.mktemp("mux")
    control = base / "cm"
    options = sshd.ssh_options()
    i = options.index("ControlPath=none")
    options[i - 1:i + 1] = ["-o", "ControlMaster=auto", "-o", f"ControlPath={control}",
                           "-o", "ControlPersist=300"]
    wrapper = base / "ssh"
    wrapper.write_text("#!/bin/sh\nexec /usr/bin/ssh "
                       + " ".join(shlex.quote(o) for o in options) + ' "$@"\n')
    wrapper.chmod(0o755)
    yield base
    # Stop the master this fixture started (through its control socket).
    subprocess.run(["/usr/bin/ssh", "-o", f"ControlPath={control}", "-O", "exit", "x"],
                   capture_output=True, timeout=20, check=False)


def with_ssh(server: SshServer, stubs: StubDir, mux: Path) -> StubDir:
    """Put the multiplexing `ssh` beside the stubs: first on PATH locally and remotely."""
    (stubs.path / "ssh").write_bytes((mux / "ssh").read_bytes())
    (stubs.path / "ssh").chmod(0o755)
    server.use_stubs(stubs)
    return stubs


def deliver(argv: list[str], stack: list[str], remote_shell: str, stubs: StubDir,
            mux: Path) -> list[str]:
    rec = str(stubs.path / "rec")
    line, _ = compose([rec, *argv], [LAYERS[name] for name in stack], "bash", remote_shell)
    stubs.clear()
    env = stubs.env()
    env["PATH"] = f"{mux}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["bash", "-c", line], env=env, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, (line, proc.stderr.decode(errors="replace"))
    records = stubs.records()
    assert len(records) == 1, (line, records)
    return records[0][1:]


@pytest.mark.parametrize("login_shell", ["bash", "dash"])
def test_quote_delivers_exact_argv(login_shell: str, sshd: SshServer, mux: Path,
                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    sshd.reset()
    sshd.set_login_shell(login_shell)
    stubs = with_ssh(sshd, StubDir(tmp_path_factory.mktemp("stubs"), names=["rec"]), mux)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(argv=st.lists(ARG_TEXT, max_size=6),
           stack=st.lists(st.sampled_from(sorted(LAYERS)), min_size=1, max_size=4))
    def prop(argv: list[str], stack: list[str]) -> None:
        assert deliver(argv, stack, "sh", stubs, mux) == argv

    try:
        prop()
    finally:
        sshd.reset()


def test_known_hard_cases(sshd: SshServer, mux: Path, stubs: StubDir) -> None:
    sshd.reset()
    with_ssh(sshd, stubs, mux)
    hard = ["", "'", "'\\''", "\"$HOME\"", "`id`", "$(id)", "a\nb", "-n", "--", "!x",
            "*", "~", "é😀", "\\", "'\"'\"'", "%s\\n"]
    for stack in (["ssh"], ["ssh", "sh -c"], ["sh -c", "ssh", "bash -c"], ["su -c", "ssh"],
                  ["ssh", "ssh", "env", "dash -c"]):
        assert deliver(hard, stack, "sh", stubs, mux) == hard, stack


def test_quote_word_is_exact_for_each_posix_shell() -> None:
    words = ["", "a b", "it's", "\n", "$x", "\\", "é"]
    for shell in ("bash", "dash"):
        line = "printf '%s\\0' " + " ".join(quote_word(w, shell) for w in words)
        out = subprocess.run([shell, "-c", line], capture_output=True, timeout=10,
                             check=True).stdout
        assert out.decode().split("\0")[:-1] == words


def test_csh_refuses_what_it_cannot_carry() -> None:
    with pytest.raises(CannotQuote, match="newline"):
        compose(["echo", "a\nb"], [["ssh", "h"]], "bash", "tcsh")
    with pytest.raises(CannotQuote, match="history"):
        compose(["echo", "a!b"], [["ssh", "h"]], "bash", "csh")
    line, _ = compose(["echo", "it's"], [["ssh", "h"]], "bash", "fish")
    assert line == "ssh h 'echo '\\''it\\'\\''s'\\'"
    # What the local bash hands ssh is fish's own quoting of `it's`.
    said = subprocess.run(["bash", "-c", "printf %s " + line.removeprefix("ssh h ")],
                          capture_output=True, text=True, timeout=10, check=True).stdout
    assert said == "echo 'it\\'s'"


def test_unknown_via_is_refused() -> None:
    with pytest.raises(CannotQuote, match="cannot tell how"):
        compose(["x"], [["awk", "-f"]], "bash", "sh")
