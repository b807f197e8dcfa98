"""QC001 parse-error: what makes the first syntax error of a file less than an error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source

# apache/ambari, ambari-funtest/src/test/resources/stacks/HDP/2.0.7/services/HIVE/package/
# files/pigSmoke.sh (Apache-2.0): a Pig Latin script named .sh, handed to pig, not to a shell.
PIG = ("# Licensed to the Apache Software Foundation (ASF)\n#\n\n"
       "A = load 'passwd' using PigStorage(':');\n"
       "B = foreach A generate \\$0 as id;\n"
       "store B into 'pigsmoke.out';\n")


def qc001(src: str, path: str | None) -> list[tuple[int, str, str]]:
    result = check_source(src, Options(severity="info", select=["QC001"]), path=path)
    return [(src.count("\n", 0, d.span[0]) + 1, d.severity, d.text)
            for d in result.diagnostics]


def test_a_file_without_a_shebang_whose_first_command_fails_may_not_be_shell() -> None:
    [(line, severity, text)] = qc001(PIG, "files/pigSmoke.sh")
    assert line == 4 and severity == "info"
    assert "may not be a shell script" in text


@pytest.mark.parametrize(("src", "path"), [
    ("#!/bin/sh\n" + PIG, "files/pigSmoke.sh"),  # its #! line says it is shell
    ("echo start\nif then\n", "run.sh"),  # a command parsed before the error
    ("A = load 'passwd' using PigStorage(':');\n", None),  # typed at a prompt
    ("# lib\nif then\n", "lib.sh"),  # a shell text, broken
    ('echo "unterminated\n', "x.sh"),
])
def test_the_first_syntax_error_of_a_shell_text_stays_an_error(src: str,
                                                              path: str | None) -> None:
    assert [s for _, s, _ in qc001(src, path)][:1] == ["error"], src


def test_bash_rejects_the_pig_text(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    (tmp_path / "pigSmoke.sh").write_text(PIG)
    res = subprocess.run([bash, "-n", str(tmp_path / "pigSmoke.sh")], capture_output=True,
                         text=True, timeout=10)
    assert res.returncode == 2 and "syntax error" in res.stderr
