"""The typer app: every command, its options and help text.

``cli.main`` reads the common command lines itself (see ``cli.py``) and imports this module only
for the rest: ``--help``, usage errors, ``quote``, ``fix``, ``rule``. The commands themselves are
the ``run_*`` functions in ``cli.py``; ``FAST_COMMANDS`` there must declare the same options as
the commands here (``tests/test_cli_fast_path.py`` compares them).
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

# typer would otherwise import rich for every --help and error message (measured: +60 ms).
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer

from quotecheck import __version__, cli

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


def _version(value: bool) -> None:
    if value:
        typer.echo(f"quotecheck {__version__}")
        raise typer.Exit(cli.EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
) -> None:
    """quotecheck: a shell-escaping linter and quoting analyser."""


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
) -> int:
    """Show, layer by layer, the exact text or argv every layer receives."""
    return cli.run_explain(
        command, file, output_format.value, remote_shell.value if remote_shell else None,
        shell.value if shell else None, color.value)


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
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", metavar="N", help="Check files in N processes at once "
                     "(default: one per CPU). The output is the same for any N."),
    ] = None,
) -> int:
    """Lint shell scripts and commands for quoting mistakes that fail silently."""
    return cli.run_check(
        paths, command, output_format.value, severity.value if severity else None, select,
        ignore, remote_shell.value if remote_shell else None, position_encoding.value, config,
        no_config, color.value, jobs)


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
            raise cli.UsageProblem(f"--via {text!r}: give one simple command")
        words = commands[0][0].words
        if any(w.dynamic for w in words):
            raise cli.UsageProblem(f"--via {text!r}: expansions ($x, globs, ~) make its words "
                                   "unknown; write them out")
        layers.append([w.value for w in words])
    try:
        line, steps = compose(argv, layers, shell.value, remote_shell.value)
    except CannotQuote as exc:
        raise cli.UsageProblem(str(exc)) from exc
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
        severity=severity.value if severity else None, select=cli.codes_option(select),
        ignore=cli.codes_option(ignore),
        remote_shell=remote_shell.value if remote_shell else None,
        encoding="utf-16", config=config, no_config=no_config, colour=False,
    )
    raise typer.Exit(run_fix(request, unsafe=unsafe_fixes, diff=diff, write=write,
                             stdout=sys.stdout, stderr=sys.stderr, stdin=sys.stdin))


@app.command("rules")
def list_rules() -> int:
    """List every rule: code, name, default severity and summary."""
    return cli.run_rules()


@app.command("rule")
def show_rule(
    code: Annotated[str, typer.Argument(help="A rule code, e.g. QC201.")],
) -> None:
    """Print a rule's document."""
    from quotecheck.rules.registry import doc_path, get

    rule = get(code)
    if rule is None:
        raise cli.UsageProblem(f"no rule {code!r} (see `quotecheck rules`)")
    try:
        typer.echo(doc_path(rule.code).read_text(), nl=False)
    except OSError as exc:
        raise cli.UsageProblem(f"the document of {rule.code} is not installed ({exc})") from exc


@app.command("lsp")
def language_server(
    stdio: Annotated[
        bool, typer.Option("--stdio", help="Talk over standard input and output (the default "
                           "and only transport; accepted because editors pass it).")
    ] = False,
) -> None:
    """Run the language server for editors (LSP over standard input and output)."""
    from quotecheck.lsp.server import serve  # pygls is imported only here

    raise typer.Exit(serve())
