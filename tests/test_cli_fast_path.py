"""The CLI's fast path reads command lines exactly as the typer app does, and start-up stays light.

``cli.fast_parse`` reads ``check``, ``explain``, ``rules`` and ``--version`` command lines without
building the typer app; anything it does not accept goes to typer. These tests hold the two in
step: the options declared on both sides, and the arguments each side hands the command for the
same command line. The dataclass code cache must change nothing but the time.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quotecheck import cli

ROOT = Path(__file__).resolve().parent.parent


def _typer_commands() -> dict[str, Any]:
    import typer.main

    from quotecheck.cli_app import app

    group = typer.main.get_command(app)
    return group.commands  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("name", sorted(cli.FAST_COMMANDS))
def test_fast_path_declares_what_typer_declares(name: str) -> None:
    """If this fails, an option was added to or changed in cli_app.py: declare it in
    cli.FAST_COMMANDS too (or the fast path would hand it to typer every time)."""
    command = _typer_commands()[name]
    fast = cli.FAST_COMMANDS[name]
    declared: dict[tuple[str, ...], tuple[str, Any]] = {}
    multiple = set()
    argument = None
    for param in command.params:
        if param.param_type_name == "argument":
            argument = (param.name, param.nargs)
            continue
        if param.name == "help":
            continue
        type_name = type(param.type).__name__
        if getattr(param, "is_flag", False):
            kind: Any = "flag"
        elif hasattr(param.type, "choices"):
            assert param.type.case_sensitive
            kind = tuple(param.type.choices)
        elif type_name == "TyperPath":
            kind = "path"
        elif type_name == "IntParamType":
            kind = "count"
        else:
            assert type_name == "StringParamType", type_name
            kind = "text"
        assert not param.secondary_opts and param.nargs == 1
        declared[tuple(param.opts)] = (param.name, kind)
        if param.multiple:
            multiple.add(param.name)
    assert fast.options == declared
    assert fast.multiple == multiple
    assert (None if fast.argument is None else (fast.argument, fast.argument_nargs)) == argument


# Command lines the fast path must read as typer does; None: it must leave them to typer.
LINES: list[tuple[list[str], bool]] = [
    (["check", "a.sh"], True),
    (["check", "a.sh", "b.sh", "-", "dir"], True),
    (["check", "--no-config", "a.sh", "--color", "never", "b.sh"], True),
    (["check", "--format=json", "--position-encoding", "utf-8", "a.sh"], True),
    (["check", "-c", "ssh h 'echo $x'"], True),
    (["check", "-cls -l"], True),
    (["check", "-c=ls"], True),
    (["check", "--command=", "a.sh"], True),
    (["check", "--command", "ls", "--command", "id"], True),
    (["check", "--select", "QC1,QC2", "--select", "QC3", "--ignore", "QC101", "a.sh"], True),
    (["check", "--severity", "warning", "--remote-shell", "dash", "a.sh"], True),
    (["check", "--config", "x.toml", "--jobs", "3", "a.sh"], True),
    (["check", "-j4", "a.sh"], True),
    (["check", "-j", "1", "--", "-weird.sh", "--no-config"], True),
    (["check", "-", "--format", "sarif"], True),
    (["check"], True),
    (["check", "--format", "xml", "a.sh"], False),
    (["check", "--severity", "Warning", "a.sh"], False),
    (["check", "-j", "0", "a.sh"], False),
    (["check", "-j", "+2", "a.sh"], False),
    (["check", "--no-config=yes", "a.sh"], False),
    (["check", "-c"], False),
    (["check", "-c", "-x"], False),
    (["check", "--config=", "a.sh"], False),
    (["check", "--bogus"], False),
    (["check", "-h"], False),
    (["check", "a.sh", "--help"], False),
    (["explain", "ls -l"], True),
    (["explain", "--file", "a.sh", "--format", "json"], True),
    (["explain", "-fa.sh", "--shell", "sh", "--color", "always"], True),
    (["explain", "--remote-shell", "zsh", "--", "-x"], True),
    (["explain", "-"], True),
    (["explain"], True),
    (["explain", "a", "b"], False),
    (["explain", "--jobs", "2", "ls"], False),
    (["rules"], True),
    (["rules", "extra"], False),
    (["--version"], True),
    (["--version", "check"], False),
    (["--help"], False),
    (["quote", "--", "ls"], False),
    (["fix", "a.sh"], False),
    ([], False),
]


@pytest.mark.parametrize(("argv", "fast"), LINES)
def test_fast_path_hands_the_command_what_typer_hands_it(
        argv: list[str], fast: bool, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    parsed = cli.fast_parse(argv)
    assert (parsed is not None) == fast
    if not fast or argv == ["--version"]:
        return
    calls: list[dict[str, Any]] = []

    def recorder(run: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> int:
            bound = inspect.signature(run).bind(*args, **kwargs)
            bound.apply_defaults()
            calls.append(dict(bound.arguments))
            return 0
        return record

    for name in ("run_check", "run_explain", "run_rules"):
        monkeypatch.setattr(cli, name, recorder(getattr(cli, name)))
    monkeypatch.setitem(cli.FAST_COMMANDS, argv[0], cli.FastCommand(
        getattr(cli, f"run_{argv[0]}"), cli.FAST_COMMANDS[argv[0]].options,
        cli.FAST_COMMANDS[argv[0]].multiple, cli.FAST_COMMANDS[argv[0]].argument,
        cli.FAST_COMMANDS[argv[0]].argument_nargs))
    assert cli.main(argv) == 0
    assert cli.main(argv, fast=False) == 0
    assert len(calls) == 2
    assert calls[0] == calls[1]
    capsys.readouterr()


def _modules_after(argv: list[str]) -> set[str]:
    code = ("import sys, io; from quotecheck.cli import main; sys.stdout = io.StringIO(); "
            f"main({argv!r}); sys.__stdout__.write(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    return set(out.split())


@pytest.mark.parametrize("argv", [["--version"], ["rules"], ["--help"], ["explain", "--help"]])
def test_nothing_heavy_for_version_rules_and_help(argv: list[str]) -> None:
    loaded = _modules_after(argv)
    assert not {"bashlex", "bashlex.parser", "quotecheck.checker", "quotecheck.trace"} & loaded
    if "--help" not in argv:
        assert "typer" not in loaded


def test_check_does_not_load_typer() -> None:
    loaded = _modules_after(["check", "--no-config", "-c", "ssh h 'echo $x'"])
    assert "quotecheck.checker" in loaded and "typer" not in loaded


def _run(cache_dir: str, *args: str) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QUOTECHECK_CACHE_DIR": cache_dir}
    proc = subprocess.run([sys.executable, "-m", "quotecheck", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def test_code_cache_changes_nothing_but_time(tmp_path: Path) -> None:
    from quotecheck import codecache

    args = ("check", "--no-config", "--format", "json", "fixtures/dflash/restart.sh")
    reference = _run("", *args)  # caches off
    assert reference[0] == 1 and reference[2] == ""
    cache = tmp_path / "cache"
    assert _run(str(cache), *args) == reference  # empty: compiles and writes
    os.environ["QUOTECHECK_CACHE_DIR"] = str(cache)
    try:
        written = Path(codecache.cache_file() or "")
    finally:
        del os.environ["QUOTECHECK_CACHE_DIR"]
    assert written.parent == cache and written.stat().st_size > 0
    before = written.stat().st_mtime_ns
    assert _run(str(cache), *args) == reference  # served from the cache: not rewritten
    assert written.stat().st_mtime_ns == before
    written.write_bytes(written.read_bytes()[:-100])  # torn
    assert _run(str(cache), *args) == reference
    written.write_bytes(b"garbage")
    assert _run(str(cache), *args) == reference
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert _run(str(blocker / "cache"), *args) == reference  # cannot be created
    assert _run(str(cache), "explain", "ssh h 'ls $x'")[0] == 0


def test_process_wide_changes_are_only_for_the_quotecheck_process(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The code cache and the collector's thresholds are not imposed on a program (or a test)
    that calls ``main``."""
    import dataclasses
    import gc

    thresholds = gc.get_threshold()
    assert cli.main(["--version"]) == 0
    assert "exec" not in vars(dataclasses)
    assert gc.get_threshold() == thresholds
    assert capsys.readouterr().out.startswith("quotecheck ")
