"""bats test files: an `@test "name" { ... }` block is a shell function once bats has read it.

bats(1) rewrites each `@test DESCRIPTION {` line into a function definition before bash sees
the file; the rest is bash as written. Parsed raw, the line is a syntax error. Here it becomes
a function header of the same length (`t_______() {`), so every offset stays where it was.
"""

from __future__ import annotations

from quotecheck.lazy_regex import lazy_compile

_TEST = lazy_compile(
    r"(?m)^[ \t]*(@test[ \t]+(?:\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s{]+)[ \t]*)\{")


def is_bats(path: str | None, source: str) -> bool:
    """A bats file: its name ends in `.bats`, or its `#!` line runs bats."""
    if path is not None and path.endswith(".bats"):
        return True
    first = source[:200].split("\n", 1)[0]
    return first.startswith("#!") and "bats" in first


def as_shell(source: str) -> str:
    """``source`` with each `@test ... {` header written as a function header."""
    def header(m: object) -> str:
        assert hasattr(m, "group") and hasattr(m, "start")
        whole: str = m.group(0)
        head: str = m.group(1)
        if len(head) < 5:
            return whole
        return whole[: len(whole) - len(head) - 1] + "t" + "_" * (len(head) - 4) + "() {"
    return _TEST.sub(header, source)
