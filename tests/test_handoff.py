"""The argv grammar of every hand-off layer (quotecheck.layers.dispatch and the per-program
modules it dispatches to).

Ground truth comes from the real programs where that needs no network: `ssh -G` (prints the
resolved configuration without connecting), bash/dash, mawk, GNU env/timeout/nice/xargs/find,
util-linux su/runuser/flock (as root). Facts that were checked by hand once are quoted in
comments next to the assertion that encodes them.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quotecheck.layers.argv_options import Grammar, scan
from quotecheck.layers.awk import awk_unescape
from quotecheck.layers.dispatch import chain, classify, find_exec_clauses
from quotecheck.layers.handoff_types import (
    AwkHandoff,
    ExecHandoff,
    JoinHandoff,
    ShellHandoff,
    SshHandoff,
    basename,
    sudo_shell_string,
)
from quotecheck.layers.ssh_settings import parse_config_option
from quotecheck.layers.wrappers import env_split_string, xargs_replace_string

PRINT0 = ["printf", "%s\\0"]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
REAL = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def need(*programs: str) -> None:
    for program in programs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} not installed")


def run0(argv: Sequence[str], stdin: bytes = b"", env: dict[str, str] | None = None
         ) -> tuple[int, list[str]]:
    """Run a real command that ends in `printf '%s\\0' ...`; return its NUL-split output."""
    proc = subprocess.run(list(argv), input=stdin, capture_output=True, timeout=20, env=env,
                          check=False)
    return proc.returncode, [w.decode() for w in proc.stdout.split(b"\0")[:-1]]


def ssh_of(argv: Sequence[str], dynamic: frozenset[int] = frozenset()) -> SshHandoff:
    found = classify(argv, dynamic)
    assert isinstance(found, SshHandoff)
    return found


def exec_of(argv: Sequence[str], dynamic: frozenset[int] = frozenset()) -> ExecHandoff:
    found = classify(argv, dynamic)
    assert isinstance(found, ExecHandoff), found
    return found


def shell_of(argv: Sequence[str], dynamic: frozenset[int] = frozenset()) -> ShellHandoff:
    found = classify(argv, dynamic)
    assert isinstance(found, ShellHandoff), found
    return found


def awk_of(argv: Sequence[str]) -> AwkHandoff:
    found = classify(argv)
    assert isinstance(found, AwkHandoff), found
    return found


# ---------------------------------------------------------------------------------------------
# dispatch


def test_dispatch_on_basename_and_unknown_programs() -> None:
    assert isinstance(classify(["/usr/bin/ssh", "h", "ls"]), SshHandoff)
    assert basename("/usr/bin/ssh") == "ssh"
    assert classify(["ls", "-l"]) is None
    assert classify([]) is None
    # An unknown program word is never guessed.
    assert classify(["$PROG", "-c", "x"], frozenset({0})) is None


def test_start_and_end_classify_an_inner_argv_in_place() -> None:
    argv = ["find", ".", "-exec", "sh", "-c", "echo $0", "{}", ";", "-print"]
    inner = classify(argv, start=3, end=7)
    assert isinstance(inner, ShellHandoff)
    assert (inner.script, inner.args, inner.shell_index) == (5, (6,), 3)


def test_chain_follows_exec_wrappers_down_to_the_shell() -> None:
    argv = ["sudo", "-u", "bob", "timeout", "-s", "KILL", "5", "nice", "-n", "5", "sh", "-c",
            "echo hi", "x"]
    layers = chain(argv)
    assert [type(h).__name__ for h in layers] == ["ExecHandoff"] * 3 + ["ShellHandoff"]
    sh = layers[-1]
    assert isinstance(sh, ShellHandoff)
    assert (sh.script, sh.args) == (12, (13,))


# ---------------------------------------------------------------------------------------------
# ssh


SEED = ["ssh", "-o", "StrictHostKeyChecking=no", "-p", "10638", "root@[REDACTED_IP]",
        "\nps aux | ..."]


def test_seed_case() -> None:
    h = ssh_of(SEED)
    assert h.destination == 5
    assert h.command == (6,)
    assert h.config("stricthostkeychecking") == "no"
    assert h.config("StrictHostKeyChecking") == "no"
    assert h.port() == "10638"
    assert h.user() == "root"
    assert h.host() == "[REDACTED_IP]"
    assert h.sends() == "\nps aux | ..."
    assert h.options == (("-o", 2), ("-p", 4))
    assert (h.tty, h.stdin_null, h.background) == (0, False, False)


def test_options_after_destination() -> None:
    # Verified: `ssh -G h -p 2222 -l u echo hi` resolves port 2222 and user u.
    h = ssh_of(["ssh", "h", "-p", "2222", "-l", "u", "echo", "hi"])
    assert h.destination == 1
    assert h.command == (6, 7)
    assert h.sends() == "echo hi"
    assert (h.port(), h.user()) == ("2222", "u")


def test_option_parsing_stops_at_first_command_word() -> None:
    # Verified: `ssh -G h echo -p 3` keeps port 22.
    h = ssh_of(["ssh", "h", "echo", "-p", "3"])
    assert h.command == (2, 3, 4)
    assert h.port() is None
    assert h.sends() == "echo -p 3"


def test_dashdash_before_destination_ends_all_options() -> None:
    # Verified: `ssh -G -- h -p 3` keeps port 22: `-p 3` is the remote command.
    h = ssh_of(["ssh", "--", "h", "-p", "3"])
    assert (h.destination, h.command, h.port()) == (2, (3, 4), None)


def test_dashdash_after_destination() -> None:
    h = ssh_of(["ssh", "-p", "1", "h", "--", "-p", "3"])
    assert (h.destination, h.command, h.port(), h.dashdash) == (3, (5, 6), "1", 4)


@pytest.mark.parametrize(
    ("argv", "tty", "state"),
    [
        (["ssh", "-t", "h"], 1, "yes"),
        (["ssh", "-tt", "h"], 2, "force"),
        # Verified: -ttt is "true" again and -tttt "force" (OpenSSH toggles).
        (["ssh", "-ttt", "h"], 1, "yes"),
        (["ssh", "-tttt", "h"], 2, "force"),
        (["ssh", "-T", "h"], 0, "no"),
        (["ssh", "-tT", "h"], 0, "no"),
        (["ssh", "-Tt", "h"], 1, "yes"),
        (["ssh", "-t", "h", "-t", "ls"], 2, "force"),
        # Verified: `-o RequestTTY=yes -t` is force, `-t -o RequestTTY=no` stays yes.
        (["ssh", "-o", "RequestTTY=yes", "-t", "h"], 2, "force"),
        (["ssh", "-t", "-o", "RequestTTY=no", "h"], 1, "yes"),
        (["ssh", "h"], 0, "auto"),
    ],
)
def test_tty_levels(argv: list[str], tty: int, state: str) -> None:
    h = ssh_of(argv)
    assert (h.tty, h.request_tty) == (tty, state)


def test_combined_flags_and_attached_values() -> None:
    h = ssh_of(["ssh", "-nT", "-p2222", "-lbob", "-oUser=x", "h", "uptime"])
    assert h.stdin_null and h.tty == 0 and h.request_tty == "no"
    assert h.port() == "2222"
    assert h.user() == "bob"  # -l comes before -oUser=x
    assert h.option_values("p") == ("2222",)
    assert ("-p", 2) in h.options  # attached: the value is in the option word itself
    h2 = ssh_of(["ssh", "-nTp", "99", "h"])
    assert (h2.port(), h2.destination, h2.options[-1]) == ("99", 3, ("-p", 2))


def test_first_value_wins_across_forms() -> None:
    # Verified with ssh -G: -o Port=1 -p 2 -> 1; -p 2 -o Port=1 -> 2; -p 1 -p 2 -> 1.
    assert ssh_of(["ssh", "-oPort=1", "-p", "2", "h"]).port() == "1"
    assert ssh_of(["ssh", "-o", "Port=1", "-p", "2", "h"]).port() == "1"
    assert ssh_of(["ssh", "-p", "2", "-o", "Port=1", "h"]).port() == "2"
    assert ssh_of(["ssh", "-p", "1", "-p", "2", "h"]).port() == "1"
    # Verified: the destination's user/port counts where the destination stands.
    assert ssh_of(["ssh", "root@h", "-l", "bob"]).user() == "root"
    assert ssh_of(["ssh", "-l", "bob", "root@h"]).user() == "bob"
    assert ssh_of(["ssh", "ssh://u@h:2200", "-p", "3"]).port() == "2200"
    assert ssh_of(["ssh", "-p", "3", "ssh://u@h:2200"]).port() == "3"
    assert ssh_of(["ssh", "ssh://u@h:2200"]).host() == "h"


def test_config_forms() -> None:
    h = ssh_of(["ssh", "-o", "BatchMode yes", "-oConnectTimeout=5", "-o", "port = 9",
                "-o", 'User="bob x"', "-o", "batchmode=no", "h"])
    assert h.config("batchmode") == "yes"  # first wins, keyword case-insensitive
    assert h.config("ConnectTimeout") == "5"
    assert h.config("Port") == "9"
    assert h.config("user") == "bob x"  # verified: quotes removed
    assert h.config("ProxyCommand") is None
    assert parse_config_option("  Port\t=  7 ") == ("Port", "7")
    assert parse_config_option("Port") == ("Port", "")


def test_background_implies_stdin_null_and_needs_a_command() -> None:
    h = ssh_of(["ssh", "-f", "h", "sleep", "1"])
    assert h.background and h.stdin_null
    assert not h.problems
    # Verified: "Cannot fork into background without a command to execute."
    assert any("background" in p for p in ssh_of(["ssh", "-f", "h"]).problems)
    assert not ssh_of(["ssh", "-fN", "-L", "1:h:2", "h"]).problems


def test_no_command_interactive_and_special_modes() -> None:
    h = ssh_of(["ssh", "h"])
    assert h.command == () and h.sends() == "" and not h.no_command
    assert ssh_of(["ssh", "-N", "-L", "8080:x:80", "h"]).no_command
    assert ssh_of(["ssh", "-s", "h", "sftp"]).subsystem
    assert any("no destination" in p for p in ssh_of(["ssh", "-p", "22"]).problems)
    assert any("requires an argument" in p for p in ssh_of(["ssh", "h", "-l"]).problems)


def test_sends_joins_with_single_spaces_without_quoting() -> None:
    h = ssh_of(["ssh", "h", "ls", "my file", "", "a;b"])
    assert h.sends() == "ls my file  a;b"
    # `values` substitutes the text of dynamic words without moving indices.
    assert h.sends(["ssh", "h", "ls", "X", "Y", "Z"]) == "ls X Y Z"


def test_ssh_dynamic_words() -> None:
    # An options variable followed by more words is taken for options, and said uncertain.
    h = ssh_of(["ssh", "$OPTS", "host", "cmd"], frozenset({1}))
    assert h.destination == 2 and h.command == (3,) and h.uncertain and h.spread == (1,)
    h = ssh_of(["ssh", "${SSH_OPTS[@]}", "$host", "mkdir -p /srv/app"], frozenset({1, 2}))
    assert (h.destination, h.command, h.spread) == (2, (3,), (1,))
    # A plain unknown word is still the destination.
    h = ssh_of(["ssh", "$host", "cmd"], frozenset({1}))
    assert h.destination == 1 and h.command == (2,) and h.spread == ()
    h = ssh_of(["ssh", "$@"], frozenset({1}))
    assert h.destination == 1 and h.spread == (1,)  # may hold the command as well
    h = ssh_of(["ssh", "-p", "$PORT", "$HOST", "cmd"], frozenset({2, 3}))
    assert (h.destination, h.command, h.port()) == (3, (4,), "$PORT")


# Each case: the argv after `ssh` (ssh -G runs with `-F /dev/null` in front).
SSH_G_CASES = [
    ["h", "-p", "2222", "-l", "u", "echo", "hi"],
    ["h", "echo", "-p", "3"],
    ["--", "h", "-p", "3"],
    ["-p", "1", "h", "--", "-p", "3"],
    ["-o", "Port=1", "-p", "2", "h"],
    ["-p", "2", "-o", "Port=1", "h"],
    ["-oPort=5", "-oport=6", "h"],
    ["-o", "Port 7", "h"],
    ["-o", "port = 9", "h"],
    ["-tt", "h"], ["-ttt", "h"], ["-tT", "h"], ["-Tt", "h"],
    ["-nTp", "99", "h"],
    ["-l", "bob", "root@h"], ["root@h", "-l", "bob"],
    ["-o", "User=x", "-l", "y", "h"], ["-l", "y", "-o", "User=x", "h"],
    ["ssh://u@h:2200", "-p", "3"], ["-p", "3", "ssh://u@h:2200"],
    ["-o", "RequestTTY=yes", "-t", "h"], ["-t", "-o", "RequestTTY=no", "h"],
    ["-o", 'User="bob x"', "h"],
]
_G_TTY = {"auto": "auto", "no": "false", "yes": "true", "force": "force"}


def ssh_g(args: Sequence[str]) -> dict[str, str] | None:
    """`ssh -G` output as a dict, or None when ssh rejects the argv. -G never connects."""
    proc = subprocess.run(["ssh", "-G", "-F", "/dev/null", *args], capture_output=True,
                          text=True, timeout=20, check=False)
    if proc.returncode != 0:
        return None
    out: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        out.setdefault(key, value)
    return out


def assert_matches_ssh_g(args: Sequence[str]) -> None:
    resolved = ssh_g(args)
    if resolved is None:
        return
    h = ssh_of(["ssh", *args])
    assert (h.port() or "22") == resolved["port"], args
    assert (h.user() or getpass.getuser()) == resolved["user"], args
    host = (h.host() or "").lower()  # verified: ssh lowercases the host name
    if not host.isdigit():  # and canonicalises `1` to 0.0.0.1 (inet_aton)
        assert host == resolved["hostname"], args
    assert _G_TTY[h.request_tty] == resolved["requesttty"], args


@pytest.mark.parametrize("args", SSH_G_CASES)
def test_ssh_grammar_matches_ssh_G(args: list[str]) -> None:
    need("ssh")
    assert ssh_g(args) is not None, "ssh -G rejected a case that is expected to parse"
    assert_matches_ssh_g(args)


# Not `echo` as a word: ssh -p also takes service names (`-p echo` is port 7, verified).
SSH_TOKENS = ["-p", "1", "2", "-p5", "-o", "Port=3", "-oPort=6", "-l", "u", "-lv",
              "-oUser=w", "-t", "-T", "-tt", "-n", "--", "h", "x@h2", "ssh://y@h3:7", "uptime",
              "-4", "-o", "RequestTTY=force"]


@REAL
@given(st.lists(st.sampled_from(SSH_TOKENS), min_size=1, max_size=8))
def test_ssh_grammar_fuzzed_against_ssh_G(args: list[str]) -> None:
    need("ssh")
    assert_matches_ssh_g(args)


# ---------------------------------------------------------------------------------------------
# sudo


def test_sudo_options_and_assignments() -> None:
    argv = ["sudo", "-u", "bob", "-g", "wheel", "-E", "-H", "-n", "FOO=1", "-k", "BAR=2", "--",
            "ls", "-l"]
    h = exec_of(argv)
    assert (h.inner, h.end, h.words, h.runs_as) == (12, 14, (12, 13), "bob")
    assert exec_of(["sudo", "ls"]).runs_as == "root"
    assert exec_of(["sudo", "-uadmin", "ls"]).runs_as == "admin"
    assert exec_of(["sudo", "--user=web", "ls"]).runs_as == "web"
    # A value-taking option must not be mistaken for the command.
    assert exec_of(["sudo", "-p", "pw:", "-C", "5", "-D", "/tmp", "id"]).inner == 7
    # `/x=y` is a command, not an assignment (parse_args.c: not starting with `/`).
    assert exec_of(["sudo", "/opt/a=b", "x"]).inner == 1
    # After `--`, NAME=value is the command.
    assert exec_of(["sudo", "--", "A=1", "x"]).inner == 2
    assert exec_of(["sudo", "$CMD"], frozenset({1})).uncertain


def test_sudo_non_running_modes() -> None:
    assert classify(["sudo"]) is None
    assert classify(["sudo", "-l"]) is None
    assert classify(["sudo", "-v"]) is None
    assert classify(["sudo", "-e", "/etc/hosts"]) is None
    assert classify(["sudoedit", "/etc/hosts"]) is None
    assert classify(["sudo", "-h"]) is None
    # `-h host` (sudo reads a plain word after a bare -h as the remote host).
    assert exec_of(["sudo", "-h", "remote", "ls"]).inner == 3


def test_sudo_sh_c_is_just_exec_of_sh() -> None:
    h = exec_of(["sudo", "-u", "bob", "sh", "-c", "echo $HOME"])
    assert h.program == 3
    inner = classify(h.argv, start=h.inner, end=h.end)
    assert isinstance(inner, ShellHandoff) and inner.script == 5


def test_sudo_shell_modes_join_with_escapes() -> None:
    h = shell_of(["sudo", "-s", "echo", "a b", "$HOME"])
    assert (h.mode, h.wrapper, h.runs_as, h.login, h.script_words) == ("c", "sudo", "root",
                                                                       False, (2, 3, 4))
    assert h.script_text() == "echo a\\ b $HOME"
    h = shell_of(["sudo", "-u", "bob", "-i", "ls", "*.log"])
    assert h.login and h.runs_as == "bob" and h.script_text() == "ls \\*\\.log"
    interactive = shell_of(["sudo", "-i"])
    assert interactive.mode == "stdin" and interactive.script_text() is None
    assert shell_of(["sudo", "-i", "-s", "x"]).problems


def test_sudo_shell_string_facts() -> None:
    # sudo parse_args.c: backslash before every char not alnum, `_`, `-`, `$`.
    assert sudo_shell_string(["a_b-c$d", "x.y", "it's"]) == "a_b-c$d x\\.y it\\'s"
    assert sudo_shell_string(["a", "", "b"]) == "a  b"  # the empty word vanishes
    assert sudo_shell_string([]) == ""


def test_sudo_shell_string_through_bash_deletes_newlines_and_expands_dollar() -> None:
    need("bash")
    script = sudo_shell_string([*PRINT0, "a\nb", "", "$HOME", "c d"])
    rc, out = run0(["bash", "-c", script], env={"HOME": "/home/x", "PATH": os.defpath})
    # `\<newline>` is a line continuation: the newline is gone; `$HOME` expands; `` vanishes.
    assert (rc, out) == (0, ["ab", "/home/x", "c d"])


@REAL
@given(st.lists(st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x24ff,
                                               codec="utf-8",
                                               exclude_characters="\n$"),
                        min_size=1, max_size=12), min_size=1, max_size=5))
def test_sudo_shell_string_round_trips_through_bash(words: list[str]) -> None:
    need("bash")
    rc, out = run0(["bash", "-c", sudo_shell_string([*PRINT0, *words])],
                   env={"LC_ALL": "C.UTF-8", "PATH": os.defpath})
    assert (rc, out) == (0, words)


def _sudo_runs_without_password() -> bool:
    if shutil.which("sudo") is None:
        return False
    proc = subprocess.run(["sudo", "-n", "true"], capture_output=True, timeout=20, check=False)
    return proc.returncode == 0


# The words of each case are data sudo passes on, never a command that is analysed.
SUDO_WORDS = [["a b", "$HOME", "x;y", "it's", "", "${u}", "$(id)", "*.log", "\\n", "tab\there"],
              ["é", "a\nb", "_-$", "--", "~root", "!x"]]


@pytest.mark.parametrize("words", SUDO_WORDS)
def test_sudo_shell_string_is_what_real_sudo_hands_the_shell(tmp_path: Path,
                                                             words: list[str]) -> None:
    """`sudo -s CMD...` runs `$SHELL -c STRING`: a recording $SHELL shows sudo's string."""
    if not _sudo_runs_without_password():
        pytest.skip("sudo not installed, or it asks for a password")
    out = tmp_path / "argv"
    stub = tmp_path / "recording-shell"
    stub.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > {out}\n")
    stub.chmod(0o755)
    proc = subprocess.run(["sudo", "-n", "-s", "printf", "<%s>", *words],
                          env={"SHELL": str(stub), "PATH": os.defpath, "LC_ALL": "C.UTF-8"},
                          capture_output=True, timeout=20, check=False)
    assert proc.returncode == 0, proc.stderr
    argv = out.read_bytes().split(b"\0")[:-1]
    # sudo escapes bytes: each UTF-8 byte of `é` gets its backslash; a shell reads both the same.
    expected = sudo_shell_string(["printf", "<%s>", *words]).encode()
    expected = expected.replace("\\é".encode(), b"".join(b"\\" + bytes([c])
                                                           for c in "é".encode()))
    assert argv == [b"-c", expected]


def test_sudo_login_shell_reads_the_words_as_literals() -> None:
    """`sudo -i CMD...` through root's real login shell: the words arrive as written, only
    `$name` expands (here `$HOME`, root's)."""
    if not (IS_ROOT and _sudo_runs_without_password()):
        pytest.skip("needs root and sudo without a password")
    words = ["a b", "x;y", "$(id)", "${u}", "'q'", "*", "$HOME"]
    proc = subprocess.run(["sudo", "-n", "-i", *PRINT0, *words], capture_output=True,
                          timeout=20, check=False, env={"PATH": os.defpath})
    got = [w.decode() for w in proc.stdout.split(b"\0")[:-1]]
    home = os.path.expanduser("~root")
    assert (proc.returncode, got) == (0, [*words[:-1], home])


# ---------------------------------------------------------------------------------------------
# env


def test_env_grammar() -> None:
    h = exec_of(["env", "-i", "-u", "HOME", "-C", "/tmp", "A=1", "B=", "ls", "-l"])
    assert (h.inner, h.words) == (8, (8, 9))
    assert exec_of(["env", "-", "A=1", "cmd"]).inner == 3
    assert exec_of(["env", "--unset=X", "--chdir", "/", "cmd"]).inner == 4
    assert exec_of(["env", "--", "A=1", "cmd"]).inner == 3  # coreutils manual example
    # Verified: after an assignment options stop, so `-i` is the command.
    assert exec_of(["env", "A=1", "-i", "env"]).inner == 2
    assert classify(["env"]) is None and classify(["env", "A=1"]) is None


def test_env_split_string_splices_into_argv() -> None:
    h = exec_of(["env", "-S", "A=1 printf %s\\n", "x", "y"])
    assert h.split_string == 2
    assert h.prefix == ("printf", "%s\n")
    assert h.words == (3, 4)
    assert h.inner_argv() == ("printf", "%s\n", "x", "y")
    # Options inside the string are read by env (coreutils manual: -S'-i OLDUSER=... env').
    h = exec_of(["env", "-vS-i B=2 env"])
    assert h.prefix == ("env",) and h.words == ()
    # `env -S 'perl -w'` from a shebang keeps the script path after the split words.
    assert exec_of(["env", "--split-string=perl -w -T", "x.pl"]).inner_argv() == (
        "perl", "-w", "-T", "x.pl")
    # A -S inside a split string is split again.
    nested = exec_of(["env", "-S", "-S 'printf %s' a", "b"])
    assert (nested.prefix, nested.words, nested.split_string) == (("printf", "%s", "a"), (3,), 2)
    bad = exec_of(["env", "-S", "echo $HOME"])
    assert bad.problems and bad.words == () and bad.prefix == ()
    dyn = exec_of(["env", "-S", "$S", "x"], frozenset({2}))
    assert dyn.uncertain and dyn.split_string == 2 and dyn.words == (3,)


def test_env_split_string_rules() -> None:
    assert env_split_string("a  'b c' \"d\\te\"").words == ("a", "b c", "d\te")
    assert env_split_string("a\\_b \"c\\_d\"").words == ("a", "b", "c d")
    assert env_split_string("x#y #z").words == ("x#y",)
    assert env_split_string("a\\cb c").words == ("a",)
    assert env_split_string("'' \"\"").words == ("", "")
    assert env_split_string("'a\\qb'").words == ("a\\qb",)
    split = env_split_string("p=${HOME}x")
    assert split.words == ("p=${HOME}x",) and split.expanded == (0,)
    for text in ("\\q", "a\\", "\"abc", "$HOME", "\"a\\cb\""):
        assert env_split_string(text).error is not None, text


ENV_PY = f'{sys.executable} -c "import sys, json; print(json.dumps(sys.argv[1:]))" '


@REAL
@given(st.text(alphabet="ab '\"\\#_cntv\t{}", max_size=14))
def test_env_split_string_matches_real_env(text: str) -> None:
    need("env")
    proc = subprocess.run(["env", "-S", ENV_PY + text], capture_output=True, text=True,
                          timeout=20, check=False)
    mine = env_split_string(ENV_PY + text)
    if proc.returncode == 125:
        assert mine.error is not None, (text, proc.stderr)
    else:
        assert mine.error is None, (text, mine.error)
        assert list(mine.words[3:]) == json.loads(proc.stdout), text


# ---------------------------------------------------------------------------------------------
# other exec wrappers


@pytest.mark.parametrize(
    ("argv", "inner"),
    [
        (["nohup", "cmd", "a"], 1),
        (["nohup", "--", "cmd"], 2),
        (["timeout", "5", "cmd"], 2),
        (["timeout", "-s", "KILL", "-k", "3", "--foreground", "5s", "cmd"], 7),
        (["timeout", "--signal=TERM", "--kill-after", "1", "5", "cmd"], 5),
        (["timeout", "--sig=KILL", "5", "cmd"], 3),  # getopt_long prefix
        (["timeout", "-sKILL", "5", "cmd"], 3),
        (["nice", "-n", "10", "cmd"], 3),
        (["nice", "-n10", "cmd"], 2),
        (["nice", "--adjustment=3", "cmd"], 2),
        (["nice", "-5", "cmd"], 2),
        (["nice", "--5", "cmd"], 2),
        (["nice", "cmd"], 1),
        (["setsid", "-f", "-w", "cmd"], 3),
        (["setsid", "-fw", "cmd"], 2),
        (["stdbuf", "-o", "L", "-e0", "cmd"], 4),
        (["stdbuf", "--output=L", "cmd"], 2),
        (["time", "-f", "%e", "-o", "out", "-p", "cmd"], 6),
        (["/usr/bin/time", "-v", "cmd"], 2),
        (["time", "-p", "cmd"], 2),
        (["chroot", "--userspec=u:g", "/r", "cmd"], 3),
        (["flock", "-w", "5", "-x", "/tmp/l", "cmd", "-w"], 5),
        (["flock", "-n", "--timeout", "1", "/tmp/l", "cmd"], 5),
        (["srun", "-n", "4", "-N", "2", "-p", "gpu", "--gres=gpu:1", "-c", "8", "cmd"], 10),
        (["srun", "--ntasks", "4", "-J", "job", "--time=10", "--pty", "bash"], 7),
        (["srun", "-l", "--exclusive", "-t", "5", "hostname"], 5),
        (["doas", "-u", "www", "cmd"], 3),
        (["gosu", "nobody:nogroup", "cmd"], 2),
        (["unbuffer", "-p", "cmd"], 2),
        (["exec", "-a", "name", "cmd"], 3),
        (["command", "-p", "cmd"], 2),
        (["ionice", "-c", "3", "cmd"], 3),
    ],
)
def test_exec_wrapper_command_start(argv: list[str], inner: int) -> None:
    h = exec_of(argv)
    assert h.inner == inner and h.end == len(argv)
    assert h.words == tuple(range(inner, len(argv)))


def test_exec_wrapper_extras() -> None:
    t = exec_of(["timeout", "5", "-s", "KILL", "x"])
    assert (t.target, t.inner) == (1, 2)  # verified: timeout runs `-s`
    assert exec_of(["chroot", "--userspec=alice:staff", "/r", "id"]).runs_as == "alice"
    assert exec_of(["gosu", "nobody:nogroup", "id"]).runs_as == "nobody"
    assert exec_of(["doas", "ls"]).runs_as == "root"
    assert classify(["timeout", "5"]) is None
    assert classify(["nohup"]) is None
    assert classify(["command", "-v", "ls"]) is None
    assert classify(["timeout", "--help"]) is None
    assert classify(["ionice", "-p", "42"]) is None


def test_chroot_without_command_runs_an_interactive_shell() -> None:
    h = shell_of(["chroot", "/srv/root"])
    assert h.mode == "stdin" and h.interactive and h.wrapper == "chroot"


def test_flock_command_option_is_a_shell_handoff() -> None:
    h = shell_of(["flock", "-w", "5", "/tmp/lock", "-c", "echo $0; x"])
    assert (h.mode, h.script, h.wrapper, h.shell) == ("c", 5, "flock", "unknown")
    # Verified: flock uses $SHELL, else /bin/sh.
    assert h.shell_source is not None and "$SHELL" in h.shell_source
    # Verified: more words after the string -> "-c requires exactly one command argument".
    assert shell_of(["flock", "/tmp/l", "-c", "a", "b"]).problems
    assert classify(["flock", "9"]) is None


@pytest.mark.parametrize(
    ("options", "placeholder"),
    [
        (["-I{}"], "{}"),
        (["-I", "X"], "X"),
        (["-i"], "{}"),
        (["-iQ"], "Q"),
        (["--replace"], "{}"),
        (["--replace=R"], "R"),
        (["-I{}", "-L1"], None),  # verified: a later -L cancels -I
        (["-L1", "-I{}"], "{}"),
        (["-I{}", "-n1"], "{}"),  # verified: -n1 after -I is ignored
        (["-I{}", "-n", "2"], None),  # verified: -n2 after -I cancels it
        (["-n2", "-I{}"], "{}"),
        (["-I{}", "--max-lines=1"], None),
        (["-0"], None),
        (["-r", "-e"], None),
    ],
)
def test_xargs_placeholder(options: list[str], placeholder: str | None) -> None:
    argv = ["xargs", *options, *PRINT0, "<{}>", "X", "R", "Q"]
    h = exec_of(argv)
    assert h.placeholder == placeholder
    assert h.appends_input == (placeholder is None)
    assert h.inner == 1 + len(options)
    assert xargs_replace_string(h.options) == placeholder


@pytest.mark.parametrize("options", [["-I{}"], ["-I", "X"], ["-i"], ["-iQ"], ["--replace=R"],
                                     ["-I{}", "-L1"], ["-I{}", "-n1"], ["-I{}", "-n", "2"],
                                     ["-0"], ["-r", "-e"], ["-t"]])
def test_xargs_placeholder_matches_real_xargs(options: list[str]) -> None:
    need("xargs")
    argv = ["xargs", *options, *PRINT0, "<{}>", "X", "R", "Q"]
    h = exec_of(argv)
    item = "it"
    stdin = (item + ("\0" if "-0" in options else "\n")).encode()
    rc, out = run0(argv, stdin)
    template = list(h.inner_argv()[2:])
    if h.placeholder is not None:
        expected = [w.replace(h.placeholder, item) for w in template]
    else:
        expected = [*template, item]
    assert (rc, out) == (0, expected)


def test_xargs_default_command_is_echo() -> None:
    h = exec_of(["xargs", "-0", "-n", "1"])
    assert h.prefix == ("echo",) and h.words == () and h.inner_argv() == ("echo",)
    assert exec_of(["xargs", "--", "echo", "dd"]).inner == 2
    assert classify(["xargs", "--show-limits"]) is None


def test_find_exec_clauses() -> None:
    argv = ["find", ".", "-name", "*.py", "-exec", "sh", "-c", "wc -l {}", ";",
            "-execdir", "rm", "{}", "+", "-ok", "echo", "{}", "+", ";"]
    clauses = find_exec_clauses(argv)
    assert [(c.action, c.inner, c.end, c.terminator, c.appends_input) for c in clauses] == [
        ("-exec", 5, 8, ";", False),
        ("-execdir", 10, 12, "+", True),
        # -ok does not support `+`: it runs to the next `;` (verified: "missing argument").
        ("-ok", 14, 17, ";", False),
    ]
    first = classify(argv)
    assert isinstance(first, ExecHandoff) and first.placeholder == "{}" and first.inner == 5


def test_find_exec_terminators_and_errors() -> None:
    # `+` not right after a lone `{}` is an argument (verified: prints "+ path").
    (c,) = find_exec_clauses(["find", ".", "-exec", "echo", "+", "{}", ";"])
    assert (c.words, c.terminator) == ((3, 4, 5), ";")
    (c,) = find_exec_clauses(["find", ".", "-exec", "echo", "p{}q", "{}", "+"])
    assert c.problems  # verified: "Only one instance of {} is supported with -exec ... +"
    (c,) = find_exec_clauses(["find", ".", "-exec", "echo", "{}"])
    assert c.terminator is None and c.problems
    # The word after -name is data even when it reads -exec (verified: find accepts it).
    assert find_exec_clauses(["find", ".", "-name", "-exec", "-print"]) == []
    assert classify(["find", ".", "-print"]) is None


def test_find_clauses_match_real_find(tmp_path: Path) -> None:
    need("find")
    (tmp_path / "f").write_text("")
    cases = [
        ["-name", "f", "-exec", *PRINT0, "x{}y", ";"],
        ["-name", "f", "-exec", *PRINT0, "+", "{}", ";"],
        ["-name", "f", "-exec", *PRINT0, "{}", "+"],
        ["-name", "-exec", "-o", "-name", "f", "-exec", *PRINT0, "{}", ";"],
        ["-name", "f", "-exec", *PRINT0, "1", ";", "-exec", *PRINT0, "2", "{}", "+"],
    ]
    path = str(tmp_path / "f")
    for expr in cases:
        argv = ["find", str(tmp_path), *expr]
        expected: list[str] = []
        for clause in find_exec_clauses(argv):
            words = [w.replace("{}", path) for w in clause.inner_argv()[2:]]
            expected += words
        rc, out = run0(argv)
        assert (rc, out) == (0, expected), expr


@pytest.mark.parametrize(
    ("argv", "inner", "target", "user"),
    [
        (["docker", "exec", "-it", "-u", "root", "-w", "/app", "-e", "A=1", "web", "sh", "-c",
          "ls"], 10, 9, "root"),
        (["docker", "-H", "tcp://x", "--context=c", "exec", "web", "ls"], 6, 5, None),
        (["docker", "container", "exec", "--user=1000:1000", "web", "id"], 5, 4, "1000"),
        (["docker", "run", "--rm", "-v", "/a:/b", "--name", "x", "-p", "80:80", "--entrypoint",
          "sh", "img", "-c", "ls"], 12, 11, None),
        (["docker", "run", "-it", "--env", "A=1", "-w=/x", "img:1", "bash"], 7, 6, None),
        (["podman", "exec", "-l", "ls"], 3, None, None),
        (["podman", "--root", "/r", "run", "--pod", "p", "img", "true"], 7, 6, None),
    ],
)
def test_container_grammar(argv: list[str], inner: int, target: int | None,
                           user: str | None) -> None:
    h = exec_of(argv)
    assert (h.inner, h.target, h.runs_as, h.end) == (inner, target, user, len(argv))


def test_container_extras() -> None:
    run = exec_of(["docker", "run", "--entrypoint", "sh", "img", "-c", "ls"])
    assert run.prefix == ("sh",) and run.inner_argv() == ("sh", "-c", "ls")
    default_cmd = exec_of(["docker", "run", "-d", "img"])
    assert default_cmd.words == () and default_cmd.target == 3
    assert classify(["docker", "exec", "web"]) is None
    assert classify(["docker", "ps"]) is None
    assert classify(["docker", "run", "--help"]) is None


def test_kubectl_exec() -> None:
    h = exec_of(["kubectl", "-n", "prod", "exec", "-it", "pod-1", "-c", "app", "--", "sh",
                 "-c", "ls /"])
    assert (h.inner, h.words, h.target) == (9, (9, 10, 11), 5)
    # cobra reads flags anywhere before `--`.
    h = exec_of(["kubectl", "exec", "pod-1", "-n", "ns", "--container=app", "--", "ls", "-l"])
    assert (h.words, h.target) == ((7, 8), 2)
    h = exec_of(["kubectl", "exec", "deploy/web", "--", "env"])
    assert h.target == 2
    old = exec_of(["kubectl", "exec", "pod-1", "ls", "/tmp"])
    assert old.words == (3, 4) and old.problems
    assert classify(["kubectl", "get", "pods"]) is None
    assert classify(["kubectl", "exec", "pod-1"]) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["env", "-i", "-u", "X", "A=1", *PRINT0, "a b", "c"],
        ["env", "-S", "A=1 printf %s\\\\0", "x", "y z"],
        ["env", "-vS", "printf %s\\\\0 'p q'", "r"],
        ["env", "--split-string=-i printf %s\\\\0", "s"],
        ["env", "-S", "-S 'printf %s" + "\\" * 4 + "0' a", "b"],  # split twice
        ["env", "--", "-", "A=1", *PRINT0, "-"],
        ["timeout", "-s", "KILL", "-k", "3", "5", *PRINT0, "-s", "x"],
        ["timeout", "--sig=TERM", "5", *PRINT0, "y"],
        ["nice", "-n", "1", *PRINT0, "-n"],
        ["nice", "-5", *PRINT0, "z"],
        ["setsid", "-w", *PRINT0, "-f"],
        ["stdbuf", "-oL", "-e", "0", *PRINT0, "-o"],
        ["nohup", *PRINT0, "n"],
        ["/usr/bin/time", "-o", "/dev/null", "-f", "%e", *PRINT0, "-p"],
        ["flock", "-w", "5", "/dev/null", *PRINT0, "-c"],
        ["xargs", "-a", "/dev/null", "-r", *PRINT0, "q"],
    ],
)
def test_exec_wrappers_match_real_programs(argv: list[str]) -> None:
    need(argv[0])
    h = exec_of(argv)
    predicted = h.inner_argv()
    assert list(predicted[:2]) == PRINT0
    rc, out = run0(argv)
    if argv[0] == "xargs":
        assert (rc, out) == (0, [])  # -r with no input runs nothing
    else:
        assert (rc, out) == (0, list(predicted[2:]))


def test_chroot_matches_real_chroot() -> None:
    need("chroot")
    if not IS_ROOT:
        pytest.skip("chroot needs root")
    argv = ["chroot", "--skip-chdir", "/", *PRINT0, "a"]
    rc, out = run0(argv)
    assert (rc, out) == (0, list(exec_of(argv).inner_argv()[2:]))


# ---------------------------------------------------------------------------------------------
# shells


@pytest.mark.parametrize(
    ("argv", "script", "args", "flags", "login"),
    [
        (["sh", "-c", "echo $0 $1", "a0", "a1"], 2, (3, 4), (), False),
        (["bash", "-ec", "x"], 2, (), ("-e",), False),
        (["bash", "-lc", "x", "me"], 2, (3,), (), True),
        (["bash", "-c", "-x", "x"], 3, (), ("-x",), False),  # verified: -x still an option
        (["bash", "-eo", "pipefail", "-c", "x"], 4, (), ("-e", "-o pipefail"), False),
        (["bash", "--login", "--rcfile", "f", "-c", "x"], 5, (), ("--rcfile f",), True),
        (["dash", "-c", "--", "x", "y"], 3, (4,), (), False),
        (["zsh", "-xc", "x"], 2, (), ("-x",), False),
        (["ksh", "+x", "-c", "x"], 3, (), ("+x",), False),
        (["-bash", "-c", "x"], 2, (), (), True),
        (["/bin/sh", "-c", "x", "--norc"], 2, (3,), (), False),
    ],
)
def test_shell_c(argv: list[str], script: int, args: tuple[int, ...],
                 flags: tuple[str, ...], login: bool) -> None:
    h = shell_of(argv)
    assert (h.mode, h.script, h.args, h.flags, h.login) == ("c", script, args, flags, login)
    assert h.dollar0 == (args[0] if args else 0)
    assert h.positional() == args[1:]
    assert h.script_text() == argv[script]


def test_shell_stdin_and_file_modes() -> None:
    h = shell_of(["bash", "-s", "--", "a", "b"])
    assert (h.mode, h.script, h.args, h.positional()) == ("stdin", None, (3, 4), (3, 4))
    h = shell_of(["sh"])
    assert h.mode == "stdin" and not h.interactive and h.args == ()
    assert shell_of(["bash", "-i"]).interactive
    h = shell_of(["bash", "-x", "deploy.sh", "a"])
    assert (h.mode, h.script, h.args, h.dollar0) == ("file", 2, (3,), 2)
    h = shell_of(["bash", "--", "-c"])  # verified: runs a script file named -c
    assert (h.mode, h.script) == ("file", 2)
    assert shell_of(["bash", "-c"]).problems
    h = shell_of(["busybox", "sh", "-c", "x"])
    assert (h.shell, h.script) == ("sh", 3)


SHELL_LAYOUTS = [
    ["-c", 'printf "%s\\0" "$0" "$@"', "A", "B C"],
    ["-e", "-c", 'printf "%s\\0" "$0" "$@"', "A"],
    ["-ec", 'printf "%s\\0" "$0" "$@"'],
    ["-c", "-u", 'printf "%s\\0" "$0" "$@"', "-x", "--"],
    ["-o", "errexit", "-c", 'printf "%s\\0" "$0" "$@"', "z"],
    ["-c", "--", 'printf "%s\\0" "$0" "$@"', "z", "y"],
]


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("layout", SHELL_LAYOUTS)
def test_dollar0_and_positional_match_real_shells(shell: str, layout: list[str]) -> None:
    need(shell)
    argv = [shell, *layout]
    h = shell_of(argv)
    rc, out = run0(argv)
    assert rc == 0
    assert h.dollar0 is not None
    assert out == [argv[h.dollar0]] + [argv[i] for i in h.positional()]


def test_stdin_and_file_positional_match_real_bash(tmp_path: Path) -> None:
    need("bash")
    body = 'printf "%s\\0" "$@"'
    argv = ["bash", "-s", "--", "a", "-b"]
    proc = subprocess.run(argv, input=body.encode(), capture_output=True, timeout=20,
                          check=True)
    h = shell_of(argv)
    assert proc.stdout.decode().split("\0")[:-1] == [argv[i] for i in h.positional()]
    script = tmp_path / "s.sh"
    script.write_text(body)
    argv = ["bash", str(script), "p", "q"]
    h = shell_of(argv)
    rc, out = run0(argv)
    assert (rc, out) == (0, [argv[i] for i in h.positional()])


@pytest.mark.parametrize(
    ("argv", "script", "args", "user", "login"),
    [
        (["su", "root", "-c", "cmd", "A", "B"], 3, (4, 5), "root", False),
        (["su", "-c", "cmd", "bob", "A"], 2, (4,), "bob", False),
        (["su", "bob", "A", "-c", "cmd", "B"], 4, (2, 5), "bob", False),  # permutation
        (["su", "-", "bob", "-c", "cmd"], 4, (), "bob", True),
        (["su", "-l", "bob", "--command=cmd"], 3, (), "bob", True),
        (["su", "bob", "-", "-c", "cmd"], 4, (2,), "bob", False),  # `-` after user is $0
        (["su", "-c", "first", "-c", "second", "bob"], 4, (), "bob", False),  # last -c wins
        (["su", "-c", "cmd"], 2, (), "root", False),
        (["runuser", "bob", "-c", "cmd", "x"], 3, (4,), "bob", False),
    ],
)
def test_su_grammar(argv: list[str], script: int, args: tuple[int, ...], user: str,
                    login: bool) -> None:
    h = shell_of(argv)
    assert (h.mode, h.script, h.args, h.runs_as, h.login, h.wrapper) == (
        "c", script, args, user, login, argv[0])
    assert h.shell == "unknown"


def test_su_shell_option_and_attached_command() -> None:
    h = shell_of(["su", "-s", "/bin/dash", "bob", "-cecho hi"])
    assert h.shell == "dash" and h.script_offset == 2 and h.script_text() == "echo hi"
    h = shell_of(["su", "bob", "--command=echo x"])
    assert h.script_text() == "echo x"
    h = shell_of(["su", "bob"])
    assert h.mode == "stdin" and h.runs_as == "bob"
    h = shell_of(["su", "bob", "script.sh", "a"])
    assert (h.mode, h.script, h.args) == ("file", 2, (3,))
    h = shell_of(["su", "bob", "--", "-c", "cmd"])  # the shell itself gets -c
    assert (h.mode, h.script) == ("c", 4)
    assert shell_of(["su", "root", "-c", "x", "-x"]).problems  # verified: invalid option
    assert classify(["su", "--help"]) is None


@pytest.mark.parametrize(
    "tail",
    [["root", "-c", 'printf "%s\\0" "$0" "$@"', "A", "B"],
     ["-c", 'printf "%s\\0" "$0" "$@"', "root", "A", "B"],
     ["root", "A", "-c", 'printf "%s\\0" "$0" "$@"', "B"],
     ["root", "-", "-c", 'printf "%s\\0" "$0" "$@"'],
     ["-s", "/bin/sh", "root", "-c", 'printf "%s\\0" "$0" "$@"', "--", "-x"]],
)
def test_su_positional_matches_real_su(tail: list[str]) -> None:
    need("su")
    if not IS_ROOT:
        pytest.skip("su without a password prompt needs root")
    argv = ["su", *tail]
    h = shell_of(argv)
    rc, out = run0(argv)
    assert rc == 0
    assert out == [argv[i] for i in h.args]


def test_runuser_user_mode_execs_directly() -> None:
    h = exec_of(["runuser", "-u", "nobody", "--", "sh", "-c", "x"])
    assert (h.words, h.runs_as) == ((4, 5, 6), "nobody")
    # Verified: without `--` runuser still reads -c/-l among the command's words.
    bad = exec_of(["runuser", "-u", "nobody", "sh", "-c", "x"])
    assert bad.problems and 5 not in bad.words


def test_script_command() -> None:
    h = shell_of(["script", "-q", "-c", "echo hi", "/dev/null"])
    assert (h.mode, h.script, h.wrapper) == ("c", 3, "script")
    # Verified (util-linux 2.38): options may follow the typescript file.
    assert shell_of(["script", "-q", "/dev/null", "-c", "x"]).script == 4
    assert shell_of(["script", "-qc", "a", "b", "c"]).problems  # "unexpected number of args"
    assert shell_of(["script", "out.log"]).interactive


# ---------------------------------------------------------------------------------------------
# joining layers and multiplexers


def test_eval_joins_words() -> None:
    h = classify(["eval", "echo", "$x", "a  b"])
    assert isinstance(h, JoinHandoff)
    assert (h.words, h.shell, h.sends()) == ((1, 2, 3), "same", "echo $x a  b")
    h = classify(["eval", "--", "echo", "hi"])
    assert isinstance(h, JoinHandoff)
    # Verified: bash drops `--`, dash runs it as a command.
    assert (h.skipped_dashdash, h.words, h.sends()) == (1, (2, 3), "echo hi")
    assert classify(["eval"]) is None


def test_eval_join_is_what_bash_parses() -> None:
    need("bash")
    h = classify(["eval", "printf", "%s\\\\0", "a  b", "c;", "printf", "%s\\\\0", "d"])
    assert isinstance(h, JoinHandoff)
    rc, out = run0(["bash", "-c", h.sends()])
    assert (rc, out) == (0, ["a", "b", "c", "d"])


def test_watch() -> None:
    h = classify(["watch", "-n", "1", "-d", "-t", "-g", "echo", "$0", "a  b"])
    assert isinstance(h, JoinHandoff)
    # Verified (procps-ng 4.0.2): `watch echo '$0' 'a  b'` displays `sh a b`.
    assert (h.words, h.shell, h.sends()) == ((6, 7, 8), "sh", "echo $0 a  b")
    h2 = classify(["watch", "--interval=2", "--differences=permanent", "ls", "-l"])
    assert isinstance(h2, JoinHandoff) and h2.words == (3, 4)
    x = exec_of(["watch", "-x", "sh", "-c", "echo a"])
    assert x.words == (2, 3, 4)  # verified: -x keeps `a  b` intact
    assert classify(["watch", "-n", "5"]) is None


def test_tmux() -> None:
    # Verified (tmux 3.3a): one word runs as `default-shell -c WORD` ($0 was bash with
    # SHELL=/bin/bash); several words are exec'd directly (`a  b` kept).
    one = shell_of(["tmux", "new-session", "-d", "-s", "w", "cd /x && make"])
    assert (one.mode, one.script, one.wrapper, one.shell) == ("c", 5, "tmux", "unknown")
    many = exec_of(["tmux", "-L", "s", "new", "-d", "-n", "w", "sh", "-c", "x", "a  b"])
    assert (many.words, many.action) == ((7, 8, 9, 10), "new")
    sep = exec_of(["tmux", "new", "-d", "vi", "f", ";", "attach"])
    assert sep.words == (3, 4)
    c = shell_of(["tmux", "-c", "echo hi"])
    assert c.script == 2
    assert classify(["tmux", "attach"]) is None
    assert classify(["tmux", "new", "-d"]) is None


def test_screen_execs_directly() -> None:
    h = exec_of(["screen", "-dmS", "name", "sh", "-c", "x"])
    assert (h.inner, h.words) == (3, (3, 4, 5))
    assert exec_of(["screen", "-S", "n", "-d", "-m", "top"]).inner == 5
    assert exec_of(["screen", "-L", "-Logfile", "f", "-dm", "cmd"]).inner == 5
    assert classify(["screen", "-ls"]) is None
    assert classify(["screen", "-r", "name"]) is None
    assert classify(["screen", "-S", "n", "-X", "stuff", "ls\n"]) is None


# ---------------------------------------------------------------------------------------------
# awk


def test_awk_program_options_and_operands() -> None:
    h = awk_of(["awk", "-F:", "-v", "x=a\\tb", "-vy=1", "{print $1}", "z=2", "file", "--",
                "q=3"])
    assert h.program == 5 and h.program_text() == "{print $1}"
    assert (h.field_separator, h.field_separator_value) == (1, ":")
    assert [(a.index, a.name, a.raw, a.value, a.kind) for a in h.assignments] == [
        (3, "x", "a\\tb", "a\tb", "option"),
        (4, "y", "1", "1", "option"),
        (6, "z", "2", "2", "operand"),
        (9, "q", "3", "3", "operand"),
    ]
    assert h.operands == (6, 7, 8, 9) and h.files() == (7, 8)
    assert h.is_assignment(6) and not h.is_assignment(7)
    # Verified: options stop at the program (`awk '{...}' -F:` opens a file named -F:).
    assert awk_of(["awk", "{print}", "-F:"]).operands == (2,)


def test_awk_program_sources() -> None:
    h = awk_of(["awk", "-f", "p.awk", "-f", "q.awk", "a=1", "in"])
    assert (h.program, h.program_files, h.operands) == (None, (2, 4), (5, 6))
    h = awk_of(["gawk", "--source=BEGIN{}", "-e", "END{}", "-i", "lib", "-l", "ext", "f"])
    assert h.program is None and [o.value for o in h.sources] == ["BEGIN{}", "END{}"]
    assert h.operands == (8,)
    h = awk_of(["gawk", "--assign=n=1", "--field-separator", ",", "1", "f"])
    assert h.assignments[0].name == "n" and h.field_separator == 3 and h.program == 4
    # gawk -E: last option, `x=1` operands are file names.
    h = awk_of(["gawk", "-E", "p.awk", "-v", "x=1"])
    assert h.program_files == (2,) and h.operands == (3, 4) and h.assignments == ()
    # Verified (mawk): `-W exec FILE` is the program and the last option; assignments stay.
    h = awk_of(["awk", "-W", "exec", "p.awk", "x=4", "in"])
    assert h.program_files == (3,) and h.operands == (4, 5) and h.is_assignment(4)
    assert awk_of(["awk", "-W", "exec=p.awk", "x"]).program_files == (2,)
    assert awk_of(["awk", "--", "{print}", "f"]).program == 2
    assert awk_of(["awk"]).problems
    assert classify(["awk", "-W", "version"]) is None


def test_awk_field_separator_t() -> None:
    # Verified: mawk -Ft splits on "t"; gawk's manual: -Ft means a tab.
    assert awk_of(["mawk", "-Ft", "1"]).field_separator_value == "t"
    assert awk_of(["gawk", "-Ft", "1"]).field_separator_value == "\t"
    assert awk_of(["awk", "-F", "\\t", "1"]).field_separator_value == "\t"


@pytest.mark.parametrize(
    ("raw", "mawk", "gawk"),
    [
        ("a\\qb", "a\\qb", "aqb"),  # verified (mawk keeps unknown escapes)
        ("a\\/b", "a\\/b", "a/b"),
        ('a\\"b', 'a"b', 'a"b'),
        ("a\\\\b", "a\\b", "a\\b"),
        ("a\\101b\\1011", "aAbA1", "aAbA1"),
        ("\\777", "\xff", "\xff"),  # verified: value modulo 256
        ("\\x414b", "A4b", "A4b"),  # verified: at most two hex digits
        ("\\x", "\\x", "x"),
        ("a\\", "a\\", "a"),  # verified with mawk 1.3.4 and gawk 5.2.1
        ("\\a\\b\\f\\n\\r\\t\\v", "\a\b\f\n\r\t\v", "\a\b\f\n\r\t\v"),
    ],
)
def test_awk_unescape(raw: str, mawk: str, gawk: str) -> None:
    assert awk_unescape(raw, "mawk") == mawk
    assert awk_unescape(raw, "gawk") == gawk


def test_awk_assignment_ambiguity() -> None:
    h = awk_of(["awk", "-v", "p=C:\\qdir", "-v", "t=a\\tb", "1"])
    assert [a.ambiguous for a in h.assignments] == [True, False]


def real_awk_value(awk: str, flag_args: list[str], operand: str | None = None) -> bytes:
    program = 'BEGIN{printf "%s", x}' if operand is None else '{printf "%s", x}'
    argv = [awk, *flag_args, program]
    stdin = b""
    if operand is not None:
        argv += [operand, "-"]
        stdin = b"line\n"
    proc = subprocess.run(argv, input=stdin, capture_output=True, timeout=20, check=True)
    return proc.stdout


# Debian's `awk` is mawk unless gawk is installed; both are installed by .ci/run, and each is
# compared with its own model (`awk` may point at either on a given machine).
AWKS = ["mawk", "gawk"]


@pytest.mark.parametrize("awk", AWKS)
def test_awk_operand_assignment_is_unescaped_like_v(awk: str) -> None:
    need(awk)
    expected = awk_unescape("a\\tb\\qc", awk)  # type: ignore[arg-type]
    assert real_awk_value(awk, [], "x=a\\tb\\qc") == expected.encode("latin-1")


@pytest.mark.parametrize("awk", AWKS)
@REAL
@given(st.text(alphabet='ab\\"/ntrvq0178x4F=', max_size=12))
def test_awk_v_escapes_match_real_awk(awk: str, raw: str) -> None:
    need(awk)
    out = real_awk_value(awk, ["-v", "x=" + raw])
    assert out == awk_unescape(raw, awk).encode("latin-1"), raw  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# the option scanner itself


def test_scanner_basics() -> None:
    g = Grammar(short_flags="ab", short_values="o", long_flags=frozenset({"all"}),
                long_values=frozenset({"output"}), long_optional=frozenset({"color"}))
    sc = scan(["p", "-ab", "-ofile", "--out", "x", "--color", "--col=always", "--", "-a"], g, 1)
    assert [(o.name, o.value) for o in sc.options] == [
        ("-a", None), ("-b", None), ("-o", "file"), ("--output", "x"), ("--color", None),
        ("--color", "always")]
    assert sc.operands == (8,) and sc.dashdash == 7
    assert scan(["p", "op", "-a"], g, 1).operands == (1, 2)
    permuting = Grammar(short_flags="a", permute=True)
    assert scan(["p", "op", "-a", "op2"], permuting, 1).operands == (1, 3)
    missing = scan(["p", "-o"], g, 1)
    assert missing.missing_value is not None and missing.missing_value.name == "-o"
    unknown = scan(["p", "-z", "--zz", "x"], g, 1)
    assert unknown.unknown == (1, 2) and unknown.operands == (3,)
    pflag = Grammar(short_values="u", short_equals=True, abbreviations=False,
                    long_values=frozenset({"user"}))
    assert scan(["d", "-u=root"], pflag, 1).options[0].value == "root"
    assert scan(["d", "--us", "x"], pflag, 1).unknown == (1,)


def test_dynamic_words_are_never_guessed() -> None:
    # After DURATION options are over: `$CMD` is the program, whatever it expands to.
    t = exec_of(["timeout", "5", "$CMD"], frozenset({2}))
    assert (t.inner, t.uncertain) == (2, False)
    # Where options may still come, it might expand to options: uncertain.
    assert exec_of(["timeout", "$OPTS", "5", "x"], frozenset({1})).uncertain
    assert exec_of(["sudo", "-u", "$U", "id"], frozenset({2})).runs_as is None
    # A dynamic word that starts with `-` is read as the option its literal prefix names.
    h = ssh_of(["ssh", "-p$PORT", "h", "ls"], frozenset({1}))
    assert (h.port(), h.destination) == ("$PORT", 2)
    a = awk_of(["awk", "1", "x=$v"])
    assert not a.assignments[0].ambiguous
    dyn = classify(["awk", "1", "x=$v"], frozenset({2}))
    assert isinstance(dyn, AwkHandoff) and dyn.assignments[0].ambiguous
    # The string sits where more options could come: if unquoted it might expand to some.
    s = shell_of(["sh", "-c", "$SCRIPT", "$0"], frozenset({2, 3}))
    assert (s.script, s.args, s.uncertain) == (2, (3,), True)
    assert not shell_of(["sh", "-c", "x", "$0"], frozenset({3})).uncertain


def test_nice_numeric_adjustment_and_attached_options() -> None:
    # Verified: `nice -5 nice` prints 5, `nice --5 nice` prints -5 (as root).
    assert exec_of(["nice", "--5", "cmd"]).options[0].value == "-5"
    assert exec_of(["nice", "-5", "cmd"]).options[0].value == "5"
    opt = ssh_of(["ssh", "-p2222", "h"]).parsed[0]
    assert opt.attached and opt.value == "2222"
    assert not ssh_of(["ssh", "-p", "2222", "h"]).parsed[0].attached



# ---------------------------------------------------------------------------------------------
# MPI launchers: single-dash long options (Open MPI mpirun(1) 4.1: `-np <#>`, `-H <host>`,
# `-hostfile <file>`, `-x <env>`, `--mca <key> <value>`, `--app <appfile>`; MPICH Hydra
# `mpiexec -help`: `-n`, `-f`, `-genv <name> <value>`, `-configfile`), `a : b` for several apps


@pytest.mark.parametrize(("argv", "program"), [
    (["mpirun", "-np", "4", "python3", "train.py"], 3),
    (["mpirun", "-np", "4", "-mca", "btl", "tcp,self", "--hostfile", "h", "-x", "PATH", "sh",
      "-c", "app"], 10),
    (["mpirun", "--np=4", "--allow-run-as-root", "--oversubscribe", "./a.out"], 4),
    (["mpiexec", "-n", "2", "-genv", "A", "B", "-f", "hosts", "python3", "t.py"], 8),
    (["mpirun", "-np", "2", "--", "-weird-name"], 4),
])
def test_mpi_launchers_run_the_program_after_their_options(argv: list[str],
                                                           program: int) -> None:
    h = exec_of(argv)
    assert h.inner == program and not h.uncertain
    assert h.words[0] == program


def test_mpi_several_apps_and_no_app() -> None:
    h = exec_of(["mpirun", "-np", "1", "server", ":", "-np", "3", "worker"])
    assert (h.inner, h.end) == (3, 4)  # (the first app only)
    assert classify(["mpirun", "--app", "appfile"]) is None
    assert classify(["mpiexec", "-configfile", "cfg"]) is None
    # an option not in the table: whether it takes a value is not known
    assert exec_of(["mpirun", "--frobnicate", "x", "prog"]).uncertain
