"""Fix pairs (fixtures/fixes, see its README.md): every rule's fix, shown and run for real.

For each `QCnnn/CASE.before.sh` with its after file and `CASE.behaviour.toml`:

- the after file is byte for byte what `quotecheck fix` prints for the before file, in the mode
  its name says (so the pairs are regenerated with fixtures/fixes/regenerate.py, never edited);
- fixing the after file changes nothing, and `check` finds nothing of the rule left that the
  same mode would fix; the before file has such a finding, and only that rule's fixes apply;
- both files are run by real bash/dash, with argv-recording stubs on PATH and, where the rule
  is about what reaches the other side, the session's test sshd on 127.0.0.1. The after file
  must deliver what the behaviour file expects (what the rule document says correct code
  does); the before file must not (or must deliver exactly the damage the file describes).
"""

from __future__ import annotations

import getpass
import importlib.util
import io
import json
import shlex
import shutil
import tomllib
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from harness.shells import run_shell
from harness.sshd import SshServer
from harness.stubs import StubDir

from quotecheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXES = ROOT / "fixtures" / "fixes"


def _load_regenerate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fix_pairs_regenerate",
                                                  FIXES / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regenerate = _load_regenerate()

SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SHELLS = ("bash", "dash")
# How `ssh` behaves in a run (see fixtures/fixes/README.md).
SSH_MODES = ("none", "sshd", "sshd:changed-key", "sshd:unknown-key", "sshd:prompt", "config")
OBSERVATIONS = ("records", "programs", "stdout", "status")
SPEC_KEYS = {"summary", "known_bug", "run"}
RUN_KEYS = {"shell", "remote", "ssh", "stdin", "files", "remote_files", "stubs", "as_file",
            "expect", "before"}


@dataclass(frozen=True)
class Case:
    rule: str
    name: str
    before: Path
    after: Path | None  # None when the after file is missing (a failure, reported below)
    spec: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.rule}/{self.name}"

    @property
    def unsafe(self) -> bool:
        return self.after is not None and regenerate.is_unsafe(self.after)

    def runs(self) -> list[dict[str, Any]]:
        runs: list[dict[str, Any]] = self.spec.get("run", [])
        return runs


def _existing_after(before: Path) -> Path | None:
    found = [p for p in regenerate.after_paths(before) if p.exists()]
    return found[0] if len(found) == 1 else None


def _load_cases() -> list[Case]:
    out = []
    for before in regenerate.befores():
        spec_path = regenerate.behaviour_path(before)
        spec = tomllib.loads(spec_path.read_text(encoding="utf-8")) if spec_path.exists() else {}
        out.append(Case(before.parent.name, regenerate.case_name(before), before,
                        _existing_after(before), spec))
    return out


CASES = _load_cases()


def _case_params() -> list[Any]:
    return [pytest.param(c, id=c.id) for c in CASES]


def _known_bug(case: Case) -> list[pytest.MarkDecorator]:
    bug = case.spec.get("known_bug")
    return [pytest.mark.xfail(strict=True, reason=str(bug))] if bug else []


# -- the files themselves ------------------------------------------------------------------------


# Rules whose fixes are being written while these pairs are (issue 4). Until a pair directory
# exists for one of them its coverage test is an expected failure, shown in the summary; adding
# the pair's files is enough to make it pass (the entry can then go).
AWAITING_PAIRS: set[str] = set()


def _rules_with_fixes() -> list[str]:
    from quotecheck.rules.registry import all_rules

    # A host rule's fix edits a Makefile or a Python file, which bash and dash do not run: it
    # is run by the host's own program in the rule's tests (tests/rules/test_qc401.py: make).
    return sorted(code for code, rule in all_rules().items()
                  if rule.fix in ("safe", "unsafe") and "host" not in rule.tags)


def _coverage_params() -> list[Any]:
    covered = {c.rule for c in CASES}
    return [pytest.param(code, id=code, marks=[pytest.mark.xfail(
                reason=f"{code} has a fix now; its pair is still to be added")]
             if code in AWAITING_PAIRS and code not in covered else [])
            for code in _rules_with_fixes()]


@pytest.mark.parametrize("code", _coverage_params())
def test_rule_with_a_fix_has_a_pair(code: str) -> None:
    assert any(c.rule == code for c in CASES), f"no fixtures/fixes/{code}/*.before.sh"


def test_pairs_belong_to_rules_with_a_fix() -> None:
    from quotecheck.rules.registry import all_rules

    covered = {c.rule for c in CASES}
    assert covered <= set(all_rules()), "pair directories that name no rule"
    assert covered <= set(_rules_with_fixes()), "pairs for rules that declare no fix (Rule.fix)"


def test_pair_files_are_complete() -> None:
    """Each before file has exactly one after file and a behaviour file; nothing is orphaned."""
    problems = []
    expected: set[Path] = {FIXES / "README.md", FIXES / "regenerate.py"}
    for case in CASES:
        afters = [p for p in regenerate.after_paths(case.before) if p.exists()]
        if len(afters) != 1:
            problems.append(f"{case.id}: {len(afters)} after files (run regenerate.py)")
        spec = regenerate.behaviour_path(case.before)
        if not spec.exists():
            problems.append(f"{case.id}: no {spec.name}")
        expected.update({case.before, *afters, spec})
    for path in sorted(FIXES.rglob("*")):
        if path.is_file() and path not in expected and "__pycache__" not in path.parts:
            problems.append(f"unexpected file {path.relative_to(FIXES)}")
    assert not problems


def test_behaviour_files_are_well_formed() -> None:
    problems = []
    for case in CASES:
        spec = case.spec
        if set(spec) - SPEC_KEYS:
            problems.append(f"{case.id}: unknown keys {sorted(set(spec) - SPEC_KEYS)}")
        if not isinstance(spec.get("summary"), str):
            problems.append(f"{case.id}: no summary")
        runs = case.runs()
        if not runs:
            problems.append(f"{case.id}: no [[run]]")
        for i, run in enumerate(runs):
            where = f"{case.id} run {i + 1}"
            if set(run) - RUN_KEYS:
                problems.append(f"{where}: unknown keys {sorted(set(run) - RUN_KEYS)}")
            if run.get("shell") not in SHELLS:
                problems.append(f"{where}: shell must be one of {SHELLS}")
            ssh = run.get("ssh", "none")
            if ssh not in SSH_MODES:
                problems.append(f"{where}: ssh must be one of {SSH_MODES}")
            if ("remote" in run or "remote_files" in run) and not ssh.startswith("sshd"):
                problems.append(f"{where}: remote settings need an sshd ssh mode")
            if run.get("remote", "bash") not in SHELLS:
                problems.append(f"{where}: remote must be one of {SHELLS}")
            expect = run.get("expect")
            if not isinstance(expect, dict) or not expect or set(expect) - set(OBSERVATIONS):
                problems.append(f"{where}: expect must hold some of {OBSERVATIONS}")
                continue
            before = run.get("before")
            if isinstance(before, dict):
                if set(before) != set(expect):
                    problems.append(f"{where}: before and expect must name the same observations")
                elif before == expect:
                    problems.append(f"{where}: before equals expect (write before = \"same\")")
            elif before not in (None, "same"):
                problems.append(f"{where}: before must be a table or \"same\"")
        if runs and all(run.get("before") == "same" for run in runs):
            problems.append(f"{case.id}: no run shows the before file going wrong")
    assert not problems


@pytest.mark.parametrize("case", _case_params())
def test_after_is_exactly_the_fix_output(case: Case) -> None:
    """The checked-in after file is what `quotecheck fix` prints now (regenerate.py is run)."""
    path, text = regenerate.expected_after(case.before)
    assert case.after == path, "run python3 fixtures/fixes/regenerate.py"
    assert path.read_bytes() == text.encode("utf-8"), "run python3 fixtures/fixes/regenerate.py"


def _check(script: Path) -> list[dict[str, Any]]:
    """The diagnostics of `quotecheck check --format json --no-config --severity info SCRIPT`."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["check", "--format", "json", "--no-config", "--severity", "info",
                       str(script)])
    assert status in (0, 1), err.getvalue()
    diagnostics: list[dict[str, Any]] = json.loads(out.getvalue())["files"][0]["diagnostics"]
    return diagnostics


def _fixable(diagnostics: list[dict[str, Any]], unsafe: bool) -> list[str]:
    """Codes of the findings that `quotecheck fix` (with ``unsafe``: --unsafe-fixes) would fix."""
    modes = {"safe", "unsafe"} if unsafe else {"safe"}
    return [d["code"] for d in diagnostics
            if any(f["applicability"] in modes and f["edits"]
                   for f in d.get("data", {}).get("fixes", []))]


@pytest.mark.parametrize("case", _case_params())
def test_after_is_a_fixed_point(case: Case) -> None:
    assert case.after is not None
    text = case.after.read_text(encoding="utf-8")
    assert regenerate.fixed(case.after, unsafe=case.unsafe) == text
    assert case.rule not in _fixable(_check(case.after), case.unsafe)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=_known_bug(c)) for c in CASES])
def test_before_shows_this_rules_fix(case: Case) -> None:
    """The before file has a finding of the rule that the mode fixes, and no other rule's."""
    assert case.after is not None
    fixable = _fixable(_check(case.before), case.unsafe)
    assert case.rule in fixable
    assert set(fixable) == {case.rule}


# -- behaviour -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ssh_program() -> str:
    found = shutil.which("ssh", path=SYSTEM_PATH)
    if found is None:
        pytest.skip("no OpenSSH client")
    return found


@dataclass
class Observed:
    records: list[list[str]]
    stdout: str
    stderr: str
    status: int

    def pick(self, keys: Any) -> dict[str, Any]:
        values: dict[str, Any] = {
            "records": self.records,
            "programs": [r[0] for r in self.records],
            "stdout": self.stdout,
            "status": self.status,
        }
        return {k: values[k] for k in keys}


def _substitute(value: Any, places: dict[str, str]) -> Any:
    """``value`` with @HOME@, @CWD@, @REMOTE_HOME@ in its strings replaced."""
    if isinstance(value, str):
        for token, text in places.items():
            value = value.replace(token, text)
        return value
    if isinstance(value, list):
        return [_substitute(v, places) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, places) for k, v in value.items()}
    return value


def _ssh_options(server: SshServer, drop: set[str]) -> list[str]:
    """The test sshd's client options without the ``-o`` settings named in ``drop``."""
    opts = server.ssh_options()
    out: list[str] = []
    i = 0
    while i < len(opts):
        if opts[i] == "-o" and opts[i + 1].split("=", 1)[0] in drop:
            i += 2
            continue
        out.append(opts[i])
        i += 1
    return out


def _write_program(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(0o755)


class Runner:
    """Runs one version (before or after) of a case under one [[run]] of its behaviour file."""

    def __init__(self, run: dict[str, Any], base: Path, ssh: str,
                 server: SshServer | None) -> None:
        self.run = run
        self.base = base
        self.ssh = ssh
        self.server = server

    def _install_ssh(self, stubs: StubDir, env: dict[str, str]) -> None:
        """Put this run's ``ssh`` in the stub directory, which comes first on the local PATH and
        on the test sshd's remote PATH: an ssh run inside the remote command gets it too."""
        mode = self.run.get("ssh", "none")
        target = stubs.path / "ssh"
        if mode == "none":
            _write_program(target, 'echo "ssh: not part of this case" >&2\nexit 255\n')
            return
        if mode == "config":
            # What ssh makes of its command line; -G contacts nothing.
            _write_program(target, f'{shlex.quote(self.ssh)} -G -F /dev/null "$@" | '
                                   "grep -E '^(batchmode|connecttimeout) '\n")
            return
        server = self.server
        assert server is not None
        if mode == "sshd":
            _write_program(target, f'exec {shlex.quote(str(server.ssh_wrapper))} "$@"\n')
            return
        # Host key checking (and for "prompt" BatchMode) left to the command under test, with a
        # known_hosts of this run. Every other option still points at 127.0.0.1 only.
        drop = {"StrictHostKeyChecking", "UserKnownHostsFile"}
        known_hosts = self.base / "known_hosts"
        alias = server.known_hosts.read_text().split()[0]
        if mode == "sshd:changed-key":
            # Another ed25519 key (the client's) stands for the key the host used to have.
            other = server.client_key.with_suffix(".pub").read_text().split()
            known_hosts.write_text(f"{alias} {other[0]} {other[1]}\n")
        else:
            known_hosts.write_text("")
        if mode == "sshd:prompt":
            drop.add("BatchMode")
            # ssh asks through SSH_ASKPASS instead of a terminal; the stub answers "no".
            askpass = stubs.add("ssh-askpass", stdout="no\n")
            env["SSH_ASKPASS"] = str(askpass)
            env["SSH_ASKPASS_REQUIRE"] = "force"
        opts = [*_ssh_options(server, drop), "-o", f"UserKnownHostsFile={known_hosts}"]
        words = " ".join(shlex.quote(o) for o in [self.ssh, *opts])
        _write_program(target, f'exec {words} "$@"\n')

    def observe(self, text: str) -> tuple[Observed, dict[str, str]]:
        run = self.run
        home, cwd = self.base / "home", self.base / "cwd"
        home.mkdir(parents=True)
        cwd.mkdir()
        for name, content in run.get("files", {}).items():
            (cwd / name).write_text(content, encoding="utf-8")
        stubs = StubDir(self.base, names=run.get("stubs", ["rec"]))
        env = stubs.env({"PATH": SYSTEM_PATH, "HOME": str(home), "LC_ALL": "C.UTF-8",
                         "USER": getpass.getuser()})
        places = {"@HOME@": str(home), "@CWD@": str(cwd)}
        server = self.server
        if server is not None:
            server.reset()
            server.set_login_shell(run.get("remote", "bash"))
            server.use_stubs(stubs)
            for name, content in run.get("remote_files", {}).items():
                (server.home / name).write_text(content, encoding="utf-8")
            places["@REMOTE_HOME@"] = str(server.home)
        self._install_ssh(stubs, env)
        if run.get("as_file"):
            # Run as `SHELL ./script.sh`: as `SHELL -c TEXT` the shell's own command line would
            # hold the text, and a `pkill -f` in it would match that shell (QC201).
            (cwd / "script.sh").write_text(text, encoding="utf-8")
            text = f"exec {run['shell']} ./script.sh"
        try:
            res = run_shell(run["shell"], text, env, stdin=run.get("stdin"), timeout=30, cwd=cwd)
        finally:
            if server is not None:
                server.reset()  # also stops whatever the remote side left running
        return Observed(stubs.records(), res.stdout, res.stderr, res.returncode), places


def _behaviour_params() -> Iterator[Any]:
    for case in CASES:
        for i, run in enumerate(case.runs()):
            label = run.get("shell", "?")
            if str(run.get("ssh", "none")).startswith("sshd"):
                label += f"-ssh-{run.get('remote', 'bash')}"
            yield pytest.param(case, i, id=f"{case.id}[{i + 1}:{label}]", marks=_known_bug(case))


@pytest.mark.parametrize(("case", "index"), list(_behaviour_params()))
def test_behaviour(case: Case, index: int, tmp_path: Path, request: pytest.FixtureRequest,
                   ssh_program: str) -> None:
    """The after file does what the rule document says correct code does; the before does not."""
    assert case.after is not None
    run = case.runs()[index]
    server: SshServer | None = None
    if str(run.get("ssh", "none")).startswith("sshd"):
        server = request.getfixturevalue("sshd")
    seen = {}
    for version, path in (("after", case.after), ("before", case.before)):
        runner = Runner(run, tmp_path / version, ssh_program, server)
        seen[version] = runner.observe(path.read_text(encoding="utf-8"))
    after, places = seen["after"]
    expect = _substitute(run["expect"], places)
    detail = f"{case.spec['summary']}\nafter stderr: {after.stderr}"
    assert after.pick(expect) == expect, detail
    before, places = seen["before"]
    wanted = run.get("before")
    got = before.pick(expect)
    detail = f"{case.spec['summary']}\nbefore stderr: {before.stderr}"
    if wanted == "same":
        assert got == expect, detail
    else:
        assert got != _substitute(run["expect"], places), detail
        if isinstance(wanted, dict):
            assert got == _substitute(wanted, places), detail

