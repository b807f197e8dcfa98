"""The command line, declared once: every command, its arguments and options, their help.

Two readers are built from this table: the typer app (``cli_app.py``), which writes ``--help``
and every usage error, and the fast reader (``cli.py``), which reads the common command lines of
the commands marked ``fast`` without importing typer. Either way the command's function (in
``quotecheck.commands``) is called by ``call`` with one keyword argument per parameter, every
one of them given, choices as their text.

This module is imported on every run: it holds data only.
"""

from __future__ import annotations

import importlib
from typing import Any

from quotecheck.programs import QUOTE_SHELLS, SHELL_OPTION_VALUES

# A parameter's kind: "text", "path", "count" (an integer), "flag", or its choices.
Kind = str | tuple[str, ...]

COLOURS = ("auto", "always", "never")
CHECK_FORMATS = ("full", "concise", "text", "json", "sarif", "github")
SEVERITIES = ("error", "warning", "info", "hint")
REQUIRED: Any = ...  # the default of a parameter that must be given


class Param:
    """One argument (no ``flags``) or option of a command."""

    __slots__ = ("default", "flags", "help", "kind", "metavar", "multiple", "name")

    def __init__(self, name: str, flags: tuple[str, ...], kind: Kind, help: str,
                 default: Any = None, *, multiple: bool = False,
                 metavar: str | None = None) -> None:
        self.name = name  # the keyword argument of the command's function
        self.flags = flags  # the option's names, long first; () for the positional argument
        self.kind = kind
        self.help = help
        self.default = default  # REQUIRED: no default; None for a multiple one not given
        self.multiple = multiple  # a list: the option may repeat, the argument takes any number
        self.metavar = metavar


class Command:
    """One subcommand: its name, help, parameters and the function that runs it."""

    __slots__ = ("fast", "help", "interspersed", "name", "params", "run")

    def __init__(self, name: str, help: str, run: str, params: tuple[Param, ...] = (), *,
                 fast: bool = False, interspersed: bool = True) -> None:
        self.name = name
        self.help = help
        self.run = run  # "module:function"
        self.params = params  # in the order --help lists them; at most one argument
        self.fast = fast  # read by the fast reader (anything it does not accept goes to typer)
        self.interspersed = interspersed  # options may follow the argument


def call(run: str, values: dict[str, Any]) -> Any:
    """Run a command's function (``"module:function"``) with these keyword arguments."""
    module, _, function = run.partition(":")
    return getattr(importlib.import_module(module), function)(**values)


APP_HELP = ("Show what every layer of a shell command receives (local shell, ssh, remote shell, "
            "sh -c, sudo, xargs, awk...) and find the quoting mistakes that fail silently.")
VERSION = Param("version", ("--version",), "flag", "Print the version and exit.", False)
PRINT_VERSION = "quotecheck.commands.version:run"


def _remote_shell(help: str, choices: tuple[str, ...] = SHELL_OPTION_VALUES,
                  default: Any = None) -> Param:
    return Param("remote_shell", ("--remote-shell",), choices, help, default)


def _codes(name: str, help: str) -> Param:
    return Param(name, (f"--{name}",), "text", help, multiple=True)


_CONFIG = Param("config", ("--config",), "path", "Use this configuration file.")
_NO_CONFIG = Param("no_config", ("--no-config",), "flag", "Ignore configuration files.", False)
_EXTERNAL_SOURCES = Param(
    "external_sources", ("--external-sources", "-x"), "flag",
    "Read the files a script sources (`source F`, `. F`) where they exist beside it, as "
    "ShellCheck -x does: their functions and the values they assign become known.", False)
_COLOUR = Param("color", ("--color",), COLOURS, "Colour the text output.", "auto")
_LOCAL_SHELL = Param("shell", ("--shell",), SHELL_OPTION_VALUES,
                     "Read every input in this shell, and check named files of any type "
                     "(default: each file's shell= directive, #! line or extension, else bash).")

_EXIT_ZERO = Param("exit_zero", ("--exit-zero",), "flag",
                   "Exit 0 even when there are findings (2 still means an error).", False)
_STDIN_FILENAME = Param(
    "stdin_filename", ("--stdin-filename",), "text",
    "The path standard input stands for: shown in the output, and used for the configuration "
    "(per-path-ignores) and the shell (its extension).", metavar="PATH")

COMMANDS: tuple[Command, ...] = (
    Command(
        "explain", "Show, layer by layer, the exact text or argv every layer receives.",
        "quotecheck.commands.explain:run",
        (
            Param("command", (), "text",
                  "The command or script to explain (quote it), or - for stdin."),
            Param("file", ("--file", "-f"), "path", "Explain the script in this file."),
            Param("output_format", ("--format",), ("text", "json"),
                  "text for people, json for tools.", "text"),
            _remote_shell("The login shell on ssh's remote side (default: unknown, analysed as "
                          "bash with portability warnings)."),
            Param("shell", ("--shell",), SHELL_OPTION_VALUES,
                  "The local shell that reads the input (default: the script's #! line, else "
                  "bash)."),
            _COLOUR,
            _EXTERNAL_SOURCES,
        ),
        fast=True,
    ),
    Command(
        "check", "Lint shell scripts and commands for quoting mistakes that fail silently.",
        "quotecheck.commands.check:run",
        (
            Param("paths", (), "text",
                  "Scripts or directories (walked for shell scripts); - for stdin.",
                  multiple=True),
            Param("command", ("--command", "-c"), "text", "Check this one command line."),
            Param("output_format", ("--format",), CHECK_FORMATS,
                  "full (each finding's summary, source line, layers and explanation; text is "
                  "the same), concise (one line each), json (LSP-shaped), sarif, github.",
                  "full"),
            Param("severity", ("--severity",), SEVERITIES,
                  "Report (and fail on) findings at or above this (default: warning; the "
                  "`severity` setting)."),
            _codes("select", "Only these codes or prefixes (comma-separated)."),
            _codes("ignore", "Skip these codes or prefixes (comma-separated)."),
            _remote_shell("The login shell on ssh's remote side."),
            Param("position_encoding", ("--position-encoding",), ("utf-8", "utf-16", "utf-32"),
                  "Column unit of the json format.", "utf-16"),
            _CONFIG,
            _NO_CONFIG,
            _COLOUR,
            Param("jobs", ("--jobs", "-j"), "count", "Check files in N processes at once "
                  "(default: one per CPU; at most 4 per CPU). The output is the same for any "
                  "N.", metavar="N"),
            _LOCAL_SHELL,
            Param("extend_select", ("--extend-select",), "text",
                  "Also these codes or prefixes (comma-separated).", multiple=True),
            Param("exclude", ("--exclude",), "text", "Leave out of directory walks the files "
                  "and directories matching these globs (replaces the default list).",
                  multiple=True),
            Param("extend_exclude", ("--extend-exclude",), "text",
                  "Leave these globs out of directory walks too.", multiple=True),
            Param("no_respect_gitignore", ("--no-respect-gitignore",), "flag",
                  "Walk files .gitignore ignores too.", False),
            Param("statistics", ("--statistics",), "flag",
                  "Print the number of findings of each code instead of the findings.", False),
            Param("quiet", ("--quiet", "-q"), "flag",
                  "Print the findings only: no closing summary line, no notes.", False),
            _EXIT_ZERO,
            _STDIN_FILENAME,
            Param("output_file", ("--output-file",), "path",
                  "Write the report to this file instead of standard output."),
            _EXTERNAL_SOURCES,
        ),
        fast=True,
    ),
    Command(
        "quote", "Print a command line that delivers exactly ARGV through the given layers.",
        "quotecheck.commands.quote:run",
        (
            Param("argv", (), "text", "The exact argv to deliver (after --).", REQUIRED,
                  multiple=True),
            Param("via", ("--via",), "text", "A layer, outermost first: 'ssh -p 2222 host', "
                  "'sudo -u svc sh -c', 'bash -c', 'env X=1'... Repeat for each layer.",
                  multiple=True),
            _remote_shell("The login shell behind ssh.", QUOTE_SHELLS, "sh"),
            Param("shell", ("--shell",), QUOTE_SHELLS, "The local shell the line is typed into.",
                  "bash"),
            Param("explain_steps", ("--explain",), "flag",
                  "Also say how each layer takes its part.", False),
        ),
        interspersed=False,
    ),
    Command(
        "fix", "Print the corrected script or command (safe fixes; unsafe ones with "
        "--unsafe-fixes).",
        "quotecheck.commands.fix:run",
        (
            Param("paths", (), "text", "Scripts or directories; - for stdin.", multiple=True),
            Param("command", ("--command", "-c"), "text", "Fix this one command line."),
            Param("unsafe_fixes", ("--unsafe-fixes",), "flag",
                  "Also apply fixes that change behaviour.", False),
            Param("diff", ("--diff",), "flag", "Print a unified diff.", False),
            Param("write", ("--write",), "flag", "Rewrite the files in place (refused for a "
                  "file with several hard links).", False),
            Param("output_format", ("--format",), CHECK_FORMATS,
                  "Also report the findings left after fixing, on standard error, as check "
                  "--format prints them for the fixed text (json, sarif: that document "
                  "alone). Default: only the fixes not applied, as suggestions."),
            Param("severity", ("--severity",), SEVERITIES,
                  "Findings at or above this decide the exit status."),
            _codes("select", "Only these codes or prefixes."),
            _codes("ignore", "Skip these codes or prefixes."),
            _remote_shell("The login shell on ssh's remote side."),
            _CONFIG,
            _NO_CONFIG,
            _LOCAL_SHELL,
            Param("quiet", ("--quiet", "-q"), "flag",
                  "Print the fixed text, the suggestions and the findings only: no \"fixed "
                  "FILE\" lines, no closing line, no notes.", False),
            _EXIT_ZERO,
            _STDIN_FILENAME,
        ),
    ),
    Command(
        "guard", "Decide whether a command about to run should run: exit 2 (block) on "
        "findings at the threshold, else 0. Reads --command or a pre-tool hook payload on "
        "stdin; never runs the command.",
        "quotecheck.commands.guard:run",
        (
            Param("command", ("--command", "-c"), "text",
                  "The command to judge (default: the hook payload on stdin)."),
            Param("output_format", ("--format",), ("text", "json", "claude-code"),
                  "text (the reason on stderr), json (the decision on stdout), claude-code "
                  "(Claude Code's PreToolUse answer, exit 0).", "text"),
            Param("severity", ("--severity",), SEVERITIES,
                  "Block on findings at or above this (default: error)."),
            _remote_shell("The login shell on ssh's remote side."),
            _CONFIG,
            _NO_CONFIG,
        ),
        fast=True,
    ),
    Command("init", "Print a snippet for an interactive shell's rc file that runs `guard` on "
            "each command line before it runs.", "quotecheck.commands.init:run",
            (Param("shell", (), ("bash", "zsh"), "The shell: bash or zsh.", REQUIRED),)),
    Command("rules", "List every rule: code, name, default severity and summary.",
            "quotecheck.commands.rules:list_rules", fast=True),
    Command("rule", "Print a rule's document.", "quotecheck.commands.rules:show_rule",
            (Param("code", (), "text", "A rule code, e.g. QC201.", REQUIRED),)),
    Command("lsp", "Run the language server for editors (LSP over standard input and output).",
            "quotecheck.commands.lsp:run_server",
            (Param("stdio", ("--stdio",), "flag", "Talk over standard input and output (the "
                   "default and only transport; accepted because editors pass it).", False),)),
)
