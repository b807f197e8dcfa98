"""quotecheck/lazy_regex.py: a pattern compiled on first use gives what ``re.compile`` gives, and
every module-level pattern of the package compiles (a bad one would otherwise be found only
when an input first reaches it)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import quotecheck
from quotecheck.lazy_regex import _LazyPattern, lazy_compile

PACKAGE = Path(quotecheck.__file__).resolve().parent


def test_a_lazy_pattern_matches_as_the_compiled_one() -> None:
    lazy = lazy_compile(r"(?P<word>[a-z]+)(\d*)", re.I)
    plain = re.compile(r"(?P<word>[a-z]+)(\d*)", re.I)
    assert "match" not in vars(lazy)  # nothing compiled yet
    text = "Ab12 cd x9"
    found, expected = lazy.search(text), plain.search(text)
    assert found is not None and expected is not None
    assert found.group("word") == expected.group("word") == "Ab"
    assert "match" in vars(lazy)  # compiled once, its methods kept
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert lazy.sub("-", text) == plain.sub("-", text)
    assert lazy.split(text) == plain.split(text)
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (
        plain.pattern, plain.flags, plain.groups, plain.groupindex)
    assert lazy.fullmatch("abc") is not None and lazy.match("1") is None


def test_bytes_patterns_and_the_compiled_object() -> None:
    lazy = lazy_compile(rb"#!\s*(\S+)")
    found = lazy.match(b"#! /bin/sh")
    assert found is not None and found.group(1) == b"/bin/sh"
    compiled = lazy.compiled  # type: ignore[attr-defined]
    assert isinstance(compiled, re.Pattern) and compiled is re.compile(rb"#!\s*(\S+)")


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        lazy_compile("a").no_such_attribute  # type: ignore[attr-defined]  # noqa: B018


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def test_every_module_level_pattern_compiles() -> None:
    found = 0
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional dependency (the LSP's) not installed
            continue
        for value in vars(module).values():
            if isinstance(value, _LazyPattern):
                assert isinstance(value.compiled, re.Pattern)
                found += 1
    assert found >= 50  # the package's module-level patterns are lazy ones
