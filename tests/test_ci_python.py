"""`.ci/run`'s choice of Python: the `.venv` README's quick start made, where there is one;
else a venv it creates when the system Python is externally managed (PEP 668), the system
Python otherwise. The detection is `.ci/externally_managed.py`; `.ci/run` itself runs for real
with stubs for python3, dpkg-query and apt-get."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "externally_managed.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("externally_managed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_marker_file_decides(tmp_path: Path) -> None:
    detect = _module().externally_managed
    assert detect(tmp_path, "/usr", "/usr") is False
    (tmp_path / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=use a venv\n")
    assert detect(tmp_path, "/usr", "/usr") is True
    # Inside a venv pip may install, whatever the base interpreter says.
    assert detect(tmp_path, "/work/.venv", "/usr") is False


def test_the_script_answers_for_the_interpreter_that_runs_it() -> None:
    marker = Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED"
    expected = 0 if marker.is_file() and sys.prefix == sys.base_prefix else 1
    assert subprocess.run([sys.executable, str(SCRIPT)], check=False).returncode == expected


def test_a_venv_is_never_externally_managed(tmp_path: Path) -> None:
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "v")],
                          capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip("venv cannot be created here")
    python = tmp_path / "v" / "bin" / "python3"
    assert subprocess.run([str(python), str(SCRIPT)], check=False).returncode == 1


# A stub program: one line per run (`name<TAB>argv...`, a run of .venv/bin/python3 named
# `venv`); the system python3 also answers `.ci/externally_managed.py` with $CI_TEST_MANAGED
# and makes a venv holding this stub for `-m venv .venv`.
_STUB = """#!/bin/bash
case "$0" in *.venv/bin/*) name=venv ;; *) name=${0##*/} ;; esac
{ printf '%s' "$name"; printf '\\t%s' "$@"; echo; } >> "$CI_TEST_LOG"
case "$name $*" in
  "python3 .ci/externally_managed.py") exit "$CI_TEST_MANAGED" ;;
  "python3 -m venv .venv") mkdir -p .venv/bin && cp "$0" .venv/bin/python3 ;;
  dpkg-query*) printf 'install ok installed' ;;
esac
"""


def _ci_run(tmp_path: Path, *, managed: bool, venv: bool) -> list[list[str]]:
    """Run a copy of `.ci/run` in a tree of its own, with stubs for the system python3,
    dpkg-query and apt-get on PATH: the runs of the programs it started, in order (a run of
    .venv/bin/python3 is named `venv`)."""
    tree = tmp_path / "tree"
    (tree / ".ci").mkdir(parents=True)
    for name in ("run", "externally_managed.py"):
        (tree / ".ci" / name).write_bytes((ROOT / ".ci" / name).read_bytes())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "dpkg-query", "apt-get"):
        stub = bin_dir / name
        stub.write_text(_STUB)
        stub.chmod(0o755)
    if venv:
        subprocess.run([str(bin_dir / "python3"), "-m", "venv", ".venv"], cwd=tree,
                       check=True, env=_env(tmp_path, managed))
        (tmp_path / "log").unlink()
    done = subprocess.run(["bash", str(tree / ".ci" / "run")], env=_env(tmp_path, managed),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return [line.split("\t") for line in (tmp_path / "log").read_text().splitlines()]


def _env(tmp_path: Path, managed: bool) -> dict[str, str]:
    return {"PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "CI_TEST_LOG": str(tmp_path / "log"),
            "CI_TEST_MANAGED": "0" if managed else "1"}


_STEPS = [["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", ".[dev]"],
          ["-m", "ruff", "check", "quotecheck", "tests"], ["-m", "mypy"],
          ["-m", "pytest", "-q", "-n", "2"]]


@pytest.mark.parametrize("managed", [False, True], ids=["system-pip-allowed", "pep668"])
def test_ci_run_uses_an_existing_venv_whatever_the_system_python(tmp_path: Path,
                                                                 managed: bool) -> None:
    runs = _ci_run(tmp_path, managed=managed, venv=True)
    assert [r[1:] for r in runs if r[0] == "venv"] == _STEPS
    # The system Python is not even asked, and no venv is made.
    assert [r for r in runs if r[0] == "python3"] == []


def test_ci_run_creates_the_venv_when_the_system_python_is_managed(tmp_path: Path) -> None:
    runs = _ci_run(tmp_path, managed=True, venv=False)
    assert [r for r in runs if r[0] == "python3"] == [
        ["python3", ".ci/externally_managed.py"], ["python3", "-m", "venv", ".venv"]]
    assert [r[1:] for r in runs if r[0] == "venv"] == _STEPS
    # python3-venv is among the packages it checks for.
    assert ["dpkg-query", "-W", "-f=${Status}", "python3-venv"] in runs


def test_ci_run_uses_the_system_python_when_pip_may_install(tmp_path: Path) -> None:
    runs = _ci_run(tmp_path, managed=False, venv=False)
    assert [r[1:] for r in runs if r[0] == "python3"] == [[".ci/externally_managed.py"],
                                                            *_STEPS]
    assert not [r for r in runs if r[0] == "venv"]
    assert ["dpkg-query", "-W", "-f=${Status}", "python3-venv"] not in runs
