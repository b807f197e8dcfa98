"""Small shapes of shell code the value analysis recognises: a regex check that stops the
script, a command that ends it, a function that shell-quotes its output, what a piece of code
may assign."""

from __future__ import annotations

import re
from collections.abc import Iterable

from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import CommandList, Compound, Node, Pipeline, Script, SimpleCommand
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import (
    DATE_PLAIN_DIRECTIVES,
    DECLARATION_BUILTINS,
    PLAIN_OUTPUT_COMMANDS,
    SAME_SHELL_PREFIXES,
    SCRIPT_SOURCERS,
)
from quotecheck.values.knowledge import PLAIN, Kind

NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `n = 3`, `n += 2`, `n++`, `--n` inside `(( ))` or `let`.
ARITH_ASSIGNED = lazy_compile(
    r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*"
    r"([A-Za-z_][A-Za-z0-9_]*)")
_READ_VALUE_OPTIONS = frozenset("pdnNtui")
ENDERS = frozenset({"exit", "return"})


def nodes_below(nodes: list[Node]) -> list[Node]:
    """Every node of ``nodes`` and below them (not into substitutions): one explicit stack, so
    a deeply nested tree costs neither recursion nor a generator per level."""
    out: list[Node] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, Pipeline):
            stack.extend(reversed(node.commands))
        elif isinstance(node, CommandList):
            stack.extend(reversed(node.items))
        elif isinstance(node, Compound):
            stack.extend(p for _, p in reversed(node.parts))
    return out


def arith_names(text: str) -> list[str]:
    return [a or b for a, b in ARITH_ASSIGNED.findall(text)]


def read_targets(values: list[str]) -> list[str]:
    """The variables `read [options] NAME...` sets (``values`` is its argv)."""
    return [values[i] for i in read_target_indices(values)]


def read_target_indices(values: list[str]) -> list[int]:
    """Where in its argv ``values`` `read [options] NAME...` names the variables it sets."""
    out: list[int] = []
    i = 1
    while i < len(values):
        v = values[i]
        if v == "--":
            i += 1
            break
        if v.startswith("-") and len(v) > 1:
            if v[-1] == "a" and i + 1 < len(values):
                out.append(i + 1)
                i += 2
                continue
            i += 2 if v[-1] in _READ_VALUE_OPTIONS else 1
            continue
        break
    out.extend(j for j in range(i, len(values)) if NAME.fullmatch(values[j]))
    return out


def safe_regex(regex: str) -> bool:
    """An anchored ERE (`^[0-9]+$`) that only matches plain words: no `.`, no negated or
    blank-holding bracket expression, nothing but plain characters."""
    if len(regex) < 2 or regex[0] != "^" or regex[-1] != "$" or regex.endswith("\\$"):
        return False
    body = regex[1:-1]
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "[":
            close = body.find("]", i + 2)
            if close < 0:
                return False
            inner = body[i + 1:close]
            if inner.startswith(("^", "!")) or "[:" in inner:
                return False
            if not PLAIN.fullmatch(inner):
                return False
            i = close + 1
        elif c == "\\":
            if i + 1 >= n or not PLAIN.fullmatch(body[i + 1]):
                return False
            i += 2
        elif c in "+*?(){},|" or c.isdigit():
            i += 1
        elif c == ".":
            return False
        elif PLAIN.fullmatch(c):
            i += 1
        else:
            return False
    return True


def regex_check(node: Node) -> tuple[str, str, bool] | None:
    """``(name, regex, negated)`` for `[[ $x =~ re ]]` / `! [[ ... ]]` / `[[ ! $x =~ re ]]`."""
    negated = False
    while isinstance(node, CommandList) and len(node.items) == 1:
        node = node.items[0]
    if isinstance(node, Pipeline) and len(node.commands) == 1:
        negated = node.negated
        node = node.commands[0]
    if not isinstance(node, Compound) or node.kind != "cond":
        return None
    words = [w.raw for w in node.words]
    if words and words[0] == "!":
        negated = not negated
        words = words[1:]
    if len(words) != 3 or words[1] != "=~":
        return None
    m = re.fullmatch(r'"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?', words[0])
    if m is None or any(c in words[2] for c in "\"'"):
        return None
    return m.group(1), words[2], negated


def last_command(node: Node) -> SimpleCommand | None:
    """The command a list, group or pipeline runs last, as written."""
    while True:
        if isinstance(node, SimpleCommand):
            return node
        if isinstance(node, Pipeline):
            node = node.commands[-1]
        elif hasattr(node, "items"):
            if not node.items:
                return None
            node = node.items[-1]
        elif isinstance(node, Compound) and node.kind == "group" and node.parts:
            node = node.parts[-1][1]
        else:
            return None


def returns_outside_functions(nodes: list[Node]) -> bool:
    """A `return` outside every function body: in a sourced file, it ends the sourcing (the
    rest of the file is skipped on that path, the script goes on)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, SimpleCommand):
            if node.words and node.words[0].value == "return":
                return True
        elif isinstance(node, Pipeline):
            stack.extend(node.commands)
        elif isinstance(node, CommandList):
            stack.extend(node.items)
        elif isinstance(node, Compound) and node.kind != "function":
            stack.extend(p for _, p in node.parts)
    return False


def ends_script(node: Node, enders: Iterable[str]) -> bool:
    last = last_command(node)
    return last is not None and bool(last.words) and last.words[0].value in enders


def quotes_output(body: Node) -> bool:
    """A function body that prints its argument shell-quoted: `printf %q`, `printf '%q '`."""
    for node in nodes_below([body]):
        if isinstance(node, SimpleCommand) and node.words:
            values = [w.value for w in node.words]
            if values[0] == "printf" and len(values) > 1 and values[1] != "-v" \
                    and "%q" in values[1]:
                return True
    return False


def assigned_in(nodes: list[Node], functions: dict[str, Compound], *, own_scope: bool
                ) -> tuple[set[str], bool, set[str]]:
    """Names ``nodes`` may assign, whether they may change any variable (eval, source), and
    the script functions they call. With ``own_scope`` (a function body), `local`/`declare`
    names are the function's own."""
    names: set[str] = set()
    calls: set[str] = set()
    barrier = False
    local: set[str] = set()
    for node in nodes_below(nodes):
        if isinstance(node, SimpleCommand):
            if not node.words:
                names.update(a.name for a in node.assignments)
            if not node.words or node.words[0].dynamic:
                continue
            values = [w.value for w in node.words]
            prefixed = False
            while len(values) > 1 and values[0] in SAME_SHELL_PREFIXES:
                values = values[1:]  # `builtin source F`, `command read X`
                prefixed = True
            prog = values[0]
            if prefixed and node.words[len(node.words) - len(values)].dynamic:
                barrier = True  # `builtin "$name" ...`
            elif prog in DECLARATION_BUILTINS:
                opts = "".join(v[1:] for v in values[1:] if v.startswith("-"))
                for v in values[1:]:
                    name = v.partition("=")[0].partition("[")[0]
                    if not v.startswith(("-", "+")) and NAME.fullmatch(name):
                        if own_scope and prog in ("local", "declare", "typeset") \
                                and "g" not in opts:
                            local.add(name)
                        else:
                            names.add(name)
                if "n" in opts:
                    barrier = True
            elif prog == "read":
                names.update(read_targets(values))
            elif prog in ("mapfile", "readarray", "unset", "getopts"):
                names.update(v for v in values[1:] if NAME.fullmatch(v))
            elif prog == "printf" and len(values) > 2 and values[1] == "-v":
                names.add(values[2].partition("[")[0])
            elif prog == "let":
                for v in values[1:]:
                    names.update(arith_names(v))
            elif prog == "eval" or prog in SCRIPT_SOURCERS:
                barrier = True
            elif prog in functions and not prefixed:
                calls.add(prog)
        elif isinstance(node, Compound):
            if node.kind in ("for", "select") and node.name:
                if node.name.startswith("(("):
                    names.update(arith_names(node.name))
                else:
                    names.add(node.name)
            elif node.kind == "arith":
                for w in node.words:
                    names.update(arith_names(w.raw))
    return names - local, barrier, calls


def word_is(word: Word, text: str) -> bool:
    return not word.dynamic and word.value == text


def prints_quoted(values: list[str], functions: Iterable[str]) -> bool:
    """A command whose output is shell-quoted: `printf %q ...`, a quoting function's call."""
    if not values:
        return False
    if values[0] == "printf":
        return len(values) > 1 and values[1] != "-v" and ("%q" in values[1] or "%Q" in values[1])
    return values[0] in functions


_DATE_FORMAT = lazy_compile(r"\+(?:[A-Za-z0-9_.:,/-]|%[A-Za-z%])*")


def output_kind(values: list[str], quoting: Iterable[str]) -> str:
    """What the output of the command ``values`` can hold: `quoted` (printf %q, a quoting
    function), `number`, `word` (one plain word), or `unknown`."""
    if prints_quoted(values, quoting):
        return "quoted"
    known = PLAIN_OUTPUT_COMMANDS.get(tuple(values))
    if known is not None:
        return known
    if _shuf_one_number(values):
        return "number"
    if values and values[0] == "date":
        args = [v for v in values[1:] if v not in ("-u", "--utc")]
        if len(args) == 1 and _DATE_FORMAT.fullmatch(args[0]) and all(
                d in DATE_PLAIN_DIRECTIVES for d in re.findall(r"%(.)", args[0])):
            return "word"
    return "unknown"


def _shuf_one_number(values: list[str]) -> bool:
    """`shuf -i LO-HI -n 1`: one integer from the range (shuf rejects a range that is not
    two numbers, and prints nothing then). More than one (`-n 3`, or no `-n`) is one a line."""
    if not values or values[0] != "shuf":
        return False
    ranged = one = False
    i = 1
    while i < len(values):
        opt = values[i]
        name, eq, value = opt.partition("=")
        if opt in ("-i", "-n", "--input-range", "--head-count") and i + 1 < len(values):
            name, value = opt, values[i + 1]
            i += 1
        elif opt[:2] in ("-i", "-n") and len(opt) > 2 and not opt.startswith("--"):
            name, value = opt[:2], opt[2:]
        elif not eq and opt in ("-r", "--repeat", "-z", "--zero-terminated"):
            i += 1
            continue
        if name in ("-i", "--input-range"):
            ranged = True
        elif name in ("-n", "--head-count") and value == "1":
            one = True
        else:
            return False  # an input file, -o FILE, -e words, or another count
        i += 1
    return ranged and one


def substitution_node(script: Script, part: Part) -> Node | None:
    """The one command (a pipeline or simple command) a `$( )` part runs, or None."""
    inner = script.substitutions.get(part.span[0])
    if inner is None or len(inner.body) != 1:
        return None
    node = inner.body[0]
    while isinstance(node, CommandList) and len(node.items) == 1:
        node = node.items[0]
    return node


def substitution_command(script: Script, part: Part) -> list[str] | None:
    """The argv of a `$(cmd args)` part that is one simple command of literal words."""
    node = substitution_node(script, part)
    if node is None:
        return None
    if isinstance(node, Pipeline) and len(node.commands) == 1:
        node = node.commands[0]
    if not isinstance(node, SimpleCommand) or not node.words or node.redirects:
        return None
    if node.words[0].dynamic:
        return None  # arguments may be dynamic: `$(q "$x")` counts by the function's name
    return [w.value for w in node.words]


def command_output_kind(script: Script, part: Part, quoting: Iterable[str]) -> Kind:
    argv = substitution_command(script, part)
    if argv is None:
        return "unknown"
    return _OUTPUT_KINDS.get(output_kind(argv, quoting), "unknown")


_OUTPUT_KINDS: dict[str, Kind] = {"quoted": "quoted", "number": "number", "word": "word"}


_REJECTS = lazy_compile(r"\*\[[!^]((?:\[:[a-z]+:\]|[^\]\[])+)\]\*")
_PLAIN_CLASSES = frozenset({"alnum", "alpha", "digit", "lower", "upper", "xdigit"})


def rejected_outside(pattern: str) -> str | None:
    """For a case pattern `*[!SET]*` whose SET holds plain characters only, the set as
    `[SET]` (a value that did not match it holds nothing else); else None."""
    m = _REJECTS.fullmatch(pattern)
    if m is None:
        return None
    body = m.group(1)
    rest = re.sub(r"\[:([a-z]+):\]", lambda c: "" if c.group(1) in _PLAIN_CLASSES else " ", body)
    return f"[{body}]*" if PLAIN.fullmatch(rest) else None


_SEQ_FORMAT = lazy_compile(r"(?:[A-Za-z0-9_.:,/-]|%[0-9.]*[gfe])*")


def seq_kind(argv: list[str]) -> Kind | None:
    """`seq [-w] [-f FMT] first [incr] last`: numbers, or plain words with a plain format;
    None when it is not such a call (a separator, dynamic bounds are fine)."""
    if not argv or argv[0] != "seq":
        return None
    kind: Kind = "number"
    i = 1
    while i < len(argv) and argv[i].startswith("-") and not argv[i][1:2].isdigit():
        opt = argv[i]
        if opt in ("-w", "--equal-width"):
            i += 1
        elif opt == "-f" and i + 1 < len(argv) and _SEQ_FORMAT.fullmatch(argv[i + 1]):
            kind = "word"
            i += 2
        else:
            return None
    return kind if 1 <= len(argv) - i <= 3 else None
