"""When dash's failure on a bashism changes nothing the script goes on to do (for QC207).

Most bash-only constructs break a script under dash: it does not parse, it stops at a `Bad
substitution`, or it goes on doing something else (a test that fails takes the other branch, a
`&>` backgrounds the command). Two kinds print `not found` and leave the script on the path it
would take anyway, which the text shows:

- a test (``[[ ... ]]``, ``[ a == b ]``) that bash finds false on Linux, where sh is dash: it
  compares ``$(uname)``/``$(uname -s)`` (or a variable the script sets only to that) or
  ``$OSTYPE`` with the name of another system (``Darwin``, ``OS/390``...). dash's failing
  command is read as false too: the same branch, one line more on stderr;
- ``source FILE`` as a statement (its status tested by nothing, no ``set -e``, not in a
  function or loop, not the last command, whose 127 would be the script's status) after which
  the script uses nothing the file could set up: no variable it
  does not set itself, no function it does not define, no program looked up in ``PATH``
  (which the file may change); only builtins, programs named by a path and its own functions.
  A program it starts may still miss what the file exports.

Pure functions over the parsed layer: nothing here runs a program.
"""

from __future__ import annotations

import fnmatch
import re

from quotecheck.diagnostics import Severity
from quotecheck.layers.model import Layer
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Redirect,
    Script,
    SimpleCommand,
    iter_nodes,
    walk,
)
from quotecheck.parsing.words import Word
from quotecheck.rules._portability import Bashism, all_scripts, script_span, words_of

# What Linux systems say, where /bin/sh is dash: `uname -s` and bash's `$OSTYPE`.
_LINUX = {"uname": "Linux", "ostype": "linux-gnu"}
_UNAME = re.compile(r"(?:\$\(\s*|`\s*)uname(?:\s+-s)?\s*(?:\)|`)\Z")
# Builtins whose meaning a sourced file cannot change through PATH.
_BUILTINS = frozenset({":", "true", "false", "echo", "printf", "cd", "exit", "return", "test",
                       "[", "set", "shift", "export", "unset", "wait", "trap", "umask", "read",
                       "pwd", "break", "continue", "readonly"})
_SPECIAL = re.compile(r"[0-9@*#?$!-]|[0-9]+\Z")


def harmless(layer: Layer, b: Bashism) -> tuple[Severity, str] | None:
    """(severity, why) when dash's failure on ``b`` leaves the script on its path, else None."""
    script = layer.script
    if script is None:
        return None
    if b.construct == "[[ ... ]]":
        for s in all_scripts(script):
            for node in iter_nodes(s.body):
                if isinstance(node, Compound) and node.kind == "cond" and script_span(
                        s, node.span[0], node.span[0] + 2) == b.span:
                    return _false_test(script, node.words, cond=True)
        return None
    if b.construct.startswith("==` in `"):
        for s in all_scripts(script):
            for node in iter_nodes(s.body):
                if isinstance(node, SimpleCommand) and any(
                        script_span(s, *w.span) == b.span for w in node.words):
                    args = node.words[1:]
                    if args and args[-1].value == "]":
                        args = args[:-1]
                    return _false_test(script, args, cond=False)
        return None
    if b.construct == "source":
        return _unused_source(script, b)
    return None


# -- a test that is false on Linux --------------------------------------------------------------


def _false_test(script: Script, words: list[Word], *,
                cond: bool) -> tuple[Severity, str] | None:
    known = _uname_variables(script)
    value = _evaluate([w for w in words], known, cond)
    if value is not False:
        return None
    return ("info", "on Linux, where sh is dash, bash finds this test false too: dash's "
            "failing command is read as false and takes the same branch, with one more line on "
            "stderr")


def _uname_variables(script: Script) -> set[str]:
    """Names the script sets only to `$(uname)`/`$(uname -s)`."""
    values: dict[str, list[str]] = {}
    for s in all_scripts(script):
        for node in iter_nodes(s.body):
            if isinstance(node, SimpleCommand):
                for a in node.assignments:
                    values.setdefault(a.name, []).append(a.value.raw.strip('"'))
    return {name for name, vs in values.items() if all(_UNAME.match(v) for v in vs)}


def _operand(w: Word, known: set[str]) -> str | None:
    """What the word is on Linux, for a uname or OSTYPE word; None otherwise."""
    if len(w.parts) != 1:
        return None
    p = w.parts[0]
    if p.kind in ("command", "backtick") and _UNAME.match(p.value):
        return _LINUX["uname"]
    if p.kind == "parameter" and p.name is not None:
        if p.name == "OSTYPE":
            return _LINUX["ostype"]
        if p.name in known:
            return _LINUX["uname"]
    return None


def _literal(w: Word) -> str | None:
    if any(p.kind not in ("literal", "glob") for p in w.parts):
        return None
    return w.value


def _evaluate(words: list[Word], known: set[str], cond: bool) -> bool | None:
    """The value of the test on Linux, when every comparison in it is of a uname/OSTYPE word
    with a literal; None when anything else is in it."""
    tokens = [w.value if not w.dynamic else "" for w in words]
    pos = 0

    def primary() -> bool | None:
        nonlocal pos
        if pos < len(words) and tokens[pos] == "!":
            pos += 1
            v = primary()
            return None if v is None else not v
        if pos + 2 < len(words) + 0 and tokens[pos + 1] in ("=", "==", "!="):
            lhs, op, rhs = words[pos], tokens[pos + 1], words[pos + 2]
            pos += 3
            value = _operand(lhs, known)
            pattern = _literal(rhs)
            if value is None or pattern is None:
                return None
            if cond and any(p.kind == "glob" for p in rhs.parts):
                equal = fnmatch.fnmatchcase(value, pattern)
            else:
                equal = value == pattern
            return equal if op != "!=" else not equal
        return None

    def conjunction() -> bool | None:
        nonlocal pos
        v = primary()
        while v is not None and pos < len(words) and tokens[pos] == "&&" and cond:
            pos += 1
            w = primary()
            v = None if w is None else (v and w)
        return v

    def disjunction() -> bool | None:
        nonlocal pos
        v = conjunction()
        while v is not None and pos < len(words) and tokens[pos] == "||" and cond:
            pos += 1
            w = conjunction()
            v = None if w is None else (v or w)
        return v

    value = disjunction()
    return value if pos == len(words) else None


# -- a source whose file nothing after it uses ----------------------------------------------------


def _unused_source(script: Script, b: Bashism) -> tuple[Severity, str] | None:
    commands = list(walk(script))
    at = next(((c, ctx) for c, ctx in commands if c.words and script_span(
        ctx.script, *c.words[0].span) == b.span), None)
    if at is None:
        return None
    cmd, ctx = at
    if ctx.conditional or ctx.in_pipeline or ctx.in_substitution or ctx.background:
        return None  # its status decides something, or it runs elsewhere
    if any(isinstance(a, Compound) and a.kind in ("function", "for", "while", "until", "select")
           for a in ctx.ancestors):
        return None  # run again, or from elsewhere: "after" is not the text that follows
    if ctx.script is not script or _errexit(script):
        return None  # under `set -e` the `not found` stops the script
    assigned, functions = _own_names(script)
    bodies: dict[str, list[SimpleCommand]] = {}
    for c, cctx in commands:
        for a in cctx.ancestors:
            if isinstance(a, Compound) and a.kind == "function" and a.name:
                bodies.setdefault(a.name, []).append(c)
    end = cmd.span[1]
    later = [c for c, cctx in commands if (c.span[0] >= end if cctx.script is script else (
        cctx.script.anchor is not None and cctx.script.anchor[0] >= end))]
    if not later:
        return None  # the last command: its 127 is the script's status
    seen: set[str] = set()
    while later:
        c = later.pop()
        if c.words:
            name = c.words[0]
            if name.dynamic or not (name.value in _BUILTINS or "/" in name.value
                                    or name.value in functions):
                return None
            if name.value in functions and name.value not in seen:
                seen.add(name.value)  # what the function runs, wherever it is written
                later.extend(bodies.get(name.value, []))
        if not _words_own(words_of(c), assigned):
            return None
    for node in iter_nodes(script.body):
        if isinstance(node, Compound) and node.span[0] >= end and not _words_own(
                node.words, assigned):
            return None
    return ("warning", "nothing after it in this script uses a variable, a function or a "
            "`PATH` lookup the file could set up, so the script goes on as it would; a program "
            "it starts still misses what the file exports")


def _errexit(script: Script) -> bool:
    text = script.text
    first = text.split("\n", 1)[0]
    if first.startswith("#!") and re.search(r"\s-[a-z]*e", first):
        return True
    for s in all_scripts(script):
        for node in iter_nodes(s.body):
            if isinstance(node, SimpleCommand) and node.words and node.words[0].value == "set":
                for w in node.words[1:]:
                    if re.fullmatch(r"-[a-zA-Z]*e[a-zA-Z]*", w.value) or w.value == "errexit":
                        return True
    return False


def _own_names(script: Script) -> tuple[set[str], set[str]]:
    """The variables the script assigns (or reads, or loops over) and the functions it
    defines."""
    assigned: set[str] = set()
    functions: set[str] = set()
    for s in all_scripts(script):
        for node in iter_nodes(s.body):
            if isinstance(node, SimpleCommand):
                assigned.update(a.name for a in node.assignments)
                if node.words and node.words[0].value == "read":
                    assigned.update(w.value for w in node.words[1:]
                                    if not w.value.startswith("-"))
            elif isinstance(node, Compound):
                if node.kind == "function" and node.name:
                    functions.add(node.name)
                elif node.kind == "for" and node.name:
                    assigned.add(node.name)
    return assigned, functions


def _words_own(words: list[Word], assigned: set[str]) -> bool:
    """Every parameter the words expand is the script's own (or a special one)."""
    for w in words:
        for p in w.parts:
            if p.kind in ("parameter", "special") and p.name is not None and not (
                    _SPECIAL.match(p.name) or p.name in assigned):
                return False
    return True


# -- an echo -e whose output is a message on the terminal ------------------------------------------

_TERMINAL_TARGETS = frozenset({"/dev/stderr", "/dev/tty", "/dev/null", "/dev/stdout"})


def terminal_echo(layer: Layer, b: Bashism) -> bool:
    """Is ``b`` the ``-e`` of an ``echo`` whose output only goes to the terminal: its standard
    output not sent to a file (`>`, `>>`; `>&2` and `/dev/null` do not count), not piped, not
    captured by `$(...)`, not in a function (whose caller may redirect it), a compound command
    with a redirection or a pipeline of its own, and the script never moves its standard
    output (`exec > file`)? Under dash it then prints a stray `-e` on the screen (and
    interprets backslashes anyway): nothing reads it."""
    script = layer.script
    if script is None or not b.construct.startswith("echo -"):
        return False
    commands = list(walk(script))
    at = next(((c, cx) for c, cx in commands if len(c.words) > 1 and script_span(
        cx.script, *c.words[1].span) == b.span), None)
    if at is None:
        return False
    cmd, cx = at
    if cx.script is not script or cx.in_pipeline or cx.in_substitution:
        return False
    if any(_to_file(r) for r in cmd.redirects):
        return False
    for a in cx.ancestors:
        if isinstance(a, Compound) and (a.kind == "function" or any(
                _to_file(r) for r in a.redirects)):
            return False
    # `exec > log` moves everything after it
    return not any(c.words and c.words[0].value == "exec" and any(_to_file(r) for r in
                                                                  c.redirects)
                   for c, _ in commands)


def _to_file(r: Redirect) -> bool:
    """Does the redirection send standard output to a file (or an unknown target)?"""
    if r.fd not in (None, 1) or r.op not in (">", ">>", ">|", "&>", "&>>", ">&"):
        return False
    if r.dup_fd is not None or r.target is None:
        return r.op in ("&>", "&>>") or r.dup_fd not in (None, 2)
    value = r.target.value
    if r.op == ">&" and (value.isdigit() or value == "-"):
        return value not in ("2", "-")
    return r.target.dynamic or value not in _TERMINAL_TARGETS


TERMINAL_ECHO_NOTE = (
    "its output is only a message on the terminal (not redirected to a file, piped or "
    "captured): under dash the line starts with a stray `-e` (backslashes are interpreted "
    "anyway), and nothing reads it")


# -- a script that reads Red Hat's init functions ----------------------------------------------

_RED_HAT_FUNCTIONS = frozenset({"/etc/rc.d/init.d/functions", "/etc/init.d/functions"})


def red_hat_functions(layer: Layer) -> tuple[int, str] | None:
    """(input offset where it ends, the path) of a top-level `. /etc/rc.d/init.d/functions`
    (or `/etc/init.d/functions`), Red Hat's init script library (the initscripts package). What
    follows it runs only where that file exists, a Red Hat family system whose sh is bash:
    elsewhere dash stops the script there (`.: cannot open`, a special builtin's error)."""
    script = layer.script
    if script is None:
        return None
    for node in script.body:
        first = node
        while isinstance(first, CommandList) and first.items:
            if any(op in ("&&", "||") for op in first.ops[:1]):
                break
            first = first.items[0]
        if isinstance(first, SimpleCommand) and len(first.words) == 2 and \
                not first.words[1].dynamic and first.words[0].value in (".", "source") and \
                first.words[1].value in _RED_HAT_FUNCTIONS:
            span = script_span(script, *first.span)
            if span is not None:
                return span[1], first.words[1].value
    return None


# -- code that runs only where there is no bash ---------------------------------------------------

_LOOKUPS = frozenset({"command", "which", "type", "hash"})


def _finds_bash(node: object) -> bool:
    """`command -v bash`, `which bash`, `type bash`, `hash bash` (a list of that one command)."""
    while isinstance(node, CommandList) and len(node.items) == 1:
        node = node.items[0]
    if not isinstance(node, SimpleCommand) or not node.words:
        return False
    words = [w.value for w in node.words if not w.dynamic]
    if len(words) != len(node.words) or words[0] not in _LOOKUPS:
        return False
    operands = [w for w in words[1:] if not w.startswith("-")]
    return operands == ["bash"] and (words[0] != "command" or "-v" in words[1:])


def _leaves(node: object) -> bool:
    """Does the list end by leaving the script (`exit`, `exec`)?"""
    while isinstance(node, CommandList) and node.items:
        node = node.items[-1]
    return isinstance(node, SimpleCommand) and bool(node.words) and \
        node.words[0].value in ("exit", "exec")


def without_bash(layer: Layer) -> tuple[int, int] | None:
    """The input span of the layer's text that runs only where no bash was found: what follows
    a top-level `if command -v bash; then ...; exit; fi` or `command -v bash && exec bash "$0"`
    (also `which`, `type`, `hash`)."""
    script = layer.script
    if script is None:
        return None
    found = _without_bash(script)
    return None if found is None else script_span(script, *found)


def _without_bash(script: Script) -> tuple[int, int] | None:
    for node in script.body:
        items = node.items if isinstance(node, CommandList) else [node]
        ops = node.ops if isinstance(node, CommandList) else []
        for i, item in enumerate(items):
            if isinstance(item, Compound) and item.kind == "if" and item.parts:
                role, cond = item.parts[0]
                body = item.parts[1][1] if len(item.parts) > 1 else None
                if role == "condition" and _finds_bash(cond) and body is not None and \
                        _leaves(body) and all(r != "condition" for r, _ in item.parts[2:]):
                    return (item.span[1], len(script.text))
            elif (_finds_bash(item) and i + 1 < len(items) and i < len(ops)
                  and ops[i] == "&&" and _leaves(items[i + 1])):
                return (items[i + 1].span[1], len(script.text))
    return None


WITHOUT_BASH_NOTE = (
    "this runs only where the script found no bash: not on Debian or Ubuntu, whose sh is dash "
    "but where bash is an Essential package, always installed; a system without bash is "
    "busybox's (Alpine, Wolfi), whose ash accepts this, or another sh")
