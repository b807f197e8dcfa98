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

Steps that use an action sending a script to an ssh server (``SSH_ACTIONS``) are an ssh layer:
the runner pastes `${{ }}` into the action's input, and the action sends the text as one
`exec` request, which the remote user's login shell runs. What each does, as read in its source
(tests/hosts/test_ssh_actions.py cites the files):

* appleboy/ssh-action (drone-ssh 1.8.2, appleboy/drone-ssh 2dd9201, plugin.go): `script:` with
  its outer blanks trimmed; first, for each name of `envs:` (upper-cased), a line
  `export NAME='value'` with the runner's value in single quotes; the lines joined with a line
  feed. With `script_stop: true` (honoured up to v1.2.0; the input is gone from v1.2.1 on), each
  line is trimmed, blank lines dropped, and after each line not ending in `\\` a line of its own
  exits with the status of a failed one.
* garygrossgarten/github-action-ssh: `command:`, trimmed, sent as it is.
"""

from __future__ import annotations

from typing import Any

from quotecheck.hosts.model import (
    HostFile,
    HostText,
    HostValue,
    Launch,
    cut,
    generated,
    join_texts,
    placed,
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
# request's title and body, a comment, the pull request's head branch, a commit message or
# author (GitHub's "Security hardening for GitHub Actions", "Understanding the risk of script
# injections"). A pull request's base branch (`pull_request.base.ref`) is the repository's own.
UNTRUSTED_CONTEXTS = lazy_compile(
    r"\bgithub\.head_ref\b"
    r"|\bgithub\.event\.(?:issue|pull_request|discussion)\.(?:title|body)\b"
    r"|\bgithub\.event\.(?:comment|review|review_comment|discussion_comment)\.body\b"
    r"|\bgithub\.event\.pages\b[\w.*\[\]]*?\.page_name\b"
    r"|\bgithub\.event\.(?:commits\b[\w.*\[\]]*?|head_commit|workflow_run\.head_commit)"
    r"\.(?:message|author\.(?:email|name))\b"
    r"|\bgithub\.event\.(?:pull_request|workflow_run\.pull_requests\b[\w.*\[\]]*?)"
    r"\.head\.(?:ref|label|repo\.default_branch)\b"
    r"|\bgithub\.event\.workflow_run\.head_branch\b")
# Inputs of a manually run or called workflow, or of an action: chosen by whoever runs it
# (free text only for a `workflow_dispatch` input of type string; a `workflow_call` or an
# action's input is what the repository's own callers pass).
INPUT_CONTEXTS = lazy_compile(r"\b(?:github\.event\.)?inputs\.([\w-]+)")
# A release's tag name, title and notes: chosen by whoever can push tags and publish releases,
# the repository's writers (a tag name may hold quotes, `;`, `$(...)`: `git check-ref-format`
# refuses only blanks, control characters and a few others). A release runs the workflow of
# its tagged commit, which they can change as well.
RELEASE_CONTEXTS = lazy_compile(r"\bgithub\.event\.release\.(?:tag_name|name|body)\b")
_EXPRESSION = lazy_compile(r"\$\{\{(.*?)\}\}", 0)

# Actions that send a script input to an ssh server as one exec request: the input's name.
SSH_ACTIONS = {"appleboy/ssh-action": "script", "garygrossgarten/github-action-ssh": "command"}
# appleboy/ssh-action's versions that honour `script_stop` (the input went in v1.2.1).
_SCRIPT_STOP_REFS = lazy_compile(r"v0(?:\.\d+)*|v1\.[01](?:\.\d+)?|v1\.2\.0", 0)
_SCRIPT_STOP_LINE = ("DRONE_SSH_PREV_COMMAND_EXIT_CODE=$? ; if [ $DRONE_SSH_PREV_COMMAND_EXIT_CODE "
                     "-ne 0 ]; then exit $DRONE_SSH_PREV_COMMAND_EXIT_CODE; fi;")
_GO_SPACE = " \t\n\r\v\f\x85\xa0"  # (Go's strings.TrimSpace: Unicode white space)


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
    free_inputs = _free_text_inputs(root)
    for steps, default_shell, where in groups:
        if steps is None or not isinstance(steps.value, list):
            continue
        for number, step in enumerate(steps.value, 1):
            run = _get(step, "run")
            if run is None or _scalar(run) is None:
                launch = _ssh_action(source, step, number, where)
                if launch is not None and launch.text is not None:
                    launches.append(launch)
                    values.extend(_expressions(source, launch.text, free_inputs))
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
            values.extend(_expressions(source, text, free_inputs))
    return HostFile("github-actions", tuple(launches), values=tuple(values))


def _trimmed(text: HostText) -> HostText:
    value = text.value
    a = len(value) - len(value.lstrip(_GO_SPACE))
    b = len(value.rstrip(_GO_SPACE))
    return cut(text, a, max(a, b))


def _ssh_action(source: str, step: Any, number: int, where: str) -> Launch | None:
    """The ssh layer of a step that uses one of ``SSH_ACTIONS``, or None."""
    uses = _scalar(_get(step, "uses")) or ""
    action, _, ref = uses.partition("@")
    key = SSH_ACTIONS.get(action.strip().lower())
    inputs = _get(step, "with")
    node = _get(inputs, key) if key else None
    if node is None or _scalar(node) is None:
        return None
    name = _scalar(_get(step, "name")) or _scalar(_get(step, "id")) or f"step {number}"
    script = _trimmed(scalar_text(source, node))
    uncertain = None
    if action.strip().lower() == "appleboy/ssh-action":
        stop = (_scalar(_get(inputs, "script_stop")) or "").strip().lower() == "true"
        if stop and _SCRIPT_STOP_REFS.fullmatch(ref.strip()):
            script = _stopping(script)
        elif stop and not ref.strip().startswith("v"):
            uncertain = (f"uncertain: `script_stop` is honoured only up to v1.2.0, and `@{ref}` "
                         "does not say which version runs; it is read here as ignored")
        script = join_texts([*_exports(source, inputs), script], generated("\n"))
    text = with_expressions(script)
    host = _scalar(_get(inputs, "host"))
    span = (node.start_mark.index, node.end_mark.index)
    return Launch(f"{key}: of {name!r} ({action.strip()}, {where})", span, text=text, ssh=True,
                  destination=host.strip() if host else None,
                  uncertain=uncertain)


def _exports(source: str, inputs: Any) -> list[HostText]:
    """appleboy/ssh-action's `export NAME='value'` line for each name of `envs:`."""
    node = _get(inputs, "envs")
    if node is None or _scalar(node) is None or _get(inputs, "envs_format") is not None:
        return []  # (another format: its lines are not built here)
    names = scalar_text(source, node)
    out: list[HostText] = []
    at = 0
    for piece in names.value.split(","):
        a = at + len(piece) - len(piece.lstrip())
        b = at + len(piece.rstrip())
        at += len(piece) + 1
        env = piece.strip()
        if not env or "${{" in env or not env.replace("_", "a").isalnum():
            continue
        out.append(placed(names, a, b, f"export {env.upper()}=")
                   + run_time_part(names, a, b, env.upper(), quoted=True))
    return out


def _stopping(script: HostText) -> HostText:
    """``script`` as drone-ssh runs it with `script_stop`: each line trimmed, blank ones
    dropped, and a line of its own after each that does not end in a backslash."""
    parts: list[HostText] = []
    at = 0
    for line in script.value.split("\n"):
        piece = _trimmed(cut(script, at, at + len(line)))
        at += len(line) + 1
        if not piece.value:
            continue
        parts.append(piece)
        if not piece.value.endswith("\\"):
            parts.append(generated(_SCRIPT_STOP_LINE))
    return join_texts(parts, generated("\n"))


def _free_text_inputs(root: Any) -> frozenset[str]:
    """The inputs of a `workflow_dispatch` trigger whose value is free text (type string, the
    default; not a choice, boolean, number or environment)."""
    inputs = _get(_get(_get(root, "on"), "workflow_dispatch"), "inputs")
    pairs = inputs.value if isinstance(getattr(inputs, "value", None), list) else []
    return frozenset(str(k.value) for k, v in pairs
                     if (_scalar(_get(v, "type")) or "string").strip() == "string")


def _expressions(source: str, text: HostText, free_inputs: frozenset[str]) -> list[HostValue]:
    """Each `${{ }}` of a script, as written in the file; ``outside``: text someone outside the
    repository's writers chooses, or free text of its writers (a manual run's input, a
    release's tag, title or notes)."""
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
        free = any(m.group(1) in free_inputs for m in INPUT_CONTEXTS.finditer(written))
        out.append(HostValue((start, end + 2), written, False,
                             bool(UNTRUSTED_CONTEXTS.search(written)) or free
                             or bool(RELEASE_CONTEXTS.search(written))))
    return out
