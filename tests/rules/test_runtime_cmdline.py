"""quotecheck/rules/runtime/cmdline.py: command lines as ps and pgrep show them.

Checked with the real ps and pgrep on a child of this test that exits by itself (`pgrep -P`
lists only this test's children: nothing else is looked at, nothing is killed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from quotecheck.rules.runtime.cmdline import render_cmdline
from quotecheck.rules.runtime.regex import translate
from quotecheck.rules.runtime.selectors import Filter, Selector
from quotecheck.rules.runtime.toolcalls import PgrepCall


def test_render_cmdline_matches_ps_and_pgrep() -> None:
    """A child with a newline, a tab and a CR in its argv, exiting once stdin closes."""
    argv = [sys.executable, "-c", "import sys; sys.stdin.read()", "qc201 one\ntwo\tthree\rfour"]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    try:
        time.sleep(0.3)
        # ps cuts lines at $COLUMNS when it is set (pytest may set it); a script's ps has none.
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        shown = subprocess.run(["ps", "-o", "args=", "-p", str(child.pid)], capture_output=True,
                               text=True, timeout=10, env=env).stdout.rstrip("\n")
        assert shown == render_cmdline(argv)
        assert "qc201 one two?three?four" in shown
        me = str(os.getpid())
        for pattern in ("one two", "one.two", "two\\?three", "two three", "^python", "four$"):
            sel = Selector("pgrep", [], [], pgrep=PgrepCall(
                "pgrep", pattern, 0, True, False, False, False, False, False, False, False,
                "TERM"))
            sel.filters.append(Filter("pgrep", pattern, translate(pattern, "extended"),
                                      False, "extended regex", None, None))  # type: ignore[arg-type]
            real = subprocess.run(["pgrep", "-P", me, "-f", pattern], capture_output=True,
                                  text=True, timeout=10).stdout.split()
            assert (str(child.pid) in real) == (sel.match(argv) is not None), pattern
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=10)
