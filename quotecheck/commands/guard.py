"""``quotecheck guard``: decide whether a command about to run should run.

The command comes from ``--command`` or from a coding agent's pre-tool hook payload on standard
input (JSON, the command at ``tool_input.command`` or at ``command``). The command is checked,
never run. Exit status: 0 allow, 2 block (the reason on stderr: one line per finding at or above
the threshold and, when ``fix --unsafe-fixes`` corrects them, the command to run instead).

A guard that stops work it cannot judge gets removed, so everything that is not a finding in the
command allows it, with a note on stderr: a payload that is not JSON, holds no command or is for
another tool; a configuration file that does not load; an internal error. QC001 and QC002 (the
command or a part of it could not be analysed) say something about quotecheck, not about the
command, and never block either.

``--format json`` writes the decision as one JSON object on stdout (the exit status is the same);
``--format claude-code`` writes Claude Code's PreToolUse answer (``hookSpecificOutput`` with
``permissionDecision: "deny"``) and exits 0, as that protocol reads JSON only on status 0. An
allowed command gets no ``permissionDecision`` there: that the quoting is right says nothing
about whether the command may run, so the agent's own permission rules still decide.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

from quotecheck import records
from quotecheck.commands.inputs import Input
from quotecheck.commands.request import Request
from quotecheck.commands.settings import SettingsCache, options_for
from quotecheck.commands.status import EXIT_OK
from quotecheck.config import ConfigError
from quotecheck.diagnostics import Diagnostic
from quotecheck.inputs import MAX_INPUT_BYTES, LoadedText
from quotecheck.output.json_text import dumps
from quotecheck.output.terminal import printable
from quotecheck.records import Record, field

EXIT_BLOCK = 2  # what Claude Code (and hooks modelled on it) read as "do not run this"
DEFAULT_SEVERITY = "error"
SHELL_TOOL = "Bash"  # the tool_name of a shell command in a pre-tool hook payload
NOT_ANALYSED = frozenset({"QC001", "QC002"})  # quotecheck's limits, not the command's mistakes
SUMMARY_CHARS = 120
# How a block's reason starts: the init snippets ask only when the reason starts so.
BLOCKED = "quotecheck guard: blocked"


class Decision(Record):
    block: bool
    command: str | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)
    corrected: str | None = None
    note: str | None = None  # why the command was allowed without being judged

    def reason(self) -> str:
        """The text a person or an agent reads: what is wrong and what to run instead."""
        if self.note is not None:
            return f"quotecheck guard: {self.note}; allowed"
        if not self.block:
            return "quotecheck guard: no finding at the threshold; allowed"
        count = len(self.findings)
        lines = [f"{BLOCKED}: {count} finding{'s' if count != 1 else ''} "
                 "in this command (not run):"]
        lines.extend(f"  {f['code']} {f['line']}:{f['column']} {f['summary']}"
                     for f in self.findings)
        codes = sorted({f["code"] for f in self.findings})
        lines.append("More: " + "; ".join(f"quotecheck rule {code}" for code in codes))
        if self.corrected is not None:
            lines.append("Run this instead (quotecheck fix --unsafe-fixes: it changes what the "
                         "command does; read it first):")
            lines.extend(printable(line, keep_tabs=True)
                         for line in self.corrected.rstrip("\n").split("\n"))
        return "\n".join(lines)

    def document(self) -> dict[str, Any]:
        return {"decision": "block" if self.block else "allow", "reason": self.reason(),
                "findings": self.findings, "corrected": self.corrected}

    def claude_code(self) -> dict[str, Any] | None:
        if not self.block:
            return None  # no opinion: the agent's permission rules decide
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                       "permissionDecision": "deny",
                                       "permissionDecisionReason": self.reason()}}


def summary(message: str, limit: int = SUMMARY_CHARS) -> str:
    """The message's first sentence (a full stop outside backticks, then a space or the end),
    cut to about ``limit`` characters at a space."""
    in_code = False
    end = len(message)
    for i, ch in enumerate(message):
        if ch == "`":
            in_code = not in_code
        elif ch == "." and not in_code and (i + 1 == len(message) or message[i + 1].isspace()):
            end = i + 1
            break
    first = " ".join(message[:end].split())
    if len(first) > limit:
        cut = first.rfind(" ", 0, limit)
        first = first[:cut if cut > limit // 2 else limit].rstrip(" ,:;") + "…"
    return printable(first)


def command_from_payload(data: bytes) -> tuple[str | None, str | None]:
    """(the command, None) from a hook payload, or (None, why it holds none to check)."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, "standard input is not a JSON hook payload"
    if not isinstance(payload, dict):
        return None, "the hook payload is not a JSON object"
    tool = payload.get("tool_name")
    if tool is not None and tool != SHELL_TOOL:
        return None, f"not a shell command (tool {printable(str(tool))[:60]})"
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if command is None:
        command = payload.get("command")
    if not isinstance(command, str):
        return None, "the hook payload holds no command (tool_input.command or command)"
    return command, None


def read_payload(stdin: TextIO | None) -> tuple[str | None, str | None]:
    if stdin is None or stdin.isatty():
        return None, "no command: give --command CMD or pipe a hook payload to standard input"
    data = stdin.buffer.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        return None, f"the hook payload is larger than {MAX_INPUT_BYTES} bytes"
    return command_from_payload(data)


def finding(d: Diagnostic, command: str) -> dict[str, Any]:
    from quotecheck.positions import LineIndex

    line, column = LineIndex(command).position(d.span[0])
    return {"code": d.code, "severity": d.severity, "line": line + 1, "column": column + 1,
            "summary": summary(d.text), "message": d.text}


def decide(command: str, request: Request, threshold: str) -> Decision:
    """Check ``command`` (never run it) and decide; the corrected command is the one
    ``quotecheck fix --unsafe-fixes`` prints, offered only if it clears every blocking
    finding."""
    from quotecheck.checker import check_source
    from quotecheck.fixer import fix_source

    if not command.strip():
        return Decision(block=False, command=command)
    try:
        settings = SettingsCache(request).for_path(None)
        options = options_for(request, settings, Input("<command>", None, LoadedText(command)))
    except ConfigError as exc:
        return Decision(block=False, command=command, note=f"configuration not read ({exc})")
    judged = records.replace(options, severity=threshold)
    blocking = [d for d in check_source(command, judged).diagnostics
                if d.code not in NOT_ANALYSED]
    if not blocking:
        return Decision(block=False, command=command)
    decision = Decision(block=True, command=command,
                        findings=[finding(d, command) for d in blocking])
    fixed = fix_source(command, options, unsafe=True)
    left = [d for d in check_source(fixed.text, judged).diagnostics
            if d.code not in NOT_ANALYSED]
    if fixed.text != command and not left:
        decision.corrected = fixed.text
    return decision


def guard(*, command: str | None, output_format: str, severity: str | None,
          request: Request, stdin: TextIO | None, stdout: TextIO, stderr: TextIO) -> int:
    note = None
    if command is None:
        command, note = read_payload(stdin)
    if command is None:
        decision = Decision(block=False, note=note)
    else:
        try:
            decision = decide(command, request, severity or DEFAULT_SEVERITY)
        except Exception as exc:  # a bug of ours must not stop the work it guards
            decision = Decision(block=False, command=command,
                                note=f"internal error ({type(exc).__name__}: {exc}); "
                                     "please report it")
    if decision.note is not None:
        stderr.write(decision.reason() + "\n")
    # The JSON is ASCII (non-ASCII as escapes): a hook's stdout may have any encoding.
    if output_format == "claude-code":
        answer = decision.claude_code()
        if answer is not None:
            stdout.write(dumps(answer, ensure_ascii=True) + "\n")
        return EXIT_OK
    if output_format == "json":
        stdout.write(dumps(decision.document(), ensure_ascii=True) + "\n")
    elif decision.block:
        stderr.write(decision.reason() + "\n")
    return EXIT_BLOCK if decision.block else EXIT_OK


def run(*, command: str | None, output_format: str, severity: str | None,
        remote_shell: str | None, config: Path | None, no_config: bool) -> int:
    """``quotecheck guard``, with the command line's values."""
    request = Request(
        paths=[], command=command, output_format="text", severity=None, select=None,
        ignore=None, remote_shell=remote_shell, encoding="utf-32", config=config,
        no_config=no_config, colour=False,
    )
    return guard(command=command, output_format=output_format, severity=severity,
                 request=request, stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr)
