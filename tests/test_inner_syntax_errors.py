"""A syntax error in an inner layer's text is reported, and does not silence the rest (issue 27).

`ssh h "kill $! ;;"` once printed nothing: the remote shell's text did not parse, so the layer
had no commands (no QC101 for `$!`), and the QC001 was dropped because a run-time value came
before the stray token. Now the commands before the token (and after the next separator on its
line) are parsed on their own, and the QC001 stands at the token when no data in the values
avoids it. Each case is held to the real shells: the text the inner shell receives (made by
bash itself expanding the quoted word) fails `bash -n` and `dash -n`, and the repaired one
passes.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.positions import LineIndex

BASH = shutil.which("bash")
DASH = shutil.which("dash")
needs_shells = pytest.mark.skipif(BASH is None or DASH is None,
                                  reason="bash and dash are needed")

Seen = tuple[str, int, int, str]  # code, line, column (1-based), severity


def findings(src: str) -> list[Seen]:
    result = check_source(src, Options(severity="info"), path=None)
    index = LineIndex(src)
    out = []
    for d in result.diagnostics:
        line, col = index.position(d.span[0])
        out.append((d.code, line + 1, col + 1, d.severity))
    return out


def diagnostics(src: str, code: str) -> list[Diagnostic]:
    return [d for d in check_source(src, Options(severity="info"), path=None).diagnostics
            if d.code == code]


def received(word: str) -> str:
    """The text an inner shell receives for the double-quoted ``word``: bash itself expands
    it (with a background job, so that `$!` has a value, and `$dir` set)."""
    assert BASH is not None
    run = subprocess.run([BASH, "-c", f"dir=/tmp/x; true & printf %s {word}"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def parses(shell: str | None, text: str) -> bool:
    assert shell is not None
    return subprocess.run([shell, "-n", "-c", text], capture_output=True, text=True,
                          timeout=60).returncode == 0


def quoted_word(command: str) -> str:
    """The double-quoted word of ``command`` (the inner layer's text, as written)."""
    start = command.index('"')
    return command[start:command.rindex('"') + 1]


# (command, stray token, code of the finding the command has without the token)
CASES = [
    ('ssh h "kill $! ;;"', ";;", "QC101"),
    ('ssh h "rm -rf $dir )"', ")", "QC103"),
    ('ssh h "echo $HOME; fi"', "fi", "QC101"),
    ('sh -c "echo $HOME; done"', "done", "QC103"),
    ('bash -c "echo $HOME; fi"', "fi", "QC103"),
    ('sudo sh -c "echo $HOME; fi"', "fi", "QC101"),
    ('docker exec c sh -c "echo $HOME; fi"', "fi", "QC101"),
    ('eval "echo $HOME; fi"', "fi", "QC103"),
    ('ssh h "kill $! )"', ")", "QC101"),
    ('sh -c "cd $dir && ls )"', ")", "QC103"),
]


def repaired(command: str, token: str) -> str:
    """``command`` without the stray token (and the separator before it)."""
    at = command.rindex(token)
    head = command[:at].rstrip()
    return head.removesuffix(";") + command[at + len(token):]


@needs_shells
@pytest.mark.parametrize(("command", "token", "code"), CASES, ids=[c[0] for c in CASES])
def test_the_real_shells_reject_the_text_and_accept_it_repaired(command: str, token: str,
                                                               code: str) -> None:
    broken, fixed = received(quoted_word(command)), received(quoted_word(repaired(command,
                                                                                 token)))
    assert "$" not in broken  # the values are in: this is what the inner shell reads
    for shell in (BASH, DASH):
        assert not parses(shell, broken), (shell, broken)
        assert parses(shell, fixed), (shell, fixed)


@pytest.mark.parametrize(("command", "token", "code"), CASES, ids=[c[0] for c in CASES])
def test_the_error_is_at_the_stray_token_and_the_other_findings_stay(command: str, token: str,
                                                                     code: str) -> None:
    found = findings(command)
    column = command.rindex(token) + 1
    assert ("QC001", 1, column, "error") in found, found
    # Everything the command has without the token, it still has with it.
    before = findings(repaired(command, token))
    assert any(f[0] == code for f in before), before
    assert set(before) <= set(found), (before, found)


def test_the_message_names_the_token_and_the_layer() -> None:
    [d] = diagnostics('ssh h "kill $! ;;"', "QC001")
    assert d.text.startswith("syntax error near `;;` in the text the remote shell")
    assert "unless" not in d.text


@pytest.mark.parametrize(("command", "column"), [
    ('ssh h "fi; kill $!"', 17),  # the commands after the next separator on the line too
    ('ssh h "echo ) && kill $!"', 23),
    ('ssh h "if true; then echo; fi fi; kill $!"', 40),
])
def test_a_command_after_the_stray_token_keeps_its_findings(command: str, column: int) -> None:
    found = findings(command)
    assert ("QC101", 1, column, "error") in found, found
    assert any(f[0] == "QC001" and f[3] == "error" for f in found), found


def test_a_multi_line_inner_text_keeps_the_lines_before_the_error() -> None:
    src = 'ssh h "\nkill $!\necho \\$x )\n"\n'
    found = findings(src)
    assert ("QC101", 2, 6, "error") in found, found
    assert ("QC001", 3, 10, "error") in found, found


# (command, the wrong closing word, the right one, the QC101 it keeps: column)
WRONG_CLOSERS = [
    ('ssh h "if true; then echo $HOME; done"', "done", "fi", 27),
    ('ssh h "for f in *; do rm $f; fi"', "fi", "done", 26),
    ('ssh h "for f in *; do if true; then rm $f; done"', "done", "fi; done", 40),
    ('ssh h "{ kill $!; fi"', "fi", "}", 15),
]


@needs_shells
@pytest.mark.parametrize(("command", "wrong", "right", "column"), WRONG_CLOSERS,
                         ids=[c[0] for c in WRONG_CLOSERS])
def test_a_construct_closed_with_the_wrong_word_keeps_its_commands(
        command: str, wrong: str, right: str, column: int) -> None:
    fixed = command[:command.rindex(wrong)] + right + command[command.rindex(wrong) +
                                                              len(wrong):]
    for shell in (BASH, DASH):
        assert not parses(shell, received(quoted_word(command)))
        assert parses(shell, received(quoted_word(fixed)))
    found = findings(command)
    assert any(f[:3] == ("QC101", 1, column) for f in found), found
    assert any(f[:3] == ("QC001", 1, command.rindex(wrong) + 1) for f in found), found
    assert {f for f in findings(fixed) if f[0] == "QC101"} <= set(found)


@needs_shells
def test_a_value_where_code_goes_makes_it_a_warning() -> None:
    # Only a value that is itself unbalanced code could close it: `cmd='echo $(date'`.
    src = 'ssh h "$cmd )"'
    assert received('"$(echo \'echo $(date\') )"') == "echo $(date )"
    assert parses(BASH, "echo $(date )") and not parses(BASH, "echo x )")
    [d] = diagnostics(src, "QC001")
    assert d.severity == "warning"
    assert "unless the value of `$cmd`" in d.text


@pytest.mark.parametrize("src", [
    # nothing in the value's place makes it valid: the value is meant to complete the code
    'eval "f() { case \\"$1\\" in ${patterns[@]} esac; }"',
    'ssh host "if $test; then echo"',  # left open at the end, after the value
])
def test_an_error_a_value_may_complete_is_still_no_finding(src: str) -> None:
    assert diagnostics(src, "QC001") == []


# -- property: a stray token appended to a valid inner script ------------------------------

_NAMES = ["echo", "kill", "rm -f", "printf %s", "cd"]
_ARGS = ["$!", "$HOME", "$$", "\\$1", "a", "/tmp/x", "$dir", "\\$PWD"]
_STRAYS = [(";;", ""), (")", ""), ("fi", "; "), ("done", "; "), ("esac", "; "), ("}", "; "),
           (")", "; ")]
_WRAPPERS = ['ssh h "{}"', 'sh -c "{}"', 'bash -c "{}"', 'sudo sh -c "{}"']


@st.composite
def inner_scripts(draw: st.DrawFn) -> str:
    commands = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(_NAMES))
        args = draw(st.lists(st.sampled_from(_ARGS), min_size=1, max_size=3))
        commands.append(" ".join([name, *args]))
    seps = [draw(st.sampled_from(["; ", " && ", " | "])) for _ in commands[1:]]
    out = commands[0]
    for sep, command in zip(seps, commands[1:], strict=True):
        out += sep + command
    return out


@needs_shells
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inner_scripts(), st.sampled_from(_STRAYS), st.sampled_from(_WRAPPERS))
def test_a_stray_token_keeps_the_valid_scripts_cross_layer_findings(
        inner: str, stray: tuple[str, str], wrapper: str) -> None:
    token, sep = stray
    valid = wrapper.format(inner)
    broken = wrapper.format(f"{inner}{sep or ' '}{token}")
    text = received(quoted_word(broken))
    assert not parses(BASH, text) and not parses(DASH, text), text
    kept = {f for f in findings(valid) if f[0] in ("QC101", "QC103")}
    found = set(findings(broken))
    assert kept <= found, (kept, found)
    column = broken.rindex(token) + 1
    assert any(f[:3] == ("QC001", 1, column) for f in found), found
