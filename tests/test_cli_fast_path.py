"""The command line is declared once (``cli_options.py``); its two readers agree, and start-up
stays light.

``cli.fast_parse`` reads the command lines of the fast commands (``check``, ``explain``,
``rules``) and ``--version`` without building the typer app; anything it does not accept goes to
typer. Both are built from the same table: these tests hold the typer app to the table, each
command's function to its table entry, and the fast reader to what typer hands the command for
the same command line.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quotecheck import cli
from quotecheck.cli_options import COMMANDS, REQUIRED, Command

ROOT = Path(__file__).resolve().parent.parent


def _typer_commands() -> dict[str, Any]:
    import typer.main

    from quotecheck.cli_app import app

    group = typer.main.get_command(app)
    return group.commands  # type: ignore[attr-defined, no-any-return]


def _function(run: str) -> Any:
    module, _, name = run.partition(":")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_typer_declares_what_the_table_declares(command: Command) -> None:
    """The generated typer command has the table's parameters: names, kinds, defaults, help."""
    typer_command = _typer_commands()[command.name]
    assert typer_command.help == command.help
    declared = []
    for param in typer_command.params:
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
        if param.param_type_name == "argument":
            flags: tuple[str, ...] = ()
            multiple = param.nargs == -1
        else:
            assert not param.secondary_opts and param.nargs == 1
            flags = tuple(param.opts)
            multiple = param.multiple
        default = getattr(param.default, "value", param.default)
        if param.required:
            default = REQUIRED
        elif multiple and default in ((), []):
            default = None
        declared.append((param.name, flags, kind, multiple, default, param.help,
                         param.metavar))
    assert declared == [(p.name, p.flags, p.kind, p.multiple, p.default, p.help, p.metavar)
                        for p in command.params]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_each_command_function_takes_the_table_parameters(command: Command) -> None:
    signature = inspect.signature(_function(command.run))
    assert list(signature.parameters) == [p.name for p in command.params]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is p.empty
               for p in signature.parameters.values())


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
    if not fast:
        return
    if argv == ["--version"]:
        assert cli.main(argv) == cli.main(argv, fast=False) == 0
        out = capsys.readouterr().out
        assert out.startswith("quotecheck ") and out == 2 * out.splitlines(keepends=True)[0]
        return
    command = cli.FAST_COMMANDS[argv[0]]
    real = _function(command.run)
    calls: list[dict[str, Any]] = []

    def record(**kwargs: Any) -> int:
        inspect.signature(real).bind(**kwargs)  # every parameter given, no other
        calls.append(kwargs)
        return 0

    module, _, name = command.run.partition(":")
    monkeypatch.setattr(importlib.import_module(module), name, record)
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
    assert "tomllib" not in loaded  # no configuration file is read


def _imported_by(module: Path) -> set[str]:
    """The quotecheck modules a module imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return {name for name in found if name.startswith("quotecheck")}


def test_the_command_line_modules_are_imported_only_by_each_other() -> None:
    """The commands and everything below them never import the command-line reader; the
    trace, the checker and the input reader do not depend on the settings reader."""
    line = {"quotecheck.cli", "quotecheck.cli_app", "quotecheck.cli_options"}
    for path in (ROOT / "quotecheck").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if name not in line | {"quotecheck.__main__"}:
            assert not _imported_by(path) & line, name
    for name in ("trace", "checker", "inputs"):
        assert "quotecheck.config" not in _imported_by(ROOT / "quotecheck" / f"{name}.py")


_WATCH_STANDARD_MODULES = """
import sys
import quotecheck.cli
import quotecheck.commands.check as check
from quotecheck.cli import main

quotecheck.cli._ONE_SHOT = frozenset()  # return from main() to look, instead of os._exit

def standard():
    return {name: dict(vars(module)) for name, module in list(sys.modules.items())
            if name.partition(".")[0] in sys.stdlib_module_names}

def changed(before):
    now = standard()
    return sorted(name for name, names in before.items()
                  if now[name].keys() != names.keys()
                  or any(now[name][key] is not value for key, value in names.items()))

sys.argv = ["quotecheck", "check", "--no-config", *sys.argv[1:]]
before = standard()
seen = []
original = check.check_source
def watched(*args, **kwargs):
    seen.append(changed(before))  # while the command runs
    return original(*args, **kwargs)
check.check_source = watched
status = main()
seen.append(changed(before))
print(status, seen)
"""


def test_the_standard_modules_are_left_as_they_are(tmp_path: Path) -> None:
    """A whole quotecheck process (``main()``, as the console script runs it) adds, removes and
    rebinds nothing in ``dataclasses``, ``builtins`` or any other standard module, while the
    command runs or after."""
    script = tmp_path / "a.sh"
    script.write_text("ssh h \"echo $HOME\"\n")
    proc = subprocess.run([sys.executable, "-c", _WATCH_STANDARD_MODULES, str(script)],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 [[], []]"


def test_nothing_assigns_into_a_standard_module() -> None:
    """No ``module.name = ...``, ``del module.name`` or ``setattr(module, ...)`` on a standard
    module anywhere in quotecheck. Rebinding ``sys.stdout``/``sys.stderr`` is what those names
    are for (a closed pipe is handled as click handles it)."""
    found = []
    for path in sorted((ROOT / "quotecheck").rglob("*.py")):
        tree = ast.parse(path.read_text())
        standard = {alias.asname or alias.name.partition(".")[0]
                    for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names
                    if alias.name.partition(".")[0] in sys.stdlib_module_names}
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("setattr", "delattr") and node.args):
                targets = [node.args[0]]
            for target in targets:
                if isinstance(target, ast.Tuple | ast.List):
                    targets.extend(target.elts)
                    continue
                if isinstance(target, ast.Name) and isinstance(node, ast.Call):
                    module = target.id
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    module = target.value.id
                else:
                    continue
                if module in standard and ast.unparse(target) not in ("sys.stdout",
                                                                      "sys.stderr"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: "
                                 f"{ast.unparse(node).splitlines()[0]}")
    assert found == []


def test_process_wide_changes_are_only_for_the_quotecheck_process(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The collector's thresholds are not imposed on a program (or a test) that calls
    ``main``."""
    import gc

    thresholds = gc.get_threshold()
    assert cli.main(["--version"]) == 0
    assert gc.get_threshold() == thresholds
    assert capsys.readouterr().out.startswith("quotecheck ")


def test_a_one_shot_command_ends_with_all_its_output_and_its_status(tmp_path: Path) -> None:
    """check and explain end the process at once after flushing (cli._ONE_SHOT): all of a
    report larger than a pipe's buffer arrives, and the exit status is the command's."""
    script = tmp_path / "many.sh"
    script.write_text("#!/bin/bash\n" + 'ssh h "echo $HOME"\n' * 400)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "quotecheck", "check", "--no-config",
                           "--format", "json", str(script)],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 1, done.stderr
    assert len(done.stdout) > 65536
    found = json.loads(done.stdout)["files"][0]["diagnostics"]
    assert len([d for d in found if d["code"] == "QC101"]) == 400
    clean = tmp_path / "clean.sh"
    clean.write_text("#!/bin/bash\nls -l\n")
    done = subprocess.run([sys.executable, "-m", "quotecheck", "check", "--no-config",
                           str(clean)], capture_output=True, text=True, env=env, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    command = ["explain", "ssh h \"ls $HOME\""]
    done = subprocess.run([sys.executable, "-m", "quotecheck", *command],
                          capture_output=True, text=True, env=env, check=False)
    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        status = cli.main(command)  # in this process: returns, nothing cut short
    assert (done.returncode, done.stdout) == (status, here.getvalue())
    assert "remote" in done.stdout
