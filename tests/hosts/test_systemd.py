"""The systemd unit reader against systemd.service(5) "Command lines", systemd.syntax(7) and
systemd.unit(5) "Specifiers" (quoted in each test); no systemd runs here."""

from __future__ import annotations

import pytest

from quotecheck.hosts.kinds import host_format
from quotecheck.hosts.systemd import read_unit


def argv(line: str) -> list[str]:
    [launch] = read_unit(f"[Service]\n{line}\n").launches
    return [a.value for a in launch.argv]


@pytest.mark.parametrize(("line", "expected"), [
    # "redirection using "<", "<<", ">", and ">>", pipes using "|" ... are not supported"
    ("ExecStart=/usr/bin/app >> /var/log/app.log 2>&1",
     ["/usr/bin/app", ">>", "/var/log/app.log", "2>&1"]),
    # quotes group words; C-style escapes are read (systemd.syntax(7))
    ("ExecStart=/bin/echo \"a  b\" 'c d' e\\tf \\x41", ["/bin/echo", "a  b", "c d", "e\tf", "A"]),
    # prefixes: "-" failure ignored, "@" the second word is argv[0]
    ("ExecStart=-/bin/true x", ["/bin/true", "x"]),
    ("ExecStart=@/usr/bin/daemon my-daemon --flag", ["my-daemon", "--flag"]),
    # "$$" is a "$"; "%%" is a "%" (systemd.unit(5))
    ("ExecStart=/bin/date +%%F $$HOME", ["/bin/date", "+%F", "$HOME"]),
    # lines ending in a backslash go on, the backslash becoming a blank
    ("ExecStart=/bin/echo a \\\n  b", ["/bin/echo", "a", "b"]),
])
def test_exec_lines_are_split_as_systemd_splits_them(line: str, expected: list[str]) -> None:
    assert argv(line) == expected


def test_variables_and_specifiers_are_known_only_at_run_time() -> None:
    # "${FOO} ... exactly a single argument"; "$FOO as a separate word ... split at
    # whitespace, resulting in zero or more arguments".
    [launch] = read_unit("[Service]\nExecStart=/bin/app ${OPTS} $ARGS %h/x\n").launches
    assert [a.dynamic for a in launch.argv] == [False, True, True, True]
    assert launch.partial  # $ARGS alone may be any number of words
    [plain] = read_unit("[Service]\nExecStart=:/bin/app $HOME\n").launches
    assert [a.value for a in plain.argv] == ["/bin/app", "$HOME"]  # ":" turns it off


def test_only_exec_keys_and_balanced_quotes() -> None:
    src = "[Service]\nEnvironment=A=1\nExecStart=/bin/echo \"open\n# ExecStop=/bin/x\n"
    assert read_unit(src).launches == ()


def test_file_kinds() -> None:
    from pathlib import PurePath

    assert host_format(PurePath("deploy/trainer.service"), "") == "systemd"
    assert host_format(PurePath("deploy/trainer.socket"), "") == "systemd"
