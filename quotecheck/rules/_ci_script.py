"""Whether CI runs the checked script, and whether that CI gives it a terminal (QC208, QC301).

A script is run by CI when it lies in a CI folder (``programs.CI_FOLDERS``: `.github/`, `ci/`...),
reads a variable a CI system sets for its jobs (``programs.CI_VARIABLES``; not one the script
sets itself: `export CI=1` says nothing about who runs it), or its comments say that CI runs it.
The systems of ``programs.CI_WITHOUT_TERMINAL`` run a job's commands with no terminal at all.
Read once per input.
"""

from __future__ import annotations

import re

from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import CI_FOLDERS, CI_VARIABLES, CI_WITHOUT_TERMINAL
from quotecheck.rules.api import CheckContext

_CI_NAMES = r"(?:CI|Travis|Jenkins|GitLab(?:\s+CI)?|GitHub\s+Actions|CircleCI|Buildkite|Drone)"
# A comment that says CI runs the script: a CI hook or job, or a Travis hook's name.
_CI_COMMENT = lazy_compile(
    r"(?im)^\s*#.*?(?:\b(?:run|runs|called|invoked)\s+(?:by|from|in|on)\s+(?:the\s+)?"
    + _CI_NAMES + r"\b|\b" + _CI_NAMES + r"\s+(?:hook|job|step|stage)\b"
    r"|\b(?:after_success|after_failure|before_install|before_script|after_script|"
    r"before_deploy|after_deploy)\b)")
_CI_READ = lazy_compile(r"\$\{?(" + "|".join(sorted(CI_VARIABLES)) + r")\b")


def ci_runs(ctx: CheckContext) -> tuple[str | None, bool]:
    """Why CI runs the script, and whether that CI gives it no terminal at all (read once per
    input)."""
    return ctx.memo.get_or_compute("ci-runs", ctx.trace, lambda: _in_ci(ctx))


def _in_ci(ctx: CheckContext) -> tuple[str | None, bool]:
    """Why the script is run by CI, where nobody is at a terminal: it lies in a CI folder, or
    it reads a variable CI sets for its jobs (not one it sets itself: `export CI=1` says
    nothing about who runs it); and whether the CI named runs jobs with no terminal."""
    path = ctx.script_path
    folder = next((part for part in path.split("/")[:-1] if part in CI_FOLDERS), None)
    if folder is not None:
        system = CI_WITHOUT_TERMINAL.get(folder)
        if system is not None:
            return f"it is in `{folder}/`: a {system} job, with no terminal", True
        return f"it is in `{folder}/`: a CI job, no terminal", False
    code = "\n".join(line for line in ctx.source.splitlines()
                     if not line.lstrip().startswith("#"))
    for m in _CI_READ.finditer(code):
        name = m.group(1)
        if re.search(r"(?:^|[\s;&|(])(?:export\s+|declare\s+-x\s+)?" + name + "=", code):
            continue  # (the script sets it)
        system = CI_WITHOUT_TERMINAL.get(name)
        if system is not None:
            return f"it reads `${name}`: a {system} job, with no terminal", True
        return f"it reads `${name}`: a CI job, no terminal", False
    if _CI_COMMENT.search(ctx.source):
        return "its comments say that CI runs it: no terminal", False
    return None, False
