"""``quotecheck rules`` (every rule in one line each) and ``quotecheck rule CODE`` (its doc)."""

from __future__ import annotations

import sys

from quotecheck.commands.status import EXIT_OK, UsageProblem
from quotecheck.rules.registry import all_rules, doc_path, get


def list_rules() -> int:
    """Code, name, default severity and summary of every rule."""
    lines = [f"{code}  {rule.name:<28} {rule.severity:<8} {rule.summary}\n"
             for code, rule in all_rules().items()]
    sys.stdout.write("".join(lines))
    sys.stdout.flush()
    return EXIT_OK


def show_rule(*, code: str) -> int:
    """The document of the rule with this code (any case)."""
    rule = get(code)
    if rule is None:
        raise UsageProblem(f"no rule {code!r} (see `quotecheck rules`)")
    try:
        text = doc_path(rule.code).read_text()
    except OSError as exc:
        raise UsageProblem(f"the document of {rule.code} is not installed ({exc})") from exc
    sys.stdout.write(text)
    sys.stdout.flush()
    return EXIT_OK
