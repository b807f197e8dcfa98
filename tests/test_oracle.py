"""The oracle of the layer model: predictions against what the real programs received.

For every command of :mod:`oracle_commands` this test

1. computes ``quotecheck explain --format json`` for it, statically (the same document the CLI
   prints: :func:`quotecheck.output.explain_json.explain_document` of :func:`analyse`), and
2. runs it for real: the local bash or dash, the real OpenSSH client against the test sshd with a
   bash or dash login shell, the real wrappers, and argv-recording stubs for the leaf programs,

then checks the prediction against the records:

- ssh: the ``sends`` of the ssh layers, in order, are the ``SSH_ORIGINAL_COMMAND`` of the
  connections, in order (a connection without a command, i.e. a login shell, is ``""``);
- argv: every argv a stub recorded equals some predicted argv (a shell layer's
  ``commands[].argv`` or an exec layer's ``argv``) at every non-dynamic index; a dynamic element
  stands for any number of words. When every predicted stub command really runs
  (``Case.all_run``), every such predicted argv must also be among the records;
- awk: the program argument each ``awk`` stub received is the ``text`` of an awk layer (and,
  with ``all_run``, every awk layer's text was received);
- process: the ``pargv`` stub (and the ``Case.parent_stubs``) records the argv of the process
  that ran it (``/proc/PPID/cmdline``); that must be the ``process`` of the shell layer holding
  the command (a process the model names ``<login-shell>`` may have any program name).

Where a predicted text is marked dynamic, the parts the model lists as run-time dependent
(``Layer.dynamic_ranges``) match anything; everything else must be byte exact.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from harness.shells import run_shell
from harness.sshd import SshServer
from harness.stubs import StubDir
from oracle_commands import CASES, Case

from quotecheck.analysis import analyse
from quotecheck.checker import Options
from quotecheck.output.explain_json import explain_document

#: Builtins in every shell: a predicted ``kill -0 $!`` runs the builtin, never the stub.
SHELL_BUILTINS = frozenset({"kill", "echo", "printf", "test", "[", "time", "eval", "cd", "."})
#: The process name the model uses when it does not know which shell runs a layer.
UNKNOWN_SHELL = "<login-shell>"
RUN_TIMEOUT = 30.0

# A stub that records its own argv and its parent's (the shell that ran it).
_PARENT_STUB_TEMPLATE = """#!{python} -IS
import json
import os
import sys

NAME = {name!r}
LOG = {log!r}


def text(raw):
    return raw.decode("utf-8", "surrogateescape")


def main():
    with open("/proc/%d/cmdline" % os.getppid(), "rb") as f:
        parent = [text(a) for a in f.read().split(b"\\0")[:-1]]
    argv = [NAME] + [text(os.fsencode(a)) for a in sys.argv[1:]]
    line = json.dumps({{"argv": argv, "parent": parent}}, ensure_ascii=True) + "\\n"
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("ascii"))
    finally:
        os.close(fd)


main()
"""


# -- the prediction ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictedArgv:
    layer: int
    argv: tuple[str, ...]
    dynamic: frozenset[int]

    def show(self) -> str:
        marks = [f"{a!r}{'*' if i in self.dynamic else ''}" for i, a in enumerate(self.argv)]
        return f"layer {self.layer}: [{', '.join(marks)}]"


@dataclass(frozen=True)
class PredictedText:
    """A predicted string; ``pattern`` matches it, its dynamic parts matching anything."""

    layer: int
    text: str
    pattern: re.Pattern[str]

    def matches(self, actual: str) -> bool:
        return self.pattern.fullmatch(actual) is not None


@dataclass
class Prediction:
    doc: dict[str, Any]
    sends: list[PredictedText] = field(default_factory=list)
    argvs: list[PredictedArgv] = field(default_factory=list)
    awk: list[PredictedText] = field(default_factory=list)
    #: Shell layer id -> its predicted process argv.
    processes: dict[int, list[str] | None] = field(default_factory=dict)


def _pattern(text: str, ranges: list[tuple[int, int]]) -> re.Pattern[str]:
    parts: list[str] = []
    at = 0
    for start, end in sorted(ranges):
        if start < at:
            start = at
        parts.append(re.escape(text[at:start]))
        parts.append(".*")
        at = max(at, end)
    parts.append(re.escape(text[at:]))
    return re.compile("".join(parts), re.DOTALL)


def predict(case: Case) -> Prediction:
    analysis = analyse(case.command, Options(dialect=case.shell, remote_shell=case.login))
    doc = explain_document(analysis.trace, [])
    # Round-trip through JSON: exactly what `explain --format json` prints.
    doc = json.loads(json.dumps(doc, ensure_ascii=False))
    layers = analysis.trace.layers
    pred = Prediction(doc)
    for entry in doc["layers"]:
        lid: int = entry["id"]
        ranges = list(layers[lid].dynamic_ranges) if entry.get("dynamic_text") else []
        kind = entry["kind"]
        if kind == "shell":
            pred.processes[lid] = entry.get("process")
            for command in entry["commands"]:
                if command["argv"]:
                    pred.argvs.append(
                        PredictedArgv(lid, tuple(command["argv"]), frozenset(command["dynamic"]))
                    )
        elif kind == "exec":
            if entry["argv"]:
                pred.argvs.append(
                    PredictedArgv(lid, tuple(entry["argv"]), frozenset(entry["dynamic"]))
                )
        elif kind == "ssh":
            # What the local shell fills in at run time is listed exactly: the rest of
            # `sends` must be what sshd receives, byte for byte.
            sends: str = entry["sends"]
            exact = [(a, b) for a, b in entry["sends_dynamic"]]
            pred.sends.append(PredictedText(lid, sends, _pattern(sends, exact)))
        elif kind == "awk":
            program: str = entry["text"]
            pred.awk.append(PredictedText(lid, program, _pattern(program, ranges)))
    return pred


def argv_matches(pred: PredictedArgv, actual: list[str]) -> bool:
    """``actual`` equals ``pred`` at every non-dynamic index; a dynamic element takes any
    number of words (an unquoted expansion may split into several, or vanish).

    Every command of the oracle names its program literally, so a prediction whose argv[0]
    is dynamic ("some program") matches nothing: it would otherwise match every record.
    """
    if 0 in pred.dynamic:
        return False
    if not pred.dynamic:
        return list(pred.argv) == actual

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(pred.argv):
            return j == len(actual)
        if i in pred.dynamic:
            return any(match(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and pred.argv[i] == actual[j] and match(i + 1, j + 1)

    return match(0, 0)


def awk_program(argv: list[str]) -> str | None:
    """The program text among an awk command line's arguments (None: ``-f progfile``)."""
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args[i + 1] if i + 1 < len(args) else None
        if arg in ("-F", "-v"):
            i += 2
            continue
        if arg == "-f" or arg.startswith("-f"):
            return None
        if arg.startswith("-") and arg != "-":
            i += 1
            continue
        return arg
    return None


def process_matches(predicted: list[str], actual: list[str]) -> bool:
    if len(predicted) != len(actual) or not predicted:
        return False
    first_ok = predicted[0] == UNKNOWN_SHELL or predicted[0] == actual[0]
    return first_ok and predicted[1:] == actual[1:]


# -- the real run -----------------------------------------------------------------------------


@dataclass
class Reality:
    rc: int
    stdout: str
    stderr: str
    sessions: list[str | None]
    records: list[list[str]]
    parents: list[dict[str, Any]]


def _install_extras(remote: SshServer, stubs: StubDir, case: Case) -> Path:
    """Stubs the case asks for, the parent-recording stubs (``pargv`` and
    ``Case.parent_stubs``), and the ssh wrapper (so a remote ``ssh`` also reaches the test
    server, never another host). Returns the log of the parent-recording stubs."""
    outputs = dict(case.stub_stdout)
    for name in case.stubs:
        stubs.add(name, stdout=outputs.get(name, ""))
    log = stubs.root / "parents.jsonl"
    for name in ("pargv", *case.parent_stubs):
        stub = stubs.path / name
        stub.write_text(
            _PARENT_STUB_TEMPLATE.format(python=sys.executable, name=name, log=str(log))
        )
        stub.chmod(0o755)
    wrapper = stubs.path / "ssh"
    shutil.copyfile(remote.ssh_wrapper, wrapper)
    wrapper.chmod(0o755)
    return log


def run_case(case: Case, remote: SshServer, stubs: StubDir, tmp_path: Path) -> Reality:
    remote.set_login_shell(case.login)
    log = _install_extras(remote, stubs, case)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    for name in case.files:
        (cwd / name).touch()
    env = remote.client_env(stubs)
    env["LC_ALL"] = "C.UTF-8"
    env.update(dict(case.env))
    res = run_shell(case.shell, case.command, env, stdin=case.stdin, timeout=RUN_TIMEOUT, cwd=cwd)
    parents = (
        [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    )
    return Reality(
        res.returncode, res.stdout, res.stderr, remote.ssh_sessions(), stubs.records(), parents
    )


# -- the comparison ---------------------------------------------------------------------------


def compare(case: Case, pred: Prediction, real: Reality) -> list[str]:
    """Every disagreement between the prediction and the records, as readable lines."""
    problems: list[str] = []

    # ssh: what each connection asked sshd to run, in order.
    sessions = ["" if s is None else s for s in real.sessions]
    predicted_sends = [p.text for p in pred.sends]
    if len(sessions) != len(pred.sends) or not all(
        p.matches(s) for p, s in zip(pred.sends, sessions, strict=False)
    ):
        problems.append(f"ssh sends: predicted {predicted_sends!r}, recorded {sessions!r}")

    # argv: every recorded argv was predicted.
    recorded = real.records + [p["argv"] for p in real.parents]
    for argv in recorded:
        if not any(argv_matches(p, argv) for p in pred.argvs):
            same = [p.show() for p in pred.argvs if p.argv and p.argv[0] == argv[0]]
            problems.append(
                f"recorded argv {argv!r} matches no predicted argv; predicted for "
                f"{argv[0]!r}: {same or 'none'}"
            )
    # (argv[0] is compared exactly: see argv_matches.)

    # argv, the other way: every predicted stub command that must have run did run.
    stub_names = {"rec", "pargv", *case.stubs, *case.parent_stubs} - SHELL_BUILTINS
    if case.all_run:
        for p in pred.argvs:
            if 0 in p.dynamic or os.path.basename(p.argv[0]) not in stub_names:
                continue
            if not any(argv_matches(p, argv) for argv in recorded):
                problems.append(f"predicted {p.show()} never ran; recorded {recorded!r}")

    # awk: the program text each awk received.
    programs = [awk_program(a) for a in real.records if a[0] == "awk"]
    for program in programs:
        if program is not None and not any(t.matches(program) for t in pred.awk):
            problems.append(
                f"awk received program {program!r}; predicted awk texts "
                f"{[t.text for t in pred.awk]!r}"
            )
    if case.all_run:
        for text in pred.awk:
            if not any(prog is not None and text.matches(prog) for prog in programs):
                problems.append(
                    f"predicted awk text {text.text!r} never received; got {programs!r}"
                )

    # process: the argv of the shell process that ran each `pargv`.
    for entry in real.parents:
        holders = [
            lid
            for lid in pred.processes
            if any(p.layer == lid and argv_matches(p, entry["argv"]) for p in pred.argvs)
        ]
        if not holders:
            continue  # already reported as an unpredicted argv
        # Parent-recording stubs only ever run in a shell layer the model must know the
        # process of (never in the root layer, whose process is unknown).
        expected = [e for lid in holders if (e := pred.processes[lid]) is not None]
        if not any(process_matches(e, entry["parent"]) for e in expected):
            problems.append(
                f"{entry['argv']!r} ran in a process with argv {entry['parent']!r}; predicted "
                f"process of its layer(s) {holders}: {expected!r}"
            )
    return problems


def _summary(pred: Prediction) -> str:
    lines = []
    for entry in pred.doc["layers"]:
        shown = {k: v for k, v in entry.items() if k not in ("span", "text")}
        if "commands" in shown:
            shown["commands"] = [
                {"argv": c["argv"], "dynamic": c["dynamic"]} for c in shown["commands"]
            ]
        lines.append("  " + json.dumps(shown, ensure_ascii=False))
    return "\n".join(lines)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_prediction_matches_real_programs(
    case: Case, remote: SshServer, stubs: StubDir, tmp_path: Path
) -> None:
    pred = predict(case)
    real = run_case(case, remote, stubs, tmp_path)

    # The set-up worked: the command ran to its end and left something to compare with.
    assert case.rc is None or real.rc == case.rc, (
        f"exit status {real.rc}\nstdout: {real.stdout}\nstderr: {real.stderr}"
    )
    assert real.sessions or real.records or real.parents, "nothing was recorded"

    problems = compare(case, pred, real)
    assert not problems, (
        f"command:\n{case.command}\n\n"
        + "\n".join(f"- {p}" for p in problems)
        + f"\n\nprediction:\n{_summary(pred)}"
    )
