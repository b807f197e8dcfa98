"""``quotecheck init bash|zsh`` in real interactive shells: bash and zsh in a private tmux server,
each started with a throw-away rc file that sources the snippet, keys sent as a person types
them, the screen read back. A stub ``ssh`` on PATH records whether the command ran."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RISKY = 'ssh -o BatchMode=yes h "pkill -f train.py; nohup python3 train.py &"'
PROMPT = "QCPROMPT> "
ASK = "run it anyway? [y/N]"
WAIT = 90.0  # seconds; a bound on each wait, never a measured time

pytestmark = pytest.mark.skipif(
    not (shutil.which("tmux") and shutil.which("bash") and shutil.which("zsh")),
    reason="needs tmux, bash and zsh")


class Screen:
    """One shell in a tmux server of its own (a private socket: nothing else is touched)."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "qc", *keys)

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "qc")

    def wait(self, done: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + WAIT
        while True:
            text = self.text()
            if done(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {WAIT:.0f} s for {what}; the screen:\n{text}")
            time.sleep(0.2)


def _setup(tmp_path: Path, shell: str) -> tuple[list[str], Path]:
    """The shell's command line and the file the stub ssh writes when it runs; ``bash-vi`` is
    bash in vi editing mode."""
    vi = shell == "bash-vi"
    shell = "bash" if vi else shell
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ran = tmp_path / "ssh-ran"
    wrapper = bin_dir / "quotecheck"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m quotecheck "$@"\n')
    stub = bin_dir / "ssh"
    stub.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {ran}\n")
    for program in (wrapper, stub):
        program.chmod(0o755)
    snippet = subprocess.run([str(wrapper), "init", shell], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    (tmp_path / f"guard.{shell}").write_text(snippet)
    path = f"{bin_dir}:/usr/bin:/bin"
    base = ["env", "-i", f"HOME={tmp_path}", "TERM=xterm", f"PATH={path}", "LANG=C.UTF-8"]
    if shell == "bash":
        rc = tmp_path / "bashrc"
        mode = "set -o vi\n" if vi else ""
        rc.write_text(f"PS1='{PROMPT}'\n{mode}source {tmp_path}/guard.bash\n")
        return [*base, "bash", "--noprofile", "--rcfile", str(rc), "-i"], ran
    zdot = tmp_path / "zdot"
    zdot.mkdir()
    (zdot / ".zshrc").write_text(f"PS1='{PROMPT}'\nsource {tmp_path}/guard.zsh\n")
    return [*base, f"ZDOTDIR={zdot}", "zsh", "--no-globalrcs", "-i"], ran


@pytest.fixture
def screen(tmp_path: Path) -> Iterator[Screen]:
    sock = tmp_path / "tmux.sock"
    s = Screen(sock)
    yield s
    if sock.exists():
        subprocess.run(["tmux", "-S", str(sock), "kill-server"], capture_output=True,
                       timeout=30)


def _prompts(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith(PROMPT.rstrip()))


@pytest.mark.parametrize("shell", ["bash", "bash-vi", "zsh"])
def test_risky_line_asks_and_harmless_line_runs(tmp_path: Path, screen: Screen,
                                                 shell: str) -> None:
    argv, ran = _setup(tmp_path, shell)
    screen.tmux("-f", "/dev/null", "new-session", "-d", "-s", "qc", "-x", "160", "-y", "50",
                *argv)
    screen.wait(lambda t: PROMPT.rstrip() in t, "the first prompt")

    # The risky line: the finding and the question, and nothing ran.
    screen.keys(RISKY, "Enter")
    text = screen.wait(lambda t: ASK in t, "the question")
    assert "QC201 1:34 `pkill -f train.py`" in text
    assert "Run this instead" in text and "bash -s <<'EOF'" in text
    assert not ran.exists()

    # n: not run. bash put the line in the history and gave a new prompt; zsh kept it in the
    # editor (Ctrl-U clears it). Then a marker command proves the shell went on.
    screen.keys("n")
    if shell == "zsh":
        screen.wait(lambda t: "not run" in t, "zsh's not-run message")
        screen.keys("C-u")
    screen.keys("echo step-$((20+22))", "Enter")
    screen.wait(lambda t: "\nstep-42" in t, "the marker command's output")
    assert not ran.exists()

    # y: the line runs as typed.
    asked = screen.text().count(ASK)
    screen.keys(RISKY, "Enter")
    screen.wait(lambda t: t.count(ASK) > asked, "the question again")
    screen.keys("y")
    deadline = time.monotonic() + WAIT
    while not ran.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ran.exists(), screen.text()
    deadline = time.monotonic() + WAIT
    while ran.stat().st_size == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ran.read_text().splitlines() == [
        "-o", "BatchMode=yes", "h", "pkill -f train.py; nohup python3 train.py &"]

    # A harmless line runs with no question.
    asked = screen.text().count(ASK)
    before = _prompts(screen.text())
    screen.keys("echo hi", "Enter")
    text = screen.wait(lambda t: "\nhi\n" in t and _prompts(t) > before, "echo's output")
    assert text.count(ASK) == asked
    assert os.path.getsize(ran) > 0


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_quotecheck_without_guard_never_asks(tmp_path: Path, screen: Screen,
                                             shell: str) -> None:
    """Exit status 2 is also a usage error (a quotecheck too old to have guard): the line runs,
    no question is asked."""
    from quotecheck.commands.guard import BLOCKED

    argv, ran = _setup(tmp_path, shell)
    assert f"'{BLOCKED}'" in (tmp_path / f"guard.{shell}").read_text()
    (tmp_path / "bin" / "quotecheck").write_text(
        "#!/bin/sh\necho \"Error: No such command 'guard'.\" >&2\nexit 2\n")
    screen.tmux("-f", "/dev/null", "new-session", "-d", "-s", "qc", "-x", "160", "-y", "50",
                *argv)
    screen.wait(lambda t: PROMPT.rstrip() in t, "the first prompt")
    screen.keys(RISKY, "Enter")
    deadline = time.monotonic() + WAIT
    while not ran.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ran.exists() and ASK not in screen.text(), screen.text()


# The history under which bash 5.2.15 aborted ("free(): invalid next size") after the multi-line
# command below, when the snippet read guard's reason with a command substitution.
HISTORY = "".join(line + "\n" for line in (
    'ssh -o BatchMode=yes h "pkill -f train.py; nohup python3 train.py &"',
    'bind -X; bind -p | grep -i "C-m\\|C-q"; type quotecheck',
    'clear; bind -s | grep C-m; READLINE_LINE="ssh h \\"pkill -f x.py; nohup python3 x.py &\\""; '
    'quotecheck guard --command="$READLINE_LINE"; echo st=$?',
    'clear',
    'ssh -o BatchMode=yes h "pkill -f train.py; nohup python3 train.py &"',
    'ssh -o BatchMode=yes h "pkill -f train.py; nohup python3 train.py &"',
    'echo hi',
))


@pytest.mark.parametrize("shell", ["bash", "bash-vi", "zsh"])
def test_command_over_several_lines(tmp_path: Path, screen: Screen, shell: str) -> None:
    """Each line is checked alone; a fragment that does not parse alone is let through, the
    whole command runs as typed, and the shell lives on."""
    argv, _ = _setup(tmp_path, shell)
    (tmp_path / ".bash_history").write_text(HISTORY)
    screen.tmux("-f", "/dev/null", "new-session", "-d", "-s", "qc", "-x", "160", "-y", "50",
                *argv)
    screen.wait(lambda t: PROMPT.rstrip() in t, "the first prompt")
    before = _prompts(screen.text())
    for part in ('echo "a', 'b" \\', "c"):
        screen.keys(part, "Enter")
        time.sleep(0.5)  # keys typed ahead of a check are kept; this only paces the screen
    screen.wait(lambda t: "\na\nb c\n" in t, "the command's output")
    screen.keys("echo al$((1))ve", "Enter")
    text = screen.wait(lambda t: "\nal1ve\n" in t and _prompts(t) > before + 1,
                       "the shell to go on")
    assert ASK not in text
