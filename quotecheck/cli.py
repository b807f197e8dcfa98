"""Command-line interface. ``main(argv) -> int`` so tests and ``python -m`` call one function.

Start-up matters (pre-commit runs this on every commit): the analysis modules, and through them
bashlex, are imported inside the commands that need them, never at module level.
"""

from __future__ import annotations

import contextlib
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

# typer would otherwise import rich for every --help and error message (measured: +60 ms).
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer

from quotecheck import __version__

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2

app = typer.Typer(
    name="quotecheck",
    help="Show what every layer of a shell command receives (local shell, ssh, remote shell, "
    "sh -c, sudo, xargs, awk...) and find the quoting mistakes that fail silently.",
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


class ShellName(str, Enum):
    bash = "bash"
    sh = "sh"
    dash = "dash"
    zsh = "zsh"


class ColourChoice(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


class UsageProblem(Exception):
    """A mistake in how quotecheck was called: reported on stderr, exit status 2."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"quotecheck {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
) -> None:
    """quotecheck: a shell-escaping linter and quoting analyser."""


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


@app.command()
def explain(
    command: Annotated[
        str | None,
        typer.Argument(help="The command or script to explain (quote it), or - for stdin."),
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Explain the script in this file.")
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for tools.")
    ] = OutputFormat.text,
    remote_shell: Annotated[
        ShellName | None,
        typer.Option("--remote-shell", help="The login shell on ssh's remote side "
                     "(default: unknown, analysed as bash with portability warnings)."),
    ] = None,
    shell: Annotated[
        ShellName, typer.Option("--shell", help="The local shell that reads the input.")
    ] = ShellName.bash,
    color: Annotated[
        ColourChoice, typer.Option("--color", help="Colour the text output.")
    ] = ColourChoice.auto,
) -> None:
    """Show, layer by layer, the exact text or argv every layer receives."""
    import json

    from quotecheck.analysis import analyse
    from quotecheck.output.explain_json import explain_document
    from quotecheck.output.explain_text import render_explain
    from quotecheck.output.lsp import lsp_diagnostic
    from quotecheck.output.style import Style, want_colour
    from quotecheck.positions import LineIndex

    text, path = read_input(command, file)
    result = analyse(text, dialect=shell.value, remote_shell=remote_shell.value if remote_shell
                     else None, path=path)
    if output_format is OutputFormat.json:
        index = LineIndex(text)
        uri = Path(path).resolve().as_uri() if path else "untitled:command"
        diags = [lsp_diagnostic(d, index, "utf-16", uri) for d in result.diagnostics]
        sys.stdout.write(json.dumps(explain_document(result.trace, diags), ensure_ascii=False,
                                    indent=2) + "\n")
    else:
        style = Style(want_colour(sys.stdout, color.value))
        sys.stdout.write(render_explain(result.trace, result.diagnostics, style))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status instead of exiting."""
    args = sys.argv[1:] if argv is None else argv
    try:
        result = app(args=args, prog_name="quotecheck", standalone_mode=False)
    except UsageProblem as exc:
        sys.stderr.write(f"quotecheck: error: {exc}\n")
        return EXIT_ERROR
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
    except BrokenPipeError:
        # `quotecheck explain ... | head`: the reader went away; not an error of ours.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return EXIT_OK
    if isinstance(result, int):
        return result
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
