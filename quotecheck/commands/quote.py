"""``quotecheck quote``: a command line that delivers an exact argv through given layers."""

from __future__ import annotations

import sys

from quotecheck.commands.status import EXIT_OK, UsageProblem
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.tree import walk
from quotecheck.quoting import CannotQuote, compose


def layer_words(via: list[str]) -> list[list[str]]:
    """The words of each ``--via`` layer; each must be one simple command of literal words."""
    layers: list[list[str]] = []
    for text in via:
        commands = list(walk(parse_script(text)))
        if len(commands) != 1 or not commands[0][0].words:
            raise UsageProblem(f"--via {text!r}: give one simple command")
        words = commands[0][0].words
        if any(w.dynamic for w in words):
            raise UsageProblem(f"--via {text!r}: expansions ($x, globs, ~) make its words "
                               "unknown; write them out")
        layers.append([w.value for w in words])
    return layers


def run(*, argv: list[str], via: list[str] | None, remote_shell: str, shell: str,
        explain_steps: bool) -> int:
    """``quotecheck quote``, with the command line's values."""
    layers = layer_words(via or [])
    try:
        line, steps = compose(argv, layers, shell, remote_shell)
    except CannotQuote as exc:
        raise UsageProblem(str(exc)) from exc
    if explain_steps:
        for step in steps:
            sys.stderr.write(f"# {step.description}\n")
    sys.stdout.write(line + "\n")
    return EXIT_OK
