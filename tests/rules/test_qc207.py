"""QC207 bashism-in-sh, the seed's expected findings, and the operations fixtures.

Every construct the rule reports is run through the real dash (and bash) here, with commands
that have no side effects outside a temporary directory: the message's claim about what dash
does is checked, not assumed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support import Finder, expected, fixture_test, fixtures

from quotecheck.checker import Options, check_source
from quotecheck.positions import LineIndex

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
MINE = ["QC207", "QC208", "QC209", "QC210", "QC211", "QC301", "QC302"]


found = Finder("QC207", others="drop")


def where(src: str, code: str = "QC207", **opts: str) -> list[tuple[int, int]]:
    return [(line, col) for line, col, _ in found(src, code, **opts)]


# Signals in these scripts go to pid 2147483647, above any pid_max: no process can receive them.
def run(shell: str, script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([shell, "-c", script], cwd=cwd, capture_output=True, text=True,
                          timeout=10, stdin=subprocess.DEVNULL)


# -- the seed -------------------------------------------------------------------------------------


def test_seed_source_is_a_warning_at_line_7_under_an_unknown_login_shell() -> None:
    src = SEED.read_text()
    [(line, col, d)] = found(src)
    assert (line, col) == (7, 1)
    assert d.severity == "warning"
    assert src[d.span[0]:d.span[1]] == "source"
    assert d.message.kind == "bash-syntax-shell-unknown"
    assert d.message.value("who") == "the login shell of `root@[REDACTED_IP]`"
    assert "--remote-shell bash" in d.message.value("how") and "bash -s" in d.message.value("how")
    assert d.layers == ("local bash", "ssh", "remote shell")
    # `. /root/venv/bin/activate` means the same in bash: a safe fix.
    [fix] = d.fixes
    assert fix.applicability == "safe"
    assert [(src[e.span[0]:e.span[1]], e.text) for e in fix.edits] == [("source", ".")]


def test_seed_expected_findings_of_the_operations_rules() -> None:
    """The founding case: what the operations rules must say about restart.sh."""
    src = SEED.read_text()
    result = check_source(src, Options(select=MINE), path="fixtures/dflash/restart.sh")
    index = LineIndex(src)
    got = {(d.code, *(x + 1 for x in index.position(d.span[0]))) for d in result.diagnostics}
    assert got == {
        ("QC208", 1, 1),  # ssh in a script, no BatchMode / ConnectTimeout
        ("QC301", 1, 8),  # StrictHostKeyChecking=no
        ("QC207", 7, 1),  # source under an unknown login shell
        ("QC210", 9, 56),  # python3 train_dflash_online.py relaunched after `sleep 3`
    }


def test_seed_remote_shell_decides_the_severity() -> None:
    src = SEED.read_text()
    assert found(src, remote_shell="bash") == []
    [(_, _, d)] = found(src, remote_shell="dash")
    assert d.severity == "error" and d.message.kind == "bash-syntax-in-sh"
    assert d.message.value("what") == "dash"


# -- each construct, and what dash really does with it --------------------------------------------

# (inner script, where the construct starts in it, what dash shows)
CONSTRUCTS = [
    ("source ./env.sh; echo $X", "source", "source: not found"),
    ("[[ -n x ]] && echo yes; echo after", "[[", "[[: not found"),
    ("a=(1 2); echo after", "a=(", 'Syntax error: "(" unexpected'),
    ("x=ab; echo ${x[0]}", "${x[0]}", "Bad substitution"),
    ("echo {a,b}", "{a,b}", "{a,b}"),
    ("echo hi &> out.txt; wait; cat out.txt", "&>", "hi"),
    ("echo hi |& cat", "|&", 'Syntax error: "&" unexpected'),
    ("cat <<< hi", "<<<", "Syntax error: redirection unexpected"),
    ("diff <(echo) /dev/null", "<(", 'Syntax error: "(" unexpected'),
    ("function f { :; }; f", "function", 'Syntax error: "}" unexpected'),
    ("((i++)); echo after", "((", "i++: not found"),
    ("for ((i=0; i<2; i++)); do :; done", "for", "Syntax error"),
    ("[ a == a ] && echo same", "==", "unexpected operator"),
    ("test a == a && echo same", "==", "unexpected operator"),
    ("x=abc; echo ${x:0:1}", "${x:0:1}", "Bad substitution"),
    ("x=abc; echo ${x//a/b}", "${x//", "Bad substitution"),
    ("x=abc; echo ${x^^}", "${x^^}", "Bad substitution"),
    ("x=y; y=1; echo ${!x}", "${!x}", "Bad substitution"),
    ("x=a; x+=b; echo $x", "x+=b", "x+=b: not found"),
    ("set -o pipefail; echo after", "pipefail", "Illegal option -o pipefail"),
    ("set -euo pipefail; echo after", "pipefail", "Illegal option -o pipefail"),
    ("declare -a x; echo after", "declare", "declare: not found"),
    ("let x=1+1; echo after", "let", "let: not found"),
    ("pushd /tmp; echo after", "pushd", "pushd: not found"),
    ("read -t 1 x < /dev/null; echo after", "-t", "Illegal option -t"),
    ('trap "echo trapped" ERR; false; echo after', "ERR", "bad trap"),
    ("printf -v x %s y; echo after", "-v", "Illegal option -v"),
    ("kill -SIGTERM 2147483647 2>&1; echo after", "-SIGTERM", "Illegal option -S"),
    ("echo -e 'a' > out.txt; cat out.txt", "-e", "-e a"),  # (on the screen only: info)
    ("echo uid=$EUID", "$EUID", "uid=\n"),
    ("echo hi >& out.txt", ">&", "Bad fd number"),
]


@pytest.mark.parametrize(("script", "construct", "dash_shows"), CONSTRUCTS,
                         ids=[c[0][:22] for c in CONSTRUCTS])
def test_construct_is_an_error_under_sh_c_and_fails_under_dash(
        script: str, construct: str, dash_shows: str, tmp_path: Path) -> None:
    src = f"sh -c '{script}'"
    got = found(src)
    assert got, f"QC207 missed {script!r}"
    first_col = min(col for _, col, _ in got)
    assert first_col == len("sh -c '") + script.index(construct) + 1, [
        (c, d.text[:60]) for _, c, d in got]
    severities = {d.severity for _, col, d in got if col == first_col}
    minor = script.startswith(("echo -e", "echo uid"))
    assert severities == ({"warning"} if minor else {"error"})
    dash = run("dash", script, tmp_path)
    assert dash_shows in dash.stdout + dash.stderr, (dash.stdout, dash.stderr)
    # bash runs the same text without complaint: it really is bash syntax.
    bash = run("bash", script, tmp_path)
    assert "not found" not in bash.stderr and "Syntax error" not in bash.stderr
    assert "Bad substitution" not in bash.stderr and "Illegal option" not in bash.stderr


@pytest.mark.parametrize("script", [
    ". ./env.sh; echo after",
    "[ a = a ] && echo same",
    "x=abc; echo ${x:-d} ${x#a} ${x%c} ${#x} ${x:+set} $((1 + 2)) ${10}",
    "f() { :; }; f",
    "echo -n hi; printf '%s\\n' x",
    "kill -TERM 2147483647 2>/dev/null; kill -s TERM 2147483647 2>/dev/null; echo after",
    "echo hi > out.txt 2>&1; cat out.txt 2>&1 | cat",
    "for i in 1 2; do echo $i; done; i=$((i + 1))",
    "find . -name x -exec echo {} \\;",
    "echo $$ $! $? $# $@ $* $0 $1",
    "case x in x) echo x;; esac",
    "local_var=1; export local_var",
])
def test_posix_text_is_clean_and_runs_under_dash(script: str, tmp_path: Path) -> None:
    (tmp_path / "env.sh").write_text("")
    assert found(f"sh -c '{script}'") == []
    dash = run("dash", script, tmp_path)
    assert dash.returncode == 0 and "dash:" not in dash.stderr, dash.stderr


# -- which shell runs the text --------------------------------------------------------------------


@pytest.mark.parametrize(("first", "expected"), [
    ("#!/bin/sh", "error"), ("#!/bin/dash", "error"), ("#!/usr/bin/env sh", "error"),
    ("#! /bin/sh -e", "error"), ("#!/bin/bash", None), ("#!/usr/bin/env bash", None),
    ("#!/bin/zsh", None), ("", None),
])
def test_the_shebang_decides_the_root_layer(first: str, expected: str | None) -> None:
    src = f"{first}\nsource /etc/profile\necho \"$PATH\"\n"
    got = found(src)
    if expected is None:
        assert got == []
    else:
        assert [(line, col, d.severity) for line, col, d in got] == [(2, 1, expected)]
        assert first.split()[0].split("/")[-1] in got[0][2].text or "sh" in got[0][2].text


def test_shell_option_sh_is_an_error_even_without_a_shebang() -> None:
    assert [(line, col, d.severity) for line, col, d in found("[[ -f x ]]", dialect="sh")] == [
        (1, 1, "error")]


def test_dollar_quote_in_a_posix_script_parsed_either_way() -> None:
    # Parsed as bash (the shebang decides later) and as sh (--shell sh): same finding.
    text = "echo $'a\\tb'\n"
    assert where("#!/bin/sh\n" + text) == [(2, 6)]
    assert where(text, dialect="sh") == [(1, 6)]
    # In an inner layer `$'...'` is QC108's, not reported twice.
    assert where("sh -c \"echo \\$'a\\tb'\"") == []


def test_bash_layers_and_bash_c_are_clean() -> None:
    assert found("bash -c 'source ~/.profile; [[ -f x ]] && echo {a,b}'") == []
    assert found("source x; [[ -f y ]]; a=(1 2)") == []  # the local shell is bash by default


def test_watch_and_xargs_run_sh() -> None:
    [(_, _, d)] = found("watch 'ls {a,b}'")
    assert d.severity == "error" and d.message.value("who").startswith("`watch`")
    src = "find . -name '*.log' -exec sh -c '[[ -s $1 ]] && echo $1' sh {} \\;"
    [(_, col, d)] = found(src)
    assert col == src.index("[[") + 1 and d.severity == "error"


def test_text_expanded_by_an_outer_layer_is_not_the_inner_shells() -> None:
    # ${x:0:1} in double quotes is expanded by the local bash: the remote shell never sees it.
    assert found('ssh h "echo ${x:0:1}"') == []
    # Escaped, it reaches the remote shell: the finding points at the `$` of `\${`.
    [(line, col, d)] = found('ssh h "echo \\${x:0:1}"')
    assert (line, col, d.severity) == (1, 14, "warning")


def test_su_c_is_an_unknown_shell_warning_without_remote_shell_advice() -> None:
    [(_, _, d)] = found("su - deploy -c 'source ~/env; make'")
    assert d.severity == "warning"
    assert d.message.value("how") == "start bash explicitly (`bash -c '...'`)"


def test_positions_inside_a_multiline_remote_script() -> None:
    src = "ssh h '\ncd /srv\n  [[ -d logs ]] || mkdir logs\necho done\n'\n"
    [(line, col, d)] = found(src)
    assert (line, col) == (3, 3)
    assert src[d.span[0]:d.span[1]] == "[["


# -- fixes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("script", "fixed"), [
    ('[ "$a" == b ] && echo same', '[ "$a" = b ] && echo same'),
    ("echo hi &> out.txt; wait; cat out.txt", "echo hi > out.txt 2>&1; wait; cat out.txt"),
    ("echo hi |& cat", "echo hi 2>&1 | cat"),
    ("kill -SIGTERM 2147483647 2>/dev/null || echo gone",
     "kill -TERM 2147483647 2>/dev/null || echo gone"),
    ("source ./env.sh && echo ok", ". ./env.sh && echo ok"),
])
def test_safe_fixes_give_text_dash_runs_like_bash(script: str, fixed: str,
                                                  tmp_path: Path) -> None:
    (tmp_path / "env.sh").write_text("")
    src = f"sh -c '{script}'"
    fixes = [f for _, _, d in found(src) for f in d.fixes]
    assert fixes and all(f.applicability == "safe" for f in fixes)
    out = src
    for edit in sorted((e for f in fixes for e in f.edits), key=lambda e: -e.span[0]):
        out = out[:edit.span[0]] + edit.text + out[edit.span[1]:]
    assert out == f"sh -c '{fixed}'"
    assert found(out) == []
    a, b = run("dash", fixed, tmp_path), run("bash", script, tmp_path)
    assert (a.stdout, a.returncode) == (b.stdout, b.returncode)


def test_source_of_a_bare_name_gets_no_fix() -> None:
    # dash's `.` looks a bare name up in PATH only: `. env.sh` is not `source env.sh`.
    [(_, _, d)] = found("sh -c 'source env.sh'")
    assert d.fixes == ()


# -- robustness -----------------------------------------------------------------------------------


@pytest.mark.parametrize("src", [
    "", "\n", "sh -c", "sh -c ''", 'sh -c "$x"', "sh -c 'if'", "sh -c '$('", "$cmd -c 'x'",
    "#!/bin/sh", "#!", "#!/bin/sh\n${", "sh -c 'echo ${'", "sh -c 'echo ${x'", "sh -c '${}'",
    "sh -c '[[ '", "ssh h 'function'", "sh -c 'a=('", "sh -c 'echo {'", "sh -c '((' ",
    "sh -c 'set -o'", "sh -c 'read -'", "sh -c 'kill -'", "sh -c 'trap'", "sh -c 'echo -e'",
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    for code in MINE:
        found(src, code)
        found(src, code, path="x.sh")


# -- correct code from the brief, and the fixtures ------------------------------------------------

CORRECT = [
    "echo 'it'\\''s' 'it'\"'\"'s'",
    "ssh -o BatchMode=yes -o ConnectTimeout=5 h \"awk '{print \\$2}' /var/log/x\"",
    "ssh -o BatchMode=yes -o ConnectTimeout=5 h \"$(printf '%q ' \"$@\")\"",
    "sh -c 'cmd \"$1\"' sh \"$x\"",
    "ps aux | grep '[n]ginx: master' | awk '{print $2}'",
    "ssh -o BatchMode=yes -o ConnectTimeout=5 h bash -s <<'EOF'\nsource ~/env\n[[ -d x ]]\nEOF\n",
    "ssh -o BatchMode=yes -o ConnectTimeout=5 h "
    "\"cat $(python3 -c 'import shlex,sys; print(shlex.quote(sys.argv[1]))' \"$f\")\"",
]


@pytest.mark.parametrize("src", CORRECT)
@pytest.mark.parametrize("path", [None, "script.sh"])
def test_correct_code_is_clean_of_the_operations_rules(src: str, path: str | None) -> None:
    result = check_source(src, Options(select=MINE), path=path)
    assert [(d.code, d.text[:80]) for d in result.diagnostics] == []


test_operations_fixture_expectations = fixture_test(
    "operations", None, lambda path, text: check_source(
        text, Options(select=MINE), path=str(path.relative_to(ROOT))).diagnostics)


def test_fixture_set_covers_every_rule_and_has_clean_scripts() -> None:
    texts = [p.read_text() for p in fixtures("operations")]
    assert len(texts) >= 10
    assert sum(1 for t in texts if not expected(t)) >= 3
    codes = {e.split("@")[0] for t in texts for e in expected(t)}
    assert codes == set(MINE)


# -- `==` as an operand is POSIX ---------------------------------------------------------------


@pytest.mark.parametrize("script", [
    '[ "$op" = "==" ] && echo same',
    'test == != "$op" || echo same',
    '[ == ] && echo nonempty',
    '[ -n == ] && echo nonempty',
    '[ ! == ] || echo nonempty',
    '[ "$op" = "==" -a x = x ] && echo same',
    '[ x = x -o == = "$op" ] && echo either',
    '[ ! "$op" = == ] || echo same',
])
def test_an_operand_equal_to_double_equals_is_no_finding(script: str, tmp_path: Path) -> None:
    assert found(f"sh -c '{script}'") == []
    env_script = "op===; " + script.replace('"', "")
    dash = run("dash", env_script, tmp_path)
    bash = run("bash", env_script, tmp_path)
    assert dash.returncode == 0 and dash.stderr == "", (dash.stdout, dash.stderr)
    assert dash.stdout == bash.stdout != ""


@pytest.mark.parametrize("script", [
    "[ a == a -a b = b ] && echo same",
    "[ ! a == a ] || echo same",
    "[ b = b -o a == a ] && echo same",
    "[ ( a == a ) ] && echo same",
])
def test_double_equals_as_an_operator_is_found(script: str, tmp_path: Path) -> None:
    src = f"sh -c '{script}'".replace("( ", "\\( ").replace(" )", " \\)")
    got = found(src)
    assert got and all(src[d.span[0]:d.span[1]] == "==" for _, _, d in got)
    dash = run("dash", src[len("sh -c '"):-1], tmp_path)
    assert "unexpected operator" in dash.stderr or dash.stdout == "", dash


# -- issue 13: what only bash runs ------------------------------------------------------------

# acmesh-official/acme.sh d60c75b4e30a26addd8b9d0bfdeeed39c84ed51e, acme.sh lines 317-346,
# shortened (GPL-3.0): bash-only code behind a `[ -z "${BASH_VERSION}" ]` early return, inside
# eval so that dash does not parse it.
ACME_DEBUG_HELPER = '''#!/bin/sh
__debug_bash_helper() {
  if [ -z "${BASH_VERSION}" ]; then
    return
  fi
  eval '_dbh_called=($(caller 1))'
  eval '_dbh_file=${_dbh_called[2]}'
  eval '_dbh_function=${_dbh_called[1]}'
  printf "%-40s " "$_dbh_file:${_dbh_function}"
}
__debug_bash_helper
echo ok
'''


def test_bash_only_code_behind_an_early_return_is_not_reported(tmp_path: Path) -> None:
    assert where(ACME_DEBUG_HELPER) == []
    # dash runs it: the function returns before the eval lines.
    res = run("dash", ACME_DEBUG_HELPER, tmp_path)
    assert (res.returncode, res.stdout, res.stderr) == (0, "ok\n", "")


@pytest.mark.parametrize("guard", [
    'if [ -n "$BASH_VERSION" ]; then\n  BODY\nfi',
    'if [ "$BASH" ]; then BODY; fi',
    'if [ -z "${BASH_VERSION-}" ]; then\n  :\nelse\n  BODY\nfi',
    '[ -n "${BASH_VERSION:-}" ] && BODY',
    '[ -z "$BASH_VERSION" ] && exit 0\nBODY',
    'f() {\n  [ -n "$BASH_VERSION" ] || return\n  BODY\n}\nf',
    'if [ "x$BASH_VERSION" = "x" ]; then exec bash "$0" "$@"; fi\nBODY',
    '[ "${BASH_VERSION+set}" ] || { echo "run me with bash" >&2; exit 1; }\nBODY',
])
@pytest.mark.parametrize("body", ["shopt -s extglob", 'echo "${x:1}"', 'echo "${a[0]}"',
                                  "[[ -n $x ]] && echo y", "source ./nothing-here 2>/dev/null"])
def test_runtime_bashisms_in_a_branch_only_bash_runs(tmp_path: Path, guard: str,
                                                     body: str) -> None:
    src = "#!/bin/sh\n" + guard.replace("BODY", body) + "\necho end\n"
    assert where(src) == []
    res = run("dash", src, tmp_path)  # dash parses it and skips the branch
    assert "Syntax error" not in res.stderr and "Bad substitution" not in res.stderr


@pytest.mark.parametrize("body", ["a=(1 2)", "declare -a a=(1 2)", "cat <<< x", "cat <(true)",
                                  "function g { :; }"])
def test_what_dash_cannot_parse_is_reported_in_a_guarded_branch_too(tmp_path: Path,
                                                                     body: str) -> None:
    src = f'#!/bin/sh\nif [ -n "$BASH_VERSION" ]; then\n  {body}\nfi\necho end\n'
    assert [line for line, _ in where(src)] == [3]
    res = run("dash", src, tmp_path)
    assert "Syntax error" in res.stderr and "end" not in res.stdout


@pytest.mark.parametrize("test", ['[ "x$BASH_VERSION" ]', '[ -n "${BASH_VERSION:-x}" ]',
                                  '[ -n "$ZSH_VERSION" ]'])
def test_a_test_that_other_shells_pass_too_guards_nothing(test: str) -> None:
    src = f'#!/bin/sh\nif {test}; then\n  shopt -s extglob\nfi\n'
    assert [line for line, _ in where(src)] == [3]


def test_a_guard_does_not_reach_a_new_sh_process() -> None:
    src = '#!/bin/sh\nif [ -n "$BASH_VERSION" ]; then\n  sh -c \'echo "${x:1}"\'\nfi\n'
    assert [line for line, _ in where(src)] == [3]


@pytest.mark.parametrize(("src", "severity"), [
    # RHEL and Fedora ship /bin/sh as a link to bash: there `source` works
    ("#!/bin/sh\nyum install -y httpd\nsource /etc/profile\n", "info"),
    ("#!/bin/sh\ndnf -y install git\n[[ -d /srv ]] && echo ok\n", "info"),
    # no platform named, or two families: dash is as likely as bash
    ("#!/bin/sh\nsource /etc/profile\necho \"$PATH\"\n", "error"),
    ("#!/bin/sh\napt-get install -y x || yum install -y x\nsource /etc/profile\nmake\n",
     "error"),
])
def test_a_red_hat_family_script_says_where_it_runs(src: str, severity: str) -> None:
    from quotecheck.checker import Options, check_source

    [d] = [x for x in check_source(src, Options(severity="info")).diagnostics
           if x.code == "QC207"]
    assert d.severity == severity, src
    assert ("Red Hat family" in d.text) is (severity == "info")


# -- issue 25: the repository says which shell runs `sh` ----------------------------------------

# What busybox's ash accepts (shell/ash.c, as Alpine's and Wolfi's busyboxconfig build it:
# CONFIG_SH_IS_ASH, CONFIG_ASH_BASH_COMPAT, CONFIG_ASH_TEST; there is no busybox on the test
# machines, so rules/QC207.md cites the source). dash still rejects each one.
BUSYBOX_ACCEPTS = [
    ("nft list table ip filter &>/dev/null; echo after", "&>"),
    ("[[ -n x ]] && echo yes", "[["),
    ("source ./env.sh; echo after", "source"),
    ("x=abc; echo ${x/a/b}", "${x/a/b}"),
    ("x=abc; echo ${x:1:2}", "${x:1:2}"),
    ("[ a == a ] && echo same", "=="),
    ("function f { :; }; f", "function"),
    ("set -o pipefail; echo after", "pipefail"),
    ("kill -SIGTERM 2147483647 2>&1; echo after", "-SIGTERM"),
]
# What it rejects as dash does: still an error in such an image.
BUSYBOX_REJECTS = [
    ("a=(1 2); echo after", "a=("),
    ("x=abc; echo ${x^^}", "${x^^}"),
    ("echo hi |& cat", "|&"),
    ("cat <<< hi", "<<<"),
    ("shopt -s nullglob; echo after", "shopt"),
]


def image_repo(tmp_path: Path, script: str, dockerfile: str, *, where: str = "images/app",
               dockerfile_at: str | None = None, name: str = "entrypoint.sh") -> str:
    """A repository holding ``script`` (a `#!/bin/sh` file) at ``where`` and a Dockerfile at
    ``dockerfile_at`` (default: beside it); the script's path."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    folder = root / where
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + script + "\n")
    (root / (dockerfile_at or where) / "Dockerfile").write_text(dockerfile)
    return str(path)


ALPINE = "FROM alpine:3.19\nRUN apk add --no-cache nftables\nCOPY entrypoint.sh /app/\n" \
         'ENTRYPOINT ["/app/entrypoint.sh"]\n'


def in_image(path: str) -> list[tuple[int, str, str]]:
    src = Path(path).read_text()
    return [(line, d.severity, src[d.span[0]:d.span[1]]) for line, _, d in found(src, path=path)]


@pytest.mark.parametrize(("script", "construct"), BUSYBOX_ACCEPTS,
                         ids=[c[0][:22] for c in BUSYBOX_ACCEPTS])
def test_what_busybox_ash_accepts_is_not_reported_in_an_alpine_image(
        tmp_path: Path, script: str, construct: str) -> None:
    path = image_repo(tmp_path, script, ALPINE)
    assert in_image(path) == []
    # (dash does fail on it: where the script is not in that image, it is reported)
    assert found(Path(path).read_text()) != []
    dash = run("dash", script, tmp_path)
    bash = run("bash", script, tmp_path)
    assert (dash.returncode, dash.stdout, dash.stderr) != (bash.returncode, bash.stdout,
                                                           bash.stderr)


@pytest.mark.parametrize(("script", "construct"), BUSYBOX_REJECTS,
                         ids=[c[0][:22] for c in BUSYBOX_REJECTS])
def test_what_busybox_ash_rejects_stays_an_error_in_an_alpine_image(
        tmp_path: Path, script: str, construct: str) -> None:
    path = image_repo(tmp_path, script, ALPINE)
    assert {s for _, s, _ in in_image(path)} == {"error"}


@pytest.mark.parametrize("dockerfile", [
    "FROM python:3.12-alpine\nCOPY entrypoint.sh /\nCMD [\"/entrypoint.sh\"]\n",
    "FROM golang:1.22 AS build\nRUN go build ./...\nFROM busybox:1.36\n"
    "COPY --chmod=755 entrypoint.sh /bin/\n",
    "FROM cgr.dev/chainguard/wolfi-base\nCOPY [\"entrypoint.sh\", \"/usr/bin/\"]\n",
    "FROM alpine:3.19 AS base\nFROM base\nCOPY *.sh /app/\n",
])
def test_busybox_images_and_the_ways_a_dockerfile_copies_the_script(
        tmp_path: Path, dockerfile: str) -> None:
    path = image_repo(tmp_path, "[[ -f /etc/x ]] && echo yes", dockerfile)
    assert in_image(path) == []


def test_a_dockerfile_in_a_parent_folder_with_the_repository_as_context(tmp_path: Path) -> None:
    dockerfile = "FROM alpine:3.19\nCOPY images/app/entrypoint.sh /entrypoint.sh\n"
    path = image_repo(tmp_path, "source /etc/profile", dockerfile, dockerfile_at=".")
    assert in_image(path) == []


@pytest.mark.parametrize("dockerfile", [
    "FROM debian:12\nCOPY entrypoint.sh /\n",  # dash
    "ARG BASE=alpine:3.19\nFROM ${BASE}\nCOPY entrypoint.sh /\n",  # the image is an argument
    "FROM alpine:3.19\nCOPY . /app/\n",  # a folder copied whole: not the script named
    "FROM alpine:3.19 AS build\nCOPY entrypoint.sh /\nFROM ubuntu:24.04\n"
    "COPY --from=build /entrypoint.sh /\n",  # run in the last stage, whose sh is dash
    "FROM alpine:3.19\nCOPY other.sh /\n",  # another script
])
def test_no_evidence_of_busybox_keeps_the_error(tmp_path: Path, dockerfile: str) -> None:
    path = image_repo(tmp_path, "[[ -f /etc/x ]] && echo yes", dockerfile)
    assert [s for _, s, _ in in_image(path)] == ["error"]


def test_a_second_dockerfile_that_copies_it_elsewhere_keeps_the_error(tmp_path: Path) -> None:
    path = image_repo(tmp_path, "source /etc/profile\nmake", ALPINE)
    (tmp_path / "repo" / "Dockerfile").write_text(
        "FROM ubuntu:24.04\nCOPY images/app/entrypoint.sh /\n")
    assert [s for _, s, _ in in_image(path)] == ["error"]


def test_without_a_path_or_a_dockerfile_nothing_changes(tmp_path: Path) -> None:
    assert [d.severity for _, _, d in found("#!/bin/sh\nsource /etc/profile\nmake\n")] == [
        "error"]
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\nsource /etc/profile\nmake\n")
    assert [s for _, s, _ in in_image(str(script))] == ["error"]


def test_an_ssh_command_in_an_alpine_image_runs_on_another_machine(tmp_path: Path) -> None:
    path = image_repo(tmp_path, "ssh host 'source ~/env'", ALPINE)
    assert [s for _, s, _ in in_image(path)] == ["warning"]


# -- issue 25: the severity follows what dash does with the construct where it stands ---------

def _body_runs(tmp_path: Path, body: str) -> tuple[subprocess.CompletedProcess[str],
                                                   subprocess.CompletedProcess[str]]:
    (tmp_path / "common.sh").write_text(
        'PROJECT=demo\nsetup_env() { :; }\nPATH="$PWD/bin:$PATH"\n')
    (tmp_path / "bin").mkdir(exist_ok=True)
    (tmp_path / "bin" / "hello").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "bin" / "hello").chmod(0o755)
    down = tmp_path / "cluster-down.sh"
    down.write_text("#!/bin/sh\necho down\n")
    down.chmod(0o755)
    return run("dash", body, tmp_path), run("bash", body, tmp_path)


@pytest.mark.parametrize("body", [
    'if [[ $(uname -s) == "OS/390" ]]; then echo zos; else echo other; fi',
    'os=$(uname)\nif [[ "$os" == Darwin ]]; then echo mac; else echo linux; fi',
    '[[ $OSTYPE == darwin* ]] && echo mac\necho done',
    'if [ "$(uname)" == "Darwin" ]; then echo mac; else echo linux; fi',
    '[[ `uname` != Linux ]] && echo other\necho done',
    'if [[ $(uname -s) == Darwin || $(uname -s) == FreeBSD ]]; then echo bsd; fi; echo done',
])
def test_a_test_bash_finds_false_on_linux_is_information(tmp_path: Path, body: str) -> None:
    src = "#!/bin/sh\n" + body + "\n"
    # (`$OSTYPE` is reported on its own: dash does not set it)
    got = [d for _, _, d in found(src) if src[d.span[0]:d.span[1]] in ("[[", "==")]
    assert got and {d.severity for d in got} == {"info"}, [d.text for d in got]
    assert all("false too" in d.text for d in got)
    # dash takes the branch bash takes on this (Linux) machine; only stderr differs
    dash, bash = _body_runs(tmp_path, body)
    assert dash.stdout == bash.stdout != "" and dash.stderr and not bash.stderr


@pytest.mark.parametrize("body", [
    'if [[ $(uname -s) == Linux ]]; then echo linux; else echo other; fi',
    'if [[ $(uname -s) == Darwin || -d / ]]; then echo some; else echo none; fi',
    'os=linux\nif [[ $os == linux ]]; then echo linux; else echo other; fi',
    'if [ "$(uname)" == "Linux" ]; then echo linux; else echo other; fi',
])
def test_a_test_whose_failure_takes_the_other_branch_stays_an_error(tmp_path: Path,
                                                                    body: str) -> None:
    got = found("#!/bin/sh\n" + body + "\n")
    assert {d.severity for _, _, d in got} == {"error"}
    dash, bash = _body_runs(tmp_path, body)
    assert dash.stdout != bash.stdout


def test_a_source_nothing_after_it_uses_is_a_warning(tmp_path: Path) -> None:
    # mlcommons/training's minigo cluster/destroy.sh: `source ./common.sh`, then a script
    body = "source ./common.sh\n\n./cluster-down.sh\n"
    [(line, _, d)] = found("#!/bin/sh\n" + body)
    assert (line, d.severity) == (2, "warning") and "misses what the file exports" in d.text
    dash, bash = _body_runs(tmp_path, body)
    assert "source: not found" in dash.stderr
    assert (dash.stdout, dash.returncode) == (bash.stdout, bash.returncode) == ("down\n", 0)


@pytest.mark.parametrize("body", [
    'source ./common.sh\necho "project=$PROJECT"\n',  # a variable the file sets
    "source ./common.sh\nsetup_env && echo set up\n",  # a function the file defines
    "source ./common.sh\nhello\n",  # a program looked up in the PATH the file sets
    "set -e\nsource ./common.sh\n./cluster-down.sh\n",  # `not found` stops the script
    "source ./common.sh && ./cluster-down.sh\n",  # its status decides
    "./cluster-down.sh\nsource ./common.sh\n",  # the last command: the script's status
    'f() { echo "project=$PROJECT"; }\nsource ./common.sh\nf\n',  # what a function runs
])
def test_a_source_whose_file_the_script_needs_stays_an_error(tmp_path: Path, body: str) -> None:
    got = found("#!/bin/sh\n" + body)
    assert [d.severity for _, _, d in got if d.text.startswith("`source`")] == ["error"]
    dash, bash = _body_runs(tmp_path, body)
    assert (dash.stdout, dash.returncode) != (bash.stdout, bash.returncode)


def test_read_with_a_bash_option_goes_on_in_dash(tmp_path: Path) -> None:
    [(_, _, d)] = found("sh -c 'x=old; read -t 1 x < /dev/null; echo $x'")
    assert d.severity == "error" and "goes on with the variables as they were" in d.text
    dash = run("dash", "x=old; read -t 1 x < /dev/null; echo $x", tmp_path)
    assert (dash.stdout, dash.returncode) == ("old\n", 0)
    assert "Illegal option -t" in dash.stderr


# The table of rules/QC207.md: where dash stops the script and where it goes on.
@pytest.mark.parametrize(("script", "stops"), [
    ("x=abc; echo ${x:0:1}", True), ("x=abc; echo ${x/a/b}", True),
    ("set -o pipefail", True), ("export -f f", True), ("echo hi >& out.txt", True),
    ("set -e; source ./nothing-here", True),
    ("echo hi &> out.txt", False), ("[[ -n x ]]", False), ("[ a == a ]", False),
    ("x=a; x+=b", False), ("kill -SIGTERM 2147483647", False), ("read -t 1 x < /dev/null", False),
    ("printf -v x %s y", False), ("declare x=1", False), ("let x=1", False),
    ("pushd /tmp", False), ("trap 'echo t' ERR", False), ("((i++))", False),
    ("source ./nothing-here", False), ("echo {a,b}", False),
])
def test_where_dash_stops_and_where_it_goes_on(tmp_path: Path, script: str, stops: bool) -> None:
    assert found(f"sh -c '{script}'".replace("'echo t'", '"echo t"'))
    dash = run("dash", f"{script}; echo after", tmp_path)
    assert ("after" not in dash.stdout) is stops, (dash.stdout, dash.stderr)


# -- issue 25: code that runs only where the script found no bash ------------------------------

# apache/impala's docker/install_bash_if_needed.sh, shortened (Apache-2.0): the rest of the
# script runs only where there is no bash, which is never the case on Debian or Ubuntu (bash
# is an Essential package there: `dpkg -s bash`), the systems whose sh is dash.
IMPALA_BASH_CHECK = '''#!/bin/sh
set -eu
if command -v bash; then
  echo "Bash found, skipping installation."
  exit 0
fi
if [ -f /etc/os-release ]; then
  source /etc/os-release
  echo "$ID"
fi
'''


def test_what_runs_only_without_bash_is_a_warning(tmp_path: Path) -> None:
    [(line, _, d)] = found(IMPALA_BASH_CHECK)
    assert (line, d.severity) == (8, "warning") and "Essential" in d.text
    # On this Debian/Ubuntu machine dash never gets there: bash is always installed.
    import shutil

    if shutil.which("dpkg-query"):
        essential = subprocess.run(["dpkg-query", "-W", "-f=${Essential}", "bash"],
                                   capture_output=True, text=True)
        assert essential.stdout == "yes"
    script = tmp_path / "install.sh"
    script.write_text(IMPALA_BASH_CHECK)
    dash = subprocess.run(["dash", str(script)], capture_output=True, text=True, timeout=10)
    assert dash.returncode == 0 and "skipping installation" in dash.stdout
    assert "not found" not in dash.stderr


def test_a_re_exec_under_bash_leaves_the_rest_to_shells_without_bash(tmp_path: Path) -> None:
    src = ('#!/bin/sh\n'
           '[ -z "$BASH_VERSION" ] && command -v bash >/dev/null && exec bash "$0" "$@"\n'
           '[[ -n "$1" ]] && echo "arg $1"\n')
    [(_, _, d)] = found(src)
    assert d.severity == "warning" and "Essential" in d.text
    script = tmp_path / "run.sh"
    script.write_text(src)
    dash = subprocess.run(["dash", str(script), "x"], capture_output=True, text=True, timeout=10)
    assert (dash.stdout, dash.stderr) == ("arg x\n", "")


@pytest.mark.parametrize("src", [
    # no way out after the test: dash goes on, with bash installed
    "#!/bin/sh\nif command -v bash >/dev/null; then echo found; fi\nsource ./env.sh\nmake\n",
    # the rest runs only where bash IS there: still dash
    "#!/bin/sh\ncommand -v bash >/dev/null || exit 1\nsource ./env.sh\nmake\n",
    # what busybox's ash rejects too
    "#!/bin/sh\nif which bash; then exit 0; fi\nshopt -s nullglob\n",
])
def test_no_guard_against_bash_keeps_the_error(src: str) -> None:
    assert [d.severity for _, _, d in found(src)] == ["error"]


# -- issue 25: what follows the point where dash stops with a syntax error -----------------------

# open-mpi/ompi, contrib/ompi-time.sh (BSD-3-Clause), shortened: a `#!/bin/sh` script of bash
# functions; dash runs the first lines, stops at the first `function`, and reads no further.
STOPS_EARLY = ('#!/bin/sh\n'
               'echo start\n'
               'function usage {\n'
               '  echo "usage: $0"\n'
               '}\n'
               'echo after\n'
               'if [[ "$1" == -h ]]; then usage; fi\n'
               'echo -e "a\\tb"\n')


def test_what_follows_dashs_first_syntax_error_is_information() -> None:
    got = {(line, d.severity) for line, _, d in found(STOPS_EARLY)}
    assert got == {(3, "error"), (7, "info"), (8, "info")}
    [later] = [d for line, _, d in found(STOPS_EARLY) if line == 7]
    assert "dash stops with a syntax error at line 3" in later.text


def test_dash_never_reaches_them(tmp_path: Path) -> None:
    script = tmp_path / "s.sh"
    script.write_text(STOPS_EARLY)
    res = subprocess.run(["dash", str(script)], capture_output=True, text=True, timeout=10)
    assert res.returncode == 2 and "Syntax error" in res.stderr
    assert "start" in res.stdout and "after" not in res.stdout


def test_before_the_first_syntax_error_they_stay_errors() -> None:
    src = '#!/bin/sh\n[[ -f x ]] && echo y\nfunction f {\n  :\n}\n'
    assert {(line, d.severity) for line, _, d in found(src)} == {(2, "error"), (3, "error")}


# -- issue 25: a bash variable the script sets itself is an ordinary variable in dash -------------

@pytest.mark.parametrize("script", [
    '[ -z "${UID}" ] && UID="$(id -u)"\nf() { [ "${UID}" -ne 0 ] || echo root; echo "u=$UID"; }\n'
    "f\n",
    'export EUID="$(id -u)"\necho "e=$EUID"\n',
    "f() { echo \"r=$RANDOM\"; }\nRANDOM=7\nf\n",
    "read -r HOSTNAME < /etc/hostname\necho \"h=$HOSTNAME\"\n",
])
def test_a_bash_variable_the_script_sets_is_its_own(tmp_path: Path, script: str) -> None:
    assert where("#!/bin/sh\n" + script) == []
    # (dash expands it to what the script set, as bash does; RANDOM=7 seeds bash's, so only
    # the line before it is compared there)
    dash = run("dash", script, tmp_path)
    bash = run("bash", script, tmp_path)
    assert dash.returncode == 0 and "=\n" not in dash.stdout
    if "RANDOM" not in script:
        assert dash.stdout == bash.stdout


@pytest.mark.parametrize("script", [
    'echo "u=$UID"\nUID="$(id -u)"\n',  # set after the top-level use
    'f() { UID=0; }\necho "u=$UID"\n',  # set only in a function that never ran
])
def test_a_bash_variable_read_before_the_script_sets_it_is_reported(
        tmp_path: Path, script: str) -> None:
    line = 2 if script.startswith("echo") else 3
    assert where("#!/bin/sh\n" + script) == [(line, 9)]
    assert "u=\n" in run("dash", script, tmp_path).stdout


# -- issue 25: an echo -e whose output is only a message on the terminal --------------------------

def _severities(src: str) -> list[str]:
    return [d.severity for _, _, d in found("#!/bin/sh\n" + src)]


@pytest.mark.parametrize("body", [
    "echo -e '\\texport cluster_cidr=X'",
    "echo -e 'warning:\\tdisk full' >&2",
    "echo -e 'a\\tb' > /dev/null",
    "if true; then echo -e 'done\\n'; fi",
])
def test_an_echo_e_on_the_terminal_is_information(tmp_path: Path, body: str) -> None:
    assert _severities(body) == ["info"]
    [(_, _, d)] = found("#!/bin/sh\n" + body)
    assert "stray `-e`" in d.text
    # dash prints a stray `-e` where bash prints none: on the screen only
    dash = run("dash", "{ " + body + "; } 2>&1", tmp_path)
    bash = run("bash", "{ " + body + "; } 2>&1", tmp_path)
    if "/dev/null" not in body:
        assert dash.stdout.startswith("-e ") and not bash.stdout.startswith("-e")
    assert dash.stdout.replace("-e ", "", 1) == bash.stdout
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("body", [
    "echo -e 'a\\tb' > out.txt",
    "echo -e 'a\\tb' >> out.txt",
    "echo -e 'a\\tb' | cat > out.txt",
    "x=$(echo -e 'a\\tb'); echo \"$x\" > out.txt",
    "f() { echo -e 'a\\tb'; }; f > out.txt",
    "{ echo -e 'a\\tb'; } > out.txt",
    "exec > out.txt; echo -e 'a\\tb'",
])
def test_an_echo_e_whose_output_is_read_stays_a_warning(tmp_path: Path, body: str) -> None:
    assert "warning" in _severities(body)
    run("dash", body, tmp_path)
    in_dash = (tmp_path / "out.txt").read_text()
    run("bash", f"rm out.txt; {body}", tmp_path)
    assert in_dash == "-e a\tb\n" != (tmp_path / "out.txt").read_text()


# -- issue 25: a probe of the shell, and what runs only after it ----------------------------------

PROBES = [
    # libtool's probe for `+=`: dash's `not found` goes to /dev/null, the test answers no
    'if a=x && a+=" b" 2>/dev/null && test "a b" = "$a"; then echo has; else echo lacks; fi',
    # libtool's probe for `printf -v`, and its use in the branch the probe opens
    'if test xyes = `(x=; printf -v x %q yes; echo x"$x") 2>/dev/null`; then\n'
    '  printf -v y %q "a b"; echo "$y"\nelse echo lacks; fi',
    'if (shopt -s nullglob) 2>/dev/null; then shopt -s nullglob; echo has; else echo lacks; fi',
    # a fallback for the variable: dash uses it
    'd=/tmp/x-${RANDOM-0}$$; echo "${d%%-*}"',
    '{ test -n "$RANDOM" && echo "r$RANDOM" | cut -c1; } || echo lacks',
]


@pytest.mark.parametrize("script", PROBES, ids=[p[:24] for p in PROBES])
def test_a_probe_of_the_shell_and_its_use_are_not_reported(tmp_path: Path, script: str) -> None:
    assert where("#!/bin/sh\n" + script) == []
    dash = run("dash", script, tmp_path)
    assert dash.returncode == 0 and dash.stderr == "", dash
    assert run("bash", script, tmp_path).returncode == 0


@pytest.mark.parametrize("script", [
    'a=x; a+=" b" 2>/dev/null; echo "$a"',  # no test reads it: dash prints `x`
    'if a=x && a+=" b"; then echo "$a"; fi',  # the error is not discarded
    'if [[ -f /etc/passwd ]] 2>/dev/null; then echo yes; fi',  # a test: the other branch
    'printf -v y %q "a b"; echo "$y"',  # no probe before it
    'd=/tmp/x-${RANDOM}$$',
])
def test_no_probe_keeps_the_finding(script: str) -> None:
    assert where("#!/bin/sh\n" + script) != []


@pytest.mark.parametrize("script", [
    "kill -SIGTERM 2147483647 2>/dev/null || echo gone",  # an action, not a probe: kills nothing
    "until curl -fs localhost:1/health &> /dev/null; do sleep 1; done",  # `&>` discards nothing
])
def test_an_action_whose_failure_is_quiet_is_no_probe(script: str) -> None:
    assert where("#!/bin/sh\n" + script) != []


# -- issue 25: a Dockerfile copies the script into a Red Hat family image, whose sh is bash -------

@pytest.mark.parametrize("dockerfile", [
    "FROM centos:7\nRUN yum -y install nc\nCOPY health.sh /home/admin/\n",
    "FROM registry.access.redhat.com/ubi9/ubi-minimal:9.3\nCOPY health.sh /usr/local/bin/\n",
    "FROM golang:1.22 AS build\nRUN go build ./...\nFROM rockylinux:9\nCOPY *.sh /opt/\n",
    "FROM quay.io/centos/centos:stream9\nCOPY [\"health.sh\", \"/\"]\n",
])
def test_a_red_hat_family_image_runs_it_with_bash(tmp_path: Path, dockerfile: str) -> None:
    script = 'if [ "$(curl -s localhost:8089/ok)" == "ok" ]; then exit 0; fi\nexit 1'
    path = image_repo(tmp_path, script, dockerfile, name="health.sh")
    [(line, severity, text)] = in_image(path)
    assert (line, severity, text) == (2, "info", "==")
    [(_, _, d)] = found(Path(path).read_text(), path=path)
    assert "Red Hat family image" in d.text and "Dockerfile" in d.text
    # (bash as sh, as there, runs it; dash does not)
    body = '[ "ok" == "ok" ] && echo same'
    assert run("bash", f"exec -a sh bash -c '{body}'", tmp_path).stdout == "same\n"
    assert "unexpected operator" in run("dash", body, tmp_path).stderr


@pytest.mark.parametrize("dockerfile", [
    "FROM amazonlinux:2023\nCOPY health.sh /\n",  # not supported by a cited fact here
    "FROM canal/osbase:v3\nCOPY health.sh /\n",  # a project's own image: not known
    "ARG BASE=centos:7\nFROM ${BASE}\nCOPY health.sh /\n",
    "FROM centos:7 AS build\nCOPY health.sh /\nFROM debian:12\n"
    "COPY --from=build /health.sh /\n",
])
def test_no_evidence_of_a_red_hat_image_keeps_the_error(tmp_path: Path, dockerfile: str) -> None:
    path = image_repo(tmp_path, '[ "$1" == ok ] && exit 0', dockerfile, name="health.sh")
    assert [s for _, s, _ in in_image(path)] == ["error"]


def test_what_follows_red_hats_init_functions_runs_where_sh_is_bash(tmp_path: Path) -> None:
    script = ('[[ -n "$1" ]] && echo early\n. /etc/rc.d/init.d/functions\n'
              'echo $"Starting docker: "\n[[ -x /usr/bin/dockerd ]] || exit 5\necho after\n')
    got = [(line, d.severity) for line, _, d in found("#!/bin/sh\n" + script)]
    # before the `.` dash runs it: still an error; after it, information
    assert got == [(2, "error"), (4, "info"), (5, "info")]
    # where the file is missing (here: no Red Hat initscripts), dash stops at the `.`
    assert not Path("/etc/rc.d/init.d/functions").exists()
    dash = run("dash", script, tmp_path)
    assert dash.returncode == 2 and "cannot open" in dash.stderr and "after" not in dash.stdout
    # a folder named for Red Hat is no evidence
    assert [s for _, s, _ in in_image(image_repo(
        tmp_path, "[[ -x /usr/bin/dockerd ]] || exit 5", "FROM debian:12\n",
        where="contrib/init/sysvinit-redhat", name="docker"))] == ["error"]


# -- issue 25: the repository's CI runs the script with bash by name ------------------------------

def _ci_repo(tmp_path: Path, ci_name: str, ci_text: str) -> str:
    root = tmp_path / "repo"
    folder = root / ".ci" / "community-jenkins"
    folder.mkdir(parents=True)
    (root / ".git").mkdir()
    path = folder / "pr-builder.sh"
    path.write_text('#!/bin/sh\nset -o pipefail\nx=abc\necho "${x:0:1}"\n')
    ci = root / ci_name if ci_name.startswith(".github") else folder / ci_name
    ci.parent.mkdir(parents=True, exist_ok=True)
    ci.write_text(ci_text)
    return str(path)


@pytest.mark.parametrize(("ci_name", "ci_text"), [
    ("Jenkinsfile", "node { stage('build') {\n  // If pr-builder.sh fails, the sh step throws\n"
     "  sh \"/bin/bash -x .ci/community-jenkins/pr-builder.sh ${build_arg} ompi\"\n} }\n"),
    (".github/workflows/ci.yml", "jobs:\n  b:\n    steps:\n      - run: bash -e "
     "./.ci/community-jenkins/pr-builder.sh\n"),
    # under the folder the job checks the repository out into (open-mpi's Jenkinsfile)
    ("Jenkinsfile", "node { dir('ompi-source') { checkout scm }\n"
     "  sh \"/bin/bash -x ompi-source/.ci/community-jenkins/pr-builder.sh --source-dir x\"\n}\n"),
    (".github/workflows/ci.yml", "jobs:\n  b:\n    steps:\n      - run: bash "
     "${GITHUB_WORKSPACE}/src/.ci/community-jenkins/pr-builder.sh\n"),
])
def test_a_ci_file_that_runs_the_script_with_bash(tmp_path: Path, ci_name: str,
                                                  ci_text: str) -> None:
    path = _ci_repo(tmp_path, ci_name, ci_text)
    assert {s for _, s, _ in in_image(path)} == {"info"}
    # bash runs it whatever its `#!` line says; dash stops at `set -o pipefail`
    bash = subprocess.run(["/bin/bash", "-x", path], capture_output=True, text=True, timeout=10)
    dash = subprocess.run(["dash", path], capture_output=True, text=True, timeout=10)
    assert (bash.returncode, bash.stdout) == (0, "a\n")
    assert dash.returncode == 2 and "pipefail" in dash.stderr


@pytest.mark.parametrize("ci_text", [
    "sh './.ci/community-jenkins/pr-builder.sh'\n",  # run by its own name: `#!/bin/sh`
    "sh 'bash .ci/community-jenkins/pr-builder.sh'\nsh 'sh .ci/community-jenkins/pr-builder.sh'\n",
    "sh 'bash .ci/other.sh'\n",  # another script
    "sh 'bash other/pr-builder.sh'\n",  # another folder's file of the same name
    "sh 'bash ompi-source/.ci/community-jenkins/pr-builder.sh'\n"
    "sh 'ompi-source/.ci/community-jenkins/pr-builder.sh'\n",  # also run by its own name
])
def test_a_ci_file_that_runs_it_otherwise_is_no_evidence(tmp_path: Path, ci_text: str) -> None:
    path = _ci_repo(tmp_path, "Jenkinsfile", ci_text)
    assert {s for _, s, _ in in_image(path)} == {"error"}


# -- issue 25: constructs that differ only for values the text does not show ---------------------

def _levels(src: str) -> list[tuple[int, str]]:
    return [(line, d.severity) for line, _, d in found(src)]


@pytest.mark.parametrize("target", ["$fd", "$4", "${err_fd}"])
def test_a_descriptor_duplicated_from_a_variable_is_information(tmp_path: Path,
                                                                target: str) -> None:
    src = f'#!/bin/sh\nerr_fd=5\nfd=5\nset -- a b c 5\nexec 5>out\necho hi >&{target}\n'
    assert _levels(src) == [(6, "info")]
    # dash and bash both copy descriptor 5 when the value is a number
    for shell in ("dash", "bash"):
        (tmp_path / "out").unlink(missing_ok=True)
        res = run(shell, src, tmp_path)
        assert (res.returncode, res.stdout, (tmp_path / "out").read_text()) == (0, "", "hi\n")


def test_a_descriptor_variable_holding_a_file_name_is_where_the_shells_part(
        tmp_path: Path) -> None:
    # what the information names: dash stops, bash writes both outputs to the file
    src = "fd=log\necho hi >&$fd\necho after\n"
    dash, bash = run("dash", src, tmp_path), run("bash", src, tmp_path)
    assert dash.returncode == 2 and "Bad fd number" in dash.stderr and dash.stdout == ""
    assert bash.stdout == "after\n" and (tmp_path / "log").read_text() == "hi\n"
    # a file name written in the text stays an error
    assert _levels("#!/bin/sh\necho hi >& log\n") == [(2, "error")]


def test_random_next_to_the_pid_in_a_name_is_information(tmp_path: Path) -> None:
    src = '#!/bin/sh\ntmpdir=./ins$RANDOM-$$\nmkdir "$tmpdir" && echo "$tmpdir"\n'
    assert _levels(src) == [(2, "info")]
    # alone it stays a warning: dash makes every name the same
    assert _levels('#!/bin/sh\nf=./tmp$RANDOM\nmkdir "$f"\n') == [(2, "warning")]
    res = run("dash", "echo ./ins$RANDOM-$$; echo $$", tmp_path)
    name, pid = res.stdout.split("\n")[:2]
    assert name == f"./ins-{pid}"  # empty RANDOM, the pid still in the name


# -- issue 25: the script gives the target user bash itself ---------------------------------

@pytest.mark.parametrize("setter", ["useradd -m -s /bin/bash testuser",
                                    "usermod --shell=/bin/bash testuser",
                                    "chsh -s /usr/bin/bash testuser"])
def test_su_to_a_user_the_script_gave_bash_is_not_reported(setter: str) -> None:
    src = f"#!/bin/bash\n{setter}\nsu testuser -c 'if [[ -n x ]]; then echo y; fi'\n"
    assert _levels(src) == []
    # another user, or the shell set after the su, or to sh: not known to be bash
    assert _levels(src.replace("su testuser", "su other")) == [(3, "warning")]
    after = f"#!/bin/bash\nsu testuser -c '[[ -n x ]] && echo y'\n{setter}\n"
    assert _levels(after) == [(2, "warning")]
    assert _levels(src.replace("bash testuser", "sh testuser")) == [(3, "warning")]


def test_useradd_writes_the_shell_su_runs(tmp_path: Path) -> None:
    # what the exception rests on: useradd -s puts the shell in the user's passwd entry, the
    # program su runs the -c text with; here in a copy of /etc (useradd -P), not the system's
    etc = tmp_path / "etc"
    etc.mkdir()
    for name in ("passwd", "group", "shadow", "gshadow", "login.defs"):
        if Path("/etc", name).exists():
            (etc / name).write_bytes(Path("/etc", name).read_bytes())
    made = subprocess.run(["useradd", "-P", str(tmp_path), "-s", "/bin/bash", "qc207user"],
                          capture_output=True, text=True, timeout=20)
    assert made.returncode == 0, made.stderr
    entry = next(line for line in (etc / "passwd").read_text().splitlines()
                 if line.startswith("qc207user:"))
    shell = entry.rsplit(":", 1)[1]
    assert shell == "/bin/bash"
    assert "qc207user:" not in Path("/etc/passwd").read_text()
    res = subprocess.run([shell, "-c", "if [[ -n x ]]; then echo y; fi"], capture_output=True,
                         text=True, timeout=10)
    assert res.stdout == "y\n"


def test_a_bash_variable_another_function_sets_is_the_scripts_own(tmp_path: Path) -> None:
    # xCAT genesis `functions` (SystemImager): get_hostname sets HOSTNAME for the others
    lib = ('get_hostname() {\n    HOSTNAME=$(echo node001)\n}\n'
           'show() {\n    echo "host=$HOSTNAME"\n}\n')
    src = "#!/bin/sh\n" + lib + "get_hostname\nshow\n"
    assert _levels(src) == []
    res = run("dash", lib + "get_hostname\nshow\n", tmp_path)
    assert res.stdout == "host=node001\n"
    # read where nothing of the script has set it: still bash's variable
    assert _levels("#!/bin/sh\n" + lib.replace("HOSTNAME=", "NAME=") + "show\n") == \
        [(6, "warning")]
