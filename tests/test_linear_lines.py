"""One long command line costs time linear in its length (issue 26, "Linear time").

Counted, not timed: every Python function call and every call of a built-in made while
``quotecheck check`` runs in this process (``sys.setprofile``), on a line of n commands and on
one of 4n. Linear work gives at most 4x the count (less: the fixed cost of a check does not
grow); work repeated per word over the whole line (a source map scanned per lookup, a snippet
rendered from the whole line for each finding) gives 16x at 4n, and fails.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from quotecheck import cli

# What one command of the line is, and what the line is handed to.
UNITS = ("echo $HOME;", "rm -rf $D/x;", 'x=$HOME; echo "$x" $(date) `id` ${y:-z} | cat;',
         "curl -H \"Authorization: $TOKEN\" $URL;", "cp ~/a $B;", " $D/x ~/a")
WRAPPERS = ('ssh h "{}"', 'sh -c "{}"', "{}", "bash -c '{}'", 'sudo sh -c "{}"', "ssh h {}",
            'eval "{}"', "ssh h echo{}")
FORMATS = ("full", "concise", "json", "sarif")
GROWTH = 4.5  # the most ops(4n) may be of ops(n)


@contextlib.contextmanager
def counting() -> Iterator[list[int]]:
    count = [0]

    def profile(_frame: FrameType, event: str, _arg: Any) -> None:
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(None)


def ops(tmp: Path, text: str, fmt: str) -> int:
    """Calls made by ``quotecheck check`` on a file holding ``text`` (its findings all
    written out in ``fmt``)."""
    path = tmp / "line.sh"
    path.write_text(text)
    out = io.StringIO()
    argv = ["check", "--no-config", "--jobs", "1", "--severity", "hint", "--format", fmt,
            str(path)]
    with contextlib.redirect_stdout(out), counting() as count:
        code: object
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code
    assert code in (0, 1), out.getvalue()[-2000:]
    return count[0]


def line(wrapper: str, unit: str, n: int) -> str:
    return "#!/bin/bash\n" + wrapper.format(unit * n) + "\n"


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(wrapper=st.sampled_from(WRAPPERS), unit=st.sampled_from(UNITS),
       fmt=st.sampled_from(FORMATS), n=st.integers(min_value=30, max_value=60))
@example(wrapper='ssh h "{}"', unit="echo $HOME;", fmt="full", n=40)  # the line
@example(wrapper='ssh h "{}"', unit=UNITS[2], fmt="full", n=30)
@example(wrapper="ssh h echo{}", unit=" $D/x ~/a", fmt="concise", n=60)  # n words for ssh
def test_a_line_four_times_as_long_costs_at_most_four_and_a_half_times(
        tmp_path: Path, wrapper: str, unit: str, fmt: str, n: int) -> None:
    ops(tmp_path, line(wrapper, unit, 2), fmt)  # warm: lazy imports and compiled patterns
    short = ops(tmp_path, line(wrapper, unit, n), fmt)
    long = ops(tmp_path, line(wrapper, unit, 4 * n), fmt)
    assert long <= GROWTH * short, (wrapper, unit, fmt, n, short, long, long / short)


def test_the_count_sees_quadratic_work(tmp_path: Path) -> None:
    """The measure itself: a check that redoes the whole line for each of its words is
    caught (here the snippet rendering, with its per-line cache taken away)."""
    from quotecheck.output import check_text

    text4 = line('ssh h "{}"', "echo $HOME;", 120)
    text1 = line('ssh h "{}"', "echo $HOME;", 30)
    ops(tmp_path, text1, "full")
    linear = ops(tmp_path, text4, "full") / ops(tmp_path, text1, "full")
    original = check_text.line_cells
    calls = [0]

    def uncached(text: str) -> check_text.Cells:
        calls[0] += 1
        return original(text)

    # Each finding renders its line again, as before the cache.
    render = check_text.render_text

    def per_finding(path: str, index: Any, diagnostics: list[Any], style: Any,
                    width: int = check_text.DEFAULT_WIDTH) -> str:
        return "".join(render(path, index, [d], style, width) for d in diagnostics)

    check_text.line_cells = uncached
    check_text.render_text = per_finding
    try:
        quadratic = ops(tmp_path, text4, "full") / ops(tmp_path, text1, "full")
    finally:
        check_text.line_cells = original
        check_text.render_text = render
    assert calls[0] > 0
    assert linear <= GROWTH < quadratic, (linear, quadratic)
