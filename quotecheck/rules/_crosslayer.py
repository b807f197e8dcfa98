"""Cross-layer expansions: which shell expands what, and where the result lands.

Shared by QC101 (expands-too-early), QC103 (value-becomes-code), QC104 (heredoc-expands-locally)
and QC105 (program-text-expanded). One expansion written in the input gets at most one finding
from these four rules; the decision is made here, in one place:

1. an expansion in an unquoted heredoc body that feeds an inner shell's stdin script: QC104;
2. an expansion whose text lands inside an awk/sed/perl/jq/python program: QC105;
3. the inner layer (the first one that parses it unquoted, as code) uses the same name for
   something of its own (`$!`, `$?`, `$1` of an `sh -c` script, a variable the inner script
   assigns, the remote machine's `$HOME`), or the command substitution was probably meant to
   run there: QC101;
4. otherwise the outer value is what the writer meant, and it is spliced unquoted into the
   inner layer's code: QC103 (quoted for the inner layer: no finding).

`{}` of `find -exec`/`xargs -I` spliced into an inner shell's script is QC103 whatever the
quoting around it. Nothing here executes anything.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from quotecheck.diagnostics import Edit, Fix, Related, Severity
from quotecheck.layers import handoff as ho
from quotecheck.layers.model import Arg, CommandView, Layer, Trace
from quotecheck.parsing.tree import Compound, Redirect, Script, SimpleCommand, iter_nodes
from quotecheck.parsing.words import EXPANSION_KINDS, Part, Word
from quotecheck.rules.api import CheckContext, Finding

Code = Literal["QC101", "QC103", "QC104", "QC105"]
ParamClass = Literal["positional", "special", "named", "none"]

# Variables that usually differ between this machine (or user) and the inner layer's.
ENVIRONMENT_NAMES = frozenset({
    "HOME", "USER", "LOGNAME", "USERNAME", "PATH", "PWD", "OLDPWD", "HOSTNAME", "HOST",
    "SHELL", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM",
    "DISPLAY", "MAIL", "UID", "EUID", "GROUPS", "PPID", "RANDOM", "SECONDS", "LINENO",
    "BASHPID", "BASH", "BASH_VERSION", "SHLVL", "HOSTTYPE", "MACHTYPE", "OSTYPE", "HISTFILE",
    "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH", "PYTHONPATH", "JAVA_HOME", "GOPATH", "EDITOR",
    "PAGER", "PS1", "PS2", "PS4",
})
# Wrappers that run the inner layer as another user, in a container or another root: its
# environment is not this shell's.
ENVIRONMENT_CHANGERS = frozenset({
    "docker", "podman", "kubectl", "sudo", "su", "runuser", "doas", "gosu", "su-exec",
    "chroot", "nsenter", "machinectl", "lxc-attach", "incus", "lxc",
})
AWK_BUILTINS = frozenset({
    "NF", "NR", "FNR", "FS", "OFS", "RS", "ORS", "FILENAME", "SUBSEP", "RSTART", "RLENGTH",
    "CONVFMT", "OFMT", "ENVIRON", "ARGC", "ARGV", "RT", "IGNORECASE", "PROCINFO", "FPAT",
    "FIELDWIDTHS", "BINMODE", "LINT", "TEXTDOMAIN", "ERRNO",
})
SED_COMMANDS = frozenset("aAbcdDeFgGhHiIlnNpPqQrRsTtvwWxyz")
PYTHONS = re.compile(r"python(?:[23](?:\.\d+)?)?|pypy3?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_AT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!_-]")
_ARITH_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECLARERS = frozenset({"export", "local", "declare", "typeset", "readonly"})
_READ_VALUE_OPTIONS = frozenset("pdnNtui")
QUOTED_KINDS = frozenset({"single", "double", "ansi_c", "locale", "escape", "heredoc"})


# -- small helpers ------------------------------------------------------------------------------


def basename(word: str) -> str:
    return ho.basename(word)


def short(text: str, limit: int = 60) -> str:
    """One line of ``text``, at most ``limit`` characters."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def article(word: str) -> str:
    return ("an " if word[:1] in "aeio" else "a ") + word


def param_name(text: str) -> str | None:
    """The parameter a `$x` / `${x...}` text reads (`${10}` -> `10`, `${#}` -> `#`)."""
    if text.startswith("${"):
        body = text[2:]
        if len(body) > 1 and body[0] in "#!" and body[1] != "}":
            body = body[1:]
        m = _NAME_AT.match(body)
        return m.group() if m else None
    if text.startswith("$") and len(text) > 1:
        body = text[1:]
        m = _IDENT.match(body)
        if m:
            return m.group()
        return body[0] if body[0].isdigit() or body[0] in "@*#?$!_-" else None
    return None


def param_class(name: str | None) -> ParamClass:
    if name is None:
        return "none"
    if name.isdigit() or name in ("#", "@", "*"):
        return "positional"
    if name in ("!", "?", "$", "-", "_"):
        return "special"
    return "named"


def single_quote(text: str) -> str:
    """``text`` as one word for a POSIX shell, single quotes preferred."""
    if "'" not in text:
        return f"'{text}'"
    return shlex.quote(text)


def source_offsets(smap_runs: Iterable[tuple[int, int | None, int]]) -> set[int]:
    out: set[int] = set()
    for _start, target, n in smap_runs:
        if target is not None:
            out.update(range(target, target + n))
    return out


def text_index(layer: Layer, source: int) -> int | None:
    """Index in ``layer.text`` of the character that came from ``source``."""
    if layer.origin is None:
        return None
    for start, target, n in layer.origin.runs():
        if target is not None and target <= source < target + n:
            return start + (source - target)
    return None


def line_around(layer: Layer, sources: Sequence[int]) -> str:
    """The line of ``layer.text`` holding the first of ``sources``, shortened."""
    text = layer.text or ""
    for s in sources:
        i = text_index(layer, s)
        if i is None:
            continue
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        line = text[start: end if end >= 0 else len(text)].strip()
        if len(line) > 70:
            lo = max(0, i - start - 30)
            line = ("…" if lo else "") + line[lo: lo + 68] + "…"
        return line
    return short(text)


# -- what a layer is -----------------------------------------------------------------------------


def is_eval(trace: Trace, layer: Layer) -> bool:
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    return parent is not None and parent.kind == "join" and parent.via == "eval"


def is_ssh_shell(trace: Trace, layer: Layer) -> bool:
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    return parent is not None and parent.kind == "ssh"


def has_own_arguments(layer: Layer) -> bool:
    """The inner shell got words after its script: `sh -c STR a0 a1`, `bash -s a b`."""
    return len(layer.positional) >= 2


def program_of(layer: Layer) -> str:
    if layer.process:
        name = basename(layer.process[0]).lstrip("-")
        if name and not name.startswith("<"):
            return name
    return layer.dialect if layer.dialect in ("bash", "sh", "zsh") else "sh"


def _wrapper_of(layer: Layer) -> str | None:
    """`su`, `sudo -s`, `tmux`, `flock`... when they (not argv) choose the shell program."""
    if not layer.process or not layer.process[0].startswith(("<", "-<")):
        return None
    view = layer.opened_by
    if view is None or not view.argv or view.argv[0].dynamic:
        return None
    name = basename(view.argv[0].value)
    return None if name == "ssh" else name


def runs_shell_program(layer: Layer) -> bool:
    """The layer is `SHELL -c SCRIPT ...` run by name (sh, bash...), not picked by a wrapper."""
    return bool(layer.process and len(layer.process) > 1 and layer.process[1] == "-c"
                and not layer.process[0].startswith(("<", "-<")))


def describe(trace: Trace, layer: Layer) -> str:
    """`the remote shell on h`, `the \\`sh -c\\` shell`, `eval`..."""
    if is_ssh_shell(trace, layer):
        dest = layer.where.partition(":")[2] or "the remote host"
        if layer.stdin_script:
            return f"the remote login shell on {dest} (reading stdin)"
        return f"the remote shell on {dest}"
    if is_eval(trace, layer):
        return "eval (the same shell parses the text again)"
    prog = program_of(layer)
    where = " on " + layer.where.partition(":")[2] if layer.where.startswith("remote:") else ""
    wrapper = _wrapper_of(layer)
    if wrapper is not None:
        return f"the shell started by `{wrapper}`{where}"
    if layer.stdin_script:
        return f"the `{prog}` reading stdin{where}"
    if layer.process and len(layer.process) > 1 and layer.process[1] == "-c":
        return f"the `{prog} -c` shell{where}"
    return f"the inner {prog}{where}"


def environment_differs(trace: Trace, outer: Layer, inner: Layer) -> bool:
    """Between ``outer`` and ``inner`` the environment changes: another machine, user or
    container (ssh, sudo, su, docker exec...)."""
    chain = inner.chain(trace.layers)
    try:
        at = next(i for i, x in enumerate(chain) if x.id == outer.id)
    except StopIteration:
        return False
    for layer in chain[at + 1:]:
        if layer.kind == "ssh" or layer.where != outer.where:
            return True
        if layer.kind == "exec" and (layer.via or "") in ENVIRONMENT_CHANGERS:
            return True
        view = layer.opened_by
        if (view is not None and view.argv and not view.argv[0].dynamic
                and basename(view.argv[0].value) in ENVIRONMENT_CHANGERS):
            return True
    return False


# -- words and names of a layer -------------------------------------------------------------------


def scripts_of(script: Script) -> list[Script]:
    """``script`` and every substitution script cut from its text, outermost first."""
    out = [script]
    seen = {id(script)}
    tables: set[int] = set()  # the scripts of one text share one table: read each once
    stack = [script]
    while stack:
        s = stack.pop()
        if id(s.substitutions) in tables:
            continue
        tables.add(id(s.substitutions))
        for sub in s.substitutions.values():
            if id(sub) not in seen:
                seen.add(id(sub))
                out.append(sub)
                stack.append(sub)
    rest = sorted(out[1:], key=lambda s: -(s.anchor[1] - s.anchor[0]) if s.anchor else 0)
    return [script, *rest]


@dataclass(frozen=True)
class CharInfo:
    """How an inner layer reads one character: inside which word part, quoted how."""

    quoting: str
    kind: str
    word: Word
    script: Script
    command: SimpleCommand | None
    first_word: bool  # the word is the command name
    assigns: str | None = None  # the word is the value of `name=...` (or `export name=...`)


def words_of(script: Script) -> Iterator[tuple[Word, SimpleCommand | None, bool, str | None]]:
    """Every word of ``script``: (word, its command, is the command name, assigned name)."""
    for node in iter_nodes(script.body):
        if isinstance(node, SimpleCommand):
            declarer = bool(node.words) and node.words[0].value in _DECLARERS
            for i, w in enumerate(node.words):
                name = None
                if declarer and i > 0:
                    m = _IDENT.match(w.raw)
                    if m and w.raw[m.end():m.end() + 1] == "=":
                        name = m.group()
                yield w, node, i == 0, name
            for a in node.assignments:
                yield a.value, node, False, a.name
            for r in node.redirects:
                if r.target is not None:
                    yield r.target, node, False, None
                if r.heredoc is not None:
                    yield r.heredoc.body, node, False, None
        elif isinstance(node, Compound):
            for w in node.words:
                yield w, None, False, None
            for r in node.redirects:
                if r.target is not None:
                    yield r.target, None, False, None


def char_map(layer: Layer) -> dict[int, CharInfo]:
    """Source offset -> how ``layer`` reads the character from there (innermost part wins)."""
    out: dict[int, CharInfo] = {}
    if layer.script is None:
        return out
    for script in scripts_of(layer.script):
        origin = script.origin
        for word, command, first, assigns in words_of(script):
            for part in word.parts:
                info = CharInfo(part.quoting, part.kind, word, script, command, first,
                                assigns)
                for off in part.offsets:
                    src = origin[off]
                    if src is not None:
                        out[src] = info
    return out




@dataclass
class Assigned:
    """Where a layer gives a variable a value."""

    span: tuple[int, int] | None  # source span of the assignment
    value: Word | None  # the value word, when it is `name=value`
    script: Script | None
    quoted: bool = False  # the value is shell-quoted output (printf %q, ${x@Q}, getopt)
    handover: bool = False  # `name=$name`: takes over a value an outer layer pasted in


def _value_part_of(word: Word, name: str) -> Word:
    """The value of an `export name=value` word, as a Word of its own parts after `=`."""
    parts: list[Part] = []
    seen_eq = False
    for p in word.parts:
        if seen_eq:
            parts.append(p)
        elif p.kind == "literal" and "=" in p.value:
            seen_eq = True
    return Word(word.span, word.raw, tuple(parts))


def assigned_names(layer: Layer) -> dict[str, list[Assigned]]:
    out: dict[str, list[Assigned]] = {}
    if layer.script is None:
        return out

    def add(name: str, a: Assigned) -> None:
        out.setdefault(name, []).append(a)

    for view in layer.commands:
        cmd = view.command
        script = view.context.script
        for a in cmd.assignments:
            add(a.name, Assigned(script.origin.span(*a.span), a.value, script))
        argv = view.argv
        if not argv or argv[0].dynamic:
            continue
        prog = argv[0].value
        values = [x.value for x in argv]
        if prog in _DECLARERS:
            for x in argv[1:]:
                if x.value.startswith(("-", "+")) or x.word is None:
                    continue
                name, eq, _ = x.value.partition("=")
                if _IDENT.fullmatch(name):
                    add(name, Assigned(x.source_span, _value_part_of(x.word, name) if eq
                                       else None, script))
        elif prog == "read":
            i = 1
            while i < len(values):
                v = values[i]
                if v == "--":
                    i += 1
                    break
                if v.startswith("-") and len(v) > 1:
                    if v[-1] == "a" and i + 1 < len(values):
                        add(values[i + 1], Assigned(argv[i + 1].source_span, None, script))
                        i += 2
                        continue
                    i += 2 if v[-1] in _READ_VALUE_OPTIONS else 1
                    continue
                break
            for x in argv[i:]:
                if _IDENT.fullmatch(x.value):
                    add(x.value, Assigned(x.source_span, None, script))
        elif prog == "printf" and len(values) > 2 and values[1] == "-v":
            quoted = len(values) > 3 and ("%q" in values[3] or "%Q" in values[3])
            add(values[2].partition("[")[0],
                Assigned(argv[2].source_span, None, script, quoted=quoted))
        elif prog in ("mapfile", "readarray") and len(values) > 1:
            last = values[-1]
            if _IDENT.fullmatch(last):
                add(last, Assigned(argv[-1].source_span, None, script))
        elif prog == "getopts" and len(values) > 2:
            add(values[2], Assigned(argv[2].source_span, None, script))
    for script in scripts_of(layer.script):
        for node in iter_nodes(script.body):
            if isinstance(node, Compound) and node.kind in ("for", "select") and node.name:
                add(node.name, Assigned(script.origin.span(*node.span), None, script))
    # Values that are shell-quoted output; `name=$name` hand-overs.
    for name, assigns in out.items():
        for found in assigns:
            if found.value is not None and found.value.raw.strip("\"'") in (
                    f"${name}", f"${{{name}}}"):
                found.handover = True
            if found.value is not None and found.script is not None and is_quoted_output(
                    found.value, found.script):
                found.quoted = True
    return out


def substitution_words(script: Script, part: Part) -> list[str] | None:
    """The words of the first simple command of a `$(...)`/backtick part (as written)."""
    inner = script.substitutions.get(part.span[0])
    if inner is None:
        found = script.substitutions_in(part.span)
        inner = found[0] if found else None
    if inner is None:
        return None
    for node in iter_nodes(inner.body):
        if isinstance(node, SimpleCommand) and node.words:
            return [w.value for w in node.words]
    return None


def quoting_command(words: Sequence[str]) -> bool:
    """A command whose output is shell-quoted text: printf %q, getopt, declare -p/-f..."""
    if not words:
        return False
    prog = basename(words[0])
    if prog == "printf":
        return any("%q" in w or "%Q" in w for w in words[1:])
    if prog == "getopt":
        return True
    if prog in ("declare", "typeset") and any(
            w.startswith("-") and ("p" in w or "f" in w) for w in words[1:]):
        return True
    if prog in ("export", "alias") and "-p" in words[1:]:
        return True
    if prog == "jq" and any("@sh" in w for w in words[1:]):
        return True
    return any("shlex.quote" in w or "shlex.join" in w for w in words)


def part_is_quoted_output(part: Part, script: Script) -> bool:
    if part.kind == "parameter" and re.search(r"@[QK]\}$", part.value):
        return True
    if part.kind in ("command", "backtick"):
        words = substitution_words(script, part)
        return words is not None and quoting_command(words)
    return False


def is_quoted_output(word: Word, script: Script) -> bool:
    exps = [p for p in word.parts if p.kind in EXPANSION_KINDS]
    return bool(exps) and all(part_is_quoted_output(p, script) for p in exps)


# -- program texts (QC105) ---------------------------------------------------------------------


@dataclass(frozen=True)
class Program:
    language: str  # awk, sed, perl, jq, python
    layer: Layer  # the awk layer, or the shell layer whose command runs sed/perl/jq/python
    text: str
    view: CommandView | None
    sources: frozenset[int]
    jq_names: frozenset[str] = frozenset()
    offsets: tuple[int | None, ...] = ()  # source offset of each character of ``text``

    def index_of(self, source: int) -> int | None:
        try:
            return self.offsets.index(source)
        except ValueError:
            return None


def _perl_programs(values: Sequence[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    i = 1
    while i < len(values):
        v = values[i]
        if v == "--" or not v.startswith("-") or v == "-":
            break
        j = 1
        taken = False
        while j < len(v):
            c = v[j]
            if c in "eE":
                if j + 1 < len(v):
                    out.append((i, j + 1))
                elif i + 1 < len(values):
                    out.append((i + 1, 0))
                    taken = True
                break
            if c in "iFMmIxdDCV":
                break
            if c in "l0":
                j += 1
                while j < len(v) and v[j] in "01234567xX0123456789abcdefABCDEF":
                    j += 1
                continue
            j += 1
        i += 2 if taken else 1
    return out


def _sed_programs(values: Sequence[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    script_given = False
    i = 1
    operand: int | None = None
    while i < len(values):
        v = values[i]
        if v == "--":
            if i + 1 < len(values):
                operand = i + 1
            break
        if v in ("-e", "--expression"):
            if i + 1 < len(values):
                out.append((i + 1, 0))
            script_given = True
            i += 2
            continue
        if v.startswith("--expression="):
            out.append((i, len("--expression=")))
            script_given = True
        elif v in ("-f", "--file", "-l", "--line-length"):
            script_given = script_given or v in ("-f", "--file")
            i += 2
            continue
        elif v.startswith("--file="):
            script_given = True
        elif v.startswith("-e") and not v.startswith("--"):
            out.append((i, 2))
            script_given = True
        elif v.startswith("-f") and not v.startswith("--"):
            script_given = True
        elif v.startswith("-") and len(v) > 1:
            pass
        elif operand is None:
            operand = i
            break
        i += 1
    if not script_given and operand is not None:
        out.append((operand, 0))
    return out


_JQ_TWO = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})
_JQ_ONE = frozenset({"--indent", "-L", "-f", "--from-file"})


def _jq_program(values: Sequence[str]) -> tuple[list[tuple[int, int]], frozenset[str]]:
    names: set[str] = set()
    i = 1
    program: int | None = None
    from_file = False
    while i < len(values):
        v = values[i]
        if v in _JQ_TWO:
            if i + 1 < len(values):
                names.add(values[i + 1])
            i += 3
            continue
        if v in _JQ_ONE:
            from_file = from_file or v in ("-f", "--from-file")
            i += 2
            continue
        if v in ("--args", "--jsonargs"):
            i += 1
            continue
        if v.startswith("-") and len(v) > 1:
            i += 1
            continue
        if program is None and not from_file:
            program = i
        i += 1
    return ([(program, 0)] if program is not None else []), frozenset(names)


def _python_programs(values: Sequence[str]) -> list[tuple[int, int]]:
    i = 1
    while i < len(values):
        v = values[i]
        if v == "-c":
            return [(i + 1, 0)] if i + 1 < len(values) else []
        if v.startswith("-c") and len(v) > 2:
            return [(i, 2)]
        if v in ("-m", "--") or not v.startswith("-"):
            return []
        if v in ("-W", "-X", "-Q"):
            i += 2
            continue
        i += 1
    return []


def programs_in_view(layer: Layer, view: CommandView) -> list[Program]:
    """sed/perl/jq/python program texts given on ``view``'s command line."""
    argv = view.argv
    if not argv or argv[0].dynamic:
        return []
    values = [a.value for a in argv]
    prog = basename(values[0])
    jq_names: frozenset[str] = frozenset()
    if prog in ("sed", "gsed"):
        language, found = "sed", _sed_programs(values)
    elif prog in ("perl", "perl5"):
        language, found = "perl", _perl_programs(values)
    elif prog in ("jq", "gojq", "jaq"):
        language = "jq"
        found, jq_names = _jq_program(values)
    elif PYTHONS.fullmatch(prog):
        language, found = "python", _python_programs(values)
    elif prog in ("awk", "gawk", "mawk", "nawk"):
        # `gawk -e PROGRAM` / `--source=PROGRAM`: no awk layer is opened for these.
        language = "awk"
        dynamic = frozenset(i for i, a in enumerate(argv) if a.dynamic)
        try:
            h = ho.classify(values, dynamic)
        except (ValueError, IndexError, KeyError):
            return []
        if not isinstance(h, ho.AwkHandoff):
            return []
        found = []
        for opt in h.sources:
            if opt.value_index is not None and opt.value is not None:
                cut = len(values[opt.value_index]) - len(opt.value)
                found.append((opt.value_index, max(cut, 0)))
    else:
        return []
    out: list[Program] = []
    for index, cut in found:
        if index >= len(argv):
            continue
        arg: Arg = argv[index]
        srcs = frozenset(o for o in arg.offsets[cut:] if o is not None)
        out.append(Program(language, layer, arg.value[cut:], view, srcs, jq_names,
                           tuple(arg.offsets[cut:])))
    return out


# -- expansions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expansion:
    """An expansion a shell layer performs in a word of one of its commands."""

    layer: Layer
    view: CommandView
    script: Script
    word: Word
    part: Part
    sources: tuple[int, ...]
    heredoc: Redirect | None = None

    @property
    def span(self) -> tuple[int, int]:
        return (min(self.sources), max(self.sources) + 1)

    @property
    def text(self) -> str:
        return self.part.value

    @property
    def name(self) -> str | None:
        if self.part.kind in ("parameter", "special"):
            return param_name(self.part.value)
        return None

    @property
    def pclass(self) -> ParamClass:
        return param_class(self.name) if self.part.kind in ("parameter", "special") else "none"

    @property
    def shown(self) -> str:
        return short(self.part.value, 40)


@dataclass(frozen=True)
class Landing:
    """Where an expansion's text is read by an inner shell layer."""

    layer: Layer
    infos: tuple[CharInfo, ...]

    @property
    def unquoted(self) -> bool:
        return any(i.quoting == "none" for i in self.infos)

    @property
    def command_word(self) -> bool:
        """The expansion is the whole command name of an inner command."""
        return any(i.first_word and i.quoting == "none" and len(i.word.parts) == 1
                   for i in self.infos)


@dataclass
class Result:
    code: Code
    finding: Finding


@dataclass
class Analysis:
    trace: Trace
    results: list[Result] = field(default_factory=list)
    _chars: dict[int, dict[int, CharInfo]] = field(default_factory=dict)
    _assigned: dict[int, dict[str, list[Assigned]]] = field(default_factory=dict)
    _programs: dict[int, list[Program]] = field(default_factory=dict)
    _children: dict[int, list[int]] = field(default_factory=dict)

    def chars(self, layer: Layer) -> dict[int, CharInfo]:
        if layer.id not in self._chars:
            self._chars[layer.id] = char_map(layer)
        return self._chars[layer.id]

    def assigned(self, layer: Layer) -> dict[str, list[Assigned]]:
        if layer.id not in self._assigned:
            self._assigned[layer.id] = assigned_names(layer)
        return self._assigned[layer.id]

    def programs(self, layer: Layer) -> list[Program]:
        """Program texts read by ``layer`` (an awk layer) or by commands of ``layer``."""
        if layer.id not in self._programs:
            found: list[Program] = []
            if layer.kind == "awk" and layer.text is not None and layer.origin is not None:
                found.append(Program(
                    "awk", layer, layer.text, layer.opened_by,
                    frozenset(source_offsets(layer.origin.runs())), frozenset(),
                    tuple(layer.origin[i] for i in range(len(layer.text)))))
            elif layer.kind == "shell":
                for view in layer.commands:
                    found.extend(programs_in_view(layer, view))
            self._programs[layer.id] = found
        return self._programs[layer.id]

    def subtree(self, roots: Iterable[int]) -> list[Layer]:
        if not self._children:
            for layer in self.trace.layers:
                if layer.parent is not None:
                    self._children.setdefault(layer.parent, []).append(layer.id)
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen or i < 0 or i >= len(self.trace.layers):
                continue
            seen.add(i)
            stack.extend(self._children.get(i, []))
        return [self.trace.layers[i] for i in sorted(seen)]


def expansions_of(layer: Layer, view: CommandView,
                  inherited: Sequence[set[int]]) -> list[Expansion]:
    """Expansions ``layer`` performs in the words (and heredoc bodies) of ``view``."""
    script = view.context.script
    out: list[Expansion] = []

    def make(word: Word, part: Part, heredoc: Redirect | None) -> None:
        srcs = tuple(s for s in (script.origin[o] for o in part.offsets) if s is not None)
        if not srcs or any(s in outer for outer in inherited for s in srcs):
            return  # characters an outer layer put here: not this layer's expansion
        out.append(Expansion(layer, view, script, word, part, srcs, heredoc))

    for word in view.command.words:
        for part in word.parts:
            if part.kind in EXPANSION_KINDS and part.quoting in ("none", "double"):
                make(word, part, None)
    for r in view.command.redirects:
        if r.heredoc is not None and not r.heredoc.spec.quoted:
            for part in r.heredoc.body.parts:
                if part.kind in EXPANSION_KINDS:
                    make(r.heredoc.body, part, r)
    return out


def analyse(ctx: CheckContext) -> Analysis:
    """The decision for every expansion of the check, made once for the four rules."""
    def make() -> Analysis:
        analysis = Analysis(ctx.trace)
        _run(ctx, analysis)
        return analysis
    return ctx.memo.get_or_compute("crosslayer", ctx.trace, make)


def findings(ctx: CheckContext, code: Code) -> Iterator[Finding]:
    for r in analyse(ctx).results:
        if r.code == code:
            yield r.finding


def _run(ctx: CheckContext, an: Analysis) -> None:
    trace = ctx.trace
    layers = trace.layers
    own: dict[int, set[int]] = {}
    # For each layer, the expansion offsets of its shell ancestors (shared sets, not copies:
    # a long script with many commands must not make this quadratic).
    outer: dict[int, tuple[set[int], ...]] = {}
    for layer in layers:
        parent = layers[layer.parent] if layer.parent is not None else None
        if parent is None:
            outer[layer.id] = ()
        elif parent.kind == "shell":
            outer[layer.id] = (*outer.get(parent.id, ()), own.get(parent.id, set()))
        else:
            outer[layer.id] = outer.get(parent.id, ())
        if layer.kind != "shell":
            continue
        mine: set[int] = set()
        for view in layer.commands:
            for exp in expansions_of(layer, view, outer[layer.id]):
                mine.update(exp.sources)
                result = judge(ctx, an, exp)
                if result is not None:
                    an.results.append(result)
        own[layer.id] = mine
    for layer in layers:
        if layer.kind == "exec":
            an.results.extend(placeholder_results(ctx, an, layer))


# -- words joined by ssh / watch (QC102) ----------------------------------------------------------

_OPERATORS = {
    ";": "a command separator",
    "&": "a background (or `&&`) operator",
    "|": "a pipe",
    "<": "a redirection",
    ">": "a redirection",
    "(": "a subshell parenthesis",
    ")": "a subshell parenthesis",
}


@dataclass(frozen=True)
class Issue:
    kind: str  # empty, split, operator, comment, glob, quote, newline
    detail: str

    @property
    def severity(self) -> Severity:
        return "info" if self.kind == "glob" else "warning"


def word_issues(word: str) -> list[Issue]:
    """How a POSIX shell would read ``word`` differently from one literal word."""
    if word == "":
        return [Issue("empty", "is empty and disappears: the remote command gets one "
                               "argument fewer")]
    issues: dict[str, Issue] = {}
    quote: str | None = None
    at_start = True
    i = 0
    while i < len(word):
        c = word[i]
        if quote == "'":
            if c == "'":
                quote = None
            i += 1
            continue
        if quote == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                quote = None
            i += 1
            continue
        if c == "\\":
            nxt = word[i + 1:i + 2]
            if nxt == "" or nxt.isalnum() or nxt in "_-./,:=+%@^":
                # Not escaping anything special: the remote shell just drops the backslash.
                issues.setdefault("backslash", Issue(
                    "backslash", f"holds `\\{nxt}`, which the remote shell reads as an escape "
                                 f"and turns into `{nxt}`"))
            i += 2
            at_start = False
            continue
        if c in "'\"":
            quote = c
            at_start = False
        elif c in " \t":
            issues.setdefault("split", Issue("split", "is split at its whitespace into "
                                                      "several words"))
            at_start = True
            i += 1
            continue
        elif c == "\n":
            issues.setdefault("newline", Issue("newline", "holds a newline, which ends the "
                                                          "command there"))
            at_start = True
            i += 1
            continue
        elif c in _OPERATORS:
            issues.setdefault("operator", Issue(
                "operator", f"holds `{c}`, which the remote shell reads as {_OPERATORS[c]}"))
        elif c == "#" and at_start:
            issues.setdefault("comment", Issue(
                "comment", "starts with `#`: the remote shell ignores it and every word after "
                           "it"))
        elif c in "*?[":
            issues.setdefault("glob", Issue(
                "glob", f"holds `{c}`, which the remote shell expands as a file name pattern "
                        "on its side"))
        at_start = False
        i += 1
    if quote is not None:
        issues["quote"] = Issue("quote", f"holds an unmatched `{quote}`: the remote shell "
                                         "reads the rest as quoted text (or fails)")
    return list(issues.values())




def literal_view(arg: Arg) -> str:
    """``arg``'s value with each expansion replaced by a neutral character: what the word's
    own (literal) text does once joined, whatever the values."""
    if arg.word is None or not arg.dynamic:
        return arg.value
    return "".join("x" if p.kind in EXPANSION_KINDS else p.value for p in arg.word.parts)


def joined_words(trace: Trace, layer: Layer) -> list[Arg] | None:
    """The command words an ssh layer or a `watch` join layer joins (None when not such a
    layer, or when the words are not known)."""
    if layer.kind == "ssh":
        pass
    elif not (layer.kind == "join" and layer.via == "watch"):
        return None
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    argv = parent.argv if parent is not None and parent.kind == "exec" else (
        layer.opened_by.argv if layer.opened_by is not None else [])
    if not argv or argv[0].dynamic:
        return None
    values = [a.value for a in argv]
    dynamic = frozenset(i for i, a in enumerate(argv) if a.dynamic)
    try:
        h = ho.classify(values, dynamic)
    except (ValueError, IndexError, KeyError):
        return None
    if isinstance(h, ho.SshHandoff) and layer.kind == "ssh":
        if h.subsystem or h.no_command:
            return None
        indices = list(h.command)
    elif isinstance(h, ho.JoinHandoff) and h.wrapper == "watch" and layer.kind == "join":
        indices = list(h.words)
    else:
        return None
    return [argv[i] for i in indices if i < len(argv)]


def joined_word_issue(an: Analysis, exp: Expansion) -> bool:
    """The expansion's word is one of several words ssh/watch joins, and the word's own text
    already breaks (QC102 reports the word: one finding for one mistake)."""
    for layer_id in exp.view.opens:
        layer = an.trace.layers[layer_id]
        words = joined_words(an.trace, layer)
        if not words or len(words) < 2:
            continue
        for arg in words:
            if arg.word is exp.word and any(
                    i.kind != "glob" for i in word_issues(literal_view(arg))):
                return True
    return False


# -- the decision ------------------------------------------------------------------------------


def landings(an: Analysis, exp: Expansion, shells: list[Layer]) -> list[Landing]:
    """The inner shell layers that read the expansion's text, outermost first.

    What counts is the inner part holding the expansion's first character (its `$` or
    backtick): the characters after it are replaced by the value, so how the inner layer
    would have parsed them (`$(pwd)` as a command `pwd`) does not matter.
    """
    out: list[Landing] = []
    first = exp.sources[0]
    for layer in shells:
        info = an.chars(layer).get(first)
        if info is not None:
            out.append(Landing(layer, (info,)))
    return out


def judge(ctx: CheckContext, an: Analysis, exp: Expansion) -> Result | None:
    below = an.subtree(exp.view.opens)
    shells = [x for x in below if x.kind == "shell"]
    if exp.heredoc is not None:
        for land in landings(an, exp, shells):
            if land.layer.stdin_script:
                return heredoc_result(ctx, an, exp, land, below)
        return None
    # QC105: the text lands in a program (awk, sed, perl, jq, python).
    for layer in [exp.layer, *below]:
        for prog in an.programs(layer):
            if prog.view is not None and layer is exp.layer and prog.view is not exp.view:
                continue
            if any(s in prog.sources for s in exp.sources):
                return program_result(ctx, an, exp, prog)
    lands = landings(an, exp, shells)
    if not lands or joined_word_issue(an, exp):
        return None
    damage = next((land for land in lands if land.unquoted), None)
    first = lands[0]
    return code_result(ctx, an, exp, first, damage)


def _escape_fix(ctx: CheckContext, exp: Expansion) -> tuple[Fix, ...]:
    start = exp.span[0]
    if exp.part.quoting in ("double", "none", "heredoc") and ctx.source[start:start + 1] == "$":
        return (Fix(f"write \\{exp.text} so that the inner layer expands it",
                    (Edit((start, start), "\\"),), "unsafe"),)
    return ()


def _local(exp: Expansion) -> str:
    return f"the {exp.layer.label()}"


def _quote_advice(ctx: CheckContext, an: Analysis, exp: Expansion, land: Layer) -> str:
    """A sentence: how to pass the outer value to ``land`` without it becoming code."""
    trace = ctx.trace
    value = f'"{exp.text}"'
    if is_ssh_shell(trace, land) or is_eval(trace, land):
        where = "the remote shell" if is_ssh_shell(trace, land) else "eval"
        if exp.layer.dialect in ("bash", "zsh"):
            return (f"Quote it for {where}: write `$(printf %q {value})` in place of "
                    f"`{exp.text}` (or `'{exp.text}'` if the value can never hold a `'`)")
        return (f"Quote it for {where}: single-quote it (`'{exp.text}'`) if the value can "
                "never hold a `'`, else replace each `'` in it by `'\\''` first")
    direct = next((x for x in reversed(land.chain(trace.layers)[:-1]) if x.kind == "shell"),
                  None) is exp.layer
    if direct and runs_shell_program(land) and land.text:
        n = max(len(land.positional), 1)
        ref = f"${n}" if n < 10 else f"${{{n}}}"
        prog = program_of(land)
        if len(land.text) <= 70 and not land.positional:
            rewritten = _replace_sources(land, exp.sources, f'"{ref}"')
            if rewritten is not None:
                return (f"Pass it as an argument instead: `{prog} -c "
                        f"{single_quote(rewritten)} {prog} {value}`")
        return (f"Pass it as an argument instead: write `\"{ref}\"` in the script and add "
                f"{value} after the existing words (the first word after the script is $0)")
    if land.process and len(land.process) > 1 and land.process[1] == "-c":
        way = "" if direct else ", quoted for each shell on the way"
        return ("Pass it as an argument instead: write `\"$1\"` in the script and put the "
                f"value after the script as its own word{way} (the first word after the "
                "script becomes $0, the next one $1)")
    return (f"Quote it for {describe(trace, land)} (`printf %q`), or pass it as an argument "
            "instead of splicing it into the code")


def _local_value(name: str) -> str:
    if name in ENVIRONMENT_NAMES:
        return f"this machine's {name}"
    return "the local value (often empty)"


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _replace_sources(layer: Layer, sources: Sequence[int], text: str) -> str | None:
    idx = sorted(i for i in (text_index(layer, s) for s in sources) if i is not None)
    if not idx or layer.text is None:
        return None
    lo, hi = idx[0], idx[-1] + 1
    return layer.text[:lo] + text + layer.text[hi:]


def code_result(ctx: CheckContext, an: Analysis, exp: Expansion, first: Landing,
                damage: Landing | None) -> Result | None:
    trace = ctx.trace
    kind = exp.part.kind
    where = damage.layer if damage is not None else first.layer
    inner = describe(trace, where)
    snippet = line_around(where, exp.sources)
    local = _local(exp)
    env_differs = environment_differs(trace, exp.layer, where)
    name = exp.name
    pclass = exp.pclass
    reached = [first.layer] if damage is None or damage.layer is first.layer else [
        first.layer, damage.layer]
    if pclass == "named" and name is not None:
        if part_is_quoted_output(exp.part, exp.script):
            return None
        sets = an.assigned(exp.layer).get(name, [])
        if sets and all(a.quoted for a in sets):
            return None  # `q=$(printf %q "$x")`, `printf -v q %q`, `opts=$(getopt ...)`
    if is_eval(trace, first.layer) and pclass in ("special", "positional", "named"):
        # eval runs in the same shell: the value is the same, only the parsing is doubled.
        if pclass == "special" or damage is None:
            return None
        return _qc103(ctx, an, exp, damage, snippet)
    if kind in ("parameter", "special"):
        # `ssh h "dir=$dir; ..."` hands the local value over on purpose; `PATH=$PATH:x`
        # extends the inner shell's own PATH (and gets this machine's instead).
        handed_over = any(i.assigns == name for land in (first, damage) if land is not None
                          for i in land.infos) and name not in ENVIRONMENT_NAMES
        if name is not None and pclass == "named" and not handed_over:
            for layer in reached:
                inner_sets = [a for a in an.assigned(layer).get(name, []) if not a.handover]
                if inner_sets:
                    rel = tuple(Related(a.span, f"{describe(trace, layer)} sets {name} here")
                                for a in inner_sets[:1] if a.span is not None)
                    msg = (f"`{exp.shown}` is expanded by {local} before {inner} runs, but "
                           f"that script sets `{name}` itself: {_local_value(name)} "
                           f"is pasted into `{snippet}` and the inner assignment is never "
                           f"read there. Write `\\{exp.text}` (or single-quote the inner "
                           "script) so that the inner shell expands it.")
                    return Result("QC101", Finding(exp.span, msg, where, rel,
                                                   _escape_fix(ctx, exp), "error"))
        if pclass == "special":
            return _special(ctx, exp, first, where, inner, snippet, env_differs)
        if pclass == "positional":
            return _positional(ctx, an, exp, first, damage, snippet)
        if pclass == "named" and name is not None:
            sets = an.assigned(exp.layer).get(name, [])
            if damage is None:
                return None
            if not sets and name in ENVIRONMENT_NAMES and env_differs:
                msg = (f"`{exp.shown}` is expanded by {local} before the command reaches "
                       f"{inner}: `{snippet}` gets this machine's {name}, not the one "
                       f"{inner} would see. If you meant the inner value, write "
                       f"`\\{exp.text}` inside the double quotes (or single-quote the whole "
                       f"command). If the local value is what you want: "
                       f"{_lower(_quote_advice(ctx, an, exp, where))}.")
                return Result("QC101", Finding(exp.span, msg, where, (),
                                               _escape_fix(ctx, exp), "warning"))
            return _qc103(ctx, an, exp, damage, snippet)
        return None
    if kind in ("command", "backtick"):
        if part_is_quoted_output(exp.part, exp.script) or damage is None:
            return None
        if damage.command_word:
            return None  # generated code: `eval "$(ssh-agent -s)"`, `ssh h "$(declare -f f)"`
        words = substitution_words(exp.script, exp.part)
        if words and basename(words[0]) in ("declare", "typeset", "cat"):
            return None
        if env_differs:
            msg = (f"`{exp.shown}` runs on this machine ({local}), before the command "
                   f"reaches {inner}; its output is pasted unquoted into `{snippet}`. If the "
                   f"command was meant to run there, write `\\{exp.text}` (or single-quote the "
                   "whole command). If the local output is what you want: "
                   f"{_lower(_quote_advice(ctx, an, exp, where))}.")
            return Result("QC101", Finding(exp.span, msg, where, (), (), "warning"))
        return _qc103(ctx, an, exp, damage, snippet)
    if kind == "arithmetic":
        names = set(_ARITH_NAMES.findall(exp.text[3:-2]))
        for layer in reached:
            hit = sorted(n for n in names if n in an.assigned(layer))
            if hit:
                msg = (f"`{exp.shown}` is computed by {local} before {inner} runs, but that "
                       f"script sets `{hit[0]}` itself: the result uses the local value. "
                       f"Write `\\{exp.text}` so that the inner shell computes it.")
                return Result("QC101", Finding(exp.span, msg, where, (),
                                               _escape_fix(ctx, exp), "error"))
        return None
    if kind == "process" and env_differs:
        msg = (f"`{exp.shown}` is replaced by {local} with a /dev/fd/N path of this machine; "
               f"{inner} cannot open it. Run the command there instead, or send the data on "
               "stdin.")
        return Result("QC101", Finding(exp.span, msg, where, (), (), "error"))
    return None


def _special(ctx: CheckContext, exp: Expansion, first: Landing, where: Layer, inner: str,
             snippet: str, env_differs: bool) -> Result | None:
    name = exp.name or "?"
    local = _local(exp)
    if name == "!":
        background = any(
            v.context.background and v.source_span is not None
            and v.source_span[0] < exp.span[0] for v in first.layer.commands)
        if not env_differs and not background:
            return None  # the inner shell has no job of its own: the local PID is meant
        own = ("the inner script starts a background job itself, so write `\\$!` to get its "
               "PID" if background else
               "write `\\$!` if you meant a job the inner script starts")
        msg = (f"`{exp.shown}` is expanded by {local} before the command reaches {inner}: "
               f"`{snippet}` gets the PID of this shell's last background job (or nothing), "
               f"a number that means nothing there; {own}.")
        severity: Severity = "error"
    elif name == "?":
        msg = (f"`{exp.shown}` is expanded by {local} when the command line is built, so "
               f"`{snippet}` gets the exit status of the local command that ran before, not "
               f"of a command {inner} runs. Write `\\$?` so that the inner shell expands it.")
        severity = "error"
    elif name == "$":
        msg = (f"`{exp.shown}` is expanded by {local}: `{snippet}` gets this shell's PID, not "
               f"the PID of {inner}. That is fine as a unique name; to use the inner shell's "
               "own PID write `\\$$`.")
        severity = "warning"
    else:
        msg = (f"`{exp.shown}` is expanded by {local}, not by {inner}: `{snippet}` gets the "
               f"outer value. Write `\\{exp.text}` if the inner shell should expand it.")
        severity = "warning"
    return Result("QC101", Finding(exp.span, msg, where, (), _escape_fix(ctx, exp), severity))


def _positional(ctx: CheckContext, an: Analysis, exp: Expansion, first: Landing,
                damage: Landing | None, snippet: str) -> Result | None:
    trace = ctx.trace
    local = _local(exp)
    target = damage.layer if damage is not None else first.layer
    name = exp.name or "1"
    what = {"#": "the number of arguments", "@": "the arguments", "*": "the arguments",
            "0": "the name of the script"}.get(name, f"argument {name}")
    if damage is not None and damage.command_word:
        if name in ("@", "*") and is_ssh_shell(trace, target):
            return _qc103(ctx, an, exp, damage, snippet)
        return _qc103(ctx, an, exp, damage, snippet, severity="info")
    inner = describe(trace, target)
    own = has_own_arguments(target)
    if own or (damage is not None and not is_ssh_shell(trace, target)
               and not is_eval(trace, target)):
        given = ("it was given its own arguments" if own else
                 "it gets no arguments, so its own is empty")
        msg = (f"`{exp.shown}` is expanded by {local} ({what} of the outer script) while the "
               f"text is still the script of {inner} (`{snippet}`); that shell has its own "
               "positional "
               f"parameters ({given}), and the outer value is pasted in as code. "
               f"{_quote_advice(ctx, an, exp, target)}.")
        return Result("QC101", Finding(exp.span, msg, target, (), (), "error"))
    if damage is None:
        return None
    return _qc103(ctx, an, exp, damage, snippet)


def _qc103(ctx: CheckContext, an: Analysis, exp: Expansion, damage: Landing, snippet: str,
           severity: Severity | None = None) -> Result | None:
    trace = ctx.trace
    where = damage.layer
    inner = describe(trace, where)
    local = _local(exp)
    related: tuple[Related, ...] = ()
    if exp.name in ("@", "*") and is_ssh_shell(trace, where):
        msg = (f"ssh joins the words of `{exp.shown}` with spaces and {inner} parses the "
               f"result again (`{snippet}`): an argument holding a space, a quote, `;` or "
               "`$(...)` is split or runs as code there. Quote each argument for the remote "
               "shell: `ssh host \"$(printf '%q ' \"$@\")\"`.")
        return Result("QC103", Finding(exp.span, msg, where, (), (), severity))
    if damage.command_word:
        # The whole command comes from the value: code in a variable.
        name = exp.name
        if exp.pclass == "named" and name is not None:
            sets = an.assigned(exp.layer).get(name, [])
            dynamic = [a for a in sets if a.value is None or a.value.dynamic]
            if sets and not dynamic:
                return None  # a command the script wrote itself
            if dynamic:
                related = tuple(Related(a.span, f"`{name}` is built here")
                                for a in dynamic[:1] if a.span is not None)
                severity = "warning"
            else:
                severity = severity or "info"
        built = (f" `{exp.name}` is built from other values here, and they become code "
                 "with it." if related else "")
        msg = (f"the command `{snippet}` that {inner} runs is the value of `{exp.shown}` "
               f"({local} pastes it in): whatever it holds is parsed as code there.{built} "
               "That is fine for a command you wrote yourself; data (file names, user input) "
               "must not be built into that string: pass it as arguments "
               "(`sh -c 'cmd \"$1\"' sh \"$data\"`) or quote it with `printf %q`.")
        return Result("QC103", Finding(exp.span, msg, where, related, (), severity))
    kind = "command output" if exp.part.kind in ("command", "backtick") else "value"
    msg = (f"the {kind} of `{exp.shown}` is pasted by {local} into the code that {inner} parses "
           f"(`{snippet}`), without quotes for that layer: spaces split it, `*` and `?` "
           "glob, and any `;`, `|`, `$(...)` or quote in it runs as shell code there. "
           f"{_quote_advice(ctx, an, exp, where)}.")
    return Result("QC103", Finding(exp.span, msg, where, related, (), severity))


# -- QC104 ---------------------------------------------------------------------------------------


def heredoc_result(ctx: CheckContext, an: Analysis, exp: Expansion, land: Landing,
                   below: list[Layer]) -> Result | None:
    trace = ctx.trace
    layer = land.layer
    heredoc = exp.heredoc
    assert heredoc is not None
    delim = heredoc.heredoc.spec.delimiter if heredoc.heredoc is not None else "EOF"
    inner = describe(trace, layer)
    snippet = line_around(layer, exp.sources)
    local = _local(exp)
    env_differs = environment_differs(trace, exp.layer, layer)
    related: list[Related] = []
    if heredoc.heredoc is not None:
        span = exp.script.origin.span(*heredoc.heredoc.spec.delimiter_span)
        if span is not None:
            related.append(Related(span, "this delimiter is unquoted: write it as "
                                         f"'{delim}' to keep the body as written"))
    name = exp.name
    pclass = exp.pclass
    severity: Severity = "warning"
    why = "its local value replaces it"
    handed_over = any(i.assigns == name for i in land.infos) and (
        name not in ENVIRONMENT_NAMES)
    if pclass == "named" and name is not None and not handed_over and any(
            not a.handover for a in an.assigned(layer).get(name, [])):
        severity = "error"
        why = (f"the script sets `{name}` itself, but {_local_value(name)} replaces "
               "every use before it runs")
    elif pclass == "special":
        severity = "error" if name in ("!", "?") else "warning"
        why = {"!": "the PID of this shell's last background job replaces it",
               "?": "the exit status of the local command before replaces it",
               "$": "this shell's PID replaces it"}.get(name or "", why)
    elif pclass == "positional":
        if has_own_arguments(layer):
            severity = "error"
            why = "the outer script's argument replaces it, not the one passed to the shell"
        else:
            why = "the local script's argument replaces it" + (
                ", unquoted, as code" if land.unquoted else "")
    elif exp.part.kind in ("command", "backtick"):
        why = "the command runs on this machine first and its output replaces it"
    elif exp.part.kind == "arithmetic":
        names = set(_ARITH_NAMES.findall(exp.text[3:-2]))
        if names & set(an.assigned(layer)):
            severity = "error"
            why = "it is computed with local values, not the ones the script sets"
        else:
            severity = "info"
            why = "it is computed locally"
    elif pclass == "named" and name is not None:
        if name in ENVIRONMENT_NAMES and env_differs and name not in an.assigned(exp.layer):
            why = f"this machine's {name} replaces it"
        elif not land.unquoted:
            severity = "info"
            why = "its local value replaces it (quoted in the script)"
        else:
            why = "its local value replaces it, unquoted, as code"
    for prog in (p for x in below for p in an.programs(x)):
        if any(s in prog.sources for s in exp.sources):
            severity = "error"
            why += (f"; it sits inside {article(prog.language)} program, which never sees "
                    f"`{exp.text}`")
            break
    msg = (f"the heredoc delimiter `{delim}` is unquoted, so {local} expands `{exp.shown}` in "
           f"the body before {inner} gets the script (`{snippet}`): {why}. To keep it for "
           f"the inner shell, quote the delimiter (<<'{delim}') or write `\\{exp.text}`; to "
           "send a local value, quote the delimiter and pass the value as an argument "
           "(`bash -s -- \"$(printf %q \"$x\")\" <<'EOF'`, then \"$1\" in the script).")
    return Result("QC104", Finding(exp.span, msg, layer, tuple(related),
                                   _escape_fix(ctx, exp), severity))


# -- QC105 ---------------------------------------------------------------------------------------


def _awk_identifier_used(program: str, name: str) -> bool:
    return re.search(rf"(?<![$\w]){re.escape(name)}(?!\w)", program) is not None


def program_result(ctx: CheckContext, an: Analysis, exp: Expansion,
                   prog: Program) -> Result | None:
    trace = ctx.trace
    name = exp.name
    pclass = exp.pclass
    lang = prog.language
    local = _local(exp)
    assigned = name is not None and name in an.assigned(exp.layer)
    meant: bool  # the text was meant for the program
    if lang == "awk":
        meant = pclass in ("positional", "special") or (
            name is not None and (name in AWK_BUILTINS or (
                not assigned and _awk_identifier_used(prog.text, name))))
        advice = ("write `\\$` (`\\" + exp.text + "`) or single-quote the program; pass shell "
                  "values with `-v name=\"$value\"` or through ENVIRON")
    elif lang == "sed":
        # sed's `$` (last line) starts an address: `$d`, `1,$s/a/b/`, `$!N`.
        at = prog.index_of(exp.sources[0])
        before = prog.text[:at].rstrip(" \t") if at is not None else "?"
        address = before == "" or before[-1] in ",;\n{}!"
        meant = address and (name == "!" or (
            pclass == "named" and name is not None and name[:1] in SED_COMMANDS
            and not assigned))
        if not meant:
            return None  # `sed "s/$old/$new/"`: deliberate interpolation
        advice = "write `\\$` or single-quote the script"
    elif lang == "perl":
        meant = pclass in ("positional", "special") or (
            name in ("F", "ARGV", "ENV", "INC", "a", "b") and not assigned)
        advice = ("write `\\$` or single-quote the program; pass shell values as arguments "
                  "(@ARGV) or in %ENV")
    elif lang == "jq":
        meant = name is not None and (name in prog.jq_names or name in ("ENV", "__loc__"))
        advice = "write `\\$` or single-quote the filter; pass shell values with --arg"
    else:
        meant = False
        advice = ("single-quote the program and pass shell values as arguments (sys.argv) or "
                  "in the environment (os.environ)")
    if exp.part.kind in ("command", "backtick") and lang != "python":
        meant = False
    received = _program_as_received(prog, exp, an.assigned(exp.layer))
    receives = f"`{received}`" if received.strip() else "an empty program"
    layer_note = ""
    shell = prog.layer if prog.layer.kind == "shell" else (
        trace.layers[prog.layer.parent] if prog.layer.parent is not None else prog.layer)
    while shell.kind != "shell" and shell.parent is not None:
        shell = trace.layers[shell.parent]
    if shell is not exp.layer:
        layer_note = (f" (one layer out: {local} builds the command line that "
                      f"{describe(trace, shell)} runs)")
    if meant:
        msg = (f"`{exp.shown}` sits in {article(lang)} program, but the program is in double "
               f"quotes (or unquoted) for {local}{layer_note}, which expands it first: {lang} "
               f"receives {receives}. To let {lang} see `{exp.text}`, {advice}.")
        severity: Severity = "error"
    else:
        msg = (f"{local} expands `{exp.shown}` inside {article(lang)} program{layer_note}, so the "
               f"value becomes {lang} code ({receives}): quotes, backslashes or "
               f"{lang} syntax in it change the program. {advice[0].upper()}{advice[1:]}.")
        severity = "warning"
    target = prog.layer
    return Result("QC105", Finding(exp.span, msg, target, (), _escape_fix(ctx, exp)
                                   if meant else (), severity))


def _program_as_received(prog: Program, exp: Expansion, assigned: Iterable[str]) -> str:
    """The program text with the expansion replaced by what the shell puts there."""
    text = prog.text
    stand_in = "" if exp.pclass in ("positional", "special") or (
        exp.name is not None and exp.name not in assigned) else f"<value of {exp.shown}>"
    idx = sorted(i for i in (prog.index_of(s) for s in exp.sources) if i is not None)
    if idx:
        text = text[: idx[0]] + stand_in + text[idx[-1] + 1:]
    return short(text, 70)


# -- placeholders of find -exec / xargs -I ---------------------------------------------------------


def _placeholder(trace: Trace, layer: Layer) -> str | None:
    if layer.via == "find":
        return "{}"
    if layer.via != "xargs":
        return None
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    argv = parent.argv if parent is not None and parent.kind == "exec" else (
        layer.opened_by.argv if layer.opened_by is not None else [])
    values = [a.value for a in argv]
    dynamic = frozenset(i for i, a in enumerate(argv) if a.dynamic)
    try:
        h = ho.classify(values, dynamic)
    except (ValueError, IndexError, KeyError):
        return None
    if isinstance(h, ho.ExecHandoff) and h.wrapper == "xargs":
        return h.placeholder
    return None


def placeholder_results(ctx: CheckContext, an: Analysis, layer: Layer) -> list[Result]:
    trace = ctx.trace
    ph = _placeholder(trace, layer)
    if not ph:
        return []
    out: list[Result] = []
    shells = [x for x in an.subtree([layer.id]) if x.kind == "shell"]
    for arg in layer.argv:
        if ph not in arg.value:
            continue
        at = arg.value.find(ph)
        while at >= 0:
            srcs = tuple(o for o in arg.offsets[at:at + len(ph)] if o is not None)
            at = arg.value.find(ph, at + len(ph))
            if len(srcs) != len(ph):
                continue
            for shell in shells:
                cmap = an.chars(shell)
                infos = [cmap.get(s) for s in srcs]
                if not any(infos):
                    continue
                quoting = next((i.quoting for i in infos if i is not None), "none")
                snippet = line_around(shell, srcs)
                prog = program_of(shell)
                inner = describe(trace, shell)
                quoted = (" The quotes around it do not help: a name holding a quote of the "
                          "same kind ends them, and inside double quotes `$(...)` still runs."
                          if quoting in QUOTED_KINDS else "")
                tail = "sh {} +" if layer.via == "find" else f"sh {ph}"
                if layer.via == "find":
                    use = (f"`find ... -exec {prog} -c '... \"$1\" ...' sh {{}} \\;` (or "
                           f"`-exec {prog} -c 'for f; do ... \"$f\"; done' {tail}`)")
                else:
                    use = f"`xargs -I{ph} {prog} -c '... \"$1\" ...' {tail}`"
                msg = (f"{layer.via} pastes each input name in place of `{ph}` inside the "
                       f"script that {inner} parses (`{snippet}`): a file name such as "
                       f"`x;reboot` or `$(rm -rf ~).txt` runs as code.{quoted} Pass the name "
                       f"as an argument instead: {use}.")
                out.append(Result("QC103", Finding(
                    (min(srcs), max(srcs) + 1), msg, shell, (), (), "error")))
                break
    return out
