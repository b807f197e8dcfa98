"""What `check` and `fix` take as input: files that are not shell, empty selections, binary
files, zsh, directives, exclude patterns, .gitignore and configuration errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source
from quotecheck.cli import main
from quotecheck.globs import glob_match

BAD = 'echo ok\necho "unterminated\n'  # QC001 at 2:6


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "--color", "never", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- files that are not shell scripts ---------------------------------------------------------

def test_named_files_that_are_not_shell_are_skipped_with_a_note(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # What `git diff --name-only | xargs quotecheck check` hands over.
    (here / "README.md").write_text("# Title\n\nRun `make`.\n")
    (here / "app.json").write_text('{"cmd": "echo $HOME"}\n')
    (here / "notes").write_text("no shebang, no extension: (not shell\n")
    (here / "bad.sh").write_text(BAD)
    code, out, err = run(capsys, "README.md", "app.json", "notes", "bad.sh")
    assert code == 1
    assert "bad.sh:2:6" in out
    # Not checked, and the summary says which were not (a passing hook never hides one).
    assert out.splitlines()[-1].endswith(
        "; 3 files skipped, not shell scripts: README.md, app.json, notes")
    assert "app.json:" not in out and "README.md:" not in out
    lines = err.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["README.md", "app.json", "notes"]
    assert all("not a shell script" in line and "skipped" in line for line in lines)


def test_a_repository_layout_finds_its_yaml_hosts_and_names_the_others(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `quotecheck check .github/ deploy/ k8s/`: workflows, manifests and playbooks are found by
    # their place and content; a YAML file of no known kind is skipped, and the note says so.
    (here / ".github" / "workflows").mkdir(parents=True)
    (here / ".github" / "workflows" / "ci.yml").write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: ssh -o BatchMode=yes gpu1 ls \"/srv/my app\"\n")
    (here / "k8s").mkdir()
    (here / "k8s" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: a\n        image: busybox\n        command: [tar, czf, $HOME/a.tgz, x]\n")
    (here / "deploy").mkdir()
    (here / "deploy" / "values.yaml").write_text("replicas: 2\nimage: x\n")
    (here / "deploy" / "site.yml").write_text(
        "- hosts: gpus\n  tasks:\n    - shell: set -o pipefail && ls | wc -l\n")
    code, out, err = run(capsys, ".github/", "deploy/", "k8s/")
    assert code == 1
    found = {line.split(" ")[0] for line in out.splitlines() if ": " in line}
    assert {".github/workflows/ci.yml:6:43:", "k8s/job.yaml:9:29:", "deploy/site.yml:3:21:"} \
        <= found, out
    assert "3 files checked" in out.splitlines()[-1]
    [note] = err.splitlines()
    assert "deploy/: 1 YAML file of no known kind skipped (deploy/values.yaml)" in note


def test_only_files_that_are_not_shell_is_no_finding(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "app.json").write_text('{"cmd": "echo $HOME"}\n')
    code, out, err = run(capsys, "app.json")
    assert (code, out) == (0, "0 files checked: no findings; 1 file skipped, not a shell "
                              "script: app.json\n")
    assert "app.json: not a shell script" in err
    code, out, err = run(capsys, "-q", "app.json")
    assert (code, out) == (0, "")


def test_a_shebang_makes_a_file_without_extension_a_script(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "deploy").write_text("#!/usr/bin/env bash\n" + BAD)
    code, out, err = run(capsys, "deploy")
    assert code == 1 and "deploy:3:6" in out and err == ""


# Names of real sh scripts on Debian (dpkg maintainer scripts, debianutils, python3-dev).
DOTTED_SCRIPTS = ("openssh-server.postinst", "ucf.prerm", "which.debianutils",
                  "python3.11-config", "deploy.sh.in")


def test_a_shell_shebang_makes_a_dotted_name_a_script(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in DOTTED_SCRIPTS:
        (here / name).write_text("#!/bin/sh\n" + BAD)
    code, out, err = run(capsys, *DOTTED_SCRIPTS)
    assert code == 1 and err == "", err
    assert [line.split(":")[0] for line in out.splitlines()[:-1] if ": error " in line] == \
        list(DOTTED_SCRIPTS)


def test_another_formats_extension_decides_against_the_shebang(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "tool.py").write_text('#!/bin/sh\n"exec" "python3" "$0"\nprint(1)\n')
    (here / "notes.md").write_text("#!/bin/bash\n" + BAD)
    code, out, err = run(capsys, "tool.py", "notes.md")
    # (tool.py is read as Python, a host file: the commands it launches are checked)
    assert (code, out) == (0, "1 file checked: no findings; 1 file skipped, not a shell "
                              "script: notes.md\n")
    assert err.splitlines() == [
        "quotecheck: notes.md: not a shell script (a .md file): skipped; --shell bash checks "
        "it anyway"]


def test_a_walk_finds_dotted_scripts_by_their_shebang(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "d").mkdir()
    (here / "d" / "pkg.postinst").write_text("#!/bin/sh\n" + BAD)
    (here / "d" / "pkg.conffiles").write_text("/etc/pkg.conf\n")  # no #!: not a script
    (here / "d" / "setup.py").write_text("#!/bin/sh\n" + BAD)
    code, out, _ = run(capsys, "d")
    assert code == 1
    assert {line.split(":")[0] for line in out.splitlines() if ": error " in line} == \
        {"d/pkg.postinst"}


def test_shell_option_checks_a_file_of_any_type(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "snippet.txt").write_text(BAD)
    code, out, _ = run(capsys, "--shell", "bash", "snippet.txt")
    assert code == 1 and "snippet.txt:2:6: error QC001" in out


def test_an_empty_directory_says_so(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "empty").mkdir()
    (here / "docs").mkdir()
    (here / "docs" / "index.md").write_text("# docs\n")
    code, out, err = run(capsys, "empty", "docs")
    assert (code, out) == (0, "")
    assert err.splitlines() == ["quotecheck: no shell scripts found in empty",
                                "quotecheck: no shell scripts found in docs"]


def test_a_binary_script_is_one_short_finding_without_its_bytes(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "tool.sh").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00secret-bytes\x00" * 50)
    code, out, _ = run(capsys, "tool.sh")
    assert code == 1
    assert out.splitlines() == ["tool.sh:1:1: warning QC002 binary file, not analysed",
                                "    it holds NUL bytes",
                                "1 file checked: 1 finding (1 warning)"]


def test_a_binary_file_without_extension_is_skipped(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "a.out").write_bytes(b"\x7fELF\x02\x01\x01\x00" * 20)
    (here / "prog").write_bytes(b"\x7fELF\x02\x01\x01\x00" * 20)
    code, out, err = run(capsys, "prog", "a.out")
    assert (code, out) == (0, "0 files checked: no findings; 2 files skipped, not shell "
                              "scripts: prog, a.out\n")
    assert "ELF" not in err and err.count("not a shell script") == 2


def test_fix_skips_files_that_are_not_shell(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "app.json").write_text('{"cmd": "echo $HOME"}\n')
    code = main(["fix", "--diff", "app.json"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "")
    assert "app.json: not a shell script" in err


# -- zsh ----------------------------------------------------------------------------------------

# Realistic zsh, each accepted by `zsh -n`; bash's grammar cannot read the marked constructs.
ZSH_SCRIPTS = {
    "branches.zsh": (
        "#!/bin/zsh\n"
        "setopt extended_glob\n"
        "typeset -a branches\n"
        "branches=(${(f)\"$(git branch --format='%(refname:short)')\"})\n"
        "for b in $branches; do\n"
        "  print -r -- \"branch: $b\"\n"
        "done\n"
        "files=(**/*.sh(N.))\n"  # a glob qualifier: not bash
        "print -l ${files:t}\n"
        "[[ ${#branches} -gt 1 ]] && echo \"${(j:, :)branches}\"\n"
    ),
    "ports.zsh": (
        "#!/usr/bin/env zsh\n"
        "emulate -L zsh\n"
        "local host=${1:-web1}\n"
        "local -A ports=(web 80 db 5432)\n"
        "for name port in ${(kv)ports}; do\n"  # two loop variables: not bash
        "  print \"$name $port\"\n"
        "done\n"
        "ssh -o BatchMode=yes -o ConnectTimeout=5 \"$host\" \"rm -rf $dir\"\n"
        "repeat 3 { print tick }\n"
    ),
    "plain.zsh": (
        "name=$1\n"  # no #! line: the extension says zsh
        "echo \"hello $name\"\n"
        "autoload -Uz compinit && compinit\n"
    ),
}


@pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh")
@pytest.mark.parametrize("name", sorted(ZSH_SCRIPTS))
def test_valid_zsh_is_never_a_parse_error(here: Path, name: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = here / name
    path.write_text(ZSH_SCRIPTS[name])
    assert subprocess.run(["zsh", "-n", str(path)], check=False).returncode == 0
    code, out, _ = run(capsys, "--select", "QC001,QC002", "--severity", "info", name)
    assert "QC001" not in out
    if name == "plain.zsh":
        assert (code, out) == (0, "")
    else:
        notes = [line for line in out.splitlines() if " QC002 " in line]
        assert notes and all(": info QC002 zsh syntax not analysed here" in line
                             for line in notes)


def test_zsh_is_still_analysed_around_what_cannot_be_parsed(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "ports.zsh").write_text(ZSH_SCRIPTS["ports.zsh"])
    _, out, _ = run(capsys, "--severity", "info", "ports.zsh")
    assert "ports.zsh:8:" in out and "QC103" in out  # `$dir` pasted into the remote code
    assert "local zsh" in out


@pytest.mark.parametrize("spelling", ["# quotecheck: shell=zsh", "# shellcheck shell=zsh"])
def test_a_shell_directive_names_the_dialect(spelling: str) -> None:
    text = f"#!/bin/bash\n{spelling}\nfor k v in a b c d; do print $k; done\n"
    result = check_source(text, Options(dialect="bash"))
    assert {d.code for d in result.diagnostics} & {"QC001"} == set()
    assert result.trace.root.dialect == "zsh"
    # Without it the same text is bash, which it is not.
    bash = check_source(text.replace(spelling, ""), Options(dialect="bash"))
    assert "QC001" in {d.code for d in bash.diagnostics}


def test_the_shell_option_beats_the_directive_and_the_shebang(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "x.sh").write_text("#!/bin/zsh\n# quotecheck: shell=zsh\nfor k v in a b; do :; done\n")
    code, out, _ = run(capsys, "--shell", "bash", "--select", "QC001", "x.sh")
    assert code == 1 and "x.sh:3:" in out and "QC001" in out
    code, out, _ = run(capsys, "--select", "QC001", "x.sh")
    assert (code, out) == (0, "")


# -- directives ---------------------------------------------------------------------------------

SSH_LINE = 'ssh -o BatchMode=yes -o ConnectTimeout=5 host "rm $file"'  # QC103 on `$file`


def _codes_by_line(text: str) -> dict[int, set[str]]:
    result = check_source(text, Options())
    out: dict[int, set[str]] = {}
    for d in result.diagnostics:
        out.setdefault(text.count("\n", 0, d.span[0]) + 1, set()).add(d.code)
    return out


def test_an_end_of_line_directive_applies_to_its_line() -> None:
    text = f"{SSH_LINE}  # quotecheck: disable=QC103\n{SSH_LINE}\n"
    found = _codes_by_line(text)
    assert "QC103" not in found.get(1, set())
    assert "QC103" in found[2]


def test_a_directive_names_a_rule_by_its_name() -> None:
    text = f"{SSH_LINE}  # quotecheck: disable=value-becomes-code\n"
    assert "QC103" not in _codes_by_line(text).get(1, set())
    own_line = f"# quotecheck: disable=value-becomes-code\n{SSH_LINE}\n"
    assert "QC103" not in _codes_by_line(own_line).get(2, set())


def test_a_directive_without_its_colon_is_reported() -> None:
    text = f"# quotecheck disable=QC103\n{SSH_LINE}\n"
    result = check_source(text, Options())
    malformed = [d for d in result.diagnostics if d.code == "QC002"]
    assert len(malformed) == 1 and "colon" in malformed[0].text
    assert malformed[0].span[0] == 0
    assert "QC103" in {d.code for d in result.diagnostics}  # and it disables nothing


def test_a_directive_spelled_inside_a_string_is_no_directive() -> None:
    text = f'{SSH_LINE}; echo "# quotecheck: disable=QC103"\n'
    assert "QC103" in _codes_by_line(text)[1]
    assert "QC002" not in _codes_by_line(text)[1]


# -- exclude, extend-select, .gitignore, configuration ------------------------------------------

def _tree(root: Path) -> None:
    for rel in ("a.sh", "ci/legacy/old.sh", "ci/legacy/deep/older.sh", "vendor/lib.sh",
                "build/gen.sh"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BAD)


def _checked(out: str) -> set[str]:
    return {line.split(":")[0] for line in out.splitlines() if " QC001 " in line}


def test_exclude_options_leave_globs_out_of_the_walk(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tree(here)
    _, out, _ = run(capsys, "--no-config", ".")
    assert _checked(out) == {"a.sh", "ci/legacy/old.sh", "ci/legacy/deep/older.sh",
                             "vendor/lib.sh", "build/gen.sh"}
    _, out, _ = run(capsys, "--no-config", "--extend-exclude", "vendor,ci/legacy/*", ".")
    assert _checked(out) == {"a.sh", "build/gen.sh"}  # ci/legacy/deep is excluded as a dir
    _, out, _ = run(capsys, "--no-config", "--exclude", "build", ".")
    assert _checked(out) == {"a.sh", "ci/legacy/old.sh", "ci/legacy/deep/older.sh",
                             "vendor/lib.sh"}
    # A file named on the command line is checked whatever the patterns say.
    _, out, _ = run(capsys, "--no-config", "--exclude", "vendor", "vendor/lib.sh")
    assert _checked(out) == {"vendor/lib.sh"}


def test_exclude_settings(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tree(here)
    (here / ".quotecheck.toml").write_text('extend-exclude = ["ci/**/older.sh", "vendor/"]\n')
    _, out, _ = run(capsys, ".")
    assert _checked(out) == {"a.sh", "ci/legacy/old.sh", "build/gen.sh"}
    (here / ".quotecheck.toml").write_text('exclude = []\n')
    (here / ".git").mkdir()
    (here / ".git" / "hook.sh").write_text(BAD)
    _, out, _ = run(capsys, "--no-respect-gitignore", ".")
    assert ".git/hook.sh" in _checked(out)  # exclude replaces the default list


def test_a_bad_exclude_pattern_is_an_error(here: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (here / "a.sh").write_text("true\n")
    (here / ".quotecheck.toml").write_text('exclude = "vendor"\n')
    code, _, err = run(capsys, "a.sh")
    assert code == 2 and "exclude must be a list of glob patterns" in err


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_walk_respects_gitignore(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tree(here)
    subprocess.run(["git", "init", "-q", str(here)], check=True)
    (here / ".gitignore").write_text("build/\n*.bak\n")
    (here / "ci" / ".gitignore").write_text("legacy/deep/\n")
    _, out, _ = run(capsys, "--no-config", ".")
    assert _checked(out) == {"a.sh", "ci/legacy/old.sh", "vendor/lib.sh"}
    _, out, _ = run(capsys, "--no-config", "ci")  # walked from a subdirectory
    assert _checked(out) == {"ci/legacy/old.sh"}
    _, out, _ = run(capsys, "--no-config", "build/gen.sh")  # named: checked
    assert _checked(out) == {"build/gen.sh"}
    _, out, _ = run(capsys, "--no-config", "--no-respect-gitignore", ".")
    assert "build/gen.sh" in _checked(out)
    (here / ".quotecheck.toml").write_text("respect-gitignore = false\n")
    _, out, _ = run(capsys, ".")
    assert "build/gen.sh" in _checked(out)


def _codes(out: str) -> set[str]:
    return set(re.findall(r"^\S+:\d+:\d+: \w+ (QC\d{3})", out, re.MULTILINE))


def test_extend_select_adds_to_the_selection(here: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (here / "bad.sh").write_bytes(BAD.replace("\n", "\r\n").encode())  # QC002 and QC001
    _, out, _ = run(capsys, "--no-config", "--select", "QC001", "bad.sh")
    assert _codes(out) == {"QC001"}
    _, out, _ = run(capsys, "--no-config", "--select", "QC001", "--extend-select", "QC002",
                    "bad.sh")
    assert _codes(out) == {"QC001", "QC002"}
    (here / ".quotecheck.toml").write_text('ignore = ["QC0"]\nextend-select = ["QC002"]\n')
    _, out, _ = run(capsys, "bad.sh")
    assert _codes(out) == {"QC002"}


def test_a_configuration_error_is_reported_once(here: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    for n in range(5):
        (here / f"s{n}.sh").write_text("true\n")
    (here / ".quotecheck.toml").write_text('severity = "loud"\n')
    code, out, err = run(capsys, "--jobs", "1", *[f"s{n}.sh" for n in range(5)])
    assert code == 2 and out == ""
    assert err.count("severity must be one of") == 1


@pytest.mark.parametrize("content", [b"[tool.quotecheck]\nignore = [\"QC\xff01\"]\n",
                                     b"\xfe\xff[tool.black]\n"])
def test_a_pyproject_that_is_not_utf8_is_an_error(
        here: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    (here / "a.sh").write_text("true\n")
    (here / "pyproject.toml").write_bytes(content)
    code, _, err = run(capsys, "a.sh")
    assert code == 2 and "pyproject.toml: cannot read: not UTF-8" in err


def test_an_unreadable_pyproject_is_an_error(here: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (here / "a.sh").write_text("true\n")
    (here / "pyproject.toml").mkdir()  # readable by no one, root included
    code, _, err = run(capsys, "a.sh")
    assert code == 2 and "pyproject.toml: cannot read" in err


def test_per_path_ignores_globs_do_not_cross_directories(
        here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tree(here)
    (here / ".quotecheck.toml").write_text('[per-path-ignores]\n"ci/legacy/*" = ["QC001"]\n')
    _, out, _ = run(capsys, "ci")
    assert _checked(out) == {"ci/legacy/deep/older.sh"}
    (here / ".quotecheck.toml").write_text('[per-path-ignores]\n"ci/legacy/**" = ["QC001"]\n')
    _, out, _ = run(capsys, "ci")
    assert _checked(out) == set()


@pytest.mark.parametrize(("pattern", "path", "matches"), [
    ("ci/legacy/*", "ci/legacy/x.sh", True),
    ("ci/legacy/*", "ci/legacy/deep/x.sh", False),
    ("ci/legacy/**", "ci/legacy/deep/x.sh", True),
    ("**/test_*.sh", "test_a.sh", True),
    ("**/test_*.sh", "a/b/test_a.sh", True),
    ("*.bats", "t/x.bats", True),
    ("vendor", "third/vendor", True),
    ("vendor", "vendored", False),
    ("/build", "build", True),
    ("/build", "src/build", False),
    ("x?.sh", "x1.sh", True),
    ("x[!0-9].sh", "x1.sh", False),
])
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert glob_match(pattern, path) is matches
