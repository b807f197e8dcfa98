"""The language server's one door into quotecheck: configuration, checking, fixing, rules.

Everything the server needs from the checker, the fixer, the configuration and the output
modules is imported here and nowhere else in ``quotecheck.lsp``, so a change of layout there is
one edit here. The functions that run a check (``check``, ``fix_all_safe``) run in a worker
process (``worker.py``) and return plain data that pickles.
"""

from __future__ import annotations

from pathlib import Path

from quotecheck.checker import Options, check_source
from quotecheck.config import ConfigError, build_options, nearest_settings
from quotecheck.diagnostics import Diagnostic, Edit, Fix
from quotecheck.directives import top_command_spans
from quotecheck.files import SHELL_EXTENSIONS, shebang_shell
from quotecheck.fixer import fix_source
from quotecheck.layers.model import Arg, CommandView, Layer, Trace
from quotecheck.lsp.outline import Outline, build_outline
from quotecheck.output.lsp import lsp_diagnostic, rule_href
from quotecheck.positions import Encoding, LineIndex
from quotecheck.programs import EDITOR_SHELL_LANGUAGES
from quotecheck.records import FrozenRecord
from quotecheck.rules.registry import doc_path, get

__all__ = [
    "Arg", "CheckOutcome", "CommandView", "ConfigError", "Diagnostic", "Edit", "Encoding", "Fix",
    "Layer", "LineIndex", "Options", "Outline", "Trace", "check", "fix_all_safe",
    "is_shell_document", "lsp_diagnostic", "options_for", "rule_doc_uri", "rule_href",
    "rule_summary", "time_limit",
]



class CheckOutcome(FrozenRecord):
    """One check of one text: what the server shows for it."""

    text: str
    diagnostics: tuple[Diagnostic, ...]
    outline: Outline  # the layer trace, for hovers
    # The input spans of the top-level commands, in order: where a disable directive goes.
    top_spans: tuple[tuple[int, int], ...]


def is_shell_document(path: Path | None, language_id: str | None, text: str) -> bool:
    """A shell script by the editor's language id, else by extension, else by its #! line."""
    if language_id in EDITOR_SHELL_LANGUAGES:
        return True
    if path is not None and path.suffix in SHELL_EXTENSIONS:
        return True
    return shebang_shell(text[:128].encode("utf-8", "replace")) is not None


def options_for(path: Path | None, text: str, directory: Path | None) -> Options:
    """The options ``quotecheck check`` uses for this file: the nearest ``pyproject.toml`` or
    ``.quotecheck.toml`` above it (above ``directory`` for a document with no file), built as
    the CLI builds them. Raises ConfigError for a configuration the CLI would refuse."""
    start = path if path is not None else (directory or Path.cwd())
    # The editor shows info findings too, unless the configuration says otherwise.
    return build_options(nearest_settings(start), text, path, "info")


def time_limit(options: Options) -> float:
    """How long one check may take at most under these limits (parsing the file and the
    texts it hands on, then the rules), with room for reading and scanning."""
    limits = options.limits
    return 2 * limits.parse_time + limits.rule_time + 60.0


def _top_spans(trace: Trace) -> tuple[tuple[int, int], ...]:
    """The top-level commands the checker scopes directives to, as input spans."""
    script = trace.root.script
    if script is None:
        return ()
    return tuple(top_command_spans(script))


def check(text: str, options: Options, path: str | None) -> CheckOutcome:
    result = check_source(text, options, path)
    return CheckOutcome(text, tuple(result.diagnostics), build_outline(result.trace),
                        _top_spans(result.trace))


def fix_all_safe(text: str, options: Options, path: str | None) -> str:
    """``text`` with every safe fix applied, as ``quotecheck fix`` prints it."""
    return fix_source(text, options, unsafe=False, path=path).text


def rule_summary(code: str) -> tuple[str, str, str] | None:
    """A rule's name, default severity and one-line summary."""
    rule = get(code)
    if rule is None:
        return None
    return rule.name, rule.severity, rule.summary


def rule_doc_uri(code: str) -> str | None:
    """The rule's document (rules/QCnnn.md) as installed with quotecheck, as a file URI."""
    path = doc_path(code)
    try:
        return path.resolve(strict=True).as_uri()
    except OSError:
        return None
