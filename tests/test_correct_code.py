"""Correct code stays clean under every rule, and the seed gets exactly what it should.

The idioms are the ones a serious user writes on purpose; a linter that flags them is turned off.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source
from quotecheck.files import local_dialect
from quotecheck.positions import LineIndex

ROOT = Path(__file__).resolve().parent.parent

CORRECT = {
    "close-reopen-quote": "ssh -n -o BatchMode=yes -o ConnectTimeout=5 h 'echo '\\''it is'\\'''",
    "double-in-single": "sh -c 'echo '\"'\"'it is'\"'\"''",
    "escaped-awk-field": "ps aux | awk \"{print \\$2}\"",
    "printf-q-args": "ssh -n -o BatchMode=yes -o ConnectTimeout=5 h \"$(printf '%q ' \"$@\")\"",
    "positional-arg": "sh -c 'cat \"$1\"' sh \"$x\"",
    "bracket-grep-not-in-cmdline": "ps aux | grep '[n]ginx: master' | wc -l",
    "bash-s-quoted-heredoc": (
        "ssh -o BatchMode=yes -o ConnectTimeout=5 h bash -s <<'EOF'\n"
        "set -euo pipefail\ncd /srv/app\nsource venv/bin/activate\necho \"$HOME\"\nEOF\n"),
    # what Python's shlex.quote gives, applied once per layer (built by quotecheck.quoting)
    "shlex-quote-per-layer": (
        "ssh -n -o BatchMode=yes -o ConnectTimeout=5 h "
        + shlex.quote("sudo -u svc sh -c " + shlex.quote("printf %s " + shlex.quote("a b")))),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_no_warning_or_error_on_correct_code(name: str) -> None:
    result = check_source(CORRECT[name], Options(severity="warning"))
    assert not result.diagnostics, [(d.code, d.text) for d in result.diagnostics]


def test_seed_findings_at_their_places() -> None:
    path = ROOT / "fixtures" / "dflash" / "restart.sh"
    text = path.read_text()
    result = check_source(text, Options(dialect=local_dialect(text)), str(path))
    index = LineIndex(text)
    found = {(d.code, index.position(d.span[0])[0] + 1, index.position(d.span[0])[1] + 1)
             for d in result.diagnostics}
    expected = {("QC201", 2, 15), ("QC205", 4, 1), ("QC205", 6, 1), ("QC206", 7, 1),
                ("QC207", 7, 1), ("QC210", 9, 56), ("QC301", 1, 8)}
    assert expected <= found, sorted(found)
    qc201 = next(d for d in result.diagnostics if d.code == "QC201")
    for evidence in ("python3 train_dflash", "9:56", 'echo "Old killed"', "255"):
        assert evidence in qc201.text


def test_corrected_launch_is_clean_at_warning_level() -> None:
    path = ROOT / "fixtures" / "dflash" / "restart.fixed.sh"
    text = path.read_text()
    result = check_source(text, Options(dialect=local_dialect(text), severity="warning"),
                          str(path))
    assert not result.diagnostics, [(d.code, d.text) for d in result.diagnostics]
