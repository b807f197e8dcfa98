"""The README's options are the command line's: the ruff/ShellCheck table claims only options
(and choices) that `--help` lists, and every option of `check` is documented."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from quotecheck.cli_options import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def tables() -> dict[str, list[tuple[str, str]]]:
    """The rows (their tool's cell, quotecheck's cell) of each table of the section, by the
    name of the tool in the header."""
    start = README.index("### For ruff and ShellCheck users")
    section = README[start:README.index("\n### ", start + 1)]
    out: dict[str, list[tuple[str, str]]] = {}
    tool = ""
    for line in section.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if cells[1] == "quotecheck":
            tool = cells[0]
            out[tool] = []
        else:
            out[tool].append((cells[0], cells[1].replace("\\|", "|")))
    return out


def help_text(command: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "quotecheck", command, "--help"],
                          capture_output=True, text=True, timeout=120, check=True,
                          env={"PYTHONPATH": str(ROOT), "COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    return proc.stdout


def claims(cell: str) -> list[tuple[str, str, list[str]]]:
    """(command, option, choices) of each option named in backticks in a quotecheck cell."""
    out = []
    for span in re.findall(r"`([^`]+)`", cell):
        if span.startswith("#") or span.startswith("quotecheck rule"):
            continue  # a directive; another command's argument
        command = "fix" if span.startswith("quotecheck fix") else "check"
        words = span.split()
        for i, word in enumerate(words):
            if OPTION.fullmatch(word):
                choices = words[i + 1].split("|") if i + 1 < len(words) and "|" in words[
                    i + 1] else []
                out.append((command, word, choices))
    return out


def test_the_tables_are_there() -> None:
    found = tables()
    assert set(found) == {"ruff", "ShellCheck"}
    assert len(found["ruff"]) >= 12 and len(found["ShellCheck"]) >= 9


def test_every_quotecheck_option_in_the_tables_is_in_its_help() -> None:
    helps = {name: help_text(name) for name in ("check", "fix")}
    seen = 0
    for tool, rows in tables().items():
        for theirs, ours in rows:
            for command, option, choices in claims(ours):
                text = helps[command]
                line = next((x for x in text.splitlines()
                             if re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", x)), None)
                assert line is not None, (tool, theirs, command, option)
                if choices:
                    listed = re.search(r"<([^>]+)>", line)
                    assert listed, (option, line)
                    assert set(choices) <= set(listed.group(1).split("|")), (option, choices)
                seen += 1
    assert seen >= 25


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck")
def test_the_shellcheck_options_are_shellchecks() -> None:
    text = subprocess.run(["shellcheck", "--help"], capture_output=True, text=True,
                          check=False).stdout + subprocess.run(
        ["shellcheck", "--help"], capture_output=True, text=True, check=False).stderr
    newer = {"--rcfile"}  # ShellCheck 0.9 and later
    for theirs, _ in tables()["ShellCheck"]:
        for option in OPTION.findall(theirs):
            assert option in newer or re.search(rf"(?<![\w-]){re.escape(option)}\b", text), option


def test_the_ruff_options_are_ruffs() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--help"],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.skip("needs ruff")
    for theirs, _ in tables()["ruff"]:
        for option in OPTION.findall(theirs):
            assert re.search(rf"(?<![\w-]){re.escape(option)}\b", proc.stdout), option


def test_every_check_option_is_documented() -> None:
    check = next(c for c in COMMANDS if c.name == "check")
    missing = [p.flags[0] for p in check.params
               if p.flags and not re.search(rf"`{re.escape(p.flags[0])}\b", README)]
    assert not missing, missing


def test_every_fix_option_is_documented_in_its_section() -> None:
    start = README.index("## `quotecheck fix`")
    section = README[start:README.index("\n## ", start + 1)]
    fix = next(c for c in COMMANDS if c.name == "fix")
    missing = [p.flags[0] for p in fix.params
               if p.flags and not re.search(rf"(?<![\w-]){re.escape(p.flags[0])}(?![\w-])",
                                            section)]
    assert not missing, missing
