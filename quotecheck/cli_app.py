"""The typer app, built from the command table (``cli_options.py``).

``cli.main`` reads the common command lines itself and imports this module only for the rest:
``--help``, usage errors, ``quote``, ``fix``, ``rule``... typer reads a command's parameters
from its function's signature, so each command gets a function whose signature is made from its
table entry: choices become enums (typer's way to declare them), and their members are turned
back into text before the command's own function is called.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any

# typer would otherwise import rich for every --help and error message (measured: +60 ms).
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer

from quotecheck.cli_options import (
    APP_HELP,
    COMMANDS,
    PRINT_VERSION,
    REQUIRED,
    VERSION,
    Command,
    Param,
    call,
)
from quotecheck.commands.status import EXIT_OK

_TYPES: dict[str, type] = {"text": str, "path": Path, "count": int, "flag": bool}
_CHOICES: dict[tuple[str, ...], type[StrEnum]] = {}  # one enum per set of choices


def _choices(name: str, values: tuple[str, ...]) -> type[StrEnum]:
    if values not in _CHOICES:
        members = [(v.replace("-", "_"), v) for v in values]
        enum: Any = StrEnum  # its functional form, with a name mypy cannot see
        _CHOICES[values] = enum(name, members)
    return _CHOICES[values]


def _parameter(param: Param, **extra: Any) -> inspect.Parameter:
    """The function parameter typer reads as this argument or option."""
    default = param.default
    kind: type
    if isinstance(param.kind, tuple):
        choices = _choices(param.name, param.kind)
        if default is not None and default is not REQUIRED:
            default = choices(default)
        kind = choices
    else:
        kind = _TYPES[param.kind]
    annotation: Any = list[kind] if param.multiple else kind  # type: ignore[valid-type]
    if default is None:
        annotation = annotation | None
    if param.flags:
        if param.metavar is not None:
            extra["metavar"] = param.metavar
        info = typer.Option(default, *param.flags, help=param.help, **extra)
    else:
        info = typer.Argument(default, help=param.help, **extra)
    return inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, default=info,
                             annotation=annotation)


def _function(params: list[inspect.Parameter], doc: str,
              body: Callable[[dict[str, Any]], Any]) -> Callable[..., Any]:
    def function(**values: Any) -> Any:
        return body({name: v.value if isinstance(v, Enum) else v for name, v in values.items()})

    function.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    function.__doc__ = doc
    return function


def _command(command: Command) -> Callable[..., Any]:
    return _function([_parameter(p) for p in command.params], command.help,
                     lambda values: call(command.run, values))


def _version(value: bool) -> None:
    if value:
        call(PRINT_VERSION, {})
        raise typer.Exit(EXIT_OK)


app = typer.Typer(
    name="quotecheck",
    help=APP_HELP,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.callback()(_function([_parameter(VERSION, callback=_version, is_eager=True)],
                         "quotecheck: a shell-escaping linter and quoting analyser.",
                         lambda values: None))
for _entry in COMMANDS:
    app.command(_entry.name, context_settings=(
        None if _entry.interspersed else {"allow_interspersed_args": False}))(_command(_entry))
