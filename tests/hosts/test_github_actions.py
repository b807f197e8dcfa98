"""The GitHub Actions reader: which shell runs each `run:` (the "Workflow syntax for GitHub
Actions" reference, quoted in each test), the script as PyYAML reads the scalar, and each of
its characters placed in the file."""

from __future__ import annotations

from pathlib import PurePath

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.hosts.github_actions import read_workflow
from quotecheck.hosts.kinds import host_format
from quotecheck.hosts.model import Launch


def steps(body: str, runs_on: str = "ubuntu-latest", defaults: str = "") -> str:
    return f"on: push\n{defaults}jobs:\n  a:\n    runs-on: {runs_on}\n    steps:\n{body}"


def launches(source: str) -> list[Launch]:
    return list(read_workflow(source).launches)


def test_the_shell_of_each_step() -> None:
    # "bash -e {0}" when no shell is given on Linux; "shell: bash" runs "bash --noprofile
    # --norc -eo pipefail {0}"; "shell: sh" runs "sh -e {0}"; a custom shell names {0}.
    src = steps("      - run: a\n"
                "      - run: b\n        shell: bash\n"
                "      - run: c\n        shell: sh\n"
                "      - run: d\n        shell: bash -x {0}\n"
                "      - run: e\n        shell: pwsh\n"
                "      - run: f\n        shell: python\n")
    assert [x.shell for x in launches(src)] == [
        ("bash", "-e", "{0}"), ("bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"),
        ("sh", "-e", "{0}"), ("bash", "-x", "{0}")]


def test_defaults_of_the_job_and_the_workflow_and_windows_runners() -> None:
    # "defaults.run ... shell" for all run steps of the workflow, or of one job.
    src = steps("      - run: a\n", defaults="defaults:\n  run:\n    shell: sh\n")
    assert [x.shell for x in launches(src)] == [("sh", "-e", "{0}")]
    assert launches(steps("      - run: dir\n", runs_on="windows-latest")) == []


def test_composite_action() -> None:
    src = ("name: x\nruns:\n  using: composite\n  steps:\n"
           "    - run: echo hi\n      shell: bash\n")
    [launch] = launches(src)
    assert launch.text is not None and launch.text.value == "echo hi"
    assert host_format(PurePath("tools/setup/action.yml"), "") == "github-actions"
    assert host_format(PurePath(".github/workflows/ci.yaml"), "") == "github-actions"
    assert host_format(PurePath("deploy/values.yml"), "") is None


def test_expressions_are_known_only_at_run_time() -> None:
    src = steps('      - run: echo "${{ github.event.issue.title }}" $HOME\n')
    [launch] = launches(src)
    assert launch.text is not None
    assert launch.text.value == 'echo "{github.event.issue.title}" $HOME'
    assert launch.text.dynamic_ranges == ((6, 32),)
    [value] = read_workflow(src).values
    assert value.written == "${{ github.event.issue.title }}" and value.outside


def test_the_shell_reads_the_script_from_a_file() -> None:
    src = steps("      - run: |\n          set -x\n          ls\n")
    shell = next(x for x in check_source(src, Options(host="github-actions")).trace.layers
                 if x.kind == "shell")
    assert shell.process == ["bash", "-e", "{0}"] and shell.text == "set -x\nls\n"


_LINE = st.text(alphabet=st.sampled_from(list("ab $'\"#:|&;-\t")), min_size=0, max_size=20)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=5), indent=st.integers(0, 3))
def test_literal_block_characters_stand_at_themselves(lines: list[str], indent: int) -> None:
    """PyYAML's own reading of the block is the script, each character at its place."""
    import yaml

    assume(lines[0].strip() != "" and not lines[0].startswith((" ", "\t")))
    body = "".join(f"          {' ' * indent if i else ''}{line}\n"
                   for i, line in enumerate(lines))
    src = steps(f"      - run: |\n{body}")
    expected = yaml.safe_load(src)["jobs"]["a"]["steps"][0]["run"]
    [launch] = launches(src)
    assert launch.text is not None and launch.text.value == expected
    for ch, at in zip(launch.text.value, launch.text.offsets, strict=True):
        assert at is not None and src[at] == ch


def test_a_file_that_is_no_yaml_says_so() -> None:
    result = check_source("on: [push\njobs: {", Options(host="github-actions"))
    [note] = [d for d in result.diagnostics if d.code == "QC002"]
    assert "YAML does not parse" in note.text and note.severity == "info"
