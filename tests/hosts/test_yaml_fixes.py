"""`fix` in YAML host files: a shell rule's edit is written in the scalar's own style (plain,
quoted, block) and below it the host's own `$$`, and what the runner, Compose or the kubelet
then hands the shell is the fixed text.

The reference for YAML is PyYAML's reading of the fixed file; for the runner, real bash
running the `run:` script from a file as the runner does, with an `ssh` stub recording the
argv it gets; for Compose and the kubelet, their documented `$$` (Compose: "Interpolation",
`$$` for a literal dollar sign; Kubernetes: "Define a command and arguments", `$$(VAR)`
escapes a reference)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml
from harness.stubs import StubDir
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options
from quotecheck.diagnostics import Edit
from quotecheck.fixer import fix_source
from quotecheck.hosts.escaping import host_edit
from quotecheck.hosts.model import HostFile
from quotecheck.hosts.yaml_scalars import scalar_nodes, scalar_tokens

STEPS = [
    'ssh -o BatchMode=yes gpu1 ls "/srv/my app"',
    '"ssh -o BatchMode=yes gpu1 ls \\"/srv/my app\\""',
    '\'ssh -o BatchMode=yes gpu1 ls "/srv/my app"\'',
    '|\n          ssh -o BatchMode=yes gpu1 ls "/srv/my app"',
    '>\n          ssh -o BatchMode=yes\n          gpu1 ls "/srv/my app"',
]


def _workflow(run: str) -> str:
    return ("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - name: list\n        run: {run}\n")


def test_each_scalar_style_gets_the_fix_and_bash_hands_ssh_one_word(tmp_path: Path) -> None:
    for run in STEPS:
        source = _workflow(run)
        result = fix_source(source, Options(host="github-actions"), unsafe=True)
        # (QC208's fix adds a ConnectTimeout: nobody answers a prompt in a workflow)
        assert [d.code for d, _ in result.applied] == ["QC208", "QC102"], run
        script = yaml.safe_load(result.text)["jobs"]["a"]["steps"][0]["run"]
        (tmp_path / "step.sh").write_text(script)
        stubs = StubDir(tmp_path, names=["ssh"])
        subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail",
                        str(tmp_path / "step.sh")], env=stubs.env(), check=True, timeout=30)
        [argv] = stubs.records_for("ssh")
        assert argv[-2:] == ["gpu1", "ls '/srv/my app'"], run
        assert "BatchMode=yes" in argv and "ConnectTimeout=10" in argv, run
        # and the rest of the file is as it was
        before = source.splitlines()[:6]
        assert result.text.splitlines()[:6] == before


def _edit_of(source: str, old: str, new: str) -> Edit:
    at = source.index(old)
    return Edit((at, at + len(old)), new)


def test_compose_doubles_every_dollar() -> None:
    source = "services:\n  app:\n    image: alpine\n    command: sh -c 'ls /srv'\n"
    host = HostFile("compose", ())
    edit = host_edit(host, source, _edit_of(source, "ls /srv", 'echo "$HOME" $$'))
    assert edit is not None
    assert edit.text == 'echo "$$HOME" $$$$'


def test_kubernetes_doubles_the_dollars_the_kubelet_reads() -> None:
    source = ("apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n"
              "      containers:\n      - name: a\n        image: busybox\n"
              "        args: [\"sh\", \"-c\", \"ls /srv\"]\n")
    host = HostFile("kubernetes", ())
    wanted = "echo $(date) $HOME $$"
    edit = host_edit(host, source, _edit_of(source, "ls /srv", wanted))
    assert edit is not None
    assert edit.text == "echo $$(date) $HOME $$$"
    fixed = source[:edit.span[0]] + edit.text + source[edit.span[1]:]
    args = yaml.safe_load(fixed)["spec"]["template"]["spec"]["containers"][0]["args"]
    assert _kubelet_reads(args[2]) == wanted


def _kubelet_reads(text: str) -> str:
    """The kubelet's expansion of a `command:`/`args:` item with no variables defined, as
    documented: `$$` is `$`, `$(NAME)` stays as written when NAME is not defined, any other
    `$` is itself."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def test_what_a_host_would_read_as_its_own_syntax_is_not_written() -> None:
    workflow = _workflow("ls /srv")
    assert host_edit(HostFile("github-actions", ()), workflow,
                     _edit_of(workflow, "ls /srv", "echo ${{ x }}")) is None
    play = "- hosts: all\n  tasks:\n  - shell: ls /srv\n"
    assert host_edit(HostFile("ansible", ()), play, _edit_of(play, "ls /srv", "echo {{ x }}")) \
        is None


def test_an_edit_that_a_plain_scalar_cannot_hold_is_refused() -> None:
    workflow = _workflow("ls /srv")
    # `: ` makes the plain scalar a mapping, ` #` starts a comment
    for text in ("echo a: b", "echo a #b"):
        assert host_edit(HostFile("github-actions", ()), workflow,
                         _edit_of(workflow, "ls /srv", text)) is None


TEXT = st.text(alphabet=st.sampled_from(list("ab $:#'\"\\{}-é\t")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(value=st.text(alphabet=st.sampled_from(list("ab c'\"\\$\n")), min_size=3, max_size=30),
       style=st.sampled_from(['"', "'", "|", None]), text=TEXT, data=st.data())
def test_a_written_edit_reads_back_as_the_fixed_value(value: str, style: str | None, text: str,
                                                     data: Any) -> None:
    source = yaml.dump({"run": value, "other": "x y"}, default_style=style, width=30,
                       sort_keys=False, allow_unicode=True)
    [_, node, _, other] = scalar_nodes(list(yaml.compose_all(source)))
    tokens = scalar_tokens(source, node)
    assert tokens is not None
    plain = [k for k, t in enumerate(tokens) if t[0] == source[t[1]:t[2]] and t[0] != "\n"]
    if not plain:
        return
    first = data.draw(st.sampled_from(plain))
    last = data.draw(st.integers(first, min(first + 3, len(tokens) - 1)))
    if any(tokens[k][0] == "\n" or source[tokens[k][1]:tokens[k][2]] != tokens[k][0]
           for k in range(first, last + 1)):
        return
    a, b = tokens[first][1], tokens[last][2]
    edit = host_edit(HostFile("github-actions", ()), source, Edit((a, b), text))
    one_line = "\n" not in source[node.start_mark.index:node.end_mark.index]
    if node.style in ('"', "'") and one_line and "${{" not in text:
        assert edit is not None, (source, text)  # quotes on one line can spell any such text
    if edit is None:
        return
    fixed = source[:edit.span[0]] + edit.text + source[edit.span[1]:]
    loaded = yaml.safe_load(fixed)
    assert loaded["run"] == node.value[:first] + text + node.value[last + 1:]
    assert loaded["other"] == other.value
