"""What a command hands on is read once, by the trace; the rules read it from the trace.

The trace keeps each command's hand-offs on its view (``CommandView.handoffs``, ``.effective``)
and on each layer it opens (``Layer.handoff``, ``.handoff_argv``). No rule module classifies an
argv again: a second reading can disagree with the trace's, and did (the ssh session of a
second `find -exec ssh` clause, an ssh started through `env -S`).
"""

from __future__ import annotations

import ast
import os
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options, check_source
from quotecheck.layers import dispatch
from quotecheck.layers import handoff_types as ho
from quotecheck.limits import Limits
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "quotecheck" / "rules"
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"

# What reads an argv to find what it hands on: dispatch and the parsers it dispatches to.
_READERS = frozenset({"classify", "chain", "find_exec_clauses", "with_other_clauses",
                      "find_clauses", "HANDLERS", "_HANDLERS", "read_handoffs"})
_PARSER_MODULES = frozenset({"dispatch", "ssh", "wrappers", "shells", "joins", "awk"})


def _reads_handoffs(source: str) -> list[str]:
    """Where a module's source imports or calls a reader of hand-offs (empty: it reads none)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found.extend(f"{where}: import {a.name}" for a in node.names
                         if a.name == "quotecheck.layers.dispatch")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for a in node.names:
                if module == "quotecheck.layers.dispatch" or (
                        module == "quotecheck.layers" and a.name in _PARSER_MODULES) or (
                        module.startswith(("quotecheck.layers", "quotecheck.trace"))
                        and (a.name in _READERS or a.name.startswith("parse_"))) or (
                        module == "quotecheck.layers.effective" and a.name == "effective"):
                    found.append(f"{where}: from {module} import {a.name}")
        elif isinstance(node, ast.Attribute) and node.attr in _READERS - {"chain"}:
            found.append(f"{where}: .{node.attr}")  # (`Layer.chain` is the layers above)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in _READERS:
            found.append(f"{where}: {node.func.id}()")
    return found


def test_the_detector_sees_each_way_of_classifying_again() -> None:
    assert _reads_handoffs("from quotecheck.layers import dispatch as ho\nho.classify(v)\n") == [
        "line 1: from quotecheck.layers import dispatch", "line 2: .classify"]
    assert _reads_handoffs("from quotecheck.layers.dispatch import chain\n")
    assert _reads_handoffs("import quotecheck.layers.dispatch\n")
    assert _reads_handoffs("from quotecheck.layers.wrappers import find_clauses\n")
    assert _reads_handoffs("from quotecheck.layers.ssh import parse_ssh\n")
    assert _reads_handoffs("from quotecheck.layers.effective import effective\n")
    assert _reads_handoffs("x = ho.find_exec_clauses(v)\n")
    # Reading what the trace found is what a rule does; `Layer.chain` is not a hand-off.
    assert _reads_handoffs(
        "from quotecheck.layers import handoff_types as ho\n"
        "from quotecheck.layers.effective import Effective\n"
        "hs = view.handoffs\neff = view.effective\nup = layer.chain(trace.layers)\n") == []


@pytest.mark.parametrize("path", sorted(RULES.rglob("*.py")),
                         ids=lambda p: p.relative_to(RULES).as_posix())
def test_no_rule_module_classifies_a_command_again(path: Path) -> None:
    assert _reads_handoffs(path.read_text()) == []


def _rules_frame(frame: FrameType | None) -> bool:
    while frame is not None:
        if "/quotecheck/rules/" in frame.f_code.co_filename.replace(os.sep, "/"):
            return True
        frame = frame.f_back
    return False


def test_checking_the_seed_classifies_only_in_the_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule runs on the seed script (ssh, timeout, nohup, pkill...): not one of the
    classifications it takes is asked for while a rule runs (123 of 142 were, before)."""
    calls: Counter[str] = Counter()
    classify = dispatch.classify

    def counted(*args: Any, **kwargs: Any) -> ho.Handoff | None:
        calls["rules" if _rules_frame(sys._getframe(1)) else "trace"] += 1
        return classify(*args, **kwargs)

    monkeypatch.setattr(dispatch, "classify", counted)
    result = check_source(SEED.read_text(), Options(severity="hint"), path=str(SEED))
    assert {d.code for d in result.diagnostics} >= {"QC201", "QC205", "QC208"}
    assert calls["trace"] > 0 and calls["rules"] == 0, calls


# -- the readings the rules get ---------------------------------------------------------------


def test_a_layer_opened_by_a_command_carries_the_commands_own_reading() -> None:
    trace = build_trace("timeout 5 ssh -t h 'sleep 9 &'\n")
    view = trace.layers[0].commands[0]
    assert [type(h) for h in view.handoffs] == [ho.ExecHandoff, ho.SshHandoff]
    timeout = trace.layers[view.opens[0]]
    assert timeout.handoff is view.handoffs[0] and timeout.handoff_argv is view.argv
    ssh = next(x for x in trace.layers if x.kind == "ssh")
    # The ssh layer's reading has its indices into the argv the timeout layer runs.
    assert isinstance(ssh.handoff, ho.SshHandoff) and ssh.handoff_argv is timeout.argv
    assert [ssh.handoff_argv[i].value for i in ssh.handoff.command] == ["sleep 9 &"]
    assert view.effective is not None and view.effective.name == "ssh"
    assert view.effective.wrappers == ("timeout",)
    assert isinstance(view.effective.handoff, ho.SshHandoff)
    assert view.effective.handoff.tty == 1


def _codes(src: str) -> list[tuple[str, str]]:
    result = check_source(src, Options(severity="hint", select=["QC203", "QC204"]))
    return sorted((d.code, src[d.span[0]:d.span[1]]) for d in result.diagnostics)


def test_each_find_clause_is_its_own_ssh_session() -> None:
    """The rules took the first clause's ssh for every session the command opens: the second
    one's `-t` was not seen, and its job was said to keep the channel open (QC203) instead of
    being killed by the hangup (QC204)."""
    src = "find . -exec ssh h 'sleep 1 &' \\; -exec ssh -t h2 'sleep 9 &' \\;\n"
    assert _codes(src) == [("QC203", "sleep 1"), ("QC204", "sleep 9")]


def test_an_ssh_started_through_env_split_string_is_read_as_the_trace_reads_it() -> None:
    """`env -S 'ssh -t' ...`: the trace follows the split string into ssh, the rules' own
    reading stopped at env and saw no terminal."""
    assert _codes("env -S 'ssh -t' h 'sleep 9 &'\n") == [("QC204", "sleep 9")]


def test_the_tty_option_is_pointed_at_through_a_wrapper() -> None:
    """QC204 names the word that asks for the terminal: its index is into the argv the ssh
    layer's reading was made of, the wrapper's, not the command's."""
    src = "timeout 5 ssh -t h 'sleep 9 &'\n"
    result = check_source(src, Options(select=["QC204"]))
    (d,) = result.diagnostics
    assert [src[r.span[0]:r.span[1]] for r in d.related] == ["-t"]


# -- classification never raises ----------------------------------------------------------------

_PROGRAMS = sorted(dispatch._HANDLERS)
_WORDS = [*_PROGRAMS, "-c", "-s", "-i", "-l", "-o", "-e", "-f", "-p", "-u", "-n", "-t", "-tt",
          "-a", "-S", "-I", "-v", "-E", "-x", "-J", "-W", "--", "-", "{}", ";", "+", "-exec",
          "-execdir", "-ok", "-okdir", "-name", "h", "echo x", "A=b", "a=1", "--user",
          "--user=x", "-oRequestTTY=yes", "-ofoo", "exec", "run", "-it", "-i{}", "--replace",
          "-Sx y", "--split-string=a b", "'", "\\", "\"", "", " ", "${X}", "-uroot",
          "--entrypoint", "BEGIN{}", "-vx=1", "--source=x", "new-window", "send-keys"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=9), st.data())
def test_no_grammar_raises_on_any_argv(words: list[str], data: st.DataObject) -> None:
    """dispatch.classify turns a grammar that fails into "hands nothing on"; the grammars
    themselves must not need it (each is called here directly)."""
    argv = tuple(words)
    dynamic = frozenset(data.draw(st.sets(st.integers(0, len(argv) - 1))))
    start = data.draw(st.integers(0, len(argv) - 1))
    stop = data.draw(st.integers(start + 1, len(argv)))
    handler = dispatch._HANDLERS.get(ho.basename(argv[start]))
    if handler is not None:
        handler(argv, dynamic, start, stop)
    dispatch.find_exec_clauses(argv, dynamic, start, stop)
    found = dispatch.chain(argv, dynamic, start)
    dispatch.with_other_clauses(found, argv, dynamic)


def test_wrappers_are_read_as_deep_as_the_trace_follows_them() -> None:
    """`sudo sudo ... echo` 10,000 deep: each hand-off holds the words it runs, so reading them
    all would take memory quadratic in the line; the trace stops at max-layers, and so does the
    reading it keeps."""
    limits = Limits(max_layers=5)
    trace = build_trace("sudo " * 200 + "echo hi\n", limits=limits)
    view = trace.layers[0].commands[0]
    assert len(view.handoffs) == 5 and all(h.wrapper == "sudo" for h in view.handoffs
                                           if isinstance(h, ho.ExecHandoff))
    assert view.effective is not None and view.effective.wrappers == ("sudo",) * 5
    assert len(build_trace("sudo " * 3 + "sh -c 'echo hi'\n").layers[0].commands[0].handoffs) == 4
