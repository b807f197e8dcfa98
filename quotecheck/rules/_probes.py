"""Where a sh script probes the shell for a bash feature before using it (for QC207).

Portable scripts (autotools' ``ltmain.sh``, ``config.guess``, ``install-sh``) try a bash
feature in a way whose failure in another sh is silent and tested, and use it only when it
worked. dash's failure is then the answer the script asked for, not a break:

- a **probe**: a construct that dash runs and fails with a status (a command ``not found``,
  ``Illegal option``: not one it rejects while parsing, and not a test such as ``[[ ... ]]`` or
  ``==``, whose failure takes the other branch), in a command that acts on nothing outside the
  shell (only assignments, or a builtin such as ``printf``, ``shopt``, ``declare``, ``let``,
  ``echo`` not writing to a file: not ``kill``, ``read``, a program), whose standard error is
  discarded
  (``2>/dev/null`` on the command, on a subshell or group around it, or on the command whose
  ``$(...)``/backtick holds it) and whose status or output a test reads (an ``if``/``while``
  condition, the left of ``&&``/``||``, an operand of such a command):
  ``if a=x && a+=" b" 2>/dev/null && test "a b" = "$a"; then``,
  ``if test xyes = `(x=; printf -v x %q yes; echo x"$x") 2>/dev/null`; then``;
- the same construct in the ``then`` branch of an ``if`` whose condition is such a probe of it:
  dash never gets there;
- a bash variable of randomness given a default (``${RANDOM-0}``, ``${RANDOM:-$$}``) or any
  bash variable whose default computes it (``${UID:-$(id -u)}``), and one expanded only after
  the same list tested it (``test -n "$RANDOM" && tmp=$TMPDIR/cg$$-$RANDOM``; the test itself
  included): dash uses the fallback the script wrote.

Pure functions over the parsed layer.
"""

from __future__ import annotations

import re

from quotecheck.layers.model import Layer
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Context,
    Node,
    Redirect,
    Script,
    SimpleCommand,
    walk,
)
from quotecheck.rules._portability import BASH_VARIABLES, Bashism, Span, script_span
from quotecheck.rules.api import CheckContext

# Tests: dash's failure takes the other branch, which is no answer to a probe.
_NOT_PROBES = ("[[ ... ]]", "==` in `", "(( ... ))")
_RANDOM = frozenset({"RANDOM", "SRANDOM"})
Walked = list[tuple[SimpleCommand, Context]]


_DEFAULT = re.compile(r"\$\{([A-Za-z_]+)(:?-)(.*)\}\Z", re.S)


def probed(ctx: CheckContext, layer: Layer, b: Bashism, parse_time: bool,
           found: list[Bashism]) -> str | None:
    """Why ``b`` is part of a probe of the shell (or used only after one), else None."""
    script = layer.script
    if script is None:
        return None
    # (the script's commands, walked once per check)
    walked: Walked = ctx.memo.get_or_compute("qc207-walk", script, lambda: list(walk(script)))
    if b.construct.startswith("$") and b.construct[1:] in BASH_VARIABLES:
        return _variable(walked, b)
    if parse_time or b.construct.startswith(_NOT_PROBES):
        return None
    if _probe(walked, b.span):
        return PROBE_NOTE
    for s, node, cond in _ifs(walked):
        body = [p for role, p in node.parts if role == "body"][:1]
        if body and _inside(s, body[0], b.span) and _probes_for(walked, s, cond, b.construct,
                                                                found):
            return AFTER_PROBE_NOTE
    return None


def _input(s: Script, node: Node) -> Span | None:
    return script_span(s, *node.span)


def _inside(s: Script, node: Node, span: Span) -> bool:
    at = _input(s, node)
    return at is not None and at[0] <= span[0] and span[1] <= at[1]


def _quiet(r: Redirect) -> bool:
    """`2>/dev/null` (not `&>`, which dash reads as `&` and `>`)."""
    return r.fd == 2 and r.op in (">", ">>") and r.target is not None and \
        r.target.value == "/dev/null"


# What acts on nothing outside the shell (a probe tries the shell, not the system): commands
# of only assignments, and these builtins.
_INTERNAL = frozenset({"printf", "echo", "shopt", "declare", "typeset", "local", "let", "test",
                       "[", "true", "false", ":", "set", "export", "readonly", "unset"})


def _internal(c: SimpleCommand) -> bool:
    if not c.words:
        return True
    name = c.words[0]
    return not name.dynamic and name.value in _INTERNAL and not any(
        r.fd in (None, 1) and r.op in (">", ">>", ">|") for r in c.redirects)


def _probe(walked: Walked, span: Span) -> bool:
    """Is the construct at ``span`` in a command (or substitution) whose stderr is discarded
    and whose status or output a test reads?"""
    quiet = tested = False
    innermost: tuple[int, bool] | None = None
    for c, cx in walked:
        at = _input(cx.script, c)
        if at is None or not (at[0] <= span[0] and span[1] <= at[1]):
            continue
        if innermost is None or at[1] - at[0] < innermost[0]:
            innermost = (at[1] - at[0], _internal(c))
        if any(_quiet(r) for r in c.redirects) or any(
                isinstance(a, Compound) and any(_quiet(r) for r in a.redirects)
                for a in cx.ancestors):
            quiet = True
        if cx.conditional:
            tested = True
    return quiet and tested and innermost is not None and innermost[1]


def _ifs(walked: Walked) -> list[tuple[Script, Compound, Node]]:
    """Every `if` of the script with its first condition."""
    out: list[tuple[Script, Compound, Node]] = []
    seen: set[int] = set()
    for _, cx in walked:
        for a in cx.ancestors:
            if isinstance(a, Compound) and a.kind == "if" and id(a) not in seen and a.parts \
                    and a.parts[0][0] == "condition":
                seen.add(id(a))
                out.append((cx.script, a, a.parts[0][1]))
    return out


def _probes_for(walked: Walked, s: Script, cond: Node, construct: str,
                found: list[Bashism]) -> bool:
    """Does the condition hold a probe of ``construct`` (the same spelling)?"""
    at = _input(s, cond)
    if at is None:
        return False
    return any(x.construct == construct and at[0] <= x.span[0] < at[1] and _probe(walked, x.span)
               for x in found)


def _variable(walked: Walked, b: Bashism) -> str | None:
    name = b.construct[1:]
    for c, cx in walked:
        at = _input(cx.script, c)
        if at is None or not (at[0] <= b.span[0] and b.span[1] <= at[1]):
            continue
        for w in (*c.words, *(a.value for a in c.assignments)):
            for p in w.parts:
                if p.name != name:
                    continue
                pspan = script_span(cx.script, *p.span)
                if pspan != b.span:
                    continue
                m = _DEFAULT.match(p.value)
                if m is not None and (name in _RANDOM or m.group(3).startswith(("$(", "`"))):
                    return FALLBACK_NOTE
        if _tested_first(cx.script, c, cx.ancestors, name):
            return FALLBACK_NOTE
    return None


_NONEMPTY = re.compile(r"(?:test|\[)\s+-n\s+\"?\$\{?(\w+)\}?\"?\s*\]?\s*\Z")


def _tested_first(s: Script, c: SimpleCommand, ancestors: tuple[Node, ...], name: str) -> bool:
    """Is ``c`` the `test -n "$NAME"` of an `&&` list, or after it in that list?"""
    def nonempty(n: Node) -> bool:
        m = _NONEMPTY.match(s.text[n.span[0]:n.span[1]].strip())
        return m is not None and m.group(1) == name

    if nonempty(c):
        return True
    for a in ancestors:
        if not isinstance(a, CommandList):
            continue
        j = next((k for k, item in enumerate(a.items)
                  if item.span[0] <= c.span[0] < item.span[1]), None)
        if j is None:
            continue
        for i in range(j):
            if nonempty(a.items[i]) and all(k < len(a.ops) and a.ops[k] == "&&"
                                            for k in range(i, j)):
                return True
    return False


PROBE_NOTE = (
    "this is a probe of the shell: its standard error is discarded and a test reads its status "
    "or output, so in dash it fails quietly and the script takes the branch written for a "
    "shell without the feature")
AFTER_PROBE_NOTE = (
    "it runs only in the branch of an `if` whose condition probes the shell for it (standard "
    "error discarded, the result tested): dash fails the probe and never gets here")
FALLBACK_NOTE = (
    "the script gives the variable a fallback (a default, or a test that it is set first): "
    "dash, which does not set it, uses that")
