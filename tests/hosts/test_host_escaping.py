"""A shell-level edit written into a host file (hosts/escaping.py) gives the host's program
exactly the edited text: Python's own reading of the literal, make's and cron's as the readers
model them (each checked against the real programs in this folder's oracle tests)."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.diagnostics import Edit
from quotecheck.hosts import escaping
from quotecheck.hosts.crontab import read_crontab
from quotecheck.hosts.kinds import read_host
from quotecheck.hosts.make import read_makefile

_TEXT = st.text(alphabet=st.sampled_from(list("ab -'\"\\$%{}();|")), max_size=12)
_QUOTES = st.sampled_from(['"', "'", '"""', "'''"])
_PREFIXES = st.sampled_from(["", "f", "r", "rb"[:1]])


def host_edit(format: str, source: str, edit: Edit) -> Edit | None:
    return escaping.host_edit(read_host(format, source), source, edit)


def _apply(source: str, edit: Edit) -> str:
    return source[:edit.span[0]] + edit.text + source[edit.span[1]:]


@settings(max_examples=300, deadline=None)
@given(replacement=_TEXT, quote=_QUOTES, prefix=_PREFIXES,
       cut=st.tuples(st.integers(0, 6), st.integers(0, 6)))
def test_python_literal_reads_back_to_the_edited_value(replacement: str, quote: str,
                                                       prefix: str,
                                                       cut: tuple[int, int]) -> None:
    value = "pkill -f"  # a plain body: each character at itself
    source = f"x = {prefix}{quote}{value}{quote}\n"
    start = source.index(value)
    a, b = sorted(cut)
    edit = host_edit("python", source, Edit((start + a, start + b), replacement))
    if edit is None:  # refused: a raw string cannot spell a backslash or its quote
        assert "r" in prefix and ("\\" in replacement or quote[0] in replacement)
        return
    fixed = _apply(source, edit)
    tree = ast.parse(fixed)
    got = tree.body[0].value  # type: ignore[attr-defined]
    expected = value[:a] + replacement + value[b:]
    if "f" in prefix:
        assert isinstance(got, ast.JoinedStr)
        assert "".join(v.value for v in got.values) == expected  # type: ignore[attr-defined]
    else:
        assert got.value == expected


def test_python_edits_outside_one_literal_are_refused() -> None:
    source = 'run(["ssh", "h", "ls"])\n'
    between = source.index(", ")
    assert host_edit("python", source, Edit((between, between), " -n")) is None
    across = (source.index("ssh"), source.index("ls"))
    assert host_edit("python", source, Edit(across, "x")) is None
    escape = 'run("a\\tb")\n'
    inside = escape.index("t")  # the `t` of `\t`: an escape would be split
    assert host_edit("python", escape, Edit((inside, inside + 1), "x")) is None


@settings(max_examples=100, deadline=None)
@given(replacement=_TEXT.filter(lambda t: "\n" not in t))
def test_make_recipe_gets_the_edited_text(replacement: str) -> None:
    source = "all:\n\techo pkill -f $$APP\n"
    at = source.index("pkill")
    edit = host_edit("make", source, Edit((at, at + 5), replacement))
    assert edit is not None
    [launch] = read_makefile(_apply(source, edit)).launches
    assert launch.text is not None
    assert launch.text.value == f"echo {replacement} -f $APP"


def test_make_edits_into_a_reference_are_refused() -> None:
    source = "APP = x\nall:\n\tpkill -f $(APP)\n"
    at = source.index("$(APP)")
    assert host_edit("make", source, Edit((at + 2, at + 5), "y")) is None
    assert host_edit("make", source, Edit((at - 3, at), "$x")) is not None


@settings(max_examples=100, deadline=None)
@given(replacement=_TEXT)
def test_crontab_command_gets_the_edited_text(replacement: str) -> None:
    source = "0 3 * * * pkill -f app\n"
    at = source.index("pkill")
    edit = host_edit("crontab", source, Edit((at, at + 5), replacement))
    assert edit is not None
    [launch] = read_crontab(_apply(source, edit)).launches
    # (cron's command starts at its first non-blank)
    assert launch.text is not None
    assert launch.text.value == f"{replacement} -f app".lstrip(" \t")


def test_systemd_lines_are_not_edited() -> None:
    source = "[Service]\nExecStart=/usr/bin/ssh -o StrictHostKeyChecking=no h\n"
    at = source.index("no h")
    assert host_edit("systemd", source, Edit((at, at + 2), "accept-new")) is None
