"""Wrapper functions calling wrapper functions: a call's arguments are followed through every
function of the chain (`x0() { x1 "$@"; }; x1() { ssh "$1" "$2"; }`), up to the max-layers
limit, recursion stopped, and the layer a chain opens names the chain. The oracle part runs
the same functions in real bash with a recording `ssh` stub on PATH: what the model says ssh
is given is what the stub received."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from harness.stubs import StubDir

from quotecheck.checker import Options, check_source
from quotecheck.cli import main
from quotecheck.diagnostics import Diagnostic
from quotecheck.limits import Limits

SSH_BODY = 'x1() { ssh "$1" "$2"; }\n'
TWO = 'x0() { x1 "$@"; }\n' + SSH_BODY
THREE = 'x0() { x1 "$@"; }\nx1() { x2 "$@"; }\nx2() { ssh "$1" "$2"; }\n'
REORDER = 'x0() { x1 "$2" "$1"; }\n' + SSH_BODY
SHIFTED = 'x0() {\n  shift\n  x1 "$@"\n}\n' + SSH_BODY
SH_C = 'x0() { x1 "$@"; }\nx1() { sh -c "$1"; }\n'

# The functions of each case, a call of them with `kill $!`, and the chain its layer names.
KILL_CASES = {
    "pass-through": (TWO, 'x0 h "kill $!"', "x0() at line 1 -> x1() at line 2"),
    "reordered": (REORDER, 'x0 "kill $!" h', "x0() at line 1 -> x1() at line 2"),
    "shift": (SHIFTED, 'x0 -v h "kill $!"', "x0() at line 1 -> x1() at line 5"),
    "three levels": (THREE, 'x0 h "kill $!"',
                     "x0() at line 1 -> x1() at line 2 -> x2() at line 3"),
}


def findings(src: str, limits: Limits | None = None, path: str | None = None
             ) -> list[Diagnostic]:
    return check_source(src, Options(limits=limits), path).diagnostics


def explain_layers(capsys: pytest.CaptureFixture[str], src: str) -> list[dict[str, Any]]:
    assert main(["explain", "--format", "json", src]) == 0
    layers: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["layers"]
    return layers


@pytest.mark.parametrize("case", KILL_CASES, ids=str)
def test_bang_through_the_chain_is_an_error_at_the_call(case: str) -> None:
    functions, call, chain = KILL_CASES[case]
    src = functions + call + "\n"
    [d] = [d for d in findings(src) if d.code == "QC101"]
    assert d.severity == "error"
    # At the `$!` of the call's argument: the local shell expands it there.
    assert d.span[0] > len(functions)
    assert src[d.span[0]:d.span[1]] == "$!"
    assert d.layers == ("local bash", chain, "ssh", "remote shell")
    assert "remote shell on h" in d.text
    # The body's ssh is analysed at the call only: no guess about `$2` on its own.
    assert not [d for d in findings(src) if d.code == "QC103"]


@pytest.mark.parametrize("case", KILL_CASES, ids=str)
def test_explain_names_the_chain(capsys: pytest.CaptureFixture[str], case: str) -> None:
    functions, call, chain = KILL_CASES[case]
    [ssh] = [x for x in explain_layers(capsys, functions + call + "\n") if x["kind"] == "ssh"]
    assert ssh["through"] == chain
    assert (ssh["destination"], ssh["sends"]) == ("h", "kill $!")


def test_one_level_keeps_its_label(capsys: pytest.CaptureFixture[str]) -> None:
    [ssh] = [x for x in explain_layers(capsys, SSH_BODY + 'x1 h "kill $!"\n')
             if x["kind"] == "ssh"]
    assert ssh["through"] == "x1() at line 1"


def test_wrapper_calling_a_sh_c_wrapper() -> None:
    src = SH_C + "x0 '[[ -f /etc/hostname ]] && echo yes'\n"
    [d] = [d for d in findings(src) if d.code == "QC207"]
    assert d.span[0] > len(SH_C) and src[d.span[0]:d.span[1]] == "[["
    assert d.layers == ("local bash", "x0() at line 1 -> x1() at line 2", "local sh")


def test_the_same_finding_in_the_body_is_said_once_for_several_calls() -> None:
    # (QC208 names the destination: the message differs from call to call)
    src = TWO + 'x0 h1 "kill $!"\nx0 h2 uptime\n'
    body_ssh = src.index("ssh")
    at_body = [d for d in findings(src, path="deploy.sh") if d.span[0] == body_ssh]
    assert [d.code for d in at_body] == ["QC208"]


def test_recursion_terminates_and_the_call_is_still_analysed() -> None:
    assert [d.code for d in findings('f() { f "$@"; }\nf h x\n')] == []
    src = 'f() {\n  [ "$#" -gt 2 ] && f "$@"\n  ssh "$1" "$2"\n}\nf h "kill $!"\n'
    assert [d.code for d in findings(src) if d.severity == "error"] == ["QC101"]


def test_mutual_recursion_terminates() -> None:
    src = 'f() { g "$@"; }\ng() { f "$@"; ssh "$1" "$2"; }\nf h "kill $!"\n'
    [d] = [d for d in findings(src) if d.code == "QC101"]
    assert d.layers[1] == "f() at line 1 -> g() at line 2"


def chain_of(n: int) -> str:
    """x0 calls x1 ... calls x{n-1}, which runs ssh."""
    defs = "".join(f'x{i}() {{ x{i + 1} "$@"; }}\n' for i in range(n - 1))
    return defs + f'x{n - 1}() {{ ssh "$1" "$2"; }}\nx0 h "kill $!"\n'


def test_the_max_layers_limit_cuts_a_long_chain_with_qc002() -> None:
    src = chain_of(6)
    assert [d.code for d in findings(src) if d.severity == "error"] == ["QC101"]
    cut = findings(src, Limits(max_layers=3))
    assert "QC101" not in [d.code for d in cut]
    [d] = [d for d in cut if d.code == "QC002"]
    assert "more than 3 nested layers" in d.text and "max-layers" in d.text
    # At the call the limit stopped: x3's call in the body of x2.
    assert src[d.span[0]:d.span[1]] == 'x3 "$@"'


def test_wrappers_calling_the_next_twice_are_bounded() -> None:
    # 2**20 paths through the chain: the calls followed from one call are bounded instead.
    n = 20
    defs = "".join(f'x{i}() {{ x{i + 1} "$@"; x{i + 1} "$@"; }}\n' for i in range(n))
    src = defs + f'x{n}() {{ ssh "$1" "$2"; }}\nx0 h "kill $!"\n'
    found = findings(src)
    assert "QC101" in [d.code for d in found]
    assert [d for d in found if d.code == "QC002" and "calls of the script's functions"
            in d.text]


# -- the oracle: real bash, a recording ssh ------------------------------------------------------

ORACLE_CASES = {
    "pass-through": TWO + "x0 web1 'echo \"a  b\" c'\n",
    "reordered": REORDER + "x0 'uptime -p' web2\n",
    "shift": SHIFTED + "x0 -v web3 'df -h /'\n",
    "three levels": THREE + "x0 web4 'ls   /tmp'\n",
    "star": 'x0() { x1 "$@"; }\nx1() { local h=$1; shift; ssh "$h" "$*"; }\n'
            "x0 web5 echo 'p  q' r\n",
}


def run_bash(tmp_path: Path, stubs: StubDir, src: str) -> None:
    script = tmp_path / "script.sh"
    script.write_text(src)
    subprocess.run(["bash", str(script)], env=stubs.env(), cwd=tmp_path, timeout=60,
                   check=True, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("case", ORACLE_CASES, ids=str)
def test_modelled_sends_is_what_ssh_receives(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path, stubs: StubDir, case: str) -> None:
    src = ORACLE_CASES[case]
    ssh_layers = [x for x in explain_layers(capsys, src) if x["kind"] == "ssh"]
    stubs.add("ssh")
    run_bash(tmp_path, stubs, src)
    received = stubs.records_for("ssh")
    assert len(received) == 1
    # ssh joins the words after the destination with spaces: that is what sshd runs.
    assert [(x["destination"], x["sends"]) for x in ssh_layers] == [
        (argv[1], " ".join(argv[2:])) for argv in received]
    assert all(x.get("through", "").count(" -> ") >= 1 for x in ssh_layers)


def test_modelled_sh_c_script_runs_as_predicted(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, stubs: StubDir) -> None:
    src = SH_C + "x0 'rec \"s  t\" u'\n"
    layers = explain_layers(capsys, src)
    [inner] = [x for x in layers if x["kind"] == "shell" and x["parent"] is not None]
    assert inner["through"] == "x0() at line 1 -> x1() at line 2"
    run_bash(tmp_path, stubs, src)
    assert [c["argv"] for c in inner["commands"]] == stubs.records_for("rec") == [
        ["rec", "s  t", "u"]]
