"""QC102 ssh-joins-words: ssh (or watch) joins several words and the inner shell re-splits them."""

from __future__ import annotations

import os
import subprocess

import pytest
from _support import CROSSLAYER, Finder, at, fixture_test
from harness.shells import dash_words

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.trace import build_trace

CODE = "QC102"
MINE = list(CROSSLAYER)
found = Finder(CODE, group=CROSSLAYER).diagnostics


def apply(src: str, d: Diagnostic) -> str:
    assert d.fixes
    out = src
    for edit in sorted(d.fixes[0].edits, key=lambda e: -e.span[0]):
        out = out[:edit.span[0]] + edit.text + out[edit.span[1]:]
    return out


def sent(src: str) -> str:
    """The string ssh sends for the first ssh command of ``src``, per the trace."""
    layer = next(x for x in build_trace(src).layers if x.kind in ("ssh", "join"))
    assert layer.text is not None
    return layer.text


test_fixture_expectations = fixture_test(
    "crosslayer", [CODE], lambda path, text: found(text, path=str(path)))


def test_space_in_a_word_shows_the_sent_string_and_the_remote_split() -> None:
    src = 'ssh host ls "my file"'
    [d] = found(src)
    assert at(src, d) == (1, 13)
    assert d.severity == "warning"
    assert d.message.kind == "words-joined" and d.message.value("sent") == "ls my file"
    assert d.message.value("read_as") == " The remote shell reads it as `ls` `my` `file`."
    assert d.layers == ("local bash", "ssh", "remote shell")
    # The join and the re-split, checked with a real shell on the string ssh sends.
    assert sent(src) == "ls my file"
    assert dash_words(sent(src)) == ["ls", "my", "file"]


def test_sh_c_cut_by_the_join_is_an_error() -> None:
    src = "ssh host sh -c 'python x.py'"
    [d] = found(src)
    assert d.severity == "error"
    assert d.message.value("sent") == "sh -c python x.py"
    # Real sh: only `python` is the script, x.py becomes $0.
    assert dash_words("sh -c python x.py") == ["sh", "-c", "python", "x.py"]


def test_operator_in_a_word_becomes_a_second_command() -> None:
    src = "ssh host echo 'a;b'"
    [d] = found(src)
    assert d.message.value("what").endswith("reads as a command separator")
    assert d.message.value("read_as") == " The remote shell reads it as `echo` `a` ; `b`."


@pytest.mark.parametrize("src, kind", [
    ("ssh host echo ''", "disappears"),
    ("ssh host echo \"it's\"", "unmatched"),
    ("ssh host echo '#note' x", "ignores it"),
    ("ssh host printf '%s\\n' 'a|b'", "a pipe"),
    ("watch -n 2 ls 'a b'", "split"),
    ("ssh host grep 'a\\.b' log", "turns into `.`"),
])
def test_each_kind_of_broken_word(src: str, kind: str) -> None:
    [d] = found(src)
    assert kind in d.message.value("what")


def test_glob_is_only_info() -> None:
    [d] = found("ssh host ls '*.log'")
    assert d.severity == "info"
    assert not d.fixes


def test_fix_sends_one_string_and_the_remote_words_are_the_local_ones() -> None:
    for src, words in [
        ('ssh host ls -l "my file"', ["ls", "-l", "my file"]),
        ("ssh -p 22 host sh -c 'python x.py'", ["sh", "-c", "python x.py"]),
        ("ssh host echo \"it's\" 'a;b' ''", ["echo", "it's", "a;b", ""]),
        # `$x` was sent for the remote shell to expand; the fix leaves that as it was.
        ("ssh host printf '%s\\n' '$x'", ["printf", "%s\\n"]),
    ]:
        [d] = found(src)
        assert d.fixes[0].applicability == "unsafe"
        fixed = apply(src, d)
        assert not found(fixed)
        # The remote shell now rebuilds exactly the words written locally.
        assert dash_words(sent(fixed)) == words


def test_no_fix_when_the_words_are_not_contiguous() -> None:
    [d] = found('ssh host ls > out.txt "my file"')
    assert not d.fixes


def test_dynamic_word_judged_by_its_own_text() -> None:
    src = 'ssh host ls "$dir/my file"'
    [d] = found(src)
    assert 'printf %q "$dir/my file"' in d.message.value("advice")
    # The value part is not reported a second time by QC103.
    assert [x.code for x in check_source(src, Options(select=MINE)).diagnostics] == [CODE]


@pytest.mark.parametrize("src", [
    "ssh host 'cd /srv/app && make'",
    'ssh host "ls \'my file\'"',
    "ssh host ls -l /srv",
    "ssh host bash -c \"'cd /x && make'\"",  # quoted for the remote shell on purpose
    'ssh host ls "$dir"',  # a value: QC103's
    "ssh -s host sftp",  # a subsystem, not a shell command
    "ssh host 'ls '\"'\"'my file'\"'\"''",
    'ssh host "$(printf \'%q \' "$@")"',
    "watch -n 5 'ls -l /srv'",
    "ssh host echo '$HOME'",  # remote expansion on purpose
    "ssh host echo 'a\\ b' c",  # escaped for the remote shell on purpose
])
def test_correct_code_is_not_reported(src: str) -> None:
    assert not found(src)


def test_first_word_is_remote_code_and_its_spaces_are_meant() -> None:
    # apache/linkis bad400a77b9502a68ec229ce6a5aedab6f039b28
    # linkis-dist/package/admin/tools/linkis-log-tool.sh: the remote shell is meant to split
    # `bash -s` (as it would if that word were sent alone); the values are QC103's.
    src = "ssh -q hadoop@$server_name 'bash -s' $job_id $log_path <$script"
    assert not found(src)
    assert not found("ssh host 'cd /srv && make' install")
    # Only what the first word does to the words after it is lost in the join.
    for src, kind in [("ssh host \"echo 'a\" b", "unmatched"),
                      ("ssh host 'ls # list' -l", "ignores it"),
                      ("ssh host '' ls", "disappears"),
                      ("ssh host 'echo a\\' b", "glues the next word on")]:
        [d] = found(src)
        assert kind in d.message.value("what")
    # The next words are still judged as arguments.
    [d] = found("ssh host 'bash -s' 'my file'")
    assert d.message.value("what").startswith("`my file` is split")


@pytest.mark.parametrize("src", [
    "ssh", "ssh -p", "ssh host ''", "watch", "watch ''", "$ssh host ls 'a b'",
    "ssh host \"$(\" 'a b'", "timeout 5 ssh host ls 'a b'",
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=MINE))
    assert not [d for d in result.diagnostics if "failed on this input" in d.text]


def test_wrapped_ssh_is_checked() -> None:
    assert found("timeout 5 ssh host ls 'a b'")


def _env_after(remote: str) -> subprocess.CompletedProcess[str]:
    """Real dash running the remote string with its command replaced by `env`."""
    return subprocess.run(["dash", "-c", remote.replace("./run.sh", "env")], capture_output=True,
                          text=True, timeout=10, env={"PATH": os.environ["PATH"]}, check=False)


def test_a_quoted_assignment_value_is_split_by_the_remote_shell() -> None:
    # The first word is remote code, but `NAME="a b"` was quoted here as one value: the remote
    # shell assigns `dev0` and runs `dev1`.
    src = 'ssh node1 DEVICES="dev0 dev1" ./run.sh'
    [d] = found(src)
    assert d.severity == "warning" and at(src, d) == (1, 11)
    assert sent(src) == "DEVICES=dev0 dev1 ./run.sh"
    broken = _env_after(sent(src))
    assert broken.returncode == 127 and "dev1" in broken.stderr
    fixed = apply(src, d)
    assert fixed == "ssh node1 \"DEVICES='dev0 dev1' ./run.sh\""
    assert not found(fixed)
    assert "DEVICES=dev0 dev1" in _env_after(sent(fixed)).stdout.splitlines()


def test_every_assignment_of_the_leading_run_keeps_its_name_unquoted() -> None:
    src = 'ssh node1 A="x y" B="z w" ./run.sh'
    [d] = found(src)
    fixed = apply(src, d)
    assert sent(fixed) == "A='x y' B='z w' ./run.sh"
    env = _env_after(sent(fixed)).stdout.splitlines()
    assert "A=x y" in env and "B=z w" in env


@pytest.mark.parametrize("src", [
    "ssh node1 'X=1 make' install",  # remote code with an assignment in it, quoted whole
    'ssh node1 DEVICES="dev0" ./run.sh',  # quoted, but nothing in it to split
    "ssh node1 DEVICES=dev0 ./run.sh",
])
def test_assignments_that_survive_the_join(src: str) -> None:
    assert not found(src)
