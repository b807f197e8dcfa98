"""Command-line interface. ``main(argv) -> int`` so tests and ``python -m`` call one function.

The commands are declared once, in ``cli_options.py``; this module reads the command line and
calls the command's function in ``quotecheck.commands``. Start-up matters (pre-commit runs this
on every commit, editors on every save), so:

* the typer app (``cli_app.py``; typer alone costs ~25 ms to import) is built only when it is
  needed. The command lines of the commands marked ``fast`` (``check``, ``explain``, ``rules``)
  and ``--version`` are read by the small reader here, from the same table, which accepts
  exactly the command lines typer accepts for them and leaves everything else (``--help``, a
  misspelt option, a bad choice...) to typer, so every message and exit status stays typer's.
  ``tests/test_cli_fast_path.py`` holds the two readers to the same result;
* a command's module, and through it the analysis and bashlex, is imported only to run it;
* when quotecheck runs as its own process, the garbage collector runs less often (see ``main``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from pathlib import Path
from typing import Any

from quotecheck.cli_options import COMMANDS, PRINT_VERSION, REQUIRED, VERSION, Kind, call
from quotecheck.commands.status import EXIT_ERROR, EXIT_OK, UsageProblem

EXIT_INTERRUPTED = 130  # what typer returns for Ctrl-C

FAST_COMMANDS = {command.name: command for command in COMMANDS if command.fast}


def _value(kind: Kind, raw: str) -> Any:
    """The converted value, or None where typer could say no (it then reads the line)."""
    if isinstance(kind, tuple):
        return raw if raw in kind else None
    if kind == "path":
        return Path(raw) if raw else None
    if kind == "count":
        return int(raw) if raw.isascii() and raw.isdigit() and int(raw) >= 1 else None
    return raw


def fast_parse(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The command's function (``cli_options.call`` runs it) and its keyword arguments, as
    typer would give them; None if the command line is anything else (typer then reads it, and
    reports it if it is wrong).

    Click's rules: options and arguments may be interleaved; ``--`` ends the options; an
    option's value is ``--opt=V``, ``--opt V``, ``-oV`` or ``-o V``; the last of a repeated
    single-value option wins. Values that start with ``-`` are left to typer (it takes them
    as values; leaving them costs time, never correctness)."""
    if len(args) == 1 and args[0] in VERSION.flags:
        return PRINT_VERSION, {}
    if not args or args[0] not in FAST_COMMANDS or "_QUOTECHECK_COMPLETE" in os.environ:
        return None
    command = FAST_COMMANDS[args[0]]
    by_flag = {flag: param for param in command.params for flag in param.flags}
    argument = next((param for param in command.params if not param.flags), None)
    given: dict[str, Any] = {}
    positional: list[str] = []
    rest = args[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg == "--":
            positional.extend(rest[i:])
            break
        if len(arg) < 2 or not arg.startswith("-"):
            positional.append(arg)
            continue
        explicit: str | None
        if arg.startswith("--"):
            name, eq, tail = arg.partition("=")
            explicit = tail if eq else None
        else:  # `-cVALUE`; click reads `-c=x` as the value `=x` too
            name, explicit = arg[:2], (arg[2:] or None)
        param = by_flag.get(name)
        if param is None:  # -h/--help, a typo, an option of another command
            return None
        if param.kind == "flag":
            if explicit is not None:
                return None
            given[param.name] = True
            continue
        if explicit is None:
            if i >= len(rest) or (rest[i].startswith("-") and rest[i] != "-"):
                return None
            explicit = rest[i]
            i += 1
        value = _value(param.kind, explicit)
        if value is None:
            return None
        if param.multiple:
            given.setdefault(param.name, []).append(value)
        else:
            given[param.name] = value
    if positional:
        if argument is None or (not argument.multiple and len(positional) > 1):
            return None
        given[argument.name] = positional if argument.multiple else positional[0]
    values = {param.name: given.get(param.name, param.default) for param in command.params}
    if any(value is REQUIRED for value in values.values()):
        return None  # typer says what is missing
    return command.run, values


# -- running -------------------------------------------------------------------------------

class _PacifiedStream:
    """A stream whose flush ignores a closed pipe (what typer leaves behind on EPIPE)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        import errno

        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def _run_fast(run: str, values: dict[str, Any]) -> int:
    """Run a command as typer's ``main(standalone_mode=False)`` would run it."""
    import errno

    try:
        status: int = call(run, values)
        return status
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except EOFError:
        sys.stderr.write("\n")
        sys.stderr.write("quotecheck: aborted\n")
        return EXIT_ERROR
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _PacifiedStream(sys.stdout)
        sys.stderr = _PacifiedStream(sys.stderr)
        sys.exit(1)


def _run_typer(args: list[str]) -> int:
    import typer

    from quotecheck.cli_app import app  # sets TYPER_USE_RICH before typer is imported

    try:
        result = app(args=args, prog_name="quotecheck", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("quotecheck: aborted\n")
        return EXIT_ERROR
    except typer.TyperException as exc:
        # typer vendors click; its usage errors know how to print themselves.
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            sys.stderr.write(f"quotecheck: error: {exc}\n")
        return EXIT_ERROR
    return result if isinstance(result, int) else EXIT_OK


def main(argv: list[str] | None = None, *, fast: bool = True) -> int:
    """Run the CLI; returns the exit status instead of exiting.

    ``argv=None`` means this process is quotecheck (the console script, ``python -m``): only
    then are the garbage collector's thresholds changed. ``fast=False`` always goes through
    typer (tests)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if argv is None:
        import gc

        # Parsing allocates millions of small objects, few of them in cycles: collecting the
        # young ones every 10,000 allocations instead of 700 saves 6-14 % of the CPU time of
        # a check (corpus, 10k and 100k lines measured) and changed the peak memory by < 1 %.
        gc.set_threshold(10_000, 20, 20)
    try:
        parsed = fast_parse(args) if fast else None
        status = _run_fast(*parsed) if parsed is not None else _run_typer(args)
        sys.stdout.flush()  # a failing write is said here, not by the interpreter at exit
        if argv is None and parsed is not None and parsed[0] in _ONE_SHOT:
            sys.stderr.flush()
            os._exit(status)
        return status
    except UsageProblem as exc:
        sys.stderr.write(f"quotecheck: error: {exc}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # `quotecheck explain ... | head`: the reader went away; not an error of ours.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _OUTPUT_FULL or exc.filename is not None:
            return _internal_error(exc)
        # Only a write fails this way (`quotecheck rules > /dev/full`): the output is cut.
        from quotecheck.commands.destination import silence_stdout

        silence_stdout()
        sys.stderr.write(f"quotecheck: error: standard output: cannot write ({exc.strerror})\n")
        return EXIT_ERROR
    except Exception as exc:  # a traceback would exit 1, which means "findings"
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    sys.stderr.write(f"quotecheck: error: internal error ({type(exc).__name__}: {exc}); "
                     "please report it\n")
    return EXIT_ERROR


# Commands that leave nothing behind once their output is flushed (no server, no worker, no
# file still open): the process then ends at once instead of freeing its modules and objects
# one by one, which was ~8 % of the instructions of a 50-line check (callgrind).
_ONE_SHOT = frozenset({
    "quotecheck.commands.check:run", "quotecheck.commands.explain:run",
    "quotecheck.commands.guard:run", "quotecheck.commands.quote:run",
    "quotecheck.commands.rules:list_rules", "quotecheck.commands.rules:show_rule",
    PRINT_VERSION})

# The errors only a write gives: the disk or the quota is full, the file too large.
_OUTPUT_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


if __name__ == "__main__":
    sys.exit(main())
