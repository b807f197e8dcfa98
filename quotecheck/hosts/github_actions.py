"""GitHub Actions workflows and composite actions as a host: each step's `run:` script.

What the runner does with a step (docs.github.com, "Workflow syntax for GitHub Actions",
`jobs.<job_id>.steps[*].shell` and `defaults.run`; quoted in tests/hosts/test_github_actions.py):

* the step's `shell`, else the job's `defaults.run.shell`, else the workflow's, else the
  platform's default: on Linux and macOS `bash -e {0}` (`sh -e {0}` where bash is missing);
  `shell: bash` is `bash --noprofile --norc -eo pipefail {0}`, `shell: sh` is `sh -e {0}`; a
  custom shell is its own command with `{0}` for the script file;
* the script is written to a file whose path replaces `{0}`: the shell reads the script from
  that file;
* `${{ ... }}` expressions are evaluated and pasted into the script text before it is
  written: parts known only when the workflow runs, and code for the shell if they hold any.

Steps on Windows runners (`runs-on: windows-*`), and `pwsh`, `powershell`, `cmd` and
`python` shells, run no POSIX shell and are not read.
"""

from __future__ import annotations

from typing import Any

from quotecheck.hosts.model import (
    HostFile,
    HostText,
    HostValue,
    Launch,
    run_time_part,
    splice,
)
from quotecheck.hosts.yaml_scalars import compose_documents, mapping_value, scalar_text
from quotecheck.lazy_regex import lazy_compile

_get = mapping_value

# The runner's shells: the process argv with `{0}` for the script file.
SHELLS = {
    None: ("bash", "-e", "{0}"),
    "bash": ("bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"),
    "sh": ("sh", "-e", "{0}"),
}
NOT_POSIX = frozenset({"pwsh", "powershell", "cmd", "python"})
# Contexts whose text someone outside the repository's writers chooses: an issue's or a pull
# request's title and body, a comment, a branch name, a commit message or author (GitHub's
# "Security hardening for GitHub Actions", "Understanding the risk of script injections").
UNTRUSTED_CONTEXTS = lazy_compile(
    r"\bgithub\.event\.(?:issue|pull_request|comment|review|review_comment|discussion|"
    r"discussion_comment|pages|commits|head_commit|workflow_run)\b[\w.*\[\]]*?\."
    r"(?:title|body|message|name|email|ref|label|default_branch|page_name|head_branch)\b"
    r"|\bgithub\.head_ref\b")
# Inputs of a manually run or called workflow: chosen by whoever runs it.
INPUT_CONTEXTS = lazy_compile(r"\b(?:github\.event\.)?inputs\.")
_EXPRESSION = lazy_compile(r"\$\{\{(.*?)\}\}", 0)


def _scalar(node: Any) -> str | None:
    value = getattr(node, "value", None)
    return value if isinstance(value, str) else None


def _shell_argv(name: str | None) -> tuple[str, ...] | None:
    if name in SHELLS:
        return SHELLS[name]
    assert name is not None
    if name in NOT_POSIX or name.split()[0] in NOT_POSIX:
        return None
    words = tuple(name.split())
    return words if "{0}" in words else (*words, "{0}")


def with_expressions(text: HostText) -> HostText:
    """``text`` with each `${{ ... }}` replaced by a stand-in known only at run time."""
    return splice(text, ((m.start(), m.end(), run_time_part(text, m.start(), m.end(),
                                                            m.group(1).strip()))
                         for m in _EXPRESSION.finditer(text.value)))


def read_workflow(source: str) -> HostFile:
    documents = compose_documents(source, "github-actions")
    if isinstance(documents, HostFile):
        return documents
    root = documents[0] if documents else None
    launches: list[Launch] = []
    values: list[HostValue] = []
    workflow_shell = _scalar(_get(_get(_get(root, "defaults"), "run"), "shell"))
    jobs = _get(root, "jobs")
    groups: list[tuple[Any, str | None, str]] = []
    if jobs is not None and isinstance(jobs.value, list):
        for job_key, job in jobs.value:
            runs_on = _scalar(_get(job, "runs-on")) or ""
            if runs_on.lower().startswith("windows"):
                continue
            job_shell = _scalar(_get(_get(_get(job, "defaults"), "run"), "shell"))
            groups.append((_get(job, "steps"), job_shell or workflow_shell,
                           f"job {job_key.value}"))
    runs = _get(root, "runs")
    if runs is not None and _scalar(_get(runs, "using")) == "composite":
        groups.append((_get(runs, "steps"), None, "composite action"))
    for steps, default_shell, where in groups:
        if steps is None or not isinstance(steps.value, list):
            continue
        for number, step in enumerate(steps.value, 1):
            run = _get(step, "run")
            if run is None or _scalar(run) is None:
                continue
            shell = _scalar(_get(step, "shell")) or default_shell
            uncertain = None
            if shell is not None and "${{" in shell:
                # (`shell: ${{ matrix.shell }}`: bash is the likely one, not a known one)
                uncertain = (f"uncertain: the step's shell is `{shell}`, known only when the "
                             "workflow runs; it is read here as bash")
                shell = "bash"
            argv = _shell_argv(shell)
            if argv is None:
                continue
            name = _scalar(_get(step, "name")) or _scalar(_get(step, "id")) or f"step {number}"
            text = with_expressions(scalar_text(source, run))
            span = (run.start_mark.index, run.end_mark.index)
            launches.append(Launch(f"run: of {name!r} ({where})", span, shell=argv, text=text,
                                   reads_file=True, uncertain=uncertain))
            values.extend(_expressions(source, text))
    return HostFile("github-actions", tuple(launches), values=tuple(values))


def _expressions(source: str, text: HostText) -> list[HostValue]:
    """Each `${{ }}` of a script, as written in the file."""
    out: list[HostValue] = []
    for a, b in text.dynamic_ranges:
        places = [o for o in text.offsets[a:b] if o is not None]
        if not places:
            continue
        start = source.rfind("${{", 0, places[0] + 3)
        end = source.find("}}", start)
        if start < 0 or end < 0:
            continue
        written = source[start:end + 2]
        out.append(HostValue((start, end + 2), written, False,
                             bool(UNTRUSTED_CONTEXTS.search(written))))
    return out
