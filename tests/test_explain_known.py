"""`explain` shows what it knows: values the script set put in, the parts of what ssh sends
that only the run time knows (`sends_dynamic`, «…» in the text even without colour), and the
function whose call opened a layer. What sshd really receives is the oracle's business
(tests/test_oracle.py, cases `known/*`, `wrapper/*`, `dynamic/sends-dynamic-ranges`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quotecheck.checker import check_source
from quotecheck.cli import main


def explain(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["explain", *args]) == 0
    return capsys.readouterr().out


def ssh_layers(capsys: pytest.CaptureFixture[str], command: str) -> list[dict[str, Any]]:
    doc = json.loads(explain(capsys, "--format", "json", command))
    return [x for x in doc["layers"] if x["kind"] == "ssh"]


def test_issue_example_sends_what_sshd_receives(capsys: pytest.CaptureFixture[str]) -> None:
    [ssh] = ssh_layers(capsys, "X='a b'; ssh h printf '<%s>' $X \"$X\" '$X'")
    # $X split in two, "$X" one word, '$X' as written: ssh joins them with spaces.
    assert ssh["sends"] == "printf <%s> a b a b $X"
    assert ssh["sends_dynamic"] == []


def test_sends_dynamic_ranges_are_exact(capsys: pytest.CaptureFixture[str]) -> None:
    [ssh] = ssh_layers(capsys, "ssh h ls ~/x '~/y' *.log \"$(date)\" \"$HOME\" a{b,c}")
    sends = ssh["sends"]
    assert sends == "ls ~/x ~/y *.log $(date) $HOME a{b,c}"
    shown = [sends[a:b] for a, b in ssh["sends_dynamic"]]
    # The local `~` only (quoted `~/y` is sent as written); a glob or brace word as a whole.
    assert shown == ["~", "*.log", "$(date)", "$HOME", "a{b,c}"]


def test_text_marks_dynamic_parts_without_colour(capsys: pytest.CaptureFixture[str]) -> None:
    out = explain(capsys, "--color", "never", "ssh h ls ~/x \"$HOME\" done")
    assert "sends ‹ls «~»/x «$HOME» done›" in out
    out = explain(capsys, "--color", "never", "APP=shop; ssh h \"restart $APP\"")
    assert "sends ‹restart shop›" in out


def test_command_variable_and_array(capsys: pytest.CaptureFixture[str]) -> None:
    [ssh] = ssh_layers(capsys, "SSH='ssh -p 2222'; $SSH h 'uptime'")
    assert (ssh["destination"], ssh["sends"], ssh["options"]) == ("h", "uptime", {"-p": "2222"})
    [ssh] = ssh_layers(capsys, "o=(-o BatchMode=yes -l u); ssh \"${o[@]}\" h 'uptime'")
    assert ssh["destination"] == "h" and ssh["options"]["BatchMode"] == "yes"


def test_wrapper_layer_names_the_function(capsys: pytest.CaptureFixture[str]) -> None:
    src = "remote() {\n  ssh \"$1\" \"$2\"\n}\nremote web1 'systemctl restart app'\n"
    [ssh] = ssh_layers(capsys, src)
    assert ssh["through"] == "remote() at line 1"
    assert (ssh["destination"], ssh["sends"]) == ("web1", "systemctl restart app")
    out = explain(capsys, "--color", "never", src)
    assert "ssh to web1 from 4:1 through remote() at line 1" in out


def test_a_shift_on_every_call_moves_the_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    src = "remote() {\n  local h=$1\n  shift\n  ssh \"$h\" \"$*\"\n}\nremote web1 uptime -p\n"
    [ssh] = ssh_layers(capsys, src)
    assert (ssh["destination"], ssh["sends"]) == ("web1", "uptime -p")


def test_a_shift_in_a_branch_leaves_the_parameters_unknown(
        capsys: pytest.CaptureFixture[str]) -> None:
    # docker-mailserver target/scripts/helpers/rspamd.sh: `shift` only for `--quiet`. Which
    # word `$*` starts with depends on the call, so the call's words are not put in: read as
    # if always shifted, the log file argument of `cat` was taken for the command.
    src = ("run_as() {\n  if [[ $1 == --quiet ]]; then\n    shift\n  fi\n"
           "  su app -s /bin/bash -c \"$* 2>/dev/null\"\n}\nrun_as cat \"$LOGF\"\n")
    doc = json.loads(explain(capsys, "--format", "json", src))
    inner = [x["text"] for x in doc["layers"][1:] if x["kind"] == "shell"]
    assert inner == ["$* 2>/dev/null"]
    # No finding at the call calls `$LOGF` the command the inner shell runs.
    found = [(src.count("\n", 0, d.span[0]) + 1, d.code) for d in check_source(src).diagnostics]
    assert [code for line, code in found if line == 7] == []
    assert (5, "QC103") in found


def test_a_wrapper_body_s_own_expansions_are_judged_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    # The body's ssh is analysed at each call (the calls' words are known), so what the body
    # itself pastes into the remote command lands in the calls' layers: judged there, said once
    # at the body's line. (A body-local `$host` read from `ls` is how gsutil's mock
    # tools/pre-applypatch calls test_version 2.6, 2.7 ...; it was silent through the calls.)
    src = ("remote() {\n  local d='/srv/my app'\n"
           "  host=$(ls -d ~/envs/x-* | sed 's/.*x-//')\n"
           "  ssh -o BatchMode=yes -o ConnectTimeout=5 \"$1\""
           " \"ls $d; echo $(hostname) $host; $2\"\n"
           "}\nremote web1 uptime\nremote web2 uptime\n")
    line4 = src.index("  ssh -o")
    found = sorted((d.span[0] - line4, d.code, d.severity)
                   for d in check_source(src).diagnostics if d.code in ("QC101", "QC103"))
    text = src[line4:]
    assert found == [(text.index("$d"), "QC103", "error"),
                     (text.index("$(hostname)"), "QC101", "warning"),
                     (text.index("$host;"), "QC103", "info")]


def test_wrapper_layers_keep_the_body_s_positions(capsys: pytest.CaptureFixture[str]) -> None:
    # A known value before a parameter in the same word: the remote commands still point at
    # their own text in the body (the offsets were taken from the value put in, not the word).
    src = "remote() {\n  d=/srv/a\n  ssh \"$1\" \"ls $d; echo hi; $2\"\n}\nremote web1 uptime\n"
    doc = json.loads(explain(capsys, "--format", "json", src))
    [remote] = [x for x in doc["layers"] if x["kind"] == "shell" and x["id"] != 0]
    starts = {c["argv"][0]: c["span"][0] for c in remote["commands"]}
    assert starts == {"ls": src.index("ls $d"), "echo": src.index("echo hi"),
                      "uptime": src.index("uptime")}


def test_function_shadows_the_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert ssh_layers(capsys, "ssh() { echo \"$@\"; }; ssh h 'rm -rf /tmp/x'") == []


def test_uncertain_split_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    [ssh] = ssh_layers(capsys, "ssh \"${SSH_OPTS[@]}\" \"$host\" \"mkdir -p /srv/app\"")
    assert (ssh["destination"], ssh["sends"]) == ("$host", "mkdir -p /srv/app")
    assert "`${SSH_OPTS[@]}` is not known before run time" in ssh["uncertain"]
    # Set by the script: known, no guess.
    [ssh] = ssh_layers(capsys, "SSH_OPTS=(-p 22); ssh \"${SSH_OPTS[@]}\" h \"mkdir -p /srv\"")
    assert "uncertain" not in ssh and ssh["options"] == {"-p": "22"}


def test_external_sources_put_the_sourced_settings_in(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    from pathlib import Path

    case = str(Path(__file__).parent / "deploy_cases" / "sourced" / "deploy.sh")
    assert "sudo systemctl stop shopfront" not in explain(capsys, "--file", case)
    out = explain(capsys, "-x", "--color", "never", "--file", case)
    assert "sends ‹sudo systemctl stop shopfront›" in out
    assert "`$BACKUP_DIR` is `/srv/backups/shop front` (settings.sh line 5)" in " ".join(
        out.split())
