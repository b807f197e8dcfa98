"""Every value the analysis builds has a size budget (issue 26, "Bounded values").

Each script below makes some value grow without bound: a doubling assignment, an array doubled,
a parameter passed down a chain of functions, a known value read thousands of times in one
command, `$(...)` nested thousands deep. The real CLI checks it in a child process whose
address space is capped (``RLIMIT_AS``): it must finish with a normal exit code (1: findings),
say where a value was left unknown (QC002, "known only at run time"), and still make the
findings that do not depend on that value (QC101 on the `$HOME` an ssh line expands here).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from quotecheck.limits import MAX_VALUE_CHARS
from quotecheck.parsing.parse import parse_script
from quotecheck.values import analyse_values

ROOT = Path(__file__).resolve().parent.parent
ADDRESS_SPACE = 1024 * 1024 * 1024  # the child's cap: the run needed 3 GB and died
NAMES = "ABCDEFGHIJKL"
# A finding that does not depend on any value the script builds.
BESIDE = 'ssh backup "echo $HOME"\n'


def doubling(step: str, depth: int) -> str:
    """`A=aaa`, then each name built of the one before by ``step`` (``{p}``: the previous)."""
    lines = ["A=" + "a" * 40]
    lines += [f"{n}=" + step.format(p=p) for p, n in pairwise(NAMES[:depth])]
    return "\n".join(lines) + "\n"


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def check(tmp_path: Path, text: str) -> tuple[int, list[dict[str, Any]]]:
    path = tmp_path / "grow.sh"
    path.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "quotecheck", "check", "--no-config", "--format", "json",
         "--severity", "hint", str(path)],
        capture_output=True, text=True, env=env, preexec_fn=_cap, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert "internal error" not in done.stderr
    return done.returncode, json.loads(done.stdout)["files"][0]["diagnostics"]


def codes(found: list[dict[str, Any]], code: str) -> list[str]:
    return [d["message"] for d in found if d["code"] == code]


def home_on_backup(found: list[dict[str, Any]]) -> bool:
    return any("$HOME" in m and "backup" in m for m in codes(found, "QC101"))


def test_eight_names_each_eight_times_the_last(tmp_path: Path) -> None:
    """The issue's script: `B=$A$A$A$A$A$A$A$A`, eight names deep (63 MB for the last)."""
    text = "#!/bin/sh\n" + doubling("${p}" * 8, 8) + 'ssh h "echo $H"\n' + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    notes = codes(found, "QC002")
    # The first name past the budget is said, at its assignment (A is 40 characters, E is
    # 40 * 8**4 = 163,840); the ones built from it are unknown because it is.
    assert any("`E`" in m and "64 KiB" in m for m in notes), notes
    assert [d["range"]["start"]["line"] for d in found if d["code"] == "QC002"] == [5]
    assert home_on_backup(found)


@pytest.mark.parametrize("step", ['"${p}${p}"', "${{{p}}}${{{p}}}${{{p}}}${{{p}}}",
                                  'x"${p}"y"${p}"'])
def test_doubling_spelled_otherwise(tmp_path: Path, step: str) -> None:
    text = "#!/bin/sh\n" + doubling(step, 12) + 'ssh h "echo $L"\n' + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    assert any("64 KiB" in m for m in codes(found, "QC002"))
    assert home_on_backup(found)


def test_appending_to_itself(tmp_path: Path) -> None:
    text = "#!/bin/bash\nA=" + "a" * 40 + "\n" + 'A+="$A"\n' * 40 + 'ssh h "echo $A"\n' + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    assert any("`A`" in m and "64 KiB" in m for m in codes(found, "QC002"))
    assert home_on_backup(found)


@pytest.mark.parametrize("grow", ['a=("${a[@]}" "${a[@]}")\n', 'a+=("${a[@]}")\n'])
def test_a_long_array(tmp_path: Path, grow: str) -> None:
    text = ("#!/bin/bash\na=(xxxxxxxx yyyyyyyy zzzzzzzz)\n" + grow * 40
            + 'ssh h "echo ${a[*]}"\n' + BESIDE)
    code, found = check(tmp_path, text)
    assert code == 1
    assert any("`a`" in m and "64 KiB" in m for m in codes(found, "QC002"))
    assert home_on_backup(found)


def test_a_wide_literal_array(tmp_path: Path) -> None:
    """An array written out with 100,000 elements: over the budget, no note needed beyond
    the one for it, and the ssh line beside it is still judged."""
    elements = " ".join(f"element{i}" for i in range(100_000))
    text = f"#!/bin/bash\na=({elements})\nssh h \"echo ${{a[*]}}\"\n" + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    assert any("`a`" in m for m in codes(found, "QC002"))
    assert home_on_backup(found)


def test_one_command_reading_a_known_value_thousands_of_times(tmp_path: Path) -> None:
    """Each value is within the budget (D: 20,480 characters), but 2,000 reads of it in one
    ssh command would join 40 MB of text."""
    reads = " ".join(["$D"] * 2000)
    text = "#!/bin/sh\n" + doubling("${p}" * 8, 4) + f'ssh h "echo {reads}"\n' + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    assert any("this command reads" in m and "64 KiB" in m for m in codes(found, "QC002"))
    assert home_on_backup(found)


def test_a_parameter_passed_down_a_chain_of_functions(tmp_path: Path) -> None:
    names = "fghijk"
    text = "#!/bin/sh\n" + "".join(f'{a}() {{ {b} "$1$1$1$1$1$1$1$1"; }}\n'
                                   for a, b in pairwise(names))
    text += 'k() { ssh h "echo $1"; }\nf ' + "a" * 100 + "\n" + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    assert home_on_backup(found)


@pytest.mark.parametrize("opening, closing", [("$(echo ", ")"), ('"$(echo ', ')"')])
def test_substitutions_nested_thousands_deep(tmp_path: Path, opening: str,
                                             closing: str) -> None:
    text = "#!/bin/sh\necho " + opening * 3000 + "x" + closing * 3000 + "\n" + BESIDE
    code, found = check(tmp_path, text)
    assert code == 1
    assert any("not analysed" in m for m in codes(found, "QC002"))
    assert home_on_backup(found)


def test_the_values_themselves() -> None:
    """Within the budget a value is exact; past it only its kind is known, as for every
    value built of it (the analysis never holds more than a few budgets of text)."""
    text = doubling("${p}" * 8, 8) + "echo end\n"
    values = analyse_values(parse_script(text, "sh"))
    end = text.index("echo end")
    d = values.at("D", end)
    assert d.kind == "exact" and d.alts is not None
    assert d.alts[0][0][0] == "a" * (40 * 8**3)
    assert MAX_VALUE_CHARS < 40 * 8**4
    for name in "EFGH":
        # Not the text; at most its kind (all plain characters: one plain word).
        k = values.at(name, end)
        assert k.alts is None and k.kind in ("word", "unknown"), (name, k.kind)
