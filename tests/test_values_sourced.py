"""The value analysis across `source`: a file that was read (--external-sources) makes its
assignments known where the script sources it, placed on its own lines; any other `source`
may change every variable."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from quotecheck.layers.sourced import MAX_SOURCED_TEXT, SourcedFiles
from quotecheck.limits import Limits
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.tree import Script, walk
from quotecheck.parsing.words import Word
from quotecheck.sourcemap import SourceMap
from quotecheck.values import Knowledge, analyse_values


class Sourced:
    """A file as the resolver gives it (layers.sourced.SourcedFile)."""

    def __init__(self, name: str, text: str, settles: bool = True) -> None:
        self.name = name
        self.script: Script = parse_script(text, origin=SourceMap.from_offsets([None] * len(text)))
        self.settles = settles


def resolver(files: dict[str, Sourced]) -> Callable[[Word], Sourced | None]:
    def resolve(word: Word) -> Sourced | None:
        return files.get(word.value.removeprefix("./"))
    return resolve


def at(src: str, marker: str, files: dict[str, str] | None = None,
       name: str | None = None) -> Knowledge:
    """What the read marked by the last ``marker`` gives, with ``files`` (name -> text) read
    where the script sources them (None: no file is read)."""
    sources = None if files is None else resolver(
        {n: Sourced(n, t) for n, t in files.items()})
    values = analyse_values(parse_script(src), None, sources)
    return values.at(name or marker.lstrip("${").split("[")[0].rstrip("}"), src.rindex(marker))


CONFIG = "# settings\nSSH_OPTS=\"-o BatchMode=yes\"\nAPP=shopfront\n"


def test_a_sourced_assignment_is_known_on_its_files_line() -> None:
    k = at(". ./config.sh\necho $APP\n", "$APP", {"config.sh": CONFIG})
    assert k.exact == ("shopfront",)
    assert k.lines == () and k.sourced == (("config.sh", 3),)
    assert k.describe() == "`$APP` is `shopfront` (config.sh line 3)"
    # Its characters were written in the other file: no offsets into the script.
    assert k.alts is not None and all(o is None for o in k.alts[0][0][1])
    # Placed at the `source` command of the script.
    assert k.offsets == (0,)


@pytest.mark.parametrize("text, name, exact", [
    ("export APP=shopfront\n", "APP", ("shopfront",)),
    ("readonly APP='shop front'\n", "APP", ("shop front",)),
    ("declare -x APP=a\n", "APP", ("a",)),
    ("A=web; B=$A-1.example\n", "B", ("web-1.example",)),
    ("if c; then APP=a; else APP=b; fi\n", "APP", ("a", "b")),
    ("if c; then APP=a; else exit 1; fi\n", "APP", ("a",)),
    ("for h in a b; do APP=$h; done\n", "APP", None),
    ("APP=$(cat /etc/app)\n", "APP", None),
    ("APP=a\neval \"$x\"\n", "APP", None),
    ("APP=a\n. ./other.sh\n", "APP", None),  # one level: an unknown `source` there
    ("APP=a\n[ -f x ] && return\nAPP=b\n", "APP", None),  # may end the sourcing early
    ("set_app() { APP=$1; }\nAPP=a\nset_app b\n", "APP", None),
])
def test_the_sourced_file_follows_the_flow_rules(text: str, name: str,
                                                 exact: tuple[str, ...] | None) -> None:
    got = at("source ./c.sh\necho $" + name + "\n", "$" + name, {"c.sh": text}).exact
    assert (None if got is None else sorted(got)) == (None if exact is None else sorted(exact))


def test_arrays_of_a_sourced_file() -> None:
    k = at('. ./c.sh\nssh "${O[@]}" h\n', "${O[@]}", {"c.sh": "O=(-n -o 'BatchMode=yes')\n"})
    assert k.arrays == (("-n", "-o", "BatchMode=yes"),)


@pytest.mark.parametrize("src, exact", [
    # a later assignment in the script overrides
    (". ./c.sh\nAPP=x\necho $APP\n", ("x",)),
    # one before is overridden by the file
    ("APP=x\n. ./c.sh\necho $APP\n", ("shopfront",)),
    # a name the file does not set keeps its value: the file was read
    ("X=1\n. ./c.sh\necho $X\n", ("1",)),
    # sourced on one path only
    ("APP=x\nif c; then . ./c.sh; fi\necho $APP\n", ("x", "shopfront")),
    ("APP=x\n[ -f c.sh ] && . ./c.sh\necho $APP\n", ("x", "shopfront")),
    # the file reads what the script set before
    ("BASE=/srv\n. ./c.sh\necho $DIR\n", ("/srv/shopfront",)),
    # a function of the script called after the `source`
    ("show() { echo $APP; }\n. ./c.sh\nshow\n", ("shopfront",)),
    # sourced in a function: known in its body after the `source`
    ("f() { . ./c.sh; echo $APP; }\nf\n", ("shopfront",)),
])
def test_the_script_around_the_source(src: str, exact: tuple[str, ...]) -> None:
    files = {"c.sh": "APP=shopfront\nDIR=$BASE/$APP\n"}
    marker = "$DIR" if "$DIR" in src else "$APP" if "$APP" in src else "$X"
    got = at(src, marker, files).exact
    assert got is not None and sorted(got) == sorted(exact)


def test_a_function_of_the_sourced_file_may_assign_when_the_script_calls_it() -> None:
    files = {"lib.sh": "set_app() { APP=$1; }\n"}
    assert at(". ./lib.sh\nAPP=x\nset_app y\necho $APP\n", "$APP", files).exact is None
    # ... and so may a function of the script that calls it
    src = ". ./lib.sh\nAPP=x\nsetup() { set_app y; }\nsetup\necho $APP\n"
    assert at(src, "$APP", files).exact is None


def test_a_function_calling_a_sourcing_function_may_change_anything() -> None:
    src = "load() { . ./c.sh; }\nAPP=x\nload\necho $APP\n"
    assert at(src, "$APP", {"c.sh": "APP=y\n"}).exact is None


@pytest.mark.parametrize("src", [
    "X=1\nsource ./config.sh\necho $X\n",
    "X=1\n. ./config.sh\necho $X\n",
    "X=1\n. ./missing.sh\necho $X\n",
    "X=1\nfor f in a b; do . ./config.sh; done\necho $X\n",
    "f() { . ./config.sh; }\nX=1\nf\necho $X\n",
])
def test_a_source_not_read_may_change_every_variable(src: str) -> None:
    # Without the files (or a file not found): what was known before is not after.
    assert at(src, "$X").exact is None
    assert at(src, "$X", {}).exact is None
    # config.sh read and not setting X: X keeps its value (where it is not in a loop).
    if "missing" not in src and "for" not in src and "f()" not in src:
        assert at(src, "$X", {"config.sh": CONFIG}).exact == ("1",)


def test_a_file_that_does_not_settle_is_not_read() -> None:
    files = {"c.sh": Sourced("c.sh", "APP=y\n", settles=False)}
    values = analyse_values(parse_script("APP=x\n. ./c.sh\necho $APP\n"), None, resolver(files))
    assert values.at("APP", 20).exact is None


def test_sourced_and_own_lines_are_both_named() -> None:
    k = at("if c; then . ./c.sh; else APP=x; fi\necho $APP\n", "$APP",
           {"c.sh": "\nAPP=y\n"})
    assert k.describe() == "`$APP` is one of `y`, `x` (line 1, c.sh line 2)"
    unknown = at(". ./c.sh\necho $APP\n", "$APP", {"c.sh": "APP=$(cat f)\n"})
    assert unknown.describe() == \
        "`$APP` is set on c.sh line 1 to a value not known before run time"


def source_words(src: str) -> list[Word]:
    return [c.words[1] for c, _ in walk(parse_script(src)) if c.words[0].value == "."]


def test_files_are_read_once_and_bounded(tmp_path: Path) -> None:
    (tmp_path / "config.sh").write_text(CONFIG)
    (tmp_path / "big.sh").write_text("APP=x\n" + "#" * MAX_SOURCED_TEXT + "\n")
    (tmp_path / "broken.sh").write_text("APP=x\nif then\n")
    files = SourcedFiles(str(tmp_path), "bash", Limits(), float("inf"))
    first, second = (files.resolve(w) for w in source_words(
        '. "$(dirname "$0")/config.sh"\n. ./config.sh\n'))
    assert first is not None and first is second and first.settles
    assert first.name == "config.sh"
    for name in ("big.sh", "broken.sh"):
        [word] = source_words(f". ./{name}\n")
        got = files.resolve(word)
        assert got is not None and not got.settles
    [missing] = source_words(". ./none.sh\n")
    assert files.resolve(missing) is None
    # Named by an absolute path: the file of the machine running the check.
    [absolute] = source_words(f". {tmp_path}/config.sh\n")
    got = files.resolve(absolute)
    assert got is not None and not got.settles
