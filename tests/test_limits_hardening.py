"""Limits on what quotecheck reads and starts, and no traceback's exit status: `explain -` and
configuration files are bounded, a FIFO as configuration does not hang, max-file-size is a
sane range, `--jobs` is capped, and an internal failure exits 2, never 1 ("findings")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from quotecheck.cli import main
from quotecheck.commands import explain
from quotecheck.commands.check import JOBS_PER_CPU, default_jobs, job_count
from quotecheck.inputs import MAX_INPUT_BYTES

ROOT = Path(__file__).resolve().parent.parent


def quotecheck(*args: str, stdin: int | None = None, timeout: float = 120
               ) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "quotecheck", *args], env=env, stdin=stdin,
                          capture_output=True, timeout=timeout)


def test_explain_reads_standard_input_up_to_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "zeros"
    with big.open("wb") as f:
        f.truncate(MAX_INPUT_BYTES + 10)
    with big.open("rb") as f:
        res = quotecheck("explain", "-", stdin=f.fileno())
    assert res.returncode == 2 and b"too large" in res.stderr, res.stderr[-500:]
    assert b"Traceback" not in res.stderr


def test_a_configuration_device_is_not_read_for_ever(tmp_path: Path) -> None:
    script = tmp_path / "a.sh"
    script.write_text("echo hi\n")
    res = quotecheck("check", "--config", "/dev/zero", str(script))
    assert res.returncode == 2 and b"not a regular file" in res.stderr, res.stderr[-500:]


def test_a_configuration_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "conf.toml"
    os.mkfifo(fifo)
    script = tmp_path / "a.sh"
    script.write_text("echo hi\n")
    # Nobody ever writes to it: opening it to read would block for ever.
    res = quotecheck("check", "--config", str(fifo), str(script), timeout=60)
    assert res.returncode == 2 and b"not a regular file" in res.stderr, res.stderr[-500:]


def test_a_large_configuration_file_is_refused(tmp_path: Path) -> None:
    conf = tmp_path / "q.toml"
    conf.write_text("# padding\n" * 200_000)
    script = tmp_path / "a.sh"
    script.write_text("echo hi\n")
    code = main(["check", "--config", str(conf), str(script)])
    assert code == 2


@pytest.mark.parametrize("value", ["9223372036854775807", '"2 GiB"', "0", "-1"])
def test_max_file_size_out_of_range_is_a_configuration_error(
        value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = tmp_path / ".quotecheck.toml"
    conf.write_text(f"[limits]\nmax-file-size = {value}\n")
    script = tmp_path / "a.sh"
    script.write_text("echo hi\n")
    for command in ("check", "fix"):
        code = main([command, "--config", str(conf), str(script)])
        _, err = capsys.readouterr()
        assert code == 2 and "max-file-size must be a size in bytes from 1 to 1 GiB" in err, err


def test_max_file_size_of_one_gib_is_accepted(tmp_path: Path) -> None:
    conf = tmp_path / ".quotecheck.toml"
    conf.write_text('[limits]\nmax-file-size = "1 GiB"\n')
    script = tmp_path / "a.sh"
    script.write_text("echo hi\n")
    assert main(["check", "--config", str(conf), str(script)]) == 0


def test_jobs_are_capped_per_cpu() -> None:
    cpus = default_jobs()
    assert job_count(99999999) == cpus * JOBS_PER_CPU
    assert job_count(None) == cpus
    assert job_count(1) == 1


def test_many_jobs_asked_still_check_every_file(tmp_path: Path) -> None:
    for i in range(6):
        (tmp_path / f"s{i}.sh").write_text(f"#!/bin/bash\necho {i}\n" * 2000)
    res = quotecheck("check", "--jobs", "99999999", str(tmp_path))
    assert res.returncode == 0, res.stderr[-500:]


def test_an_internal_failure_exits_2_not_1(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(explain, "analyse", broken)
    for fast in (True, False):
        assert main(["explain", "echo hi"], fast=fast) == 2
        _, err = capsys.readouterr()
        assert "internal error (RuntimeError: boom)" in err


def test_an_internal_failure_in_fix_is_an_input_error_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from quotecheck.commands import fix

    real = fix.fix_source

    def sometimes(text: str, *args: object, **kwargs: object) -> object:
        if "boom" in text:
            raise RuntimeError("boom")
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fix, "fix_source", sometimes)
    (tmp_path / "a.sh").write_text("#!/bin/bash\necho boom\n")
    good = tmp_path / "b.sh"
    good.write_text('#!/bin/bash\nssh -o StrictHostKeyChecking=no h "ls"\n')
    code = main(["fix", "--write", "--unsafe-fixes", "--select", "QC301", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2 and "a.sh: internal error" in err
    assert "accept-new" in good.read_text()
