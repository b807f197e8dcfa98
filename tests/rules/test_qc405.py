"""QC405 cron-percent; a real /bin/sh shows what cron's cut leaves, before and after the fix."""

from __future__ import annotations

import subprocess

import pytest
from _support import Finder

from quotecheck.checker import Options, check_source
from quotecheck.fixer import fix_source

CODE = "QC405"
found = Finder(CODE, host="crontab")


def _as_cron_runs(source: str) -> subprocess.CompletedProcess[str]:
    """The entry's command as the crontab reader cuts it, run by /bin/sh -c."""
    [shell] = [x for x in check_source(source, Options(host="crontab", select=["QC001"]))
               .trace.layers if x.kind == "shell"]
    assert shell.process is not None
    return subprocess.run(["/bin/sh", "-c", shell.process[-1]], capture_output=True, text=True,
                          timeout=30)


def test_date_format_is_cut_and_the_fix_restores_it() -> None:
    src = "0 3 * * * echo backup-$(date +%Y).tgz\n"
    [(line, col, d)] = found(src)
    assert (line, col) == (1, 31) and d.severity == "error"
    assert _as_cron_runs(src).returncode == 2  # `echo backup-$(date +`: no closing paren
    fixed = fix_source(src, Options(host="crontab")).text
    assert fixed == "0 3 * * * echo backup-$(date +\\%Y).tgz\n"
    assert found(fixed) == []
    run = _as_cron_runs(fixed)
    assert run.returncode == 0 and run.stdout.startswith("backup-2") and ".tgz" in run.stdout


def test_percent_for_standard_input_is_a_warning_with_an_unsafe_fix() -> None:
    [(_, _, d)] = found("@daily /usr/bin/mail -s report ops%all good%\n")
    assert d.severity == "warning"
    assert [f.applicability for f in d.fixes] == ["unsafe"]


@pytest.mark.parametrize("source", [
    "0 3 * * * date +\\%F > /tmp/today\n",
    "# 0 3 * * * date +%F\n",
    "MAILTO=a%b\n",
])
def test_not_found(source: str) -> None:
    assert found(source) == []
