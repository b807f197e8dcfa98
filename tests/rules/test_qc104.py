"""QC104 heredoc-expands-locally: an unquoted heredoc sends an inner shell a pre-expanded script."""

from __future__ import annotations

from pathlib import Path

import pytest
from _support import CROSSLAYER, Finder, at, fixture_test
from harness.shells import run_shell

from quotecheck.checker import Options, check_source

CODE = "QC104"
MINE = list(CROSSLAYER)
found = Finder(CODE, group=CROSSLAYER).diagnostics


test_fixture_expectations = fixture_test(
    "crosslayer", [CODE], lambda path, text: found(text, path=str(path)))


def test_each_expansion_in_the_body_is_pointed_at() -> None:
    src = ("ssh host bash -s <<EOF\n"
           "cd $dir\n"
           "echo \\$HOME $(hostname)\n"
           "EOF\n")
    diags = found(src)
    assert [at(src, d) for d in diags] == [(2, 4), (3, 13)]
    assert [src[d.span[0]:d.span[1]] for d in diags] == ["$dir", "$(hostname)"]
    assert all(d.layers == ("local bash", "ssh", "remote shell", "remote bash") for d in diags)
    # The related location is the unquoted delimiter.
    assert src[diags[0].related[0].span[0]:diags[0].related[0].span[1]] == "EOF"
    assert "<<'EOF'" in diags[0].text


def test_variable_the_script_sets_itself_is_an_error() -> None:
    src = "ssh host <<EOF\ncount=\\$(ls | wc -l)\necho $count\nEOF\n"
    [d] = found(src)
    assert d.severity == "error"
    assert at(src, d) == (3, 6)
    assert "sets `count` itself" in d.text


def test_handing_local_values_to_script_variables_is_not_an_error() -> None:
    src = "ssh host bash -s <<EOF\nRELEASE=$rel\nrel=$rel\ncd /srv/\\$rel\nEOF\n"
    diags = found(src)
    assert [at(src, d) for d in diags] == [(2, 9), (3, 5)]
    assert all(d.severity == "warning" for d in diags)
    # Set by the script before the hand-off: the local value is the one meant.
    assert not found("rel=v1; " + src)


def test_the_fact_with_real_shells() -> None:
    # The local shell expands the body before the inner shell reads it.
    script = 'x=local; sh <<EOF\nx=inner; echo "$x"\nEOF\n'
    assert run_shell("bash", script, None, timeout=10).stdout == "local\n"
    script = "x=local; sh <<'EOF'\nx=inner; echo \"$x\"\nEOF\n"
    assert run_shell("bash", script, None, timeout=10).stdout == "inner\n"


@pytest.mark.parametrize("src, severity", [
    ("ssh host <<EOF\nnohup job & echo $!\nEOF\n", "error"),
    ("ssh host <<EOF\nmake; echo $?\nEOF\n", "error"),
    ("ssh host bash -s -- a <<EOF\necho $1\nEOF\n", "error"),  # bash -s got its own $1
    ("ssh host <<EOF\nawk '{print $2}' f\nEOF\n", "error"),  # an awk field
    ("ssh host <<EOF\necho $HOME\nEOF\n", "warning"),
    ("ssh host <<EOF\necho $(date)\nEOF\n", "warning"),
    ('ssh host <<EOF\ncd "$d"\nEOF\n', "info"),  # a local value, quoted: likely meant
    ("ssh host <<EOF\ncd $d\nEOF\n", "warning"),  # ... unquoted: code
])
def test_severity(src: str, severity: str) -> None:
    [d] = found(src)
    assert d.severity == severity


@pytest.mark.parametrize("src", [
    "sudo bash <<EOF\necho $HOME\nEOF\n",
    "docker exec -i c sh <<EOF\necho $x\nEOF\n",
    "kubectl exec -i p -- sh -s <<EOF\necho $x\nEOF\n",
    "ssh host <<-EOF\n\techo $x\n\tEOF\n",
])
def test_every_inner_stdin_shell(src: str) -> None:
    [d] = found(src)
    assert src[d.span[0]:d.span[1]] == "$x" or src[d.span[0]:d.span[1]] == "$HOME"


def test_fix_escapes_one_expansion() -> None:
    src = "ssh host <<EOF\nx=1; echo $x\nEOF\n"
    [d] = found(src)
    edit = d.fixes[0].edits[0]
    fixed = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    assert fixed == "ssh host <<EOF\nx=1; echo \\$x\nEOF\n"
    assert not found(fixed)


def test_not_also_reported_as_qc101_or_qc103() -> None:
    src = "ssh host bash -s <<EOF\nkill $!\nrm -rf $dir\nEOF\n"
    codes = [d.code for d in check_source(src, Options(select=MINE)).diagnostics]
    assert codes == [CODE, CODE]


@pytest.mark.parametrize("src", [
    "ssh host bash -s <<'EOF'\necho $HOME $! $(date)\nEOF\n",
    'ssh host bash -s <<"EOF"\necho $HOME\nEOF\n',
    "ssh host bash -s <<\\EOF\necho $HOME\nEOF\n",
    "ssh host 'cat > /etc/motd' <<EOF\nWelcome to $(hostname)\nEOF\n",  # data, not a script
    "cat <<EOF\n$HOME\nEOF\n",
    "ssh host <<EOF\necho \\$HOME \\$(date)\nEOF\n",
])
def test_correct_code_is_not_reported(src: str) -> None:
    assert not found(src)


@pytest.mark.parametrize("src", [
    "ssh host <<EOF\n$x", "ssh host bash -s <<EOF\n$(\nEOF\n", "ssh host <<EOF\nEOF\n",
    "sudo bash <<EOF\n$(cat <<X\n$y\nX\n)\nEOF\n", "bash <<EOF\n${\nEOF\n",
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=MINE))
    assert not [d for d in result.diagnostics if "failed on this input" in d.text]


# -- variables the script sets before the hand-off (quotecheck.values) --------------------------

def test_a_variable_set_before_the_heredoc_is_meant_to_be_local() -> None:
    # issue 12: `DATA_DIR=/data/x` ... `ls $DATA_DIR` in an unquoted heredoc to ssh.
    src = "DATA_DIR=/data/x\nssh web1 <<EOF\nls $DATA_DIR\nEOF\n"
    assert found(src) == []
    assert [d.code for d in check_source(src, Options(severity="info")).diagnostics
            if d.code in ("QC101", "QC103", "QC104")] == []


def test_escaping_a_local_variable_would_break_the_script() -> None:
    # Why no fix may escape it: the inner shell has no such variable, the escaped text reads
    # an empty one (a real bash stands in for the other machine's shell).
    local = 'D=/etc; bash <<EOF\necho "$D"\nEOF\n'
    escaped = 'D=/etc; bash <<EOF\necho "\\$D"\nEOF\n'
    assert run_shell("bash", local, {}, timeout=10).stdout == "/etc\n"
    assert run_shell("bash", escaped, {}, timeout=10).stdout == "\n"
    assert found(local) == []


def test_same_machine_heredoc_with_the_functions_locals() -> None:
    # devstack functions (openstack/devstack@493835a61a99, Apache-2.0), lines 489-508,
    # shortened: `$compute_hostname` is the function's own local, set above; `$REGION_NAME`
    # comes from a file sourced elsewhere (never set here): only it stays a finding.
    src = ('function wait_for_compute {\n'
           '    local timeout=$1\n'
           '    local compute_hostname\n'
           '    compute_hostname=$(iniget $NOVA_CONF DEFAULT host)\n'
           '    if [[ -z $compute_hostname ]]; then\n'
           '        compute_hostname=$(hostname)\n'
           '    fi\n'
           '    timeout $timeout bash -x <<EOF || rval=$?\n'
           '        ID=""\n'
           '        while [[ "\\$ID" == "" ]]; do\n'
           '            sleep 1\n'
           '            ID=\\$(openstack --os-region "$REGION_NAME" compute service list '
           '--host "$compute_hostname" -c ID -f value)\n'
           '        done\n'
           'EOF\n'
           '}\n')
    diags = found(src)
    assert [src[d.span[0]:d.span[1]] for d in diags] == ["$REGION_NAME"]
    assert "never sets" in diags[0].text


@pytest.mark.parametrize("src, stays", [
    ("ssh web1 <<EOF\necho $(hostname)\nEOF\n", "$(hostname)"),  # runs here by surprise
    ("ssh web1 <<EOF\nls $NEVER_SET\nEOF\n", "$NEVER_SET"),
    ("ssh web1 <<EOF\nR=1; echo $R\nEOF\n", "$R"),  # set only inside the remote text
])
def test_what_runs_locally_by_surprise_stays(src: str, stays: str) -> None:
    [d] = found(src)
    assert src[d.span[0]:d.span[1]] == stays


def test_a_local_value_that_breaks_the_remote_code_is_qc103() -> None:
    src = 'FILE="my file.txt"\nssh web1 <<EOF\nrm $FILE\nEOF\n'
    assert found(src) == []
    [d] = [d for d in check_source(src, Options(severity="info")).diagnostics
           if d.code == "QC103"]
    assert d.severity == "error" and "`$FILE` is `my file.txt` (line 1)" in d.text
    assert not d.fixes


def _apply(src: str, d: object) -> str:
    edit = d.fixes[0].edits[0]  # type: ignore[attr-defined]
    return src[:edit.span[0]] + edit.text + src[edit.span[1]:]


def test_a_written_script_that_sets_its_own_variable(tmp_path: Path) -> None:
    """`cat > F <<EOF` runs no shell now; the body's `for f in` shows `$f` is the written
    script's. Real bash writes the file, real sh runs it."""
    out = tmp_path / "list.sh"
    src = f"cat > {out} <<EOF\nfor f in a b; do echo $f; done\nEOF\n"
    [d] = found(src)
    assert d.severity == "error" and d.message.kind == "written-code-expanded-now"
    assert src[d.span[0]:d.span[1]] == "$f" and "`for f in a b; do echo $f; done`" in d.text
    run_shell("bash", src, None, timeout=10)
    assert run_shell("sh", out.read_text(), None, timeout=10).stdout == "\n\n"
    fixed = _apply(src, d)
    assert not found(fixed)
    run_shell("bash", fixed, None, timeout=10)
    assert run_shell("sh", out.read_text(), None, timeout=10).stdout == "a\nb\n"


def test_a_command_inside_the_written_scripts_own_if_runs_now(tmp_path: Path) -> None:
    conf, out = tmp_path / "name", tmp_path / "set-name.sh"
    src = (f"cat > {out} <<EOF\nif [ -f {conf} ]; then\n  name=$(cat {conf})\nfi\n"
           'echo "name=\\$name"\nEOF\n')
    [d] = found(src)
    assert d.severity == "warning" and "`if` block" in d.text
    run_shell("bash", src, None, timeout=10)  # written before the file exists, as at build time
    conf.write_text("web-01\n")
    assert run_shell("sh", out.read_text(), None, timeout=10).stdout == "name=\n"
    run_shell("bash", src.replace("=$(", "=\\$("), None, timeout=10)  # the advice
    assert run_shell("sh", out.read_text(), None, timeout=10).stdout == "name=web-01\n"


@pytest.mark.parametrize("src", [
    # a help text shown to the user: prose with "(if ...)", no code
    "usage() {\ncat <<EOF\n$(tput bold)Usage$(tput sgr0): run (if none are given, all)\nEOF\n}\n",
    # a value handed over into the written script, then read: the same value both times
    'cat > env.sh <<EOF\nLOCATION="$LOCATION"\necho ${LOCATION}\nEOF\n',
    # a value baked in at the top level on purpose
    "cat > build-info.sh <<EOF\nBUILT=$(date +%F)\necho built $BUILT_BY\nEOF\n",
    # the script sets it before: the local value is meant
    "n=4\ncat > run.sh <<EOF\nn=$n\nfor i in 1; do echo $n; done\nEOF\n",
    # a manifest with values of this shell, no code of its own
    "kubectl apply -f - <<EOF\nimage: $IMAGE\nargs: [--workers, $(nproc)]\nEOF\n",
    # the same name read in its own assignment: this shell's value extended
    "cat > /etc/profile.d/x.sh <<EOF\nexport PATH=$PATH:/opt/x/bin\nEOF\n",
    'x=$(cat <<EOF\nfor f in a; do echo $f; done\nEOF\n)\n',  # a value; what it becomes is unknown
])
def test_written_text_that_is_not_code_for_later(src: str) -> None:
    assert not found(src)


def test_a_written_body_is_read_once_for_all_its_expansions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each expansion is judged against one index of the body (a scan of the body for each
    of them made a 100,000-line heredoc quadratic)."""
    from quotecheck.rules.crosslayer import in_written_text

    built: list[int] = []
    real = in_written_text._Body.__init__

    def counting(self: object, text: str) -> None:
        built.append(len(text))
        real(self, text)  # type: ignore[arg-type]

    monkeypatch.setattr(in_written_text._Body, "__init__", counting)
    body = "".join(f"v{i}=$X{i}; echo $v{i} $(date)\n" for i in range(300))
    found(f"cat > out.sh <<EOF\n{body}EOF\n")
    assert built == [len(body)]
