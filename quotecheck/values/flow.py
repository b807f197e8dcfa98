"""The walk: the script's commands in the order they run, with what each variable holds.

One pass over the tree, no recursion into the tree's depth beyond what the tree itself has
(lists, branches, loops), and nothing quadratic: the state is a dict shared between snapshots
until a command changes it (copy on write), so a command that assigns nothing costs one entry
in the snapshot list.

Flow, as bash runs it:
- a branch (`if`/`elif`/`else`, `case`, the right side of `&&`/`||`) gives each variable the
  merge of what it holds at the end of each path; a path that ends with `exit`/`return` is
  dropped;
- a loop body may run many times: what it assigns is not known inside or after it (the loop
  variable of `for v in words` is one of the words);
- subshells (`( )`, pipelines of several commands, `&`, `$( )`) see the state and give none
  back;
- `eval`, `source` (also as `builtin source`, `command .`) and a nameref make every variable
  unknown; a call of a script function makes what that function may assign unknown;
- a `source` of a file that was read (--external-sources, ``layers.sourced``) walks that file's
  commands there instead, as if written there, its places recorded as that file's lines; its
  functions are the script's. One level: a `source` inside it is an unknown one;
- function bodies run when called: they start from what the top level ever assigns (merged
  with the environment where a call may come first).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Protocol

from quotecheck.lazy_regex import lazy_compile
from quotecheck.limits import MAX_VALUE_CHARS
from quotecheck.parsing.tree import (
    CommandList,
    Compound,
    Node,
    Pipeline,
    Script,
    SimpleCommand,
)
from quotecheck.parsing.words import Part, Word
from quotecheck.programs import DECLARATION_BUILTINS, SAME_SHELL_PREFIXES, SCRIPT_SOURCERS
from quotecheck.values.arrays import array_words
from quotecheck.values.expand import Val, assigned_value, part_value, word_fields
from quotecheck.values.knowledge import (
    MAX_ALTERNATIVES,
    READ_NOTE,
    Alternative,
    Kind,
    Knowledge,
    Place,
    merge,
    value_size,
)
from quotecheck.values.shapes import (
    ENDERS,
    NAME,
    arith_names,
    assigned_in,
    command_output_kind,
    ends_script,
    nodes_below,
    prints_quoted,
    quotes_output,
    read_targets,
    regex_check,
    rejected_outside,
    returns_outside_functions,
    safe_regex,
    seq_kind,
    substitution_command,
)

State = dict[str, Knowledge]
_ALL = "*"  # in the log: every variable may have changed here (no name is `*`)
Snapshot = tuple[int, int, State]

_ENVIRONMENT: dict[str, Knowledge] = {}


def environment(name: str) -> Knowledge:
    k = _ENVIRONMENT.get(name)
    if k is None:
        k = _ENVIRONMENT[name] = Knowledge(name, "environment")
    return k


# Names the text ever assigns as an array (`X=(`, `X+=(`, `X[i]=`, `declare -a X`): a plain
# `X=v` on one keeps its other elements, which an unknown earlier state may hold.
_ARRAY_DECLARERS = tuple(sorted(DECLARATION_BUILTINS))
_ARRAY_ASSIGNMENT = lazy_compile(
    r"(?<![\w$])([A-Za-z_]\w*)(?:\[[^\]\n]*\])?\+?=\(|(?<![\w$])([A-Za-z_]\w*)\[[^\]\n]*\]\+?="
    r"|\b(?:" + "|".join(_ARRAY_DECLARERS) + r")\s+-\w*[aA]\w*\s+([A-Za-z_]\w*)")


class SourcedText(Protocol):
    """A file the script sources, as the resolver gives it (``layers.sourced.SourcedFile``)."""

    name: str  # as messages name it
    script: Script
    settles: bool  # its assignments may be taken as known


# The file the word after `source` names, when it can be read (--external-sources).
Resolver = Callable[[Word], "SourcedText | None"]


class Walker:
    def __init__(self, script: Script, line_of: Callable[[int], int],
                 sources: Resolver | None = None) -> None:
        self.script = script
        self.maybe_arrays = _array_names(script.text)
        self.line_of = line_of
        self.sources = sources
        # The sourced files walked where the script sources them, with their line counters:
        # by id of their script.
        self._readable: dict[int, tuple[SourcedText, Callable[[int], int]]] = {}
        # While walking one: its name and the offset of the `source` command in the script.
        self._sourcing: tuple[str, int] | None = None
        self.state: State = {}
        self.shared = False
        self.snaps: list[Snapshot] = []
        self.summary: State = {}
        self.first_set: dict[str, int] = {}
        self.in_function = False
        self.functions: dict[str, Compound] = {}
        self.quoting: set[str] = set()
        self.enders: set[str] = set(ENDERS)
        self.may_assign: dict[str, tuple[set[str], bool]] = {}
        self.pending: list[Compound] = []
        self.first_call: int | None = None
        self.ifs_default = True
        self._log: list[str] = []  # every name set, in order: what changed since a fork
        self._version = 0  # bumped whenever the state may change
        self._barrier_version = -1  # the version right after the last barrier
        self._top_barrier = False
        self._any: tuple[list[str], bool] | None = None
        self._unknowns: dict[int, tuple[Knowledge, Knowledge]] = {}
        # Where a value built past MAX_VALUE_CHARS was taken as unknown: offset -> name.
        self.over_budget: dict[int, str] = {}

    # -- driving -----------------------------------------------------------------------------

    def run(self) -> list[Snapshot]:
        self._prepass()
        self._nodes(self.script.body)
        end = self.script.span[1]
        self._snap(end, end)
        entry = self._function_entry()
        done: set[int] = set()
        while self.pending:
            fn = self.pending.pop()
            if id(fn) in done:
                continue
            done.add(id(fn))
            self.in_function = True
            self.state, self.shared = entry, True
            self._version += 1
            for _, part in fn.parts:
                self._node(part)
        self.snaps.sort(key=lambda s: (s[0], -s[1]))
        return self.snaps

    def _prepass(self) -> None:
        nodes = nodes_below(self.script.body)
        if self.sources is not None:
            # The functions of the files it sources are the script's, defined before its own.
            nodes = [*self._sourced_nodes(nodes), *nodes]
        for node in nodes:
            if isinstance(node, Compound) and node.kind == "function" and node.name:
                self.functions[node.name] = node
            elif isinstance(node, SimpleCommand) and _sets_ifs(node):
                self.ifs_default = False
        direct: dict[str, tuple[set[str], bool, set[str]]] = {}
        for name, fn in self.functions.items():
            body = [p for _, p in fn.parts]
            direct[name] = assigned_in(body, self.functions, own_scope=True)
            if body and quotes_output(body[0]):
                self.quoting.add(name)
            if body and ends_script(body[-1], ENDERS - {"return"}):
                self.enders.add(name)
        # What a call may assign, through the functions it calls (a fixed point).
        for name in direct:
            seen = {name}
            stack = [name]
            names: set[str] = set()
            barrier = False
            while stack:
                got = direct[stack.pop()]
                names |= got[0]
                barrier = barrier or got[1]
                for callee in got[2]:
                    if callee not in seen and callee in direct:
                        seen.add(callee)
                        stack.append(callee)
            self.may_assign[name] = (names, barrier)

    def _sourced_nodes(self, nodes: list[Node]) -> list[Node]:
        """The nodes of the files that ``nodes`` source and that may be walked where they are
        sourced: read whole, parsed without a problem, no `return` ending the sourcing early
        (a file that is not is an unknown `source`, as without --external-sources)."""
        assert self.sources is not None
        out: list[Node] = []
        for node in nodes:
            if not isinstance(node, SimpleCommand) or len(node.words) < 2 or \
                    node.words[0].dynamic or node.words[0].value not in SCRIPT_SOURCERS:
                continue
            found = self.sources(node.words[1])
            if found is None or not found.settles or id(found.script) in self._readable:
                continue
            body = found.script.body
            if returns_outside_functions(body):
                continue
            self._readable[id(found.script)] = (found, _line_counter(found.script.text))
            self.maybe_arrays |= _array_names(found.script.text)
            out.extend(nodes_below(body))
        return out

    def _source(self, words: list[Word], at: int) -> bool:
        """`source F` of a file read: its commands walked here, as if written here (one level:
        a `source` in it is an unknown one). False when F is not read."""
        if self.sources is None or self._sourcing is not None or len(words) < 2:
            return False
        found = self.sources(words[1])
        known = self._readable.get(id(found.script)) if found is not None else None
        if found is None or known is None or known[0] is not found:
            return False
        script, line_of = self.script, self.line_of
        self.script, self.line_of = found.script, known[1]
        self._sourcing = (found.name, at)
        try:
            self._nodes(found.script.body)
        finally:
            self.script, self.line_of = script, line_of
            self._sourcing = None
        return True

    def _any_call(self) -> tuple[list[str], bool]:
        """What a call of some function of the script may assign (computed once)."""
        if self._any is None:
            names: set[str] = set()
            barrier = False
            for got, stops in self.may_assign.values():
                names |= got
                barrier = barrier or stops
            self._any = (sorted(names), barrier)
        return self._any

    def _function_entry(self) -> State:
        call = self.first_call if self.first_call is not None else self.script.span[1]
        entry: State = {}
        for name, k in self.summary.items():
            entry[name] = k if self.first_set.get(name, call) < call else merge(
                environment(name), k)
        if self._top_barrier:
            entry = {n: self._unknown_like(k) for n, k in entry.items()}
        for names, barrier in self.may_assign.values():
            if barrier:
                return {n: self._unknown_like(k) for n, k in entry.items()}
            for n in names:
                entry[n] = merge(entry.get(n, environment(n)), Knowledge(n, "unknown"))
        return entry

    # -- state -------------------------------------------------------------------------------

    def _snap(self, start: int, end: int) -> None:
        if self._sourcing is None:  # (offsets in a sourced file are no places of the script)
            self.snaps.append((start, end, self.state))
        self.shared = True

    def _here(self, at: int) -> int:
        """``at`` as an offset in the script: in a sourced file, its `source` command's."""
        return at if self._sourcing is None else self._sourcing[1]

    def _set(self, name: str, k: Knowledge, at: int) -> None:
        if self._sourcing is not None:
            at = self._sourcing[1]
            if k.alts is not None:
                # Its characters were written in another file: no offsets in the script.
                k = Knowledge(k.name, k.kind, tuple(
                    tuple((text, (None,) * len(text)) for text, _ in alt) for alt in k.alts),
                    k.offsets, k.lines, k.note, k.sourced)
        if self.shared:
            self.state = dict(self.state)
            self.shared = False
        self.state[name] = k
        self._log.append(name)
        self._version += 1
        if not self.in_function:
            old = self.summary.get(name)
            self.summary[name] = k if old is None else merge(old, k)
            self.first_set.setdefault(name, at)

    def _fork(self) -> State:
        self.shared = True
        return self.state

    def _restore(self, saved: State) -> None:
        if saved is not self.state:
            self._version += 1
        self.state, self.shared = saved, True

    def _mark(self) -> int:
        return len(self._log)

    def _merge_into(self, states: list[State], mark: int) -> None:
        """Make the state the merge of ``states`` (the ends of the paths of a branch that
        forked when the log was ``mark`` long: only names set since then can differ)."""
        if not states:
            return  # every path ends the script: what follows is not reached from here
        first = states[0]
        if all(s is first for s in states):
            self._restore(first)
            return
        result: State = dict(first)
        self._version += 1
        changed = set(self._log[mark:])
        if _ALL in changed:
            changed = {name for st in states for name in st}
        for name in changed:
            ks = [s.get(name) for s in states]
            k0 = ks[0]
            if k0 is not None and all(k is k0 for k in ks):
                continue
            merged = k0 if k0 is not None else environment(name)
            for k in ks[1:]:
                merged = merge(merged, k if k is not None else environment(name))
            result[name] = merged
            if not self.in_function:
                old = self.summary.get(name)
                self.summary[name] = merged if old is None else merge(old, merged)
        self.state, self.shared = result, False

    def _unknown_like(self, k: Knowledge) -> Knowledge:
        if k.kind == "environment" or (k.kind == "unknown" and k.alts is None):
            return k
        hit = self._unknowns.get(id(k))
        if hit is not None and hit[0] is k:
            return hit[1]
        made = Knowledge(k.name, "unknown", None, k.offsets, k.lines, sourced=k.sourced)
        self._unknowns[id(k)] = (k, made)
        return made

    def _barrier(self, at: int) -> None:
        """Every variable may have changed (eval, source...): one new state, built in one
        pass, logged as a single entry; nothing to do when nothing changed since the last."""
        if self._version == self._barrier_version:
            return
        unknown_like = self._unknown_like
        self.state = {name: unknown_like(k) for name, k in self.state.items()}
        self.shared = False
        self._log.append(_ALL)
        if not self.in_function:
            self._top_barrier = True
        self._version += 1
        self._barrier_version = self._version

    def lookup(self, name: str) -> Knowledge:
        k = self.state.get(name)
        return k if k is not None else environment(name)

    def _over_budget(self, name: str, at: int) -> None:
        """Remember that ``name``'s value set at ``at`` is past MAX_VALUE_CHARS (QC002)."""
        self.over_budget.setdefault(self._sourcing[1] if self._sourcing else at, name)

    def _knowledge(self, name: str, val: Val, at: int, note: str = "") -> Knowledge:
        kind: Kind = val.kind
        alts = val.alts if kind == "exact" else None
        return self._make(name, kind, alts, at, note)

    def _unknown(self, name: str, at: int, kind: Kind = "unknown", note: str = "") -> Knowledge:
        return self._make(name, kind, None, at, note)

    def _make(self, name: str, kind: Kind, alts: tuple[Alternative, ...] | None, at: int,
              note: str = "", old: Knowledge | None = None) -> Knowledge:
        """What ``name`` holds once set at ``at`` (after the places of ``old`` when the value
        builds on it); set in a sourced file, its place is that file's line."""
        if self._sourcing is None:
            offsets: tuple[int, ...] = (at,)
            lines: tuple[int, ...] = (self.line_of(at),)
            sourced: tuple[Place, ...] = ()
        else:
            file, here = self._sourcing
            offsets, lines, sourced = (here,), (), ((file, self.line_of(at)),)
        if old is not None:
            offsets = (*old.offsets, *offsets)
            lines = (*old.lines, *lines)
            sourced = (*old.sourced, *sourced)
        if alts is not None and value_size(alts) > MAX_VALUE_CHARS:
            # Every value is built from values within the budget, so at most a few times it:
            # cut here, a chain of such assignments stays bounded (`B=$A$A...` eight deep).
            self._over_budget(name, at)
            kind, alts, note = "unknown", None, ""
        return Knowledge(name, kind, alts, offsets, lines, note, sourced)

    def quoting_part(self, part: Part) -> Kind:
        """What a `$( )` part's output can hold (see ``shapes.output_kind``)."""
        return command_output_kind(self.script, part, self.quoting)

    # -- walking -----------------------------------------------------------------------------

    def _nodes(self, nodes: list[Node]) -> None:
        for node in nodes:
            self._node(node)

    def _node(self, node: Node) -> None:
        if isinstance(node, SimpleCommand):
            self._command(node)
        elif isinstance(node, Pipeline):
            if len(node.commands) == 1:
                self._node(node.commands[0])
            else:
                for cmd in node.commands:
                    saved = self._fork()
                    self._node(cmd)
                    self._restore(saved)
        elif isinstance(node, CommandList):
            self._list(node)
        else:
            self._compound(node)

    def _list(self, node: CommandList) -> None:
        items, ops = node.items, node.ops
        # An item runs in the background when the `&&`/`||` chain it is part of ends in `&`.
        background = [False] * len(items)
        chain_end = len(items) - 1
        for k in range(len(items) - 1, -1, -1):
            if k < len(ops) and ops[k] not in ("&&", "||"):
                chain_end = k
            background[k] = chain_end < len(ops) and ops[chain_end] == "&"
        i = 0
        while i < len(items):
            item = items[i]
            after = ops[i] if i < len(ops) else None
            before = ops[i - 1] if i > 0 else None
            if background[i]:
                saved = self._fork()
                self._node(item)
                self._restore(saved)
            elif before in ("&&", "||"):
                saved = self._fork()
                mark = self._mark()
                self._node(item)
                ends = ends_script(item, self.enders)
                self._merge_into([saved] if ends else [saved, self.state], mark)
            else:
                self._node(item)
            # `[[ $x =~ ^re$ ]] || exit`: past here the value matched.
            if after in ("&&", "||") and i + 1 < len(items) and ends_script(
                    items[i + 1], self.enders):
                check = regex_check(item)
                if check is not None and (after == "||") != check[2]:
                    saved = self._fork()
                    self._node(items[i + 1])
                    self._restore(saved)
                    self._validated(check, item_start(item))
                    i += 2
                    continue
            i += 1

    def _validated(self, check: tuple[str, str, bool], at: int) -> None:
        name, regex, _ = check
        if safe_regex(regex):
            self._set(name, self._unknown(name, at, "validated", regex), at)

    def _compound(self, node: Compound) -> None:
        kind = node.kind
        self._snap(node.span[0], node.span[0])
        self._substitutions(node.words)
        if kind == "function":
            if node.name is not None and self._sourcing is None:
                # (a sourced file's function bodies: no read of the script lies in them)
                self.pending.append(node)
            return
        if kind in ("subshell",):
            saved = self._fork()
            self._parts(node)
            self._restore(saved)
        elif kind == "if":
            self._if(node)
        elif kind == "case":
            self._case(node)
        elif kind in ("for", "select", "while", "until"):
            self._loop(node)
        elif kind == "arith":
            for w in node.words:
                for name in arith_names(w.raw):
                    self._set(name, self._unknown(name, node.span[0], "number"), node.span[0])
        else:
            self._parts(node)

    def _parts(self, node: Compound) -> None:
        for _, part in node.parts:
            self._node(part)

    def _if(self, node: Compound) -> None:
        parts = node.parts
        if not parts:
            return
        ends: list[State] = []
        fall: State | None = None
        check = None
        mark = self._mark()
        for i, (role, part) in enumerate(parts):
            if role == "condition":
                if fall is not None:
                    self._restore(fall)
                self._node(part)
                check = regex_check(part)
                fall = self._fork()
            elif role == "body":
                self._node(part)
                if not ends_script(part, self.enders):
                    ends.append(self._fork())
                elif check is not None and check[2] and fall is not None:
                    # `if ! [[ $x =~ ^re$ ]]; then exit; fi`: past here the value matched.
                    self._restore(fall)
                    self._validated(check, parts[i - 1][1].span[0] if i else node.span[0])
                    fall = self._fork()
                if fall is not None:
                    self._restore(fall)
            else:  # else
                self._node(part)
                if not ends_script(part, self.enders):
                    ends.append(self._fork())
                fall = None
        if fall is not None:
            ends.append(fall)
        self._merge_into(ends, mark)

    def _case(self, node: Compound) -> None:
        """Each clause is a path; no match (without a `*` clause) and a clause with no
        commands are paths too. In a clause after `*[!SET]*)`, the subject holds only SET."""
        start = self._fork()
        mark = self._mark()
        ends: list[State] = []
        subject = _simple_variable(node.words[0].raw) if node.words else None
        patterns = node.words[1:]
        text = self.script.text
        rejected: str | None = None
        empty = False
        j = 0
        for _, part in node.parts:
            own: list[Word] = []
            while j < len(patterns) and patterns[j].span[0] < part.span[0]:
                w = patterns[j]
                j += 1
                if ";;" in text[w.span[1]:part.span[0]] or ";&" in text[w.span[1]:part.span[0]]:
                    empty = True  # a clause without commands, before this one
                    rejected = rejected or rejected_outside(w.raw)
                else:
                    own.append(w)
            self._restore(start)
            if subject is not None and rejected is not None:
                self._set(subject, self._unknown(subject, part.span[0], "validated", rejected),
                          part.span[0])
            self._node(part)
            if not ends_script(part, self.enders):
                ends.append(self._fork())
            for w in own:
                rejected = rejected or rejected_outside(w.raw)
        for w in patterns[j:]:
            empty = True
            rejected = rejected or rejected_outside(w.raw)
        if empty:
            ends.append(start)
        if not any(w.raw == "*" for w in patterns):
            self._restore(start)
            if subject is not None and rejected is not None:
                self._set(subject, self._unknown(subject, node.span[0], "validated", rejected),
                          node.span[0])
            ends.append(self._fork())
        self._merge_into(ends, mark)

    def _loop(self, node: Compound) -> None:
        at = node.span[0]
        body = [p for _, p in node.parts]
        names, barrier, calls = assigned_in(body, self.functions, own_scope=False)
        for call in calls:
            got = self.may_assign.get(call)
            if got is not None:
                names |= got[0]
                barrier = barrier or got[1]
        if barrier:
            self._barrier(at)
        var = node.name if node.kind in ("for", "select") else None
        for name in sorted(names):
            if name != var:
                self._set(name, self._unknown_like(self.lookup(name))
                          if name in self.state else self._unknown(name, at), at)
        if var is not None and var.startswith("(("):
            for name in arith_names(var):
                self._set(name, self._unknown(name, at, "number"), at)
        elif var is not None:
            self._set(var, self._loop_value(var, node, at), at)
            if var in names:
                self._set(var, self._unknown_like(self.state[var]), at)
        start = self._fork()
        mark = self._mark()
        for part in body:
            self._node(part)
        self._merge_into([start, self.state], mark)

    def _loop_value(self, var: str, node: Compound, at: int) -> Knowledge:
        """What the loop variable of `for v in words` holds in the body: one of the fields."""
        words = node.words
        if not words:
            return self._unknown(var, at)  # `for v; do`: the positional parameters
        if _brace_numbers(words) or all(_index_loop(w) for w in words):
            return self._unknown(var, at, "number")
        if len(words) == 1 and len(words[0].parts) == 1 and \
                words[0].parts[0].kind == "command" and words[0].parts[0].quoting == "none":
            argv = substitution_command(self.script, words[0].parts[0])
            kind = seq_kind(argv) if argv is not None else None
            if kind is not None:
                return self._unknown(var, at, kind, words[0].raw)  # `for i in $(seq 1 $n)`
        alts: list[Alternative] = []
        exact = True
        safe = True
        for word in words:
            vals = [part_value(p, self.lookup, self.quoting_part) for p in word.parts]
            fields = word_fields(word.parts, vals, self.ifs_default)
            if fields is None:
                exact = False
                safe = safe and not any(p.kind in ("glob", "tilde", "brace")
                                        for p in word.parts) and all(
                    Knowledge(var, v.kind, v.alts).safe for v in vals)
                continue
            for combo in fields:
                alts.extend(((f.text, f.offsets),) for f in combo)
        unique = tuple(dict.fromkeys(alts))
        if exact and len(unique) <= MAX_ALTERNATIVES:
            if not unique:
                return self._unknown(var, at)
            return self._make(var, "exact", unique, at)
        safe = safe and Knowledge(var, "exact", unique).safe
        return self._unknown(var, at, "word" if safe else "unknown")

    # -- simple commands -------------------------------------------------------------------

    def _command(self, cmd: SimpleCommand) -> None:
        end = cmd.span[1]
        for r in cmd.redirects:
            if r.heredoc is not None:
                end = max(end, r.heredoc.body.span[1])
        self._snap(cmd.span[0], end)
        words = cmd.words
        self._substitutions([*words, *(a.value for a in cmd.assignments),
                             *(r.heredoc.body for r in cmd.redirects if r.heredoc is not None)])
        if not words:
            for n, a in enumerate(cmd.assignments):
                if n:
                    self._snap(a.span[0], cmd.span[1])
                self._assign(a.name, a.value, a.span[0], a.append, a.subscript)
            return
        # `builtin source F`, `command read X`: the builtin, in this shell (never a function).
        prefixed = False
        while len(words) > 1 and not words[0].dynamic and words[0].value in SAME_SHELL_PREFIXES:
            words = words[1:]
            prefixed = True
        first = words[0]
        if first.dynamic and prefixed:
            self._barrier(cmd.span[0])  # `builtin "$name" ...`: eval or source, maybe
            return
        if first.dynamic:
            if self.first_call is None and not self.in_function:
                self.first_call = self._here(cmd.span[0])
            # `$cmd args`, `"$@"`: it may call any function of the script.
            names, barrier = self._any_call()
            if barrier:
                self._barrier(cmd.span[0])
            for name in names:
                k = self.state.get(name)
                if k is None or k is not self._unknown_like(k):
                    self._set(name, self._unknown_like(k) if k is not None
                              else self._unknown(name, cmd.span[0]), cmd.span[0])
            return
        prog = first.value
        values = [w.value for w in words]
        at = cmd.span[0]
        if prog in DECLARATION_BUILTINS:
            self._declare(prog, words, at)
        elif prog == "read":
            if any(w.dynamic and not w.value.startswith("-") for w in words[1:]):
                self._barrier(at)  # `read "$name"`: any variable
            for name in read_targets(values):
                self._set(name, self._unknown(name, at, note=READ_NOTE), at)
        elif prog in ("mapfile", "readarray", "getopts") and len(values) > 1:
            name = values[-1]
            if NAME.fullmatch(name):
                self._set(name, self._unknown(name, at, note=READ_NOTE), at)
        elif prog == "printf" and len(values) > 3 and values[1] == "-v":
            name = values[2].partition("[")[0]
            if words[2].dynamic or not NAME.fullmatch(name):
                self._barrier(at)  # `printf -v "$name"`: any variable
                return
            quoted = prints_quoted(["printf", *values[3:]], ())
            self._set(name, self._unknown(name, at, "quoted" if quoted else "unknown",
                                          "printf %q" if quoted else ""), at)
        elif prog == "unset":
            for w in words[1:]:
                if w.dynamic:
                    self._barrier(at)
                elif w.value == "-f":
                    return
                elif NAME.fullmatch(w.value):
                    self._set(w.value, self._unknown(w.value, at), at)
        elif prog == "let":
            for v in values[1:]:
                for name in arith_names(v):
                    self._set(name, self._unknown(name, at, "number"), at)
        elif prog == "eval" or prog in SCRIPT_SOURCERS:
            if prog == "eval" or not self._source(words, at):
                self._barrier(at)
        elif prog in self.functions and not prefixed:
            if self.first_call is None and not self.in_function:
                self.first_call = self._here(at)
            assigns, stops = self.may_assign.get(prog, (set(), False))
            if stops:
                self._barrier(at)
            for name in sorted(assigns):
                self._set(name, self._unknown_like(self.lookup(name)) if name in self.state
                          else self._unknown(name, at), at)

    def _declare(self, prog: str, words: list[Word], at: int) -> None:
        opts = "".join(w.value[1:] for w in words[1:] if w.value.startswith(("-", "+")))
        if "n" in opts:
            self._barrier(at)
            return
        if "f" in opts or "F" in opts or "p" in opts:
            return
        for w in words[1:]:
            raw = w.raw
            if raw.startswith(("-", "+")):
                continue
            eq = raw.find("=")
            head = raw[:eq] if eq >= 0 else raw
            append = head.endswith("+")
            name = head[:-1] if append else head
            sub = None
            if "[" in name and name.endswith("]"):
                name, _, sub = name[:-1].partition("[")
            if not NAME.fullmatch(name):
                if w.dynamic:
                    self._barrier(at)
                continue
            start = w.span[0]
            if eq < 0:
                if prog == "local" or (self.in_function and prog in ("declare", "typeset")
                                       and "g" not in opts):
                    empty: Val = Val("exact", ((("", ()),),))
                    self._set(name, self._knowledge(name, empty, start), start)
                continue
            value = _value_word(w, eq)
            if value is None or sub is not None:
                self._set(name, self._unknown(name, start), start)
                continue
            if "i" in opts:
                self._set(name, self._unknown(name, start, "number"), start)
                continue
            if "A" in opts:
                self._set(name, self._unknown(name, start), start)
                continue
            self._assign(name, value, start, append, None, declared=True)

    def _assign(self, name: str, value: Word, at: int, append: bool,
                subscript: Word | None, declared: bool = False) -> None:
        if name == "IFS":
            self.ifs_default = False
        raw = value.raw
        if raw.startswith("(") and raw.endswith(")") and subscript is None:
            self._assign_array(name, value, at, append)
            return
        val = assigned_value(value, self.lookup, self.quoting_part,
                             lambda: self._over_budget(name, at))
        note = ""
        if val.kind in ("quoted", "word", "number") and len(value.parts) == 1 and \
                value.parts[0].kind in ("command", "backtick"):
            note = value.parts[0].value  # the command it is the output of
        elif val.kind == "quoted":
            note = "printf %q"
        if subscript is not None:
            old = self.lookup(name)
            if old.kind == "exact" and old.alts is not None and len(old.alts) == 1 and \
                    subscript.literal_value is not None and subscript.literal_value.isdigit() \
                    and val.kind == "exact" and val.alts is not None and len(val.alts) == 1:
                elements = list(old.alts[0])
                i = int(subscript.literal_value)
                if i < len(elements):
                    elements[i] = val.alts[0][0]
                elif i == len(elements):
                    elements.append(val.alts[0][0])
                else:
                    self._set(name, self._unknown(name, at), at)
                    return
                self._set(name, self._make(name, "exact", (tuple(elements),), at, old=old), at)
                return
            merged = merge(old, self._knowledge(name, val, at)) if old.local else \
                self._unknown(name, at)
            self._set(name, merged if merged.kind != "exact" else self._unknown(name, at), at)
            return
        if append:
            old = self.lookup(name)
            if old.kind == "exact" and old.alts is not None and val.kind == "exact" and \
                    val.alts is not None and len(old.alts) * len(val.alts) <= MAX_ALTERNATIVES:
                alts: list[Alternative] = []
                for a in old.alts:
                    for b in val.alts:
                        head = a[0] if a else ("", ())
                        alts.append(((head[0] + b[0][0], head[1] + b[0][1]), *a[1:]))
                self._set(name, self._make(name, "exact", tuple(dict.fromkeys(alts)), at,
                                           old=old), at)
                return
            safe = old.safe and Knowledge(name, val.kind, val.alts).safe
            self._set(name, self._unknown(name, at, "word" if safe else "unknown"), at)
            return
        was = self.state.get(name)
        if was is not None and was.alts is not None and any(len(a) > 1 for a in was.alts):
            # `name=v` on an array sets its element 0 and keeps the others.
            if val.kind == "exact" and val.alts is not None and \
                    len(was.alts) * len(val.alts) <= MAX_ALTERNATIVES:
                kept = tuple(dict.fromkeys((b[0], *a[1:]) for a in was.alts for b in val.alts))
                self._set(name, self._make(name, "exact", kept, at, old=was), at)
            else:
                self._set(name, self._unknown(name, at), at)
            return
        if was is not None and was.alts is None and name in self.maybe_arrays:
            # An unknown value that may be an array: `name=v` leaves its other elements unknown.
            self._set(name, self._unknown(name, at), at)
            return
        self._set(name, self._knowledge(name, val, at, note), at)

    def _assign_array(self, name: str, value: Word, at: int, append: bool) -> None:
        words = array_words(value.raw, value.span[0], self.script.dialect)
        elements: list[Alternative] = []
        ok = words is not None
        size = 0
        for w in words or []:
            if w.raw.startswith("[") and "]=" in w.raw:
                ok = False  # `[i]=v` elements: left to run time
                break
            if size > MAX_VALUE_CHARS:  # `a=("${a[@]}" "${a[@]}" ...)`: stop building it
                self._over_budget(name, at)
                ok = False
                break
            vals = [part_value(p, self.lookup, self.quoting_part) for p in w.parts]
            fields = word_fields(w.parts, vals, self.ifs_default, limit=1)
            if fields is None:
                ok = False
                break
            elements.append(tuple((f.text, f.offsets) for f in fields[0]))
            size += sum(len(f.text) + 1 for f in fields[0])
        if not ok:
            old = self.lookup(name)
            safe = (not append or old.safe) and words is not None and all(
                part_value(p, self.lookup, self.quoting_part).kind in ("number", "word",
                                                                        "validated")
                for w in words for p in w.parts if p.kind != "literal") and all(
                _plain_literal(w) for w in words)
            self._set(name, self._unknown(name, at, "word" if safe else "unknown"), at)
            return
        flat: Alternative = tuple(e for el in elements for e in el)
        if append:
            old = self.lookup(name)
            if old.kind != "exact" or old.alts is None:
                self._set(name, self._unknown(name, at), at)
                return
            alts = tuple(dict.fromkeys((*a, *flat) for a in old.alts))
            self._set(name, self._make(name, "exact", alts, at, old=old), at)
            return
        self._set(name, self._make(name, "exact", (flat,), at), at)

    def _substitutions(self, words: list[Word]) -> None:
        """The `$( )` scripts inside these words: run in a subshell with the current state."""
        script = self.script
        if not script.substitutions:
            return
        for word in words:
            for inner in script.substitutions_in(word.span):
                if inner.text is not script.text:
                    continue  # a backtick script has a text of its own
                saved = self._fork()
                was = self.first_call
                self._nodes(inner.body)
                self.first_call = was
                self._restore(saved)


def _array_names(text: str) -> set[str]:
    # Only lines that can hold one are searched: the pattern tried at every offset of a long
    # script was a fair share of the value analysis. No assignment or `declare -a NAME` goes
    # on past a newline.
    found: set[str] = set()
    for line in text.split("\n"):
        if "=(" in line or ("]" in line and "=" in line) or ("-" in line and any(
                d in line for d in _ARRAY_DECLARERS)):
            found.update(n for m in _ARRAY_ASSIGNMENT.finditer(line) for n in m.groups() if n)
    return found


# Where the walk may learn a variable's value, as the text spells it: `NAME=`, `NAME+=`,
# `NAME[` (of `NAME[i]=`; also after `declare`, `local`, `export`...), `for NAME`, `select NAME`,
# and any name on a line with `local`, `declare` or `typeset` (which set a name without `=` to
# empty). Linear in the text: a name is tried only where one starts, and never backtracked into.
_MAY_SET = lazy_compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*+)(?:\[|\+?=)"
                        r"|\b(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)"
                        r"|\b(?:local|declare|typeset)\b([^\n]*)")


def settable_names(text: str) -> frozenset[str] | None:
    """Every name the walk of ``text`` may find a value for (more, never fewer), read off the
    text without parsing it; None when the text cannot be read that way (a line continuation
    may join a name or a keyword across lines). A word reading none of them expands to
    nothing the script set."""
    if "\\\n" in text:
        return None
    names: set[str] = set()
    for m in _MAY_SET.finditer(text):
        assigned, looped, declared = m.groups()
        if declared is not None:
            names.update(NAME.findall(declared))
        else:
            names.add(assigned or looped)
    return frozenset(names)


def _line_counter(text: str) -> Callable[[int], int]:
    """The 1-based line of an offset in ``text``."""
    newlines = [m.start() for m in _NEWLINE.finditer(text)]

    def line_of(at: int) -> int:
        return bisect_right(newlines, at) + 1
    return line_of


_NEWLINE = lazy_compile("\n")


def _value_word(word: Word, eq: int) -> Word | None:
    """The value of a `declare name=value` argument, as a word of its own."""
    cut = word.span[0] + eq + 1
    parts: list[Part] = []
    for p in word.parts:
        if p.span[1] <= cut and p.span[0] < cut:
            continue
        if p.span[0] < cut:
            if p.kind != "literal" or p.quoting != "none":
                return None
            k = cut - p.span[0]
            parts.append(Part("literal", "none", (cut, p.span[1]), p.value[k:],
                              list(p.offsets)[k:]))
        else:
            parts.append(p)
    raw = word.raw[eq + 1:]
    return Word((cut, word.span[1]), raw, tuple(parts))


_IFS_SETTERS = DECLARATION_BUILTINS | {"read"}


def _simple_variable(raw: str) -> str | None:
    import re
    m = re.fullmatch(r'"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?', raw)
    return m.group(1) if m else None


def _sets_ifs(node: SimpleCommand) -> bool:
    words = node.words
    if not words:
        return any(a.name == "IFS" for a in node.assignments)
    return words[0].value in _IFS_SETTERS and not words[0].dynamic and \
        any(w.value.startswith("IFS") for w in words[1:])


def _plain_literal(word: Word) -> bool:
    from quotecheck.values.knowledge import is_plain
    return all(is_plain(p.value) for p in word.parts if p.kind == "literal")


def _index_loop(word: Word) -> bool:
    return len(word.parts) == 1 and word.parts[0].kind == "parameter" and \
        word.parts[0].value.startswith("${!") and word.parts[0].value.endswith(("[@]}", "[*]}"))


def _brace_numbers(words: list[Word]) -> bool:
    import re
    return all(re.fullmatch(r"\{-?[0-9]+\.\.-?[0-9]+(\.\.[0-9]+)?\}", w.raw) for w in words)


def item_start(node: Node) -> int:
    return node.span[0]


def find_snapshot(snaps: list[Snapshot], starts: list[int], offset: int) -> State | None:
    """The state of the innermost command holding ``offset`` (else the nearest before)."""
    i = bisect_right(starts, offset) - 1
    if i < 0:
        return None
    nearest = snaps[i][2]
    for j in range(i, max(i - 64, -1), -1):
        start, end, state = snaps[j]
        if start <= offset < end or start == offset:
            return state
    return nearest
