"""Building blocks for fixes that rewrite commands inside a layer.

A rule finds a problem in some layer's text (a remote script, a heredoc fed to ``bash -s``), but
an edit has to be made in the input, where that text may sit inside quotes of an outer layer.
``layer_edit`` turns "replace ``[a, b)`` of this layer's text with T" into an input edit: it
checks that the layer's characters there are copied verbatim from the input, finds the quoting
that carries them (the file itself, a quoted or unquoted heredoc, single or double quotes of a
command word) and writes T so that, after that quoting is removed, the layer reads exactly T.
When any of that cannot be established the answer is None and the rule offers no fix.

Also here: the snippets the fixes insert (stop on failure, stop and wait for a process), so
that every rule writes them the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quotecheck.diagnostics import Edit
from quotecheck.layers.model import CommandView, Layer
from quotecheck.layers.stdin_readers import reads_stdin
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Pipeline, SimpleCommand
from quotecheck.programs import basename
from quotecheck.quoting import quote_word
from quotecheck.records import FrozenRecord
from quotecheck.rules._text import one_line_escaped
from quotecheck.rules.api import CheckContext
from quotecheck.rules.runtime.jobs import background_jobs
from quotecheck.rules.runtime.slots import commands_in
from quotecheck.rules.runtime.ssh import ssh_handoff

# Seconds a stop-and-wait fix waits for the old process before giving up.
STOP_TIMEOUT = 60


class Carrier(FrozenRecord):
    """The input quoting that holds a stretch of a layer's text."""

    quoting: str  # "raw" (the file itself or a quoted heredoc), "heredoc", "single", "double"
    span: tuple[int, int]  # input offsets the stretch and any edit of it must stay within
    delimiter: str | None = None  # of a heredoc: no line of new text may equal it

    def encode(self, text: str) -> str | None:
        """``text`` written so that this quoting yields it back (None: it cannot)."""
        if self.delimiter is not None and self.delimiter in text.split("\n"):
            return None
        if self.quoting == "raw":
            return text
        if self.quoting == "single":
            return text.replace("'", "'\\''")
        if self.quoting == "double":
            return re.sub(r'([\\$`"])', r"\\\1", text)
        if self.quoting == "heredoc":
            return re.sub(r"([\\$`])", r"\\\1", text)
        return None


def _root_carrier(ctx: CheckContext, layer: Layer, span: tuple[int, int]) -> Carrier | None:
    """The quoted word part or heredoc body of the outermost layer that holds ``span``."""
    root = ctx.layers[0]
    a, b = span
    for view in root.commands:
        for redirect in view.command.redirects:
            doc = redirect.heredoc
            if doc is None:
                continue
            lo, hi = doc.spec.body
            if lo <= a and b <= hi:
                if not layer.stdin_script:
                    return None
                return Carrier("raw" if doc.spec.quoted else "heredoc", (lo, hi),
                               doc.spec.delimiter)
        for arg in view.argv:
            if arg.word is None:
                continue
            for part in arg.word.parts:
                lo, hi = part.span
                if part.quoting in ("single", "double"):
                    lo, hi = lo + 1, hi - 1  # inside the quotes
                if not (lo <= a and b <= hi) or part.kind != "literal":
                    continue
                if part.quoting not in ("single", "double") or not _direct_child(ctx, layer):
                    return None
                return Carrier(part.quoting, (lo, hi))
    return None


def _direct_child(ctx: CheckContext, layer: Layer) -> bool:
    """Only ssh or exec layers between the outermost shell and ``layer``: no shell in between
    re-reads the quoted text (a heredoc is exempt: its bytes pass through as stdin)."""
    p = layer.parent
    while p is not None and p != 0:
        if ctx.layers[p].kind == "shell":
            return False
        p = ctx.layers[p].parent
    return p == 0


def written_in_file(ctx: CheckContext, layer: Layer) -> bool:
    """``layer`` is a shell whose text is written in the file as it is: the script's own
    shell, or in a host file the shell a launch starts (the host's escaping, if any, is put in
    by hosts/escaping.py when the edit is written)."""
    if layer.parent is None:
        return True
    return layer.kind == "shell" and ctx.layers[layer.parent].kind == "host"


def carrier(ctx: CheckContext, layer: Layer, span: tuple[int, int]) -> Carrier | None:
    if "\r" in ctx.source:
        return None  # the layers read a CRLF file as LF: offsets of inserted lines would lie
    if written_in_file(ctx, layer):
        return Carrier("raw", (0, len(ctx.source)))
    return _root_carrier(ctx, layer, span)


def _position(layer: Layer, offset: int) -> int | None:
    """The input offset of ``offset`` in the layer's text (its end for the text's end)."""
    if layer.origin is None or layer.text is None:
        return None
    if offset < len(layer.text):
        found = layer.origin.span(offset, offset + 1)
        return found[0] if found else None
    if offset == 0:
        return None
    found = layer.origin.span(offset - 1, offset)
    return found[1] if found else None


def layer_edit(ctx: CheckContext, layer: Layer, start: int, end: int, text: str) -> Edit | None:
    """Replace ``[start, end)`` of ``layer.text`` with ``text``, as an edit of the input."""
    if layer.text is None or layer.origin is None or not 0 <= start <= end <= len(layer.text):
        return None
    if start == end:
        at = _position(layer, start)
        if at is None:
            return None
        span = (at, at)
    else:
        found = layer.origin.span(start, end)
        if found is None or ctx.source[found[0]:found[1]] != layer.text[start:end]:
            return None
        span = found
    held = carrier(ctx, layer, span)
    if held is None or not (held.span[0] <= span[0] and span[1] <= held.span[1]):
        return None
    encoded = held.encode(text)
    return None if encoded is None else Edit(span, encoded)


def layer_edits(ctx: CheckContext, layer: Layer,
                changes: Sequence[tuple[int, int, str]]) -> tuple[Edit, ...] | None:
    """Several changes of one layer's text, all or nothing."""
    edits: list[Edit] = []
    for start, end, text in changes:
        edit = layer_edit(ctx, layer, start, end, text)
        if edit is None:
            return None
        edits.append(edit)
    return tuple(edits)


# -- snippets -------------------------------------------------------------------------------------


def line_indent(text: str, offset: int) -> str:
    """The blanks that start the line holding ``offset``."""
    line = text[text.rfind("\n", 0, offset) + 1:offset]
    return line[:len(line) - len(line.lstrip(" \t"))]


def summary(text: str, limit: int = 60) -> str:
    """``text`` with its blanks and newlines collapsed, cut to ``limit`` characters."""
    return one_line_escaped(" ".join(text.split()), limit)


def stop_on_failure(step: str) -> str:
    """Appended to a step: say which step failed, with its status, and stop with status 1.

    ``$?`` is expanded before ``echo`` runs, so it is the step's status. The step's text is
    single-quoted (POSIX): nothing in it is expanded again.
    """
    return (f' || {{ echo "FAILED (exit status $?): "{quote_word(summary(step))} >&2; '
            f"exit 1; }}")


# Programs that run a script named by their first argument: the kernel shows such a script,
# started by its `#!` line, as `INTERPRETER /path/to/script ARGS`.
_INTERPRETER = lazy_compile(r"(python[0-9.]*|perl|ruby|node|nodejs|bash|sh|dash|zsh|php|java)")


def anchored_pattern(words: Sequence[str]) -> str:
    """An extended regex for ``pgrep -f`` matching a command line that starts with ``words``
    (then a space or the end), the first one with or without a directory: the processes
    started that way, and never a shell whose command line merely mentions them further on.
    A program that is not itself an interpreter may also be a script run by one
    (``/usr/bin/python3 /usr/local/bin/celery -A tasks worker``): that start is allowed too."""
    first = words[0].rsplit("/", 1)[-1] if words else ""
    escaped = " ".join(_ere_escape(w) for w in [first, *words[1:]])
    run_by = "" if _INTERPRETER.fullmatch(first) else "([^ ]+ )?"
    return f"^{run_by}([^ ]*/)?{escaped}( |$)"


def _ere_escape(word: str) -> str:
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", word)


def stop_and_wait(pattern: str, what: str, signal: str | None, stopped_message: str | None,
                  indent: str) -> str:
    """POSIX sh that stops the processes ``pgrep -f PATTERN`` finds and waits (bounded) until
    they have exited, saying truthfully whether there was one; exits 1 on a time-out or when
    pgrep itself fails. ``stopped_message`` is the script's own message for a stop (printed
    only when there was one), ``what`` names the program in the messages."""
    pat = quote_word(pattern)
    shown = what.replace("\\", "").replace('"', "").replace("$", "").replace("`", "")
    kill = "kill" if signal in (None, "TERM", "15") else f"kill -s {signal}"
    stopped = stopped_message or f'echo "Stopped {shown} (pid $(echo $old_pids))"'
    lines = [
        f"# Stop the running {summary(shown, 40)}, if any, and wait (at most {STOP_TIMEOUT} s) "
        "until it has exited.",
        f"if old_pids=$(pgrep -f -- {pat}); then",
        f"  {kill} $old_pids 2>/dev/null || :",
        "  waited=0",
        f"  while pgrep -f -- {pat} >/dev/null; do",
        f'    if [ "$waited" -ge {STOP_TIMEOUT} ]; then',
        f'      echo "FAILED: {shown} (pid $(echo $old_pids)) still running $waited s '
        f'after {kill}" >&2',
        "      exit 1",
        "    fi",
        "    sleep 1",
        "    waited=$((waited + 1))",
        "  done",
        f"  {stopped}",
        "elif [ $? -eq 1 ]; then",
        f'  echo "No {shown} running: nothing to stop"',
        "else",
        '  echo "FAILED: pgrep could not list the processes" >&2',
        "  exit 1",
        "fi",
    ]
    return ("\n" + indent).join(lines)


# -- moving a remote script to standard input ------------------------------------------------------

def _reads_stdin(view: CommandView) -> bool:
    """Whether the command reads its standard input (unknown programs do not count, a name
    known only at run time does)."""
    if any(r.fd in (None, 0) and r.op in ("<", "<<", "<<-", "<<<", "<>")
           for r in view.command.redirects):
        return False
    eff = view.effective
    if eff is None:
        return bool(view.argv)
    # The wrapper too: xargs reads what the command it runs does not.
    return reads_stdin(eff.name, eff.argv[1:]) or reads_stdin(
        basename(view.values[0]), view.values[1:])


def _first_in_pipeline(view: CommandView) -> bool:
    for node in reversed(view.context.ancestors):
        if isinstance(node, Pipeline):
            first = node.commands[0]
            return first is view.command or any(c is view.command for c in commands_in(first))
    return True


# What may follow the ssh command on its line when the heredoc body goes after that line: a
# `;`, a comment. Anything else may open a string or a heredoc of its own, or run more commands,
# and the body would land in their text instead.
_LINE_END = lazy_compile(r"[ \t]*;?[ \t]*(?:#.*)?")


def _ends_its_line(source: str, view: CommandView, end: int, line_end: int) -> bool:
    """Whether the ssh command (its words end at ``end``) is the last thing on its line."""
    after = max(end, view.source_span[1] if view.source_span else end)
    for r in view.command.redirects:
        after = max(after, r.span[1])
    if after > line_end:
        return False
    return _LINE_END.fullmatch(source, after, line_end) is not None


def send_on_stdin(ctx: CheckContext, remote: Layer) -> tuple[Edit, ...] | None:
    """Edits that send the script of an ssh remote shell on ssh's stdin with a quoted heredoc
    (``ssh host bash -s <<'EOF'``) instead of as the command line: sshd then runs the login
    shell with ``-c 'bash -s'``, so no process's command line holds the script, and the script
    is not read by two shells. None when that would change more than where the text travels:
    the ssh command is built at run time, already uses its stdin, sits inside a substitution or
    a line that goes on, or the script has a command that would read the script as its input.
    """
    source = ctx.source
    if "\r" in source or remote.parent is None or remote.text is None or remote.dynamic_text:
        return None
    ssh = ctx.layers[remote.parent]
    view = ssh.opened_by
    if ssh.kind != "ssh" or ssh.parent != 0 or view is None or remote.script is None:
        return None
    if not any(v is view for v in ctx.layers[0].commands) or view.context.in_substitution:
        return None
    handoff = ssh_handoff(ssh)
    if handoff is None or not handoff.command or handoff.stdin_null or handoff.tty \
            or handoff.no_command or handoff.subsystem:
        return None
    words = [view.argv[i] for i in handoff.command if 0 <= i < len(view.argv)]
    if len(words) != len(handoff.command) or any(
            w.dynamic or w.source_span is None for w in words):
        return None
    if any(r.fd in (None, 0) and r.op in ("<", "<<", "<<-", "<<<", "<>")
           for r in view.command.redirects) or not _first_in_pipeline(view):
        return None
    start, end = words[0].source_span[0], words[-1].source_span[1]  # type: ignore[index]
    line_start = source.rfind("\n", 0, view.source_span[0] if view.source_span else start) + 1
    newline = source.find("\n", end)
    line_end = newline if newline >= 0 else len(source)
    if "<<" in source[line_start:start] or not _ends_its_line(source, view, end, line_end):
        return None
    script = remote.script
    body_offset = len(remote.text) - len(remote.text.lstrip("\n"))
    inserts: list[tuple[int, str]] = []
    # Every command of the layer, those of its substitutions too: they share the script's
    # stdin (`x=$(head -1)`).
    for other in remote.commands:
        if not other.context.background and _first_in_pipeline(other) and _reads_stdin(other):
            return None
    for job in background_jobs(ctx, remote):
        node = job.node
        if job.script is not script or job.node is not job.last:
            continue
        if isinstance(node, SimpleCommand) and not any(
                r.fd in (None, 0) and r.op.startswith("<") for r in node.redirects):
            # POSIX gives a background job of a non-interactive shell /dev/null as stdin
            # already; said explicitly it also holds under `set -m` and for every reader.
            inserts.append((node.span[1], " < /dev/null"))
    text = remote.text
    for at, piece in sorted(inserts, reverse=True):
        text = text[:at] + piece + text[at:]
    body = text[body_offset:]
    if not body.endswith("\n"):
        body += "\n"
    delimiter = "EOF"
    lines = set(body.split("\n"))
    n = 1
    while delimiter in lines:
        n += 1
        delimiter = f"EOF{n}"
    # The program that reads the remote layer's dialect; bash for an unknown login shell.
    shell = remote.dialect if remote.dialect in ("sh", "bash", "zsh") else "bash"
    tail = body + delimiter + "\n"
    insert_at = line_end + 1 if newline >= 0 else len(source)
    if newline < 0:
        tail = "\n" + tail
    return (Edit((start, end), f"{shell} -s <<'{delimiter}'"), Edit((insert_at, insert_at), tail))
