"""A directory walk runs nothing from the tree, globs and .gitignore match without
backtracking, and a configuration file is bounded before it is parsed (issue 27).

git is run here only to build test repositories and as the judge of .gitignore semantics;
quotecheck itself never runs it.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import examples

import quotecheck
from quotecheck.globs import bad_glob, glob_match

TREE = Path(__file__).resolve().parent.parent
PACKAGE = Path(quotecheck.__file__).resolve().parent
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def quotecheck_run(args: list[str], cwd: Path, *, path: str | None = None,
                   timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(TREE)}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "quotecheck", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


# -- globs: the old regex translation, kept here only as the reference --------------------------

def old_glob_regex(pattern: str) -> re.Pattern[str]:
    """globs.py's translation before issue 27 (backtracks on many ``**``)."""
    anchored = pattern.startswith("/") or "/" in pattern.strip("/")
    body = pattern.strip("/")
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if body.startswith("**", i):
            i += 2
            if i < n and body[i] == "/":
                out.append("(?:[^/]+/)*")
                i += 1
            else:
                out.append(".*")
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = body.find("]", i + 2 if body.startswith(("[!", "[^"), i) else i + 1)
            if close == -1:
                out.append(re.escape(c))
            else:
                inner = body[i + 1:close]
                negate = inner[:1] in ("!", "^")
                inner = inner[1:] if negate else inner
                out.append("[" + ("^/" if negate else "") + inner.replace("\\", "\\\\") + "]")
                i = close
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile(("" if anchored else "(?:.*/)?") + "".join(out))


_glob_atoms = st.sampled_from(["a", "b", ".", "-", "!", "\\", "*", "?", "[ab]", "[!a]",
                               "[^b]", "[a-c]", "[", "]", "x"])
_glob_part = st.one_of(st.just("**"),
                       st.lists(_glob_atoms, min_size=1, max_size=4).map("".join))
glob_patterns = st.builds(
    lambda lead, parts, trail: lead + "/".join(parts) + trail,
    st.sampled_from(["", "/"]), st.lists(_glob_part, min_size=1, max_size=4),
    st.sampled_from(["", "/"]))
_name = st.text(alphabet="ab.-!\\[]x", min_size=1, max_size=3)
glob_paths = st.lists(_name, min_size=1, max_size=5).map("/".join)


def _kept_the_same(pattern: str) -> bool:
    """The patterns whose meaning issue 27 kept: ``**`` only as a whole part (elsewhere the old
    translation let it cross a ``/``, now it is a ``*``, as in .gitignore), and no ``[...]``
    holding a ``/`` (it never matches one now)."""
    parts = pattern.strip("/").split("/")
    return not any("**" in p and p != "**" for p in parts) \
        and re.search(r"\[[^\]]*/", pattern) is None


@pytest.mark.filterwarnings("ignore::FutureWarning")  # the old translation's "[[" in a set
@examples(1.0)
@given(glob_patterns, st.lists(glob_paths, min_size=1, max_size=6))
def test_globs_match_as_the_old_translation_did(pattern: str, paths: list[str]) -> None:
    assume(_kept_the_same(pattern))
    try:
        old = old_glob_regex(pattern)
    except re.error:
        assert bad_glob(pattern) is not None
        return
    assert bad_glob(pattern) is None
    for path in paths:
        assert glob_match(pattern, path) is (old.fullmatch(path) is not None), path


@pytest.mark.parametrize(("pattern", "path", "matches"), [
    ("ci/**", "ci", False),  # everything below, not the directory itself
    ("ci/**", "ci/a/b", True),
    ("**/x", "x", True),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/**/b", "a/b", True),
    ("a**b", "a/x/b", False),  # not a whole part: a `*`, as in .gitignore
    ("a**b", "axxb", True),
    ("*a*a*a*a*b", "a" * 60, False),
    ("*a*a*a*a*b", "a" * 60 + "b", True),
    ("[!a]*", "ba", True),
    ("[!a]*", "ab", False),
])
def test_glob_cases(pattern: str, path: str, matches: bool) -> None:
    assert glob_match(pattern, path) is matches


def _deep_tree(root: Path, depth: int) -> Path:
    deep = root.joinpath(*["d"] * depth)
    deep.mkdir(parents=True)
    (deep / "x.sh").write_text('echo "unterminated\n')
    return deep


def test_a_pattern_of_many_double_stars_answers_on_a_deep_tree(tmp_path: Path) -> None:
    # 30 `**` against 40 directories: the old translation ran past 120 s on this.
    _deep_tree(tmp_path, 40)
    pattern = "/".join(["**"] * 30) + "/nothing"
    (tmp_path / ".gitignore").write_text(pattern + "\n" + "**/" * 30 + "nothing\n")
    (tmp_path / ".git").mkdir()
    done = quotecheck_run(["check", "--no-config", "--extend-exclude", pattern, "."],
                          tmp_path)
    assert done.returncode == 1, done.stderr
    assert "/x.sh:1:6: error QC001" in done.stdout
    assert glob_match("**/" * 24 + "x", "/".join(["d"] * 10) + "/y") is False
