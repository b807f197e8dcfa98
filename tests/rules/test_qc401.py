"""QC401 make-swallows-expansion; real make shows what the shell receives, before and after
the fix."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder

from quotecheck.checker import Options
from quotecheck.fixer import fix_source

CODE = "QC401"
found = Finder(CODE, host="make")


def _shell_gets(makefile: str, tmp_path: Path) -> str:
    """What real make hands the shell for the recipe (`make -n` prints it, runs nothing)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    (tmp_path / "Makefile").write_text(makefile)
    return subprocess.run([make, "-n", "-s"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=30, check=True).stdout


@pytest.mark.parametrize(("recipe", "written", "gets"), [
    ("echo $HOME", "$H", "echo OME"),
    ('echo "$(date +%s)"', "$(date +%s)", 'echo ""'),
    ("test -n $1", "$1", "test -n "),
    ("echo ${USER name}", "${USER name}", "echo "),
])
def test_make_puts_in_nothing_and_the_rule_says_so(recipe: str, written: str, gets: str,
                                                   tmp_path: Path) -> None:
    makefile = f"all:\n\t{recipe}\n"
    assert _shell_gets(makefile, tmp_path).strip() == gets.strip()
    [(line, _col, d)] = found(makefile)
    assert line == 2 and makefile[d.span[0]:d.span[1]] == written
    assert d.severity == "error"


def test_the_fix_gives_the_shell_the_text_as_written(tmp_path: Path) -> None:
    makefile = 'all:\n\ttar czf $HOME/b-$(date +%F).tgz data "$1"\n'
    assert len(found(makefile)) == 3
    result = fix_source(makefile, Options(host="make"))
    assert len(result.applied) == 3
    fixed = result.text
    assert _shell_gets(fixed, tmp_path).strip() == 'tar czf $HOME/b-$(date +%F).tgz data "$1"'
    assert found(fixed) == []


@pytest.mark.parametrize("recipe", [
    "echo $$HOME $(CURDIR) $(MAKE) $@ $< $^",
    "echo $(OUT) $(shell date) $(wildcard *.c) $(HOME) $(BUILD_DIR)",
    "echo ${OUT} $(OUT:.o=.c)",
])
def test_references_make_can_resolve_are_not_reported(recipe: str) -> None:
    assert found(f"OUT = build\nall: a.c\n\t{recipe}\n") == []


def test_a_dollar_before_a_blank_is_dropped_with_the_blank_and_the_fix_keeps_it(
        tmp_path: Path) -> None:
    # openfortivpn's install-config: make reads `$ ` as a variable named by the blank, so sed
    # gets the address `3,s/^/# /` and stops; with `$$ ` real sed comments out lines 3 to the end.
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    makefile = "all:\n\tsed -i -e '3,$ s/^/# /' conf\n"
    assert _shell_gets(makefile, tmp_path).strip() == "sed -i -e '3,s/^/# /' conf"
    [(line, col, d)] = found(makefile)
    assert (line, col, makefile[d.span[0]:d.span[1]], d.severity) == (2, 15, "$ ", "error")
    (tmp_path / "conf").write_text("a\nb\nc\nd\n")
    broken = subprocess.run([make, "-s"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=30, check=False)
    assert broken.returncode != 0 and (tmp_path / "conf").read_text() == "a\nb\nc\nd\n"
    fixed = fix_source(makefile, Options(host="make")).text
    assert found(fixed) == []
    (tmp_path / "Makefile").write_text(fixed)
    subprocess.run([make, "-s"], cwd=tmp_path, capture_output=True, timeout=30, check=True)
    assert (tmp_path / "conf").read_text() == "a\nb\n# c\n# d\n"


def test_a_dollar_that_ends_a_oneshell_line_is_dropped_with_the_newline(tmp_path: Path) -> None:
    makefile = ".ONESHELL:\nall:\n\tgrep -c 'ok$\n\t' f\n"
    assert _shell_gets(makefile, tmp_path).strip() == "grep -c 'ok' f"
    [(line, _col, d)] = found(makefile)
    assert line == 3 and d.message.value("written") == "$\\n"


def test_a_dollar_before_another_character_is_not_reported(tmp_path: Path) -> None:
    # `$\` in a sed pattern: make drops it (what remains still works here), and whether the
    # shell's `$` was meant is not clear: doubling it would hand sed `$\/`.
    makefile = 'all:\n\tsed "s/^#Port 22$\\/Port 22/g" f\n'
    assert _shell_gets(makefile, tmp_path).strip() == 'sed "s/^#Port 22/Port 22/g" f'
    assert found(makefile) == []


def test_only_recipes_are_read() -> None:
    # A variable's value is make's own text: `$H` there is the author's make reference.
    assert found("X = $H\nall:\n\techo ok\n") == []
