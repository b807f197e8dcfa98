"""Command-line interface. ``main(argv) -> int`` so tests and ``python -m`` call one function.

Start-up matters (pre-commit runs this on every commit, editors on every save), so:

* the typer app (``cli_app.py``; typer alone costs ~25 ms to import) is built only when it is
  needed. ``check``, ``explain``, ``rules`` and ``--version`` command lines are read by the small
  parser here, which accepts exactly the command lines typer accepts for them and leaves
  everything else (``--help``, a misspelt option, a bad choice...) to typer, so every message and
  exit status stays typer's. ``tests/test_cli_fast_path.py`` holds the two in step;
* the analysis modules, and through them bashlex, are imported inside the commands;
* when quotecheck runs as its own process, the methods that ``@dataclass`` generates are
  compiled once and cached (``codecache.py``): the package creates ~90 dataclasses at import;
  and the garbage collector runs less often (see ``main``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quotecheck import __version__

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130  # what typer returns for Ctrl-C


class UsageProblem(Exception):
    """A mistake in how quotecheck was called: reported on stderr, exit status 2."""


# -- the commands, independent of typer -------------------------------------------------------

def read_input(command: str | None, file: Path | None) -> tuple[str, str | None]:
    """The text to analyse and its path: a command argument, ``-`` for stdin, or --file."""
    from quotecheck.inputs import read_text_file

    if file is not None and command is not None:
        raise UsageProblem("give either a command or --file, not both")
    if file is not None:
        loaded = read_text_file(file)
        if loaded.error:
            raise UsageProblem(loaded.error)
        return loaded.text, str(file)
    if command is None:
        raise UsageProblem("nothing to explain: give a command, - for standard input, or --file")
    if command == "-":
        data = sys.stdin.buffer.read()
        return data.decode("utf-8", errors="replace"), None
    return command, None


def run_explain(command: str | None = None, file: Path | None = None,
                output_format: str = "text", remote_shell: str | None = None,
                shell: str | None = None, color: str = "auto") -> int:
    """``quotecheck explain``: the layer trace of one command line or script."""
    import json

    from quotecheck.analysis import analyse
    from quotecheck.files import local_dialect
    from quotecheck.output.explain_json import explain_document
    from quotecheck.output.explain_text import render_explain
    from quotecheck.output.lsp import lsp_diagnostic
    from quotecheck.output.style import Style, want_colour
    from quotecheck.positions import LineIndex

    text, path = read_input(command, file)
    dialect = shell if shell else local_dialect(text)
    result = analyse(text, dialect=dialect, remote_shell=remote_shell, path=path)
    if output_format == "json":
        index = LineIndex(text)
        uri = Path(path).resolve().as_uri() if path else "untitled:command"
        diags = [lsp_diagnostic(d, index, "utf-16", uri) for d in result.diagnostics]
        sys.stdout.write(json.dumps(explain_document(result.trace, diags), ensure_ascii=False,
                                    indent=2) + "\n")
    else:
        style = Style(want_colour(sys.stdout, color))
        sys.stdout.write(render_explain(result.trace, result.diagnostics, style))
    return EXIT_OK


def codes_option(values: list[str] | None) -> list[str] | None:
    """--select/--ignore values: comma-separated codes or prefixes, each matching some rule."""
    if values is None:
        return None
    out = [c.strip().upper() for v in values for c in v.split(",") if c.strip()]
    from quotecheck.rules.registry import all_rules

    known = list(all_rules())
    for code in out:
        if not any(k.startswith(code) for k in known):
            raise UsageProblem(f"`{code}` matches no rule (see `quotecheck rules`)")
    return out


def run_check(paths: list[str] | None = None, command: str | None = None,
              output_format: str = "text", severity: str | None = None,
              select: list[str] | None = None, ignore: list[str] | None = None,
              remote_shell: str | None = None, position_encoding: str = "utf-16",
              config: Path | None = None, no_config: bool = False, color: str = "auto",
              jobs: int | None = None) -> int:
    """``quotecheck check``: lint files and command lines."""
    from quotecheck import check_command
    from quotecheck.output.style import want_colour

    if jobs is not None and jobs < 1:
        raise UsageProblem(f"--jobs {jobs}: give a number of processes, 1 or more")
    request = check_command.Request(
        paths=paths or [],
        command=command,
        output_format=output_format,
        severity=severity,
        select=codes_option(select),
        ignore=codes_option(ignore),
        remote_shell=remote_shell,
        encoding=position_encoding,  # type: ignore[arg-type]  # one of the three, by its choices
        config=config,
        no_config=no_config,
        colour=want_colour(sys.stdout, color),
        jobs=jobs,
    )
    return check_command.run_check(request, sys.stdout, sys.stderr, sys.stdin)


def run_rules() -> int:
    """``quotecheck rules``: code, name, default severity and summary of every rule."""
    from quotecheck.rules.registry import all_rules

    lines = [f"{code}  {rule.name:<28} {rule.severity:<8} {rule.summary}\n"
             for code, rule in all_rules().items()]
    sys.stdout.write("".join(lines))
    sys.stdout.flush()
    return EXIT_OK


def run_version() -> int:
    sys.stdout.write(f"quotecheck {__version__}\n")
    sys.stdout.flush()
    return EXIT_OK


# -- the fast path: typer's parsing, for the command lines it would accept ---------------------

# An option's kind: "text", "path", "count" (an integer >= 1), "flag", or its choices.
Kind = str | tuple[str, ...]
SHELLS = ("bash", "sh", "dash", "zsh")
COLOURS = ("auto", "always", "never")


class FastCommand:
    """What the typer app declares for one command, enough to read its valid command lines."""

    def __init__(self, run: Callable[..., int], options: dict[tuple[str, ...], tuple[str, Kind]],
                 multiple: frozenset[str] = frozenset(), argument: str | None = None,
                 argument_nargs: int = 1) -> None:
        self.run = run
        self.options = options  # option strings -> (parameter, kind)
        self.by_name = {name: spec for names, spec in options.items() for name in names}
        self.multiple = multiple  # parameters that may be repeated (a list)
        self.argument = argument  # the positional parameter
        self.argument_nargs = argument_nargs  # 1: at most one, -1: any number (a list)


FAST_COMMANDS: dict[str, FastCommand] = {
    "check": FastCommand(
        run_check,
        {
            ("--command", "-c"): ("command", "text"),
            ("--format",): ("output_format", ("text", "json", "sarif", "github")),
            ("--severity",): ("severity", ("error", "warning", "info", "hint")),
            ("--select",): ("select", "text"),
            ("--ignore",): ("ignore", "text"),
            ("--remote-shell",): ("remote_shell", SHELLS),
            ("--position-encoding",): ("position_encoding", ("utf-8", "utf-16", "utf-32")),
            ("--config",): ("config", "path"),
            ("--no-config",): ("no_config", "flag"),
            ("--color",): ("color", COLOURS),
            ("--jobs", "-j"): ("jobs", "count"),
        },
        multiple=frozenset({"select", "ignore"}),
        argument="paths", argument_nargs=-1,
    ),
    "explain": FastCommand(
        run_explain,
        {
            ("--file", "-f"): ("file", "path"),
            ("--format",): ("output_format", ("text", "json")),
            ("--remote-shell",): ("remote_shell", SHELLS),
            ("--shell",): ("shell", SHELLS),
            ("--color",): ("color", COLOURS),
        },
        argument="command", argument_nargs=1,
    ),
    "rules": FastCommand(run_rules, {}),
}


def _value(kind: Kind, raw: str) -> Any:
    """The converted value, or None where typer could say no (it then reads the line)."""
    if isinstance(kind, tuple):
        return raw if raw in kind else None
    if kind == "path":
        return Path(raw) if raw else None
    if kind == "count":
        return int(raw) if raw.isascii() and raw.isdigit() and int(raw) >= 1 else None
    return raw


def fast_parse(args: list[str]) -> tuple[FastCommand, dict[str, Any]] | None:
    """The command and its keyword arguments, as typer would give them; None if the command
    line is anything else (typer then reads it, and reports it if it is wrong).

    Click's rules: options and arguments may be interleaved; ``--`` ends the options; an
    option's value is ``--opt=V``, ``--opt V``, ``-oV`` or ``-o V``; the last of a repeated
    single-value option wins. Values that start with ``-`` are left to typer (it takes them
    as values; leaving them costs time, never correctness)."""
    if args == ["--version"]:
        return FastCommand(run_version, {}), {}
    if not args or args[0] not in FAST_COMMANDS or "_QUOTECHECK_COMPLETE" in os.environ:
        return None
    spec = FAST_COMMANDS[args[0]]
    values: dict[str, Any] = {}
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
        found = spec.by_name.get(name)
        if found is None:  # -h/--help, a typo, an option of another command
            return None
        dest, kind = found
        if kind == "flag":
            if explicit is not None:
                return None
            values[dest] = True
            continue
        if explicit is None:
            if i >= len(rest) or (rest[i].startswith("-") and rest[i] != "-"):
                return None
            explicit = rest[i]
            i += 1
        value = _value(kind, explicit)
        if value is None:
            return None
        if dest in spec.multiple:
            values.setdefault(dest, []).append(value)
        else:
            values[dest] = value
    if positional:
        if spec.argument is None or (spec.argument_nargs == 1 and len(positional) > 1):
            return None
        values[spec.argument] = positional if spec.argument_nargs == -1 else positional[0]
    return spec, values


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


def _run_fast(run: Callable[..., int], values: dict[str, Any]) -> int:
    """Run a command as typer's ``main(standalone_mode=False)`` would run it."""
    import errno

    try:
        return run(**values)
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
    then are the dataclass code cache and the garbage collector's thresholds changed.
    ``fast=False`` always goes through typer (tests)."""
    args = sys.argv[1:] if argv is None else list(argv)
    cache: Callable[[], None] | None = None
    if argv is None:
        import gc

        from quotecheck import codecache

        cache = codecache.install()
        # Parsing allocates millions of small objects, few of them in cycles: collecting the
        # young ones every 10,000 allocations instead of 700 saves 6-14 % of the CPU time of
        # a check (corpus, 10k and 100k lines measured) and changed the peak memory by < 1 %.
        gc.set_threshold(10_000, 20, 20)
    try:
        parsed = fast_parse(args) if fast else None
        if parsed is not None:
            return _run_fast(parsed[0].run, parsed[1])
        return _run_typer(args)
    except UsageProblem as exc:
        sys.stderr.write(f"quotecheck: error: {exc}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # `quotecheck explain ... | head`: the reader went away; not an error of ours.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return EXIT_OK
    finally:
        if cache is not None:
            cache()


def __getattr__(name: str) -> Any:
    # `quotecheck.cli.app`, the typer app, as before; built on first use.
    if name == "app":
        from quotecheck.cli_app import app

        return app
    raise AttributeError(name)


if __name__ == "__main__":
    sys.exit(main())
