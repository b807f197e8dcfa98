"""`.ci/run`'s choice of Python: its own venv when the system Python is externally managed
(PEP 668), the system Python otherwise. The detection is `.ci/externally_managed.py`."""

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


def test_ci_run_uses_the_detection_and_its_own_venv() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    assert "if python3 .ci/externally_managed.py; then" in run
    assert "python3 -m venv .venv" in run
    assert '"$python" -m pytest -q -n 2' in run
