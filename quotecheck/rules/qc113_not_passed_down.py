"""QC113 not-passed-down: an inner layer reads a variable the outer script sets but never passes.

A shell variable reaches a child process only when it is exported (or given as a prefix
assignment, `X=1 sh -c ...`). Past some layers even exported variables are gone:
- ssh passes no environment to the remote shell, except names allowed by the client's
  `SendEnv` and the server's `AcceptEnv`;
- sudo resets the environment (`env_reset`) unless `-E`/`--preserve-env` or `sudo X=... cmd`;
- `docker exec`/`podman exec` pass only `-e`/`--env` variables, `kubectl exec` none;
- `env -i` clears everything not given on its command line.

The outer layer's assignments and exports are followed in script order up to the command that
opens the inner layer; the inner layer's reads are the expansions it performs itself (not the
ones the outer layer already filled in).

A function exported with `export -f` is defined again by every new bash (`xargs ... bash -c
'fn "$1"'`, GNU parallel's jobs), but the variables its body reads are not: those set without
`export` are unset there (verified with real bash, xargs and parallel).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator

from quotecheck.diagnostics import Related, Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.functions import innermost_function
from quotecheck.layers.model import CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Compound, iter_nodes
from quotecheck.parsing.words import Part
from quotecheck.programs import (
    CONTAINER_RUNNERS,
    DECLARATION_BUILTINS,
    FUNCTION_IMPORTING_SHELLS,
    PARALLEL_PROGRAMS,
    PARALLEL_REMOTE_OPTIONS,
    PARALLEL_VALUE_OPTIONS,
    basename,
)
from quotecheck.records import FrozenRecord, Record
from quotecheck.rules._handoffs import (
    between,
    code,
    in_function,
    outer_shell,
    owns,
    parameter_reads,
    part_span,
    script_span,
    shell_program,
    view_words,
    where_label,
)
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN_WORD = lazy_compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=")
# Inherited from the environment (so already exported when a script assigns them), or set by
# every shell for itself.
ENVIRONMENT = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "PWD",
    "OLDPWD", "TMPDIR", "DISPLAY", "MAIL", "EDITOR", "VISUAL", "PAGER", "CDPATH", "IFS", "PS1",
    "PS2", "PS3", "PS4", "PPID", "OPTIND", "OPTARG", "OPTERR", "LINENO", "RANDOM", "SECONDS",
    "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "UID", "EUID", "GROUPS", "SHLVL", "REPLY",
    "PIPESTATUS", "FUNCNAME", "HISTFILE", "HISTSIZE", "COLUMNS", "LINES", "ENV", "BASH_ENV",
    "MAILPATH", "NLSPATH", "SSH_AUTH_SOCK", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY",
    "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "SUDO_USER", "SUDO_UID", "SUDO_GID",
    "SUDO_COMMAND", "LD_LIBRARY_PATH", "PYTHONPATH", "MANPATH", "INFOPATH",
})
_ENV_PREFIXES = ("LC_", "BASH", "XDG_", "SSH_", "SUDO_", "COMP_", "READLINE_", "HIST")


class Var(Record):
    exported: bool
    span: tuple[int, int] | None


def _skip_name(name: str) -> bool:
    return name in ENVIRONMENT or name.startswith(_ENV_PREFIXES) or not _NAME.fullmatch(name)


class OuterState:
    """The variables a shell layer sets, indexed so that "what is set when command i runs" is a
    binary search (textual order; function bodies and command substitutions are skipped)."""

    def __init__(self, layer: Layer) -> None:
        self.position = {id(v): i for i, v in enumerate(layer.commands)}
        # Keys: 2*i for what command i does, 2*k-1 for a loop variable set before command k.
        self.events: dict[str, list[tuple[int, Var | None]]] = {}
        state: dict[str, Var] = {}
        allexport = False
        at = 0

        def put(name: str, var: Var | None) -> None:
            if var is None:
                state.pop(name, None)
            else:
                state[name] = var
            self.events.setdefault(name, []).append((at, var))

        for i, view in enumerate(layer.commands):
            if in_function(view) or view.context.in_substitution:
                continue
            at = 2 * i
            allexport = _apply(view, state, allexport, put)
        if layer.script is not None:
            starts = [(v.source_span or (0, 0))[0] for v in layer.commands]
            origin = layer.script.origin
            for node in iter_nodes(layer.script.body):
                if (isinstance(node, Compound) and node.kind in ("for", "select")
                        and node.name):
                    end = origin[max(node.span[1] - 1, node.span[0])]
                    if end is None:
                        continue
                    at = 2 * bisect_right(starts, end) - 1
                    put(node.name, Var(False, origin.span(*node.span)))
        for events in self.events.values():
            events.sort(key=lambda e: e[0])
        self.keys = {name: [k for k, _ in events] for name, events in self.events.items()}

    def get(self, name: str, view: CommandView) -> Var | None:
        """``name`` as set when ``view`` runs."""
        events = self.events.get(name)
        at = self.position.get(id(view))
        if not events or at is None:
            return None
        k = bisect_left(self.keys[name], 2 * at)
        return events[k - 1][1] if k else None


def _apply(view: CommandView, state: dict[str, Var], allexport: bool,
           put: Callable[[str, Var | None], None]) -> bool:
    """Record what one command does to the variables; returns the new allexport flag."""
    span = view.source_span
    cmd = view.command
    values = view.values
    if not cmd.words:
        for a in cmd.assignments:
            old = state.get(a.name)
            put(a.name, Var(allexport or bool(old and old.exported), span))
        return allexport
    if not values or (view.argv and view.argv[0].dynamic):
        return allexport
    name = values[0]
    if name == "set":
        for v in values[1:]:
            if v.startswith("-") and not v.startswith("--") and "a" in v[1:]:
                allexport = True
            elif v.startswith("+") and "a" in v[1:]:
                allexport = False
        for i, v in enumerate(values):
            if v == "allexport" and i > 1:
                allexport = values[i - 1] == "-o"
        return allexport
    if name in DECLARATION_BUILTINS:
        flags = "".join(v[1:] for v in values[1:] if v.startswith("-"))
        unexport = any(v.startswith("+") and "x" in v for v in values[1:]) or (
            name == "export" and "n" in flags)
        exported = name == "export" or "x" in flags or allexport
        for arg in view.argv[1:]:
            if arg.value.startswith(("-", "+")):
                continue
            m = _ASSIGN_WORD.match(arg.value)
            var = m.group(1) if m else arg.value
            if not _NAME.fullmatch(var):
                continue
            old = state.get(var)
            if unexport:
                put(var, Var(False, span))
            elif m:
                put(var, Var(exported or bool(old and old.exported), span))
            elif exported:
                put(var, Var(True, old.span if old else span))
        return allexport
    if name == "unset":
        for v in values[1:]:
            if _NAME.fullmatch(v):
                put(v, None)
        return allexport
    targets: list[str] = []
    if name == "read":
        skip_next = False
        for v in values[1:]:
            if skip_next:
                skip_next = False
            elif v.startswith("-"):
                skip_next = v in ("-p", "-d", "-n", "-N", "-t", "-u", "-a", "-i")
            elif _NAME.fullmatch(v):
                targets.append(v)
    elif name == "printf" and len(values) > 2 and values[1] == "-v":
        targets.append(values[2])
    for v in targets:
        old = state.get(v)
        put(v, Var(allexport or bool(old and old.exported), span))
    return allexport


def inner_assigned(layer: Layer) -> set[str]:
    """Names the inner layer sets itself (anywhere: a loop may set it before the read)."""
    names: set[str] = set()
    for view in layer.commands:
        cmd = view.command
        if not cmd.words:
            names.update(a.name for a in cmd.assignments)
        values = view.values
        if not values:
            continue
        if values[0] in DECLARATION_BUILTINS or values[0] in (
                "read", "getopts", "mapfile", "readarray"):
            for v in values[1:]:
                m = _ASSIGN_WORD.match(v)
                names.add(m.group(1) if m else v)
        if values[0] == "printf" and len(values) > 2 and values[1] == "-v":
            names.add(values[2])
    if layer.script is not None:
        for node in iter_nodes(layer.script.body):
            if isinstance(node, Compound) and node.kind in ("for", "select") and node.name:
                names.add(node.name)
    return names


def _sources_files(layer: Layer) -> bool:
    return any(v.values and v.values[0] in (".", "source") and not v.argv[0].dynamic
               for v in layer.commands)


class Barrier(FrozenRecord):
    kind: str  # ssh, sudo, container, env-i
    label: str
    keeps: frozenset[str]  # names passed through explicitly
    send_env: tuple[str, ...] = ()


def _barrier(ctx: CheckContext, outer: Layer, inner: Layer,
             opener: CommandView) -> Barrier | bool | None:
    """What stands between the layers. False: the same process (eval), no new environment."""
    mids = between(ctx, inner, outer)
    if any(m.kind == "join" and m.via == "eval" for m in mids):
        return False
    for m in mids:
        if m.kind == "ssh":
            return Barrier("ssh", f"ssh to {m.destination}", frozenset(),
                           _send_env(ctx, m.opened_by or opener))
    values = opener.values
    for h in opener.handoffs:
        if not isinstance(h, ho.ExecHandoff):
            continue
        first = h.words[0] if h.words else len(values)
        given = frozenset(found.group(1) for v in values[1:first]
                          if (found := _ASSIGN_WORD.match(v)))
        names = {o.name for o in h.options}
        if h.wrapper == "sudo":
            preserve = [o for o in h.options if o.name in ("-E", "--preserve-env")]
            if any(o.value is None for o in preserve):
                continue
            kept = frozenset(x for o in preserve for x in (o.value or "").split(","))
            return Barrier("sudo", "sudo", given | kept)
        if h.wrapper == "env" and names & {"-i", "--ignore-environment", "-"}:
            return Barrier("env-i", "env -i", given)
        if h.wrapper in CONTAINER_RUNNERS:
            if h.wrapper == "kubectl":
                return Barrier("container", "kubectl exec", frozenset())
            if names & {"--env-file"}:
                continue
            kept = frozenset(
                (o.value or "").partition("=")[0] for o in h.options
                if o.name in ("-e", "--env"))
            return Barrier("container", f"{h.wrapper} {h.action or 'exec'}", kept)
    return None


def _given(ctx: CheckContext, opener: CommandView) -> set[str]:
    """Names set for the inner command on the wrapper's command line: `env X=1 sh -c`,
    `sudo X=1 sh -c`."""
    out: set[str] = set()
    values = opener.values
    for h in opener.handoffs:
        if isinstance(h, ho.ExecHandoff) and h.wrapper in ("env", "sudo", "doas"):
            first = h.words[0] if h.words else len(values)
            out.update(m.group(1) for v in values[1:first] if (m := _ASSIGN_WORD.match(v)))
    return out


def _send_env(ctx: CheckContext, opener: CommandView) -> tuple[str, ...]:
    """Every `-o SendEnv=...` of the ssh command: unlike most options, SendEnv accumulates
    (ssh_config(5): "spread across multiple SendEnv directives")."""
    out: list[str] = []
    for h in opener.handoffs:
        if isinstance(h, ho.SshHandoff):
            for v in h.option_values("-o"):
                key, _, value = v.replace("=", " ", 1).partition(" ")
                if key.lower() == "sendenv":
                    out.append(value.strip())
    return tuple(out)


def _send_env_allows(patterns: tuple[str, ...], name: str) -> bool:
    import fnmatch

    for p in patterns:
        for pat in re.split(r"[\s,]+", p):
            if pat and fnmatch.fnmatchcase(name, pat):
                return True
    return False


class Hop(FrozenRecord):
    """One step outwards: ``outer`` runs ``opener``, which starts the layer below."""

    outer: Layer
    opener: CommandView
    barrier: Barrier | None
    same_process: bool = False  # eval


def _hops(ctx: CheckContext, inner: Layer) -> list[Hop]:
    """The shells above ``inner`` that could have handed it a variable, nearest first."""
    hops: list[Hop] = []
    layer = inner
    for _ in range(64):
        outer = outer_shell(ctx, layer)
        opener = layer.opened_by
        if outer is None or opener is None or not owns(ctx, outer, opener):
            break
        barrier = _barrier(ctx, outer, layer, opener)
        # eval: the same process; its variables are the outer shell's own.
        hops.append(Hop(outer, opener, barrier if isinstance(barrier, Barrier) else None,
                        barrier is False))
        layer = outer
    return hops


def check(ctx: CheckContext) -> Iterator[Finding]:
    states: dict[int, OuterState] = {}
    yield from _exported_functions_check(ctx, states)
    for inner in ctx.layers:
        if inner.kind != "shell" or inner.parent is None or inner.opened_by is None:
            continue
        hops: list[Hop] | None = None
        own = inner_assigned(inner)
        if _sources_files(inner):
            continue  # `. file` / `source file` may set anything
        reported: set[str] = set()
        for view, part in parameter_reads(inner):
            name = part.name
            if part.kind != "parameter" or name is None or name in reported or name in own:
                continue
            if _skip_name(name) or re.match(r"\$\{" + re.escape(name) + r":?[-=+]", part.value):
                continue
            if hops is None:
                hops = _hops(ctx, inner)
            finding = _trace_variable(ctx, inner, hops, states, view, part.value, name)
            if finding is not None:
                reported.add(name)
                span = part_span(view, part) or finding.span
                yield Finding(span, finding.message, finding.layer, finding.related,
                              severity=finding.severity)


def _trace_variable(ctx: CheckContext, inner: Layer, hops: list[Hop],
                    states: dict[int, OuterState], view: CommandView, written: str,
                    name: str) -> Finding | None:
    """Walk outwards until a shell that sets ``name``; judge what the hops did to it."""
    crossed: list[Hop] = []
    for hop in hops:
        crossed.append(hop)
        prefix = {a.name for a in hop.opener.command.assignments} | _given(ctx, hop.opener)
        state = states.get(hop.outer.id)
        if state is None:
            state = states[hop.outer.id] = OuterState(hop.outer)
        var = state.get(name, hop.opener)
        if var is None and name not in prefix:
            if hop.barrier is not None and hop.barrier.kind != "sudo":
                return None  # not from here, and nothing passes this barrier anyway
            continue
        if all(h.same_process for h in crossed):
            return None  # eval runs in the shell that set it
        return _judge(ctx, hop.outer, inner, hop.opener, written, name, var, prefix,
                      [h.barrier for h in crossed if h.barrier is not None])
    return None


_NOT_EXPORTED = Template(
    "not-exported",
    "{code} is read by {reader}, but `{name}` is a variable of {here} set without "
    "`export`{line}",
    "only exported variables reach a child process, so {reader} sees it unset "
    "(empty). Pass the value as an argument (`sh -c '... \"$1\"' sh \"${name}\"`), put "
    'it on the command (`{name}="${name}" {first} ...`), or `export {name}`.')
_DROPPED_ON_THE_WAY = Template(
    "dropped-on-the-way",
    "{code} is read by {reader}, but `{name}` {set_where} and {dropped}",
    "{reader} sees it unset (empty). Instead, {instead}.",
    lead="{code} is read by {reader}, but `{name}` {origin}, and {why}")


def _judge(ctx: CheckContext, outer: Layer, inner: Layer, opener: CommandView, written: str,
           name: str, var: Var | None, prefix: set[str],
           barriers: list[Barrier]) -> Finding | None:
    reader = where_label(inner)
    here = where_label(outer)
    span = opener.source_span or (0, 0)
    barrier = next((b for b in barriers if name not in b.keeps), None)
    if barrier is None:
        if var is None or var.exported or name in prefix or barriers:
            return None
        related = (Related(var.span, f"`{name}` is set here without `export`"),) if var.span \
            else ()
        first = opener.values[0] if opener.values else "cmd"
        return Finding(
            span,
            _NOT_EXPORTED(code=code(written), reader=reader, name=name, here=here,
                                   line=_line(ctx, var), first=first),
            inner,
            related=related,
        )
    if var is None:
        origin = f"is given only to the command that starts it (`{name}=... {opener.values[0]}`)"
    elif var.exported:
        origin = f"is exported in {here}{_line(ctx, var)}"
    else:
        origin = f"is set in {here}{_line(ctx, var)}"
    related = ((Related(var.span, f"`{name}` is set here"),)
               if var is not None and var.span else ())
    severity: Severity | None = None
    if barrier.kind == "ssh":
        dropped = "ssh does not pass it"
        why = ("ssh does not pass local variables, exported or not (only names allowed by "
               "`SendEnv` here and `AcceptEnv` on the server)")
        if _send_env_allows(barrier.send_env, name):
            why = (f"ssh sends it only because of `SendEnv`, and the server drops it unless "
                   f"its `AcceptEnv` lists `{name}` (most servers accept only `LANG`/`LC_*`)")
            severity = "info"
            dropped = "the server may drop it"
        dest = barrier.label.removeprefix("ssh to ")
        instead = (f"pass the value as an argument of a remote script: `ssh {dest} bash -s -- "
                   f"\"${name}\" <<'EOF'` ... `\"$1\"` ... `EOF` (quoted for the remote shell "
                   f"if it goes into the command string)")
    elif barrier.kind == "sudo":
        dropped = "sudo drops it"
        why = ("sudo resets the environment (`env_reset`), so the variable is dropped even "
               "when exported")
        instead = (f"pass it as an argument (`sudo sh -c '... \"$1\"' sh \"${name}\"`), or "
                   f"explicitly: `sudo {name}=\"${name}\" ...` / `sudo --preserve-env={name}`")
    elif barrier.kind == "container":
        dropped = "the container does not get it"
        why = f"{barrier.label} does not pass this shell's environment into the container"
        instead = (f"pass it with `-e {name}` (docker/podman) or as an argument "
                   f"(`... sh -c '... \"$1\"' sh \"${name}\"`)")
    else:
        dropped = "`env -i` drops it"
        why = "`env -i` starts the command with an empty environment"
        instead = f"list it: `env -i {name}=\"${name}\" ...`"
    return Finding(
        span,
        _DROPPED_ON_THE_WAY(code=code(written), reader=reader, name=name, origin=origin, why=why,
                  instead=instead, set_where=origin.split(' (line')[0], dropped=dropped),
        inner,
        related=related,
        severity=severity,
    )


def _line(ctx: CheckContext, var: Var | None) -> str:
    if var is None or var.span is None:
        return ""
    return f" (line {ctx.source.count(chr(10), 0, var.span[0]) + 1})"


# -- functions exported to a new bash -----------------------------------------------------------
# `export -f fn` puts the function in the environment, and a new bash (`bash -c 'fn "$1"'` under
# xargs or find, GNU parallel's jobs) defines it again; the variables its body reads come along
# only when they are exported too (verified: `X=1; f() { echo "[$X]"; }; export -f f; bash -c f`
# prints `[]`). dash does not import functions (`sh -c f`: not found), which is another failure.

_TRIGGER_TEXT = ("export -", "declare -", "typeset -")
_NESTED_READ = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _exports_functions(view: CommandView) -> list[str]:
    """The names `export -f`, `declare -fx`, `typeset -xf` export."""
    values = view.values
    if not values or view.argv[0].dynamic:
        return []
    flags = [v[1:] for v in values[1:] if v.startswith("-") and v != "--"]
    if values[0] == "export":
        if not any("f" in f for f in flags) or any("n" in f for f in flags):
            return []
    elif values[0] in ("declare", "typeset"):
        if not any("f" in f and "x" in f for f in flags):
            return []
    else:
        return []
    return [v for v in values[1:] if not v.startswith(("-", "+")) and _NAME.fullmatch(v)]


def _function_name(view: CommandView) -> str | None:
    fn = innermost_function(view.context)
    return None if fn is None else fn.name


class _Run(FrozenRecord):
    """A new bash that runs an exported function: ``opener`` (a command of ``outer``) starts
    it; ``inner`` is its layer when the trace has one (`bash -c 'fn'`), else None (parallel)."""

    outer: Layer
    opener: CommandView
    function: str
    runner: str
    inner: Layer | None


def _parallel_commands(view: CommandView) -> tuple[str, ...]:
    """The first word of each command GNU parallel runs: its command's, or with none each
    argument after `:::`. Nothing when its jobs run on other machines."""
    values = view.values
    i = 1
    command: list[int] = []
    while i < len(values):
        v = values[i]
        if v.startswith((":::", "::::")):
            break
        if command:
            command.append(i)
        elif v.startswith("-") and len(v) > 1:
            name = v.partition("=")[0]
            if name in PARALLEL_REMOTE_OPTIONS or (len(v) > 2 and v[:2] in PARALLEL_REMOTE_OPTIONS
                                                   and not v.startswith("--")):
                return ()
            if "=" not in v and v in PARALLEL_VALUE_OPTIONS:
                i += 1
        else:
            command.append(i)
        i += 1
    if command:
        if view.argv[command[0]].dynamic:
            return ()
        return (values[command[0]].split(maxsplit=1) or [""])[0],
    out: list[str] = []
    files = False
    for k in range(i, len(values)):
        v = values[k]
        if v in (":::", ":::+", "::::", "::::+"):
            files = v.startswith("::::")
        elif not files and not view.argv[k].dynamic and v.split():
            out.append(v.split(maxsplit=1)[0])
    return tuple(out)


def _runs(ctx: CheckContext, outer: Layer, exported: dict[str, int]) -> Iterator[_Run]:
    position = {id(v): i for i, v in enumerate(outer.commands)}
    for view in outer.commands:
        at = position[id(view)]
        if view.values and basename(view.values[0]) in PARALLEL_PROGRAMS:
            for name in dict.fromkeys(_parallel_commands(view)):
                if exported.get(name, at) < at:
                    yield _Run(outer, view, name, "GNU parallel", None)
    for inner in ctx.layers:
        if inner.kind != "shell" or inner.parent is None or inner.opened_by is None:
            continue
        if shell_program(inner) not in FUNCTION_IMPORTING_SHELLS:
            continue  # dash, zsh, rbash do not define exported functions again
        hops = _hops(ctx, inner)
        if not hops or hops[0].outer is not outer or hops[0].barrier is not None \
                or hops[0].same_process:
            continue
        opener = hops[0].opener
        found_at = position.get(id(opener))
        if found_at is None:
            continue
        at = found_at
        defined = {_function_name(v) for v in inner.commands}
        runner = f"`{opener.values[0]}`" if opener.values else "a command"
        called: dict[str, None] = {}
        for view in inner.commands:
            if view.values and not view.argv[0].dynamic and view.values[0] not in defined:
                called.setdefault(view.values[0], None)
        for name in called:
            if exported.get(name, at) < at:
                yield _Run(outer, opener, name, runner, inner)


def _body_reads(outer: Layer, name: str, exported: dict[str, int],
                seen: set[str]
                ) -> Iterator[tuple[str, CommandView, Part, str, tuple[int, int]]]:
    """Parameter reads of function ``name`` (and of the exported functions it calls) that the
    function does not set itself: `local x=$1`, assignments, `read x`, `for x in`."""
    if name in seen:
        return
    seen.add(name)
    body = [v for v in outer.commands if _function_name(v) == name]
    own: set[str] = set()
    for view in body:
        cmd = view.command
        own.update(a.name for a in cmd.assignments)
        values = view.values
        if values and (values[0] in DECLARATION_BUILTINS or values[0] in (
                "read", "getopts", "mapfile", "readarray")):
            for v in values[1:]:
                m = _ASSIGN_WORD.match(v)
                own.add(m.group(1) if m else v)
        if len(values) > 2 and values[0] == "printf" and values[1] == "-v":
            own.add(values[2])
        for node in view.context.ancestors:
            if isinstance(node, Compound) and node.kind in ("for", "select") and node.name:
                own.add(node.name)
    for view in body:
        for word in view_words(view):
            for p in word.parts:
                if p.kind != "parameter" or p.name is None:
                    continue
                # `${html/x/${content}}`: the names read inside the expansion too.
                reads = {p.name: (0, len(p.value))}
                for m in _NESTED_READ.finditer(p.value, 2):
                    reads.setdefault(m.group(1), (m.start(), m.end()))
                for read, at in reads.items():
                    if read not in own:
                        yield name, view, p, read, at
        if view.values and view.values[0] in exported and view.values[0] != name:
            yield from _body_reads(outer, view.values[0], exported, seen)


_EXPORTED_FUNCTION_READS = Template(
    "exported-function-reads",
    "{code} is read by `{function}()`, which {runner} runs in a new bash, but `{name}` is set "
    "without `export`{line}",
    "`export -f` hands the new bash the function, not the variables it reads, so there `{name}` "
    "is unset (empty) and the function carries on with it. `export {name}` where it is set "
    "(or `{name}=\"${name}\" {first} ...`), or pass the value to the function as an argument.")


def _exported_functions_check(ctx: CheckContext,
                              states: dict[int, OuterState]) -> Iterator[Finding]:
    for outer in ctx.layers:
        if outer.kind != "shell" or outer.script is None:
            continue
        exported: dict[str, int] = {}
        for i, view in enumerate(outer.commands):
            if view.context.in_substitution:
                continue
            for name in _exports_functions(view):
                exported.setdefault(name, i)
        if not exported:
            continue
        reported: set[tuple[int, int, str]] = set()
        for run in _runs(ctx, outer, exported):
            state = states.get(outer.id)
            if state is None:
                state = states[outer.id] = OuterState(outer)
            prefix = {a.name for a in run.opener.command.assignments} | _given(ctx, run.opener)
            own = inner_assigned(run.inner) if run.inner is not None else set()
            names: set[str] = set()
            for function, view, part, name, at in _body_reads(outer, run.function, exported,
                                                               set()):
                if name in names or name in prefix or name in own or _skip_name(name):
                    continue
                if re.match(r"\$\{" + re.escape(name) + r":?[-=+?]", part.value) or (
                        name != part.name and re.search(r"\$\{" + re.escape(name) + r":?[-=+?]",
                                                         part.value)):
                    continue
                var = state.get(name, run.opener)
                if var is None or var.exported:
                    continue
                written = part.value[at[0]:at[1]]
                if at[0]:  # a name read inside another expansion: point at it
                    written += "}" if written.startswith("${") else ""
                    span = script_span(view, part.span[0] + at[0], part.span[0] + at[1])
                else:
                    span = part_span(view, part)
                if span is None or (span[0], span[1], name) in reported:
                    continue
                names.add(name)
                reported.add((span[0], span[1], name))
                related = [Related(var.span, f"`{name}` is set here without `export`")] \
                    if var.span else []
                if run.opener.source_span is not None:
                    related.append(Related(run.opener.source_span,
                                           f"{run.runner} runs `{function}` in a new bash here"))
                first = run.opener.values[0] if run.opener.values else "cmd"
                yield Finding(
                    span,
                    _EXPORTED_FUNCTION_READS(code=code(written), function=function,
                                             runner=run.runner, name=name,
                                             line=_line(ctx, var), first=first),
                    run.inner or outer,
                    related=tuple(related),
                )


RULE = Rule("QC113", "not-passed-down",
            "An inner layer reads a variable the outer script sets but never passes to it",
            "warning", check,
            trigger=Trigger(handoffs=True, text=_TRIGGER_TEXT))
