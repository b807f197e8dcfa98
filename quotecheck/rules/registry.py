"""The one registry: rule code -> rule module, with what makes each rule worth running.

``TABLE`` lists every rule: its code, name, module (``rules/qcNNN_name.py``, its document at
``rules/QCnnn.md``, its tests at ``tests/rules/test_qcnnn.py``) and trigger. The table is read
without importing any rule: ``check`` imports a rule's module only when the rule is selected
and its trigger holds for the trace (``rules_for``). tests/test_rule_registry.py keeps the table
equal to the modules' own ``RULE``s, and tests/test_rule_layout.py keeps modules, documents and
tests in step.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from quotecheck.programs import (
    PROCESS_KILLERS,
    PROCESS_LISTERS,
    PROGRAM_TEXT_LANGUAGES,
    WORD_PRINTERS,
)
from quotecheck.records import FrozenRecord
from quotecheck.rules.triggers import ALWAYS, HANDOFFS, TraceFacts, Trigger

if TYPE_CHECKING:
    from quotecheck.rules.api import Rule

# rules/*.md at the repository root, shipped inside the package through the `docs` link.
DOCS_DIR = Path(os.path.dirname(os.path.realpath(__file__))) / "docs"


class Entry(FrozenRecord):
    code: str
    name: str
    module: str  # under quotecheck.rules
    trigger: Trigger


_HOST_KEY_SETTINGS = Trigger(text=("stricthostkeychecking", "userknownhostsfile"))

TABLE: tuple[Entry, ...] = (
    Entry("QC001", "parse-error", "qc001_parse_error", ALWAYS),
    Entry("QC002", "not-analysed", "qc002_not_analysed", ALWAYS),
    Entry("QC101", "expands-too-early", "qc101_expands_too_early", HANDOFFS),
    Entry("QC102", "ssh-joins-words", "qc102_ssh_joins_words", HANDOFFS),
    Entry("QC103", "value-becomes-code", "qc103_value_becomes_code", HANDOFFS),
    Entry("QC104", "heredoc-expands-locally", "qc104_heredoc_expands_locally",
          Trigger(handoffs=True, text=("<<",))),
    Entry("QC105", "program-text-expanded", "qc105_program_text_expanded",
          Trigger(handoffs=True, programs=frozenset(PROGRAM_TEXT_LANGUAGES),
                  text=("python", "pypy"))),
    Entry("QC106", "awk-v-escapes", "qc106_awk_v_escapes", HANDOFFS),
    Entry("QC107", "quote-closes-early", "qc107_quote_closes_early",
          Trigger(handoffs=True, text=("'", '"'))),
    Entry("QC108", "bash-quoting-for-sh", "qc108_bash_quoting_for_sh", HANDOFFS),
    Entry("QC109", "local-glob-or-tilde", "qc109_local_glob_or_tilde",
          Trigger(handoffs=True, programs=frozenset({"scp", "rsync", "sftp"}))),
    Entry("QC110", "exec-gets-shell-text", "qc110_exec_gets_shell_text", HANDOFFS),
    Entry("QC111", "redirect-in-wrong-layer", "qc111_redirect_in_wrong_layer", HANDOFFS),
    Entry("QC112", "inner-shell-args", "qc112_inner_shell_args", HANDOFFS),
    Entry("QC113", "not-passed-down", "qc113_not_passed_down",
          Trigger(handoffs=True, text=("export -", "declare -", "typeset -"))),
    Entry("QC201", "kills-itself", "qc201_kills_itself", Trigger(programs=PROCESS_KILLERS)),
    Entry("QC202", "grep-finds-itself", "qc202_grep_finds_itself",
          Trigger(programs=PROCESS_LISTERS)),
    Entry("QC203", "ssh-waits-for-background", "qc203_ssh_waits_for_background", HANDOFFS),
    Entry("QC204", "tty-kills-background", "qc204_tty_kills_background", HANDOFFS),
    Entry("QC205", "unconditional-success", "qc205_unconditional_success",
          Trigger(programs=WORD_PRINTERS)),
    Entry("QC206", "failures-ignored", "qc206_failures_ignored",
          Trigger(handoffs=True, programs=frozenset({"tee"}))),
    Entry("QC207", "bashism-in-sh", "qc207_bashism_in_sh",
          Trigger(handoffs=True, dialects=frozenset({"sh", "unknown"}))),
    Entry("QC208", "ssh-may-prompt-or-hang", "qc208_ssh_may_prompt_or_hang", HANDOFFS),
    Entry("QC209", "ssh-eats-stdin", "qc209_ssh_eats_stdin", HANDOFFS),
    Entry("QC210", "relaunch-without-wait", "qc210_relaunch_without_wait",
          Trigger(programs=PROCESS_KILLERS)),
    Entry("QC211", "status-of-ssh-ambiguous", "qc211_status_of_ssh_ambiguous", HANDOFFS),
    Entry("QC301", "host-key-checking-off", "qc301_host_key_checking_off", _HOST_KEY_SETTINGS),
    Entry("QC302", "secret-on-command-line", "qc302_secret_on_command_line", ALWAYS),
    Entry("QC401", "make-swallows-expansion", "qc401_make_swallows_expansion",
          Trigger(formats=frozenset({"make"}))),
    Entry("QC402", "syntax-without-shell", "qc402_syntax_without_shell",
          Trigger(formats=frozenset({"python", "dockerfile", "systemd", "kubernetes",
                                     "compose", "ansible"}))),
    Entry("QC403", "expansion-without-shell", "qc403_expansion_without_shell",
          Trigger(formats=frozenset({"python", "dockerfile", "systemd", "kubernetes",
                                     "compose", "ansible"}))),
    Entry("QC404", "shell-stays-pid-1", "qc404_shell_stays_pid_1",
          Trigger(formats=frozenset({"dockerfile"}))),
    Entry("QC405", "cron-percent", "qc405_cron_percent", Trigger(formats=frozenset({"crontab"}))),
    Entry("QC406", "make-state-lost", "qc406_make_state_lost",
          Trigger(formats=frozenset({"make"}))),
    Entry("QC407", "expression-injection", "qc407_expression_injection",
          Trigger(formats=frozenset({"github-actions"}))),
    Entry("QC408", "compose-interpolates", "qc408_compose_interpolates",
          Trigger(formats=frozenset({"compose"}))),
)
ENTRIES: dict[str, Entry] = {entry.code: entry for entry in TABLE}
NAMES: dict[str, str] = {entry.code: entry.name for entry in TABLE}  # code -> rule name


def doc_path(code: str) -> Path:
    return DOCS_DIR / f"{code.upper()}.md"


def module_of(code: str) -> ModuleType:
    """The rule's module, imported on first use."""
    return importlib.import_module(f"quotecheck.rules.{ENTRIES[code].module}")


def rule(code: str) -> Rule:
    found: Rule = module_of(code).RULE
    return found


@cache
def all_rules() -> dict[str, Rule]:
    """Every rule, sorted by code (imports every rule module: for ``rules``, SARIF, tests)."""
    return {entry.code: rule(entry.code) for entry in TABLE}


def get(code: str) -> Rule | None:
    code = code.upper()
    return rule(code) if code in ENTRIES else None


def selected_codes(selected: list[str] | None, ignored: list[str] | None) -> list[str]:
    """Codes chosen by code or prefix (`QC2`, `QC20`); the longest matching prefix wins."""

    def best(code: str, prefixes: list[str] | None) -> int:
        return max((len(p) for p in prefixes or [] if code.startswith(p.upper())), default=-1)

    return [entry.code for entry in TABLE
            if (best(entry.code, selected) if selected else 0) > best(entry.code, ignored)]


def triggered(code: str, facts: TraceFacts) -> bool:
    return facts.hold(ENTRIES[code].trigger)


def rules_for(facts: TraceFacts | None, selected: list[str] | None,
              ignored: list[str] | None) -> list[Rule]:
    """The selected rules whose trigger holds for the trace (all selected ones without facts)."""
    return [rule(code) for code in selected_codes(selected, ignored)
            if facts is None or triggered(code, facts)]
