"""Command-line interface. ``main(argv) -> int`` so tests and ``python -m`` call one function.

Start-up matters (pre-commit runs this on every commit): the analysis modules, and through them
bashlex, are imported inside the commands that need them, never at module level.
"""

from __future__ import annotations

import contextlib
import os
import sys
from enum import StrEnum
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


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


class ShellName(StrEnum):
    bash = "bash"
    sh = "sh"
    dash = "dash"
    zsh = "zsh"


class ColourChoice(StrEnum):
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
        ShellName | None,
        typer.Option("--shell", help="The local shell that reads the input "
                     "(default: the script's #! line, else bash)."),
    ] = None,
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
    from quotecheck.files import local_dialect

    dialect = shell.value if shell else local_dialect(text)
    result = analyse(text, dialect=dialect, remote_shell=remote_shell.value if remote_shell
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


class CheckFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class SeverityName(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"
    hint = "hint"


class PositionEncoding(StrEnum):
    utf8 = "utf-8"
    utf16 = "utf-16"
    utf32 = "utf-32"


def _codes(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    out = [c.strip().upper() for v in values for c in v.split(",") if c.strip()]
    from quotecheck.rules.registry import all_rules

    known = list(all_rules())
    for code in out:
        if not any(k.startswith(code) for k in known):
            raise UsageProblem(f"`{code}` matches no rule (see `quotecheck rules`)")
    return out


@app.command()
def check(
    paths: Annotated[
        list[str] | None,
        typer.Argument(help="Scripts or directories (walked for shell scripts); - for stdin."),
    ] = None,
    command: Annotated[
        str | None, typer.Option("--command", "-c", help="Check this one command line.")
    ] = None,
    output_format: Annotated[
        CheckFormat, typer.Option("--format", help="text, json (LSP-shaped), sarif, github.")
    ] = CheckFormat.text,
    severity: Annotated[
        SeverityName | None,
        typer.Option("--severity", help="Report (and fail on) findings at or above this."),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", help="Only these codes or prefixes (comma-separated)."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Skip these codes or prefixes (comma-separated)."),
    ] = None,
    remote_shell: Annotated[
        ShellName | None,
        typer.Option("--remote-shell", help="The login shell on ssh's remote side."),
    ] = None,
    position_encoding: Annotated[
        PositionEncoding,
        typer.Option("--position-encoding", help="Column unit of the json format."),
    ] = PositionEncoding.utf16,
    config: Annotated[
        Path | None, typer.Option("--config", help="Use this configuration file.")
    ] = None,
    no_config: Annotated[
        bool, typer.Option("--no-config", help="Ignore configuration files.")
    ] = False,
    color: Annotated[
        ColourChoice, typer.Option("--color", help="Colour the text output.")
    ] = ColourChoice.auto,
) -> int:
    """Lint shell scripts and commands for quoting mistakes that fail silently."""
    from quotecheck.check_command import Request, run_check
    from quotecheck.output.style import want_colour

    request = Request(
        paths=paths or [],
        command=command,
        output_format=output_format.value,
        severity=severity.value if severity else None,
        select=_codes(select),
        ignore=_codes(ignore),
        remote_shell=remote_shell.value if remote_shell else None,
        encoding=position_encoding.value,
        config=config,
        no_config=no_config,
        colour=want_colour(sys.stdout, color.value),
    )
    code = run_check(request, sys.stdout, sys.stderr, sys.stdin)
    raise typer.Exit(code)


class QuoteShell(StrEnum):
    sh = "sh"
    bash = "bash"
    dash = "dash"
    zsh = "zsh"
    tcsh = "tcsh"
    csh = "csh"
    fish = "fish"


@app.command(context_settings={"allow_interspersed_args": False})
def quote(
    argv: Annotated[list[str], typer.Argument(help="The exact argv to deliver (after --).")],
    via: Annotated[
        list[str] | None,
        typer.Option("--via", help="A layer, outermost first: 'ssh -p 2222 host', "
                     "'sudo -u svc sh -c', 'bash -c', 'env X=1'... Repeat for each layer."),
    ] = None,
    remote_shell: Annotated[
        QuoteShell, typer.Option("--remote-shell", help="The login shell behind ssh.")
    ] = QuoteShell.sh,
    shell: Annotated[
        QuoteShell, typer.Option("--shell", help="The local shell the line is typed into.")
    ] = QuoteShell.bash,
    explain_steps: Annotated[
        bool, typer.Option("--explain", help="Also say how each layer takes its part.")
    ] = False,
) -> None:
    """Print a command line that delivers exactly ARGV through the given layers."""
    from quotecheck.parsing.parse import parse_script
    from quotecheck.parsing.tree import walk
    from quotecheck.quoting import CannotQuote, compose

    layers: list[list[str]] = []
    for text in via or []:
        commands = list(walk(parse_script(text)))
        if len(commands) != 1 or not commands[0][0].words:
            raise UsageProblem(f"--via {text!r}: give one simple command")
        words = commands[0][0].words
        if any(w.dynamic for w in words):
            raise UsageProblem(f"--via {text!r}: expansions ($x, globs, ~) make its words "
                               "unknown; write them out")
        layers.append([w.value for w in words])
    try:
        line, steps = compose(argv, layers, shell.value, remote_shell.value)
    except CannotQuote as exc:
        raise UsageProblem(str(exc)) from exc
    if explain_steps:
        for step in steps:
            sys.stderr.write(f"# {step.description}\n")
    sys.stdout.write(line + "\n")


@app.command()
def fix(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Scripts or directories; - for stdin.")
    ] = None,
    command: Annotated[
        str | None, typer.Option("--command", "-c", help="Fix this one command line.")
    ] = None,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="Also apply fixes that change behaviour.")
    ] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff.")] = False,
    write: Annotated[bool, typer.Option("--write", help="Rewrite the files in place.")] = False,
    severity: Annotated[
        SeverityName | None,
        typer.Option("--severity", help="Findings at or above this decide the exit status."),
    ] = None,
    select: Annotated[
        list[str] | None, typer.Option("--select", help="Only these codes or prefixes.")
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option("--ignore", help="Skip these codes or prefixes.")
    ] = None,
    remote_shell: Annotated[
        ShellName | None,
        typer.Option("--remote-shell", help="The login shell on ssh's remote side."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Use this configuration file.")
    ] = None,
    no_config: Annotated[
        bool, typer.Option("--no-config", help="Ignore configuration files.")
    ] = False,
) -> int:
    """Print the corrected script or command (safe fixes; unsafe ones with --unsafe-fixes)."""
    from quotecheck.check_command import Request
    from quotecheck.fix_command import run_fix

    request = Request(
        paths=paths or [], command=command, output_format="text",
        severity=severity.value if severity else None, select=_codes(select),
        ignore=_codes(ignore), remote_shell=remote_shell.value if remote_shell else None,
        encoding="utf-16", config=config, no_config=no_config, colour=False,
    )
    raise typer.Exit(run_fix(request, unsafe=unsafe_fixes, diff=diff, write=write,
                             stdout=sys.stdout, stderr=sys.stderr, stdin=sys.stdin))


@app.command("rules")
def list_rules() -> None:
    """List every rule: code, name, default severity and summary."""
    from quotecheck.rules.registry import all_rules

    for code, rule in all_rules().items():
        typer.echo(f"{code}  {rule.name:<28} {rule.severity:<8} {rule.summary}")


@app.command("rule")
def show_rule(
    code: Annotated[str, typer.Argument(help="A rule code, e.g. QC201.")],
) -> None:
    """Print a rule's document."""
    from quotecheck.rules.registry import doc_path, get

    rule = get(code)
    if rule is None:
        raise UsageProblem(f"no rule {code!r} (see `quotecheck rules`)")
    try:
        typer.echo(doc_path(rule.code).read_text(), nl=False)
    except OSError as exc:
        raise UsageProblem(f"the document of {rule.code} is not installed ({exc})") from exc


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
