"""The source text of a Python `if` test, read from lines split once (hosts/python.py): the
same text as ast.get_source_segment, which splits the whole source on every call (a module
with thousands of `if`s went quadratic)."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from quotecheck.hosts.python import _PYTHON_LINES, _segment

_NAMES = st.sampled_from(["a", "sys.platform", "os.name", "é", "名前", "x.y(1)"])
_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def modules(draw: st.DrawFn) -> str:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        end = draw(_ENDS)
        name = draw(_NAMES)
        pad = draw(st.sampled_from(["", "\x0c"]))
        if draw(st.booleans()):
            out.append(f"{pad}if ({name} ==" + "\\" + f"{end}  'win32'):{end}    pass{end}")
        else:
            value = draw(st.sampled_from(["1", '"nt"']))
            out.append(f"{pad}if {name} != {value}: pass{end}")
        if draw(st.booleans()):
            out.append(f"# \u2028 comment{end}")
    return "".join(out)


@given(modules())
def test_the_segment_is_ast_s(source: str) -> None:
    tree = ast.parse(source)
    lines = [line.encode() for line in _PYTHON_LINES.findall(source)]
    tests = [n.test for n in ast.walk(tree) if isinstance(n, ast.If)]
    assert tests
    for test in tests:
        assert _segment(lines, test) == ast.get_source_segment(source, test)
