"""The Python host layer against real python3: what each call hands the operating system.

Each case is run by python3 with an audit hook (``sys.addaudithook``: the interpreter's own
report of ``subprocess.Popen``, ``os.system``, ``os.exec``, ``os.spawn`` with the exact argv or
command) that records the launch and then stops it, so nothing the case names is run. The
trace must hold the same argv (an exec layer) or the same process and text (a shell layer).
Parts the trace marks as known only at run time (an f-string field) may hold anything.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.hosts.python_literals import read_literals
from quotecheck.layers.model import Arg

_HOOK = r'''
import json, runpy, sys
LOG = sys.argv[2]
def hook(event, args):
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn"):
        if event == "subprocess.Popen":
            got = [str(a) for a in args[1]]
        elif event == "os.system":
            got = args[0].decode() if isinstance(args[0], bytes) else args[0]
        elif event == "os.posix_spawn":
            got = [str(a) for a in args[1]]
        else:
            got = [str(a) for a in (args[2] if event == "os.spawn" else args[1])]
        with open(LOG, "a") as f:
            f.write(json.dumps([event, got]) + "\n")
        raise SystemExit(0)
sys.addaudithook(hook)
runpy.run_path(sys.argv[1], run_name="__main__")
'''

CASES = [
    'import subprocess\nsubprocess.run(["ssh", "gpu1", "pkill -f train.py; python3 train.py &"])\n',
    'import subprocess as sp\nsp.check_call("ls -l | wc -l", shell=True)\n',
    'from subprocess import Popen\nPopen(["bash", "-c", "echo $1", "x", "y z"])\n',
    'import subprocess\nsubprocess.run(["echo $0 $1", "a", "b c"], shell=True)\n',
    'import subprocess\nsubprocess.run("echo $0", shell=True, executable="/bin/bash")\n',
    'import os\nos.system("echo \'a  b\'; cd /tmp && ls")\n',
    'import os\nos.popen("printf %s\\\\n x")\n',
    'import os\nos.execvp("python3", ["python3", "-c", "print(1)", ">", "log"])\n',
    'import os\nos.execlp("env", "env", "A=1", "sh", "-c", "echo $A")\n',
    'import os\nos.spawnvp(os.P_WAIT, "true", ["true", "x"])\n',
    'import subprocess\nHOST = "gpu1"\nCMD = "cd /srv && " + "./run.sh"\n'
    'subprocess.run(["ssh", HOST, CMD])\n',
    'import subprocess\nARGS = ["-o", "BatchMode=yes"]\n'
    'subprocess.run(["ssh", *ARGS, "h", "up"])\n',
    'import subprocess\ndef go(d):\n    subprocess.run(["ssh", "h", f"cd {d} && ls {{x}} \\\\t"])\n'
    'go("a b")\n',
    'import subprocess\ndef go(d):\n    subprocess.run("rm -rf %s/%%s" % d, shell=True)\ngo("x")\n',
    'import subprocess\ndef go(d):\n    subprocess.run("tar -C {} -xf {{a}}".format(d), shell=True)'
    '\ngo("x")\n',
    'import subprocess, shlex\ndef go(d):\n    subprocess.run(["ssh", "h", "rm " + shlex.quote(d)])'
    '\ngo("a b")\n',
    'import subprocess\nsubprocess.run(r"echo \\d+ \\n", shell=True)\n',
    'import subprocess\nsubprocess.run("echo " "joined" \' two\', shell=True)\n',
    'import subprocess\nsubprocess.run(["printf", "%s\\n", "\\u00e9\\x41\\101"])\n',
    'import subprocess\nsubprocess.run(["echo", """multi\nline"""])\n',
    'import asyncio\nasyncio.run(asyncio.create_subprocess_exec("ls", "-l", "/"))\n',
    'import asyncio\nasyncio.run(asyncio.create_subprocess_shell("ls | wc"))\n',
    'import subprocess\nsubprocess.getoutput("echo $HOME")\n',
]


def _recorded(case: str, tmp_path: Path) -> tuple[str, list[str] | str]:
    module = tmp_path / "case.py"
    module.write_text(case)
    log = tmp_path / "log.jsonl"
    subprocess.run([sys.executable, "-c", _HOOK, str(module), str(log)], timeout=60,
                   capture_output=True, check=False, cwd=tmp_path)
    [line] = log.read_text().splitlines()
    event, got = json.loads(line)
    return event, got


def _matches(arg: Arg | str, ranges: tuple[tuple[int, int], ...], value: str) -> bool:
    """``value`` is what the trace says, the parts known only at run time aside."""
    text = arg.value if isinstance(arg, Arg) else arg
    pattern, at = "", 0
    for a, b in sorted(ranges):
        pattern += re.escape(text[at:a]) + ".*?"
        at = b
    pattern += re.escape(text[at:])
    return re.fullmatch(pattern, value, re.S) is not None


@pytest.mark.parametrize("case", CASES)
def test_the_trace_holds_what_python_hands_the_system(case: str, tmp_path: Path) -> None:
    event, got = _recorded(case, tmp_path)
    trace = check_source(case, Options(host="python", select=["QC001"])).trace
    assert trace.root.kind == "host" and trace.root.format == "python"
    [child] = [x for x in trace.layers if x.parent == 0]
    if child.kind == "exec":  # an argv: no shell
        assert isinstance(got, list)
        assert len(child.argv) == len(got), (child.argv, got)
        for a, value in zip(child.argv, got, strict=True):
            assert _matches(a, a.dynamic_ranges, value), (a.value, value)
        return
    assert child.kind == "shell" and child.text is not None and child.process
    ranges = tuple(child.dynamic_ranges)
    if event == "os.system":  # libc's system(3) starts `sh -c COMMAND`
        assert isinstance(got, str) and child.process[:2] == ["sh", "-c"]
        assert _matches(child.text, ranges, got)
        return
    assert isinstance(got, list)
    assert child.process[:2] == got[:2]
    assert _matches(child.text, ranges, got[2]), (child.text, got[2])
    assert child.process[3:] == got[3:]


def test_positions_stand_where_the_characters_are_written() -> None:
    case = ('import subprocess\nsubprocess.run(["ssh", "h", "a\\tb" \'c\' r"\\d"'
            ' f"{x}é\\n"])\n')
    trace = check_source(case, Options(host="python", select=["QC001"])).trace
    [view] = trace.root.commands
    last = view.argv[-1]
    assert last.value == "a\tbc\\d{x}é\n"
    written = [case[o] if o is not None else None for o in last.offsets]
    # `\t` stands at its backslash; each other character at itself
    assert written == ["a", "\\", "b", "c", "\\", "d", "{", "x", "}", "é", "\\"]


_LITERAL_TEXT = st.text(
    alphabet=st.sampled_from([*"ab $'\"\\\n\t{}%é", "\x00", "\u2028"]), max_size=20)


@settings(max_examples=300, deadline=None)
@given(text=_LITERAL_TEXT, quote=st.sampled_from(["'", '"', "'''", '"""']),
       split=st.integers(min_value=0, max_value=20))
def test_literals_read_back_to_the_value_python_gives(text: str, quote: str, split: int) -> None:
    """Any string, written as Python writes it (escapes, quotes) in any quote form and cut in
    two implicitly joined literals, reads back to Python's own value, each character placed
    at itself or at the backslash of its escape."""
    head, tail = text[:split], text[split:]
    written = " ".join(_spelled(part, quote) for part in (head, tail))
    got = read_literals(written, 0, len(written))
    assert got is not None and got.value == ast.literal_eval(written) == text
    for ch, at in zip(got.value, got.offsets, strict=True):
        assert at is not None and (written[at] == ch or written[at] == "\\"), (written, ch, at)


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\t": "\\t", "\x00": "\\x00",
            "\u2028": "\\u2028"}


def _spelled(text: str, quote: str) -> str:
    """``text`` as a literal in ``quote``: escapes for what would end it or be read otherwise;
    a newline raw in a triple-quoted literal, escaped in another."""
    body = "".join(_ESCAPES.get(ch, ch) for ch in text)
    body = body.replace("\n", "\n" if len(quote) == 3 else "\\n")
    return quote + body + quote
