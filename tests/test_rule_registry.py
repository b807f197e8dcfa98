"""The registry table and rule triggers: the table is the rules, a trigger never hides a finding,
and a check imports only the rule modules its input can trigger."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from host_fixtures import DOC_BLOCK, host_fixtures

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.rules import registry
from quotecheck.rules.triggers import TraceFacts, Trigger
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "quotecheck" / "rules"


def test_the_table_is_the_rule_modules() -> None:
    on_disk = sorted(p.stem for p in RULES.glob("qc[0-9][0-9][0-9]_*.py"))
    assert sorted(e.module for e in registry.TABLE) == on_disk
    assert [e.code for e in registry.TABLE] == sorted(e.code for e in registry.TABLE)
    for entry in registry.TABLE:
        rule = registry.rule(entry.code)
        assert (rule.code, rule.name, rule.trigger) == (entry.code, entry.name, entry.trigger)
        assert entry.module.startswith(entry.code.lower() + "_")


def test_codes_and_names_are_read_without_importing_rules() -> None:
    probe = ("import sys\n"
             "from quotecheck.rules.registry import NAMES\n"
             "from quotecheck.directives import read_directives\n"
             "read_directives('# quotecheck: disable=kills-itself\\n')\n"
             "print(sorted(m for m in sys.modules if m.startswith('quotecheck.rules.qc')))\n"
             "print(len(NAMES))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert int(out[1]) == len(list(RULES.glob("qc[0-9][0-9][0-9]_*.py")))


@pytest.mark.parametrize("source, expected", [
    ("echo hi > /tmp/x\n", set()),
    ("sudo ls /root\n", {"handoffs"}),
    ("ssh h 'uptime'\n", {"handoffs"}),
    ("/usr/bin/pkill -f train.py\n", {"killers"}),
    ("ps aux | grep '[t]rain'\n", {"listers"}),
    ("echo 'Host *' ; echo StrictHostKeyChecking=no\n", {"host-keys"}),
    ("python3 -c 'print(1)'\n", {"python"}),
    ("#!/bin/sh\nls\n", {"sh"}),
    ("#!/usr/bin/env dash\nls\n", {"sh"}),
    ("#!/bin/bash\nls\n", set()),
])
def test_facts_of_a_trace(source: str, expected: set[str]) -> None:
    facts = TraceFacts(build_trace(source))
    named = {"handoffs": Trigger(handoffs=True), "killers": Trigger(programs=frozenset({"pkill"})),
             "listers": Trigger(programs=frozenset({"ps"})),
             "host-keys": Trigger(text=("stricthostkeychecking",)),
             "python": Trigger(text=("python",)), "sh": Trigger(dialects=frozenset({"sh"}))}
    assert {name for name, t in named.items() if facts.hold(t)} == expected


def _inputs() -> list[tuple[str, str, Options]]:
    """Every fixture, deploy case and rule-document example, with the options it is checked
    with."""
    out: list[tuple[str, str, Options]] = []
    for path in sorted((ROOT / "fixtures").rglob("*.sh")):
        out.append((path.relative_to(ROOT).as_posix(), path.read_text(errors="replace"),
                    Options(dialect="sh" if path.read_text(errors="replace")
                            .startswith("#!/bin/sh") else "bash")))
    for path in sorted((ROOT / "tests" / "deploy_cases").rglob("*.sh")):
        out.append((path.relative_to(ROOT).as_posix(), path.read_text(), Options()))
    for path, format in host_fixtures():
        out.append((path.relative_to(ROOT).as_posix(), path.read_text(), Options(host=format)))
    block = DOC_BLOCK
    for doc in sorted((ROOT / "rules").glob("QC*.md")):
        for n, m in enumerate(block.finditer(doc.read_text())):
            host = None if m.group(1) == "sh" else m.group(1)
            out.append((f"{doc.name}#{n}", m.group(4), Options(host=host)))
    return out


def _shown(diagnostics: list[Diagnostic]) -> list[tuple[str, tuple[int, int], str, str]]:
    return [(d.code, d.span, d.severity, d.text) for d in diagnostics]


def test_triggers_never_hide_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each input is checked with every rule and with the triggered ones: the same findings.
    (The inputs hold a finding of every rule, so a trigger narrower than its rule shows.)"""
    inputs = _inputs()
    assert len(inputs) > 250
    with_triggers = {name: _shown(check_source(text, opts, name).diagnostics)
                     for name, text, opts in inputs}
    monkeypatch.setattr(TraceFacts, "hold", lambda self, trigger: True)
    without = {name: _shown(check_source(text, opts, name).diagnostics)
               for name, text, opts in inputs}
    assert {c for found in without.values() for c, *_ in found} >= set(registry.NAMES) - {"QC002"}
    differ = [name for name in without if without[name] != with_triggers[name]]
    assert differ == []


def _rule_modules_imported(source: str, tmp_path: Path, name: str = "s.sh",
                           prefix: str = "quotecheck.rules.") -> set[str]:
    script = tmp_path / name
    script.write_text(source)
    probe = ("import sys\n"
             "from quotecheck.cli import main\n"
             "try:\n"
             f"    main(['check', '--no-config', {str(script)!r}])\n"
             "except SystemExit:\n"
             "    pass\n"
             f"print(' '.join(m for m in sys.modules if m.startswith({prefix!r})),"
             " file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return set(done.stderr.split())


def test_host_readers_and_yaml_load_only_for_host_files(tmp_path: Path) -> None:
    """A shell script's check imports no host reader and no YAML library; a workflow's does."""
    script = _rule_modules_imported("#!/bin/sh\nssh h ls\n", tmp_path, prefix="")
    assert not any(m.startswith(("quotecheck.hosts", "yaml")) for m in script)
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    workflow = _rule_modules_imported("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
                                      "      - run: ls\n", tmp_path,
                                      name=".github/workflows/ci.yml", prefix="")
    assert {"quotecheck.hosts.github_actions", "yaml"} <= workflow


def test_a_plain_script_loads_no_handoff_rule(tmp_path: Path) -> None:
    plain = _rule_modules_imported("#!/bin/sh\nset -e\ncp a b\necho done\n", tmp_path)
    assert "quotecheck.rules.qc001_parse_error" in plain
    assert "quotecheck.rules.qc207_bashism_in_sh" in plain
    assert not any(m.startswith("quotecheck.rules.crosslayer") for m in plain)
    assert "quotecheck.rules.qc101_expands_too_early" not in plain
    assert "quotecheck.rules.qc201_kills_itself" not in plain
    remote = _rule_modules_imported("#!/bin/sh\nssh h \"pkill -f x; echo $HOME\"\n", tmp_path)
    assert {"quotecheck.rules.qc101_expands_too_early", "quotecheck.rules.crosslayer.analysis",
            "quotecheck.rules.qc201_kills_itself", "quotecheck.rules.qc208_ssh_may_prompt_or_hang"
            } <= remote
