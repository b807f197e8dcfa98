"""QC113 not-passed-down: variables the outer script sets but the inner layer never receives."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from _support import Finder, fixture_test

from quotecheck.checker import Options, check_source

CODE = "QC113"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


@pytest.mark.parametrize("inner", ["sh", "dash", "bash"])
def test_real_shells_only_pass_exported_variables(inner: str) -> None:
    read = f"{inner} -c 'printf \"[%s]\" \"$X\"'"

    def run(script: str) -> str:
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                              timeout=10, check=True,
                              env={"PATH": "/usr/bin:/bin", "CMD": read}).stdout

    assert run(f"X=1; {read}") == "[]"
    assert run(f"X=1 {read}") == "[1]"
    assert run(f"export X=1; {read}") == "[1]"
    assert run(f"X=1; export X; X=2; {read}") == "[2]"
    assert run(f"set -a; X=1; {read}") == "[1]"
    assert run(f"X=1; env X=\"$X\" {read}") == "[1]"
    assert run('X=1; eval "$CMD"') == "[]"  # eval is the same shell; its sh -c is not
    assert run("X=1; eval 'printf \"[%s]\" \"$X\"'") == "[1]"


def test_unexported_variable_read_by_sh_c() -> None:
    src = "X=1\nsh -c 'echo $X'"
    [(line, col, d)] = found(src)
    assert (line, col) == (2, 13) and d.severity == "warning"
    assert d.message.kind == "not-exported" and d.message.value("line") == " (line 1)"
    assert d.message.value("name") == "X"
    assert d.related and src[d.related[0].span[0]:d.related[0].span[1]] == "X=1"
    assert d.layers == ("local bash", "local sh")


def test_passed_variables_are_not_reported() -> None:
    for src in ["X=1 sh -c 'echo $X'", "export X=1; sh -c 'echo $X'",
                "X=1; export X; sh -c 'echo $X'", "declare -x X=1; sh -c 'echo $X'",
                "set -a; X=1; sh -c 'echo $X'", "X=1; sh -c 'echo ${X:-none}'",
                "X=1; sh -c 'X=2; echo $X'", "X=1; sh -c \"echo $X\"", "X=1; eval 'echo $X'",
                "PATH=/opt/bin:$PATH; sh -c 'echo $PATH'", "sh -c 'echo $X'; X=1",
                "f() { X=1; }; sh -c 'echo $X'", "X=1; env X=\"$X\" sh -c 'echo $X'",
                "sh -c 'cmd \"$1\"' sh \"$x\"", "ssh h 'echo '\\''a'\\'''",
                "export X=1; sudo X=\"$X\" sh -c 'echo $X'",
                "JAVA_HOME=/opt/jdk; ssh h '. ~/.profile; echo \"$JAVA_HOME\"'"]:
        assert found(src) == [], src


def test_loop_variable_is_not_exported() -> None:
    assert len(found("for f in a b; do :; done\nsh -c 'echo $f'")) == 1


def test_ssh_passes_nothing_even_when_exported() -> None:
    for src in ["X=1; ssh h 'echo $X'", "export X=1; ssh h 'echo $X'",
                "X=1 ssh h 'echo $X'", "X=1; ssh h \"echo \\$X\""]:
        [(_, _, d)] = found(src)
        assert d.message.kind == "dropped-on-the-way", src
        assert d.message.value("dropped") == "ssh does not pass it", src
        assert "`ssh h bash -s -- \"$X\" <<'EOF'`" in d.message.value("instead")


def test_ssh_heredoc_script_points_into_the_heredoc() -> None:
    src = "export VERSION=2\nssh h bash -s <<'EOF'\necho \"$VERSION\"\nEOF\n"
    [(line, col, _)] = found(src)
    assert (line, col) == (3, 7)
    assert found("VERSION=2\nssh h bash -s -- \"$VERSION\" <<'EOF'\necho \"$1\"\nEOF\n") == []


def test_send_env_is_only_information() -> None:
    [(_, _, d)] = found("export X=1; ssh -o SendEnv=X h 'echo $X'")
    assert d.severity == "info" and d.message.value("dropped") == "the server may drop it"
    # SendEnv accumulates over several options (unlike first-wins options such as Port).
    [(_, _, d)] = found("export X=1; ssh -o SendEnv=LANG -o 'SendEnv X' h 'echo $X'")
    assert d.severity == "info"


def test_sudo_and_containers() -> None:
    [(_, _, d)] = found("export X=1; sudo sh -c 'echo $X'")
    assert d.message.value("dropped") == "sudo drops it" and "env_reset" in d.message.value("why")
    for src in ["export X=1; sudo -E sh -c 'echo $X'",
                "export X=1; sudo --preserve-env=X sh -c 'echo $X'",
                "export X=1; sudo X=\"$X\" sh -c 'echo $X'",
                "export X=1; docker exec -e X c sh -c 'echo $X'"]:
        assert found(src) == [], src
    assert len(found("export X=1; docker exec c sh -c 'echo $X'")) == 1
    assert len(found("export X=1; kubectl exec p -- sh -c 'echo $X'")) == 1
    assert len(found("export X=1; env -i sh -c 'echo $X'")) == 1


def test_nested_layers() -> None:
    # Set in the remote shell itself, not exported, read by its sh -c.
    [(_, _, d)] = found("ssh h 'X=1; sh -c \"echo \\$X\"'")
    assert "remote" in d.text
    # eval does not start a process: the sh -c behind it is what matters.
    assert len(found("X=1; eval 'sh -c \"echo \\$X\"'")) == 1


@pytest.mark.parametrize("src", ["sh -c", "X=; sh -c '$X'", "export", "export -n X",
                                 "unset; sh -c 'echo $X'", "read; sh -c 'echo $REPLY'",
                                 "declare -x", "$x=1; sh -c 'echo $x'", "ssh h '$'",
                                 "set -o; set -o allexport; X=1; sh -c 'echo $X'"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


HANDOFF_CODES = [f"QC1{n:02d}" for n in range(6, 14)]
_TOKENS = ["ssh", "h", "sh", "-c", "bash", "-s", "sudo", "-u", "bob", "su", "awk", "-v",
           "x='a\\tb'", "'echo $1'", '"$x"', "'a 'b c''", "~/x", "*.log", "X=1", "export",
           "X", ";", "&&", "|", ">", "/etc/f", "<<'EOF'\n$X\nEOF\n", "timeout", "5",
           "\"cd d && x\"", "xargs", "find", ".", "-exec", "{}", "\\;", "env", "-i", "eval",
           "$'a\\tb'", "docker", "exec", "kubectl", "--", "cd", "\n", "printf", "-v", "q", "%q",
           "'", '"', "$(", ")", "`", "{", "}", "'\\''", "${x@Q}", "watch", "nohup", "&"]


def test_handoff_rules_survive_random_scripts() -> None:
    """Random token soups (many unparsable) never make one of these rules crash, and every
    finding's span lies inside the input."""
    import random

    rng = random.Random(20240613)
    for _ in range(300):
        src = " ".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 14)))
        result = check_source(src, Options(select=HANDOFF_CODES, severity="hint"))
        for d in result.diagnostics:
            assert "failed on this input" not in d.text, (src, d.text)
            assert 0 <= d.span[0] <= d.span[1] <= len(src), (src, d)


# -- functions exported to a new bash (`export -f`) ----------------------------------------------

def _run_stubbed(script: str, tmp_path: Path, parallel: bool = False) -> list[str]:
    """Real bash runs ``script`` with a stub `tool` on PATH that prints its argv (one `[word]`
    each); the lines it printed, sorted (xargs -P and parallel run jobs at once)."""
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    stub = stubs / "tool"
    # One write per line: jobs run at once.
    stub.write_text("#!/bin/sh\nline=tool:\nfor a; do line=\"$line [$a]\"; done\necho \"$line\"\n")
    stub.chmod(0o755)
    path = f"{stubs}:/usr/bin:/bin"
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                         env={"PATH": path, "HOME": str(tmp_path), "SHELL": "/bin/bash"},
                         cwd=tmp_path).stdout
    return sorted(out.splitlines())


XARGS_BAD = """\
PKG=./...
check() { tool vet "$1" "$PKG"; }
export -f check
printf '%s\\n' a b | xargs -n1 -P 2 bash -c 'check "$1"' _
"""


def test_real_bash_gets_the_function_but_not_its_variable(tmp_path: Path) -> None:
    assert _run_stubbed(XARGS_BAD, tmp_path) == ["tool: [vet] [a] []", "tool: [vet] [b] []"]
    fixed = XARGS_BAD.replace("PKG=./...", "export PKG=./...")
    assert _run_stubbed(fixed, tmp_path) == ["tool: [vet] [a] [./...]",
                                             "tool: [vet] [b] [./...]"]
    [(line, col, d)] = found(XARGS_BAD)
    assert (line, col) == (2, 26) and d.severity == "warning"
    assert d.message.kind == "exported-function-reads"
    assert d.message.value("function") == "check" and d.message.value("name") == "PKG"
    assert "`xargs` runs" in d.text and "`export PKG`" in d.text
    assert [XARGS_BAD[r.span[0]:r.span[1]][:9] for r in d.related] == ["PKG=./...", "xargs -n1"]
    assert found(fixed) == []


@pytest.mark.parametrize("change", [
    ("PKG=./...", "export PKG=./..."),  # exported where it is set
    ("export -f check", "export -f check; export PKG"),
    ("| xargs", "| PKG=\"$PKG\" xargs"),  # given on the command
    ('"$PKG"', '"${PKG:-./...}"'),  # a default of its own
    ("check() {", "check() { local PKG=./cmd/...;"),  # its own variable
    ("check() {", "check() { PKG=./cmd/...;"),
    ("check() {", "check() { local PKG;"),  # local: empty there, and here too: no loss
    ("bash -c 'check \"$1\"'", "bash -c 'PKG=./x; check \"$1\"'"),  # set by the new bash
    ("export -f check\n", ""),  # not exported: another failure (command not found)
])
def test_passed_or_own_variables_are_not_reported(change: tuple[str, str],
                                                  tmp_path: Path) -> None:
    src = XARGS_BAD.replace(*change)
    assert src != XARGS_BAD
    assert found(src) == [], src
    if change[1] and "local PKG;" not in src:
        assert all("[]" not in line for line in _run_stubbed(src, tmp_path)), src


def test_nested_read_and_exported_helpers() -> None:
    # The variable read inside another expansion, and in an exported function it calls.
    src = ("snippet='<script/>'\nput() { local html=$1; tool \"${html/x/${snippet}}\"; }\n"
           "run() { put \"$1\"; }\nexport -f put run\nfind . -exec bash -c 'run \"$1\"' _ {} \\;\n")
    [(line, col, d)] = found(src)
    assert (line, col) == (2, src.splitlines()[1].index("${snippet}") + 1)
    assert d.message.value("name") == "snippet"
    assert d.message.value("code") == "`${snippet}`"


PARALLEL_BAD = """\
PKG=./...
TestVet() { tool vet "$PKG"; }
TestLint() { tool lint "$PKG"; }
export -f TestVet TestLint
checks=(TestVet TestLint)
parallel --halt now,fail=1 ::: "${checks[@]}"
"""


def test_gnu_parallel_runs_each_function_in_a_new_bash(tmp_path: Path) -> None:
    found_at = [(line, col) for line, col, _ in found(PARALLEL_BAD)]
    lines = PARALLEL_BAD.splitlines()
    assert found_at == [(2, lines[1].index("$PKG") + 1), (3, lines[2].index("$PKG") + 1)]
    assert all("GNU parallel runs" in d.text for _, _, d in found(PARALLEL_BAD))
    fixed = PARALLEL_BAD.replace("PKG=./...", "export PKG=./...")
    assert found(fixed) == []
    for other in ["parallel -j 4 TestVet ::: a b", "parallel 'TestVet {}' ::: a b",
                  "ls | parallel --jobs=2 TestVet"]:
        assert len(found(PARALLEL_BAD.replace(PARALLEL_BAD.splitlines()[-1], other))) == 1, other
    for quiet in ["parallel echo ::: TestVet TestLint",  # data, not the command
                  "parallel -S host1 ::: TestVet TestLint",  # other machines: not this case
                  "env_parallel ::: TestVet TestLint"]:  # copies unexported variables
        assert found(PARALLEL_BAD.replace(PARALLEL_BAD.splitlines()[-1], quiet)) == [], quiet
    if shutil.which("parallel") is None:
        pytest.skip("GNU parallel is not installed")
    run = PARALLEL_BAD.replace("parallel ", "parallel --will-cite ")
    assert _run_stubbed(run, tmp_path) == ["tool: [lint] []", "tool: [vet] []"]
    assert _run_stubbed(run.replace("PKG=./...", "export PKG=./..."), tmp_path) == [
        "tool: [lint] [./...]", "tool: [vet] [./...]"]


@pytest.mark.parametrize("shell", ["sh", "dash", "rbash", "zsh"])
def test_shells_that_do_not_import_functions_are_another_failure(shell: str) -> None:
    # Only bash defines the exported function again; elsewhere it is not found at all.
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    ran = subprocess.run(["bash", "-c", f"f() {{ echo in f; }}; export -f f; {shell} -c f"],
                         capture_output=True, text=True, timeout=10)
    assert "in f" not in ran.stdout and ran.returncode != 0
    assert found(XARGS_BAD.replace("bash -c", f"{shell} -c")) == []
