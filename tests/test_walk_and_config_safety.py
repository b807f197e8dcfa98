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


# -- .gitignore: read by quotecheck, judged against git -------------------------------------------

GIT_ENV = {"HOME": "/nonexistent", "XDG_CONFIG_HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "LC_ALL": "C", "PATH": os.environ.get("PATH", "")}

FILES = ["a.sh", "b.sh", "ab", "a b", "a ", "#x", "!x", "A.SH", "x[1]", "x1", "x\\y", "é.sh",
         "d/a.sh", "d/b.txt", "d/e/a.sh", "d/e/f/g.sh", "d/e/.hidden", "e/d/a.sh", "e/a.sh",
         "foo/bar/baz", "foo/baz", "bar/foo/baz", "deep/a/b/c/x.sh", "d/d/d"]


def _paths() -> list[str]:
    """Every file and directory of FILES, relative."""
    out: set[str] = set()
    for f in FILES:
        parts = f.split("/")
        out.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(out)


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], input=data, env=GIT_ENV,
                          capture_output=True, timeout=60, check=False).stdout


def make_repo(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], env=GIT_ENV, check=True, timeout=60)
    for f in FILES:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("true\n")
    return root


def git_ignored(repo: Path, paths: Iterable[str]) -> set[str]:
    data = b"".join(os.fsencode(p) + b"\0" for p in paths)
    out = git(repo, "check-ignore", "--no-index", "--stdin", "-z", data=data)
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


def our_ignored(repo: Path, paths: Iterable[str]) -> set[str]:
    """What the walk leaves out: the entry, or a directory above it, is ignored."""
    from quotecheck.gitignore import ignores_at

    out = set()
    for p in paths:
        parent, _, name = p.rpartition("/")
        here = ignores_at(repo / parent) if parent else ignores_at(repo)
        if here is None or here.ignored(name, is_dir=(repo / p).is_dir()):
            out.add(p)
    return out


IGNORE_FILES = (".gitignore", "d/.gitignore", "d/e/.gitignore", ".git/info/exclude")


def write_ignores(repo: Path, texts: dict[str, str]) -> None:
    for name in IGNORE_FILES:
        path = repo / name
        if name in texts:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(texts[name].encode("utf-8"))
        elif path.exists():
            path.unlink()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    return make_repo(tmp_path_factory.mktemp("ignores"))


CASES: list[dict[str, str]] = [
    {".gitignore": "*.sh\n"},
    {".gitignore": "/a.sh\n"},
    {".gitignore": "d/\n"},
    {".gitignore": "d\n!d/a.sh\n"},  # no re-including below an excluded directory
    {".gitignore": "d/*\n!d/a.sh\n"},
    {".gitignore": "*.sh\n!a.sh\n"},
    {".gitignore": "!a.sh\n*.sh\n"},  # the last match wins
    {".gitignore": "a.sh/\n"},  # a trailing / is for directories only
    {".gitignore": "e/\n"},
    {".gitignore": "d/a.sh\n"},  # a / in the middle anchors
    {".gitignore": "d/e\n"},
    {".gitignore": "**/a.sh\n"},
    {".gitignore": "**/d/a.sh\n"},
    {".gitignore": "foo/**\n"},
    {".gitignore": "foo/**/baz\n"},
    {".gitignore": "**/foo/baz\n"},
    {".gitignore": "deep/**/x.sh\n"},
    {".gitignore": "a**\n"},
    {".gitignore": "a?sh\n"},
    {".gitignore": "?.sh\n"},
    {".gitignore": "[ab].sh\n"},
    {".gitignore": "[!a].sh\n"},
    {".gitignore": "[^a].sh\n"},
    {".gitignore": "[a-b].sh\n"},
    {".gitignore": "[b-a].sh\n"},
    {".gitignore": "x[[]1]\n"},
    {".gitignore": "x\\[1]\n"},
    {".gitignore": "x[]1]\n"},
    {".gitignore": "[[:upper:]]*\n"},
    {".gitignore": "x[[:digit:]]\n"},
    {".gitignore": "x[[:nope:]]\n"},
    {".gitignore": "x[1\n"},
    {".gitignore": "\\#x\n#x\n"},
    {".gitignore": "\\!x\n"},
    {".gitignore": "!x\n"},
    {".gitignore": "a\\ \n"},
    {".gitignore": "a   \n"},
    {".gitignore": "a\\\n"},
    {".gitignore": "x\\\\y\n"},
    {".gitignore": "\n   \n# a.sh\n"},
    {".gitignore": "*.sh\r\n"},
    {".gitignore": "\ufeffa.sh\n"},
    {".gitignore": "é*\n"},
    {".gitignore": "?.sh\n??.sh\n"},
    {".gitignore": "*\n!*/\n!*.sh\n"},
    {".gitignore": "/*\n!/d\n"},
    {".gitignore": "*.sh", "d/.gitignore": "!a.sh\n"},  # a deeper file beats a shallower
    {"d/.gitignore": "/a.sh\n"},  # anchored to its own directory
    {"d/.gitignore": "e/\n", "d/e/.gitignore": "!a.sh\n"},
    {"d/e/.gitignore": "*\n"},
    {".git/info/exclude": "*.sh\n"},
    {".git/info/exclude": "*.sh\n", ".gitignore": "!b.sh\n"},  # .gitignore beats exclude
    {".gitignore": "d/**/\n"},
    {".gitignore": "**\n"},
    {".gitignore": "/\n!\n"},
]


@needs_git
@pytest.mark.parametrize("texts", CASES, ids=[repr(c) for c in CASES])
def test_gitignore_cases_answer_as_git_does(repo: Path, texts: dict[str, str]) -> None:
    write_ignores(repo, texts)
    paths = _paths()
    assert our_ignored(repo, paths) == git_ignored(repo, paths)


_ignore_atoms = st.sampled_from(
    ["a", "b", "d", "e", "f", "x", "1", "foo", "bar", "baz", ".sh", ".", " ", "#", "!", "é",
     "*", "*", "?", "[ab]", "[!a]", "[a-c]", "[[:alpha:]]", "[]a]", "[z-a]", "[^x]", "[",
     "\\*", "\\ ", "\\#", "\\!", "\\a", "\\"])
_ignore_part = st.one_of(st.sampled_from(["**", "*"]),
                         st.lists(_ignore_atoms, min_size=1, max_size=3).map("".join))
_ignore_line = st.one_of(
    st.builds(lambda neg, lead, parts, trail, spaces: neg + lead + "/".join(parts) + trail
              + spaces,
              st.sampled_from(["", "", "!"]), st.sampled_from(["", "", "/"]),
              st.lists(_ignore_part, min_size=1, max_size=3), st.sampled_from(["", "", "/"]),
              st.sampled_from(["", "", " ", "  "])),
    st.sampled_from(["", "# comment", "*.sh", "d/", "!a.sh"]))
_ignore_text = st.lists(_ignore_line, min_size=1, max_size=5).map(
    lambda lines: "".join(line + "\n" for line in lines))


@needs_git
@examples(0.5)
@given(st.dictionaries(st.sampled_from(IGNORE_FILES), _ignore_text, min_size=1))
def test_gitignore_answers_as_git_does(repo: Path, texts: dict[str, str]) -> None:
    write_ignores(repo, texts)
    paths = _paths()
    assert our_ignored(repo, paths) == git_ignored(repo, paths)


def test_gitignore_rules_without_git(tmp_path: Path) -> None:
    # The same semantics, asserted directly (this runs where git is not installed).
    (tmp_path / ".git").mkdir()
    for f in ("a.sh", "b.sh", "d/a.sh", "d/e/a.sh", "keep/x.sh"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("true\n")
    paths = ["a.sh", "b.sh", "d", "d/a.sh", "d/e", "d/e/a.sh", "keep", "keep/x.sh"]
    (tmp_path / ".gitignore").write_text("*.sh\n!b.sh\nd/e/\nkeep\n!keep/x.sh\n")
    assert our_ignored(tmp_path, paths) == {"a.sh", "d/a.sh", "d/e", "d/e/a.sh", "keep",
                                            "keep/x.sh"}
    (tmp_path / "d" / ".gitignore").write_text("!a.sh\n")
    assert "d/a.sh" not in our_ignored(tmp_path, paths)
    (tmp_path / ".git").rmdir()
    (tmp_path / ".git").write_text("gitdir: elsewhere\n")  # a worktree or a submodule
    assert "a.sh" in our_ignored(tmp_path, paths)
    (tmp_path / ".git").unlink()  # outside a work tree nothing is ignored
    assert our_ignored(tmp_path, paths) == set()


def test_ignore_files_are_read_up_to_their_cap(tmp_path: Path) -> None:
    from quotecheck.gitignore import MAX_IGNORE_BYTES, MAX_IGNORE_LINES

    (tmp_path / ".git").mkdir()
    (tmp_path / "late.sh").write_text("true\n")
    (tmp_path / "early.sh").write_text("true\n")
    (tmp_path / ".gitignore").write_text("early.sh\n" + "#\n" * MAX_IGNORE_LINES + "late.sh\n")
    assert our_ignored(tmp_path, ["early.sh", "late.sh"]) == {"early.sh"}
    (tmp_path / ".gitignore").write_text("early.sh\n" + "#" * MAX_IGNORE_BYTES + "\nlate.sh\n")
    assert our_ignored(tmp_path, ["early.sh", "late.sh"]) == {"early.sh"}


def test_a_hostile_gitignore_is_matched_without_backtracking(tmp_path: Path) -> None:
    from quotecheck.gitignore import ignores_at

    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("\n".join([
        "**/" * 200 + "z", "*a" * 200 + "*b", "/".join(["**"] * 200) + "/z",
        "[" * 5000, "\\" * 5001, "a" + "[[:alpha:]" * 300]) + "\n")
    here = ignores_at(tmp_path)
    assert here is not None
    deep = here
    for _ in range(60):
        deep = deep.child(tmp_path, "a" * 100)  # no file on disk is needed to test names
    assert not deep.ignored("a" * 200, is_dir=False)
    assert deep.ignored("z", is_dir=False)


# -- the walk runs nothing from the tree ---------------------------------------------------------

FIXABLE = "#!/bin/bash\nsh -c 'echo hi &> /dev/null; echo done'\n"
FIXED = "#!/bin/bash\nsh -c 'echo hi > /dev/null 2>&1; echo done'\n"
HOOKS = ("pre-commit", "post-checkout", "post-index-change", "reference-transaction",
         "fsmonitor-watchman", "pre-auto-gc", "post-rewrite")


def hostile_repo(root: Path) -> tuple[Path, Path]:
    """A repository whose configuration runs a program that writes a marker: on
    core.fsmonitor (git status, check-ignore...), any hook, ssh, a pager, an editor, a filter;
    and a ``git`` on PATH that writes it too. Returns (the marker, a PATH holding that git)."""
    marker = root / "MARKER"
    evil = root / "evil"
    evil.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\nexit 1\n")
    evil.chmod(0o755)
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], env=GIT_ENV, check=True, timeout=60)
    hooks = root / "hooks"
    hooks.mkdir()
    for hook in HOOKS:
        (hooks / hook).symlink_to(evil)
    for key, value in [
        ("core.fsmonitor", str(evil)), ("core.hooksPath", str(hooks)),
        ("core.sshCommand", str(evil)), ("core.pager", str(evil)), ("core.editor", str(evil)),
        ("core.askPass", str(evil)), ("core.alternateRefsCommand", str(evil)),
        ("diff.external", str(evil)), ("credential.helper", f"!{evil}"),
        ("filter.evil.clean", str(evil)), ("filter.evil.smudge", str(evil)),
        ("filter.evil.process", str(evil)), ("gpg.program", str(evil)),
        ("sequence.editor", str(evil)), ("uploadpack.packObjectsHook", str(evil)),
    ]:
        subprocess.run(["git", "-C", str(repo), "config", key, value], env=GIT_ENV,
                       check=True, timeout=60)
    (repo / ".gitattributes").write_text("* filter=evil\n")
    (repo / ".gitignore").write_text("ignored.sh\nbuild/\n")
    (repo / "sub").mkdir()
    (repo / "sub" / ".gitignore").write_text("*.bash\n")
    for name in ("kept.sh", "ignored.sh", "build/gen.sh", "sub/kept.sh", "sub/x.bash"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(FIXABLE)
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(evil)
    return marker, bin_dir


@needs_git
def test_a_walk_runs_nothing_the_checked_repository_configures(tmp_path: Path) -> None:
    marker, bin_dir = hostile_repo(tmp_path)
    repo = tmp_path / "repo"
    # The trap is live: git itself runs core.fsmonitor to answer check-ignore.
    git(repo, "check-ignore", "--stdin", "-z", data=b"kept.sh\0")
    assert marker.exists()
    marker.unlink()
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"

    checked = quotecheck_run(["check", "--no-config", "--format", "concise", "."], repo,
                             path=path)
    assert not marker.exists(), marker.read_text()
    assert checked.returncode == 1, checked.stderr
    named = {line.split(":")[0] for line in checked.stdout.splitlines() if " QC207 " in line}
    assert named == {"kept.sh", "sub/kept.sh"}, checked.stdout

    fixed = quotecheck_run(["fix", "--no-config", "--write", "."], repo, path=path)
    assert not marker.exists(), marker.read_text()
    assert fixed.returncode == 0, fixed.stderr
    for name in ("kept.sh", "sub/kept.sh"):
        assert (repo / name).read_text() == FIXED
    for name in ("ignored.sh", "build/gen.sh", "sub/x.bash"):
        assert (repo / name).read_text() == FIXABLE  # left out, so untouched


def _calls_out(tree: ast.AST) -> list[str]:
    """The imports and calls in a module that start another program."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in ("subprocess", "pty")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
                "subprocess", "pty"):
            found.append(node.module or "")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "os" and re.fullmatch(
                    r"system|popen|exec\w*|spawn\w*|posix_spawn\w*", node.attr):
            found.append(f"os.{node.attr}")
    return found


def test_quotecheck_starts_no_program() -> None:
    # The language server's worker and the parallel check fork quotecheck itself (os.fork,
    # multiprocessing), and never exec another program.
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        assert _calls_out(tree) == [], path


# -- configuration files: bounded before they are parsed ------------------------------------------

def _bombs() -> list[tuple[str, str, str]]:
    """(file name, text, what the error says)."""
    return [
        (".quotecheck.toml", "[" + ".".join(["a"] * 200_000) + "]\n", "too large"),
        (".quotecheck.toml", "[" + ".".join(["a"] * 100_000) + "]\n", "dotted parts"),
        (".quotecheck.toml", ".".join(["a"] * 17) + " = 1\n", "dotted parts"),
        (".quotecheck.toml", "x = " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper"),
        (".quotecheck.toml", "x = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n",
         "nested deeper"),
        (".quotecheck.toml", "x = [" * 33 + "\n", "nested deeper"),
        (".quotecheck.toml", "x = 1\n" * 50_000, "too large"),
        ("pyproject.toml", "[tool.black]\n" + "# x\n" * 150_000, "too large"),
        ("pyproject.toml", "[tool." + ".".join(["a"] * 30) + "]\n", "dotted parts"),
        ("pyproject.toml", "[tool.black]\nx = " + "[" * 2000 + "\n", "nested deeper"),
        (".quotecheck.toml", "x = [1,,]\n", "invalid TOML"),
    ]


@pytest.mark.parametrize(("name", "text", "says"), _bombs(),
                         ids=[f"{n}-{s}-{i}" for i, (n, _, s) in enumerate(_bombs())])
def test_a_configuration_bomb_is_a_clear_error(tmp_path: Path, name: str, text: str,
                                               says: str) -> None:
    (tmp_path / "a.sh").write_text("true\n")
    (tmp_path / name).write_text(text)
    done = quotecheck_run(["check", "a.sh"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / name}: " in done.stderr and says in done.stderr, done.stderr
    assert "internal error" not in done.stderr
    done = quotecheck_run(["check", "--config", name, "a.sh"], tmp_path)
    assert done.returncode == 2 and says in done.stderr, done.stderr


def test_real_configurations_are_within_the_bounds(tmp_path: Path) -> None:
    from quotecheck.config import load, parse_config

    assert "tool" in parse_config(TREE / "pyproject.toml")
    text = ("[tool.poetry.group.dev.dependencies]\npytest = {version = \"^8\", extras = "
            "[\"a\", \"b\"]}\n[tool.hatch.envs.default.scripts.nested.a.b]\nx = 1.5\n"
            "y = [[1.0, 2.0], [3.0, {z = [4, [5, [6]]]}]]\n"
            "\"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s\" = 'dots in a [quoted] key'\n"
            "w = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p\n"
            "\"\"\"  # in a string: [[[[ a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q\n"
            "[tool.quotecheck]\nignore = [\"QC208\"]  # {[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n")
    (tmp_path / "pyproject.toml").write_text(text)
    assert load(tmp_path / "pyproject.toml").ignore == ["QC208"]


@pytest.mark.parametrize("text", ["x = " + "[" * 5000 + "]" * 5000 + "\n",
                                  "[" + ".".join(["a"] * 100_000) + "]\n"],
                         ids=["nested", "dotted"])
def test_the_guard_and_the_editor_read_the_configuration_the_same_way(
        tmp_path: Path, text: str) -> None:
    from quotecheck.config import ConfigError
    from quotecheck.lsp.engine import options_for

    (tmp_path / ".quotecheck.toml").write_text(text)
    with pytest.raises(ConfigError, match=r"\.quotecheck\.toml: line 1: "):
        options_for(tmp_path / "a.sh", "true\n", None)
    # The guard allows the command, with a note saying why the configuration was not used.
    done = quotecheck_run(["guard", "--command", "ssh h rm $f"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "configuration not read" in done.stderr and ".quotecheck.toml: line 1" in done.stderr
    assert "internal error" not in done.stderr
