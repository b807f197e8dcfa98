"""Which files are shell scripts, which are host files, and which are neither (files.py,
hosts/kinds.py): by extension, by the `#!` line in its usual spellings, whatever the file's
mode, and the same for a file named on the command line and one found in a walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from quotecheck.files import host_file_format, is_checked_file, is_shell_script, local_dialect
from quotecheck.walk import WalkRules, walk


@pytest.mark.parametrize(("head", "shell"), [
    ("#!/bin/sh\n", "sh"),
    ("#! /bin/sh\n", "sh"),  # a blank after #!
    ("#!/bin/sh -e\n", "sh"),  # an option
    ("#!/bin/bash   \n", "bash"),  # trailing blanks
    ("#!/usr/bin/env bash\n", "bash"),
    ("#!/usr/bin/env -S bash -eu\n", "bash"),  # env -S splits the rest
    ("#!/usr/local/bin/dash\n", "sh"),
    ("#!/usr/bin/env zsh\n", "zsh"),
])
def test_shebang_spellings(tmp_path: Path, head: str, shell: str) -> None:
    path = tmp_path / "tool"
    path.write_text(head + "echo hi\n")
    assert is_shell_script(path) and is_checked_file(path)
    assert local_dialect(path.read_text(), path) == shell


@pytest.mark.parametrize("head", ["#!/usr/bin/python3\n", "#!/usr/bin/env perl\n", "echo hi\n",
                                  "#!/bin/shell-like\n"])
def test_not_a_shell_shebang(tmp_path: Path, head: str) -> None:
    path = tmp_path / "tool"
    path.write_text(head)
    assert not is_shell_script(path)


@pytest.mark.parametrize("mode", [0o644, 0o755])
def test_the_mode_does_not_decide(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "deploy"
    path.write_text("#!/bin/sh\nls\n")
    path.chmod(mode)
    assert is_shell_script(path)


@pytest.mark.parametrize(("name", "head", "expected"), [
    ("run.sh", "", "shell"),
    ("run.bash", "#!/usr/bin/python3\n", "shell"),  # a shell's extension wins
    ("pkg.postinst", "#!/bin/sh\n", "shell"),  # a dotted name with a shell #!
    ("app.py", "#!/bin/sh\n", "python"),  # another format's extension decides
    ("manage", "#!/usr/bin/env python3\n", "python"),
    ("Makefile", "", "make"),
    ("rules.mk", "", "make"),
    ("Dockerfile.gpu", "", "dockerfile"),
    ("train.Dockerfile", "", "dockerfile"),
    ("Containerfile", "", "dockerfile"),
    ("backup.cron", "", "crontab"),
    ("trainer.service", "", "systemd"),
    ("README.md", "#!/bin/bash\n", None),
    ("notes.txt", "", None),
    ("data.json", "", None),
])
def test_kind_by_name_and_head(tmp_path: Path, name: str, head: str,
                               expected: str | None) -> None:
    path = tmp_path / name
    path.write_text(head + "x\n")
    kind = "shell" if is_shell_script(path) else host_file_format(path)
    assert kind == expected
    assert is_checked_file(path) == (expected is not None)


def test_a_walk_finds_the_same_files(tmp_path: Path) -> None:
    files = {"run.sh": "", "deploy": "#!/bin/sh\n", "app.py": "", "Makefile": "",
             "Dockerfile": "", "README.md": "", "cron.d/backup": "", "cron.d/x.dpkg-old": "",
             "unit.service": "", "notes": "plain\n"}
    for name, head in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(head + "x\n")
    found = {p.relative_to(tmp_path).as_posix() for p in walk(tmp_path, WalkRules())}
    assert found == {"run.sh", "deploy", "app.py", "Makefile", "Dockerfile", "cron.d/backup",
                     "unit.service"}
