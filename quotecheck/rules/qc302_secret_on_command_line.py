"""QC302 secret-on-command-line: a password, token or key in some process's argv.

Two kinds of exposure:

- a program receives the secret as an argument (`sshpass -p`, `curl -u user:pass`, `mysql -pX`,
  `--password=X`, `-H "Authorization: Bearer X"`, `https://user:pass@host`): the value is in
  that program's argv on the machine where it runs, readable through `ps`/`/proc/PID/cmdline`
  by every local user. A dynamic value (`"$TOKEN"`) is no better: the shell expands it before
  the program starts, so the argv holds the value. When the text sits inside a remote string or
  an `sh -c` string, the outer command lines (the local `ssh`, the remote shell's
  `<shell> -c <string>`) carry it too, unless the value is expanded by the inner shell itself;
- an environment assignment (`TOKEN=abc cmd`, `export PGPASSWORD=abc`) is not on any argv in a
  script file, but inside a remote or `sh -c` string it is: the string is the shell's argv.

Obvious placeholders (`xxx`, `****`, `<password>`, `-`, `REDACTED`) are not reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.tree import Script, SimpleCommand, iter_nodes
from quotecheck.parsing.words import Part
from quotecheck.programs import (
    DECLARATION_BUILTINS,
    FILE_PASSWORD_PROGRAMS,
    MYSQL_CLIENTS,
    NO_PROCESS_BUILTINS,
    PASSWORD_OPTION_PROGRAMS,
    RANDOM_DEVICES,
    RANDOM_VALUE_PROGRAMS,
    RANDOM_VALUE_SUBCOMMANDS,
    REGISTRY_LOGIN_TOOLS,
    basename,
)
from quotecheck.records import FrozenRecord, replace
from quotecheck.rules._portability import inherited, mask
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.runtime.word_values import layer_values
from quotecheck.rules.triggers import ALWAYS

Basis = Literal["known", "name", "header", "blanked"]


class Secret(FrozenRecord):
    index: int  # argv index of the word holding it
    start: int  # offsets in that word's value
    end: int
    what: str  # "`curl -u`", "`--password=`"
    instead: str
    # "known": quotecheck knows the option takes the secret itself. "name": an option known by
    # its name only (`--password` of a program it has no entry for); "header": a request header
    # (mostly a short-lived bearer token). On the precision corpus the last two were throw-away
    # test passwords or personal tokens: info. "blanked": the program overwrites its copy as it
    # starts (MySQL clients), so only an outer command line keeps the value for long.
    basis: Basis = "known"


_PLACEHOLDER = lazy_compile(
    r"[xX*._-]*|<[^<>]*>|\[?redacted[^ ]*\]?|\.\.\.|\$\{?[A-Za-z_]*PLACEHOLDER\}?", re.I)
_URL_CREDENTIALS = lazy_compile(r"\b[a-z][a-z0-9+.-]*://([^/\s:@]+):([^/\s@]+)@", re.I)
_AUTH_HEADER = lazy_compile(
    r"\s*(authorization|proxy-authorization|x-api-key|api-key|x-auth-token|private-token|"
    r"x-vault-token|x-access-token)\s*:\s*(.+)", re.I | re.S)
_SECRET_OPTION = lazy_compile(
    r"--?(?:[a-z0-9]+-)*(password|passwd|token|secret|api-key|apikey|access-token|"
    r"auth-token|client-secret|secret-key|secret-access-key)", re.I)
_SECRET_NAME = lazy_compile(
    r"PASSWORD|PASSWD|TOKEN|SECRET|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|SSHPASS|"
    r"(?:^|_)(?:PASS|PWD|AUTH)(?:$|_)")
_NOT_SECRET_NAME = lazy_compile(r"(^|_)(FILE|PATH|DIR|URL|NAME|ID|TYPE|LENGTH|LEN|HOST|USER)$")


def placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.fullmatch(value.strip()))


def secret_name(name: str) -> bool:
    upper = name.upper()
    if upper in ("PWD", "OLDPWD") or _NOT_SECRET_NAME.search(upper):
        return False
    return bool(_SECRET_NAME.search(upper))


# -- argv detectors -----------------------------------------------------------------------------


def _short_value(values: list[str], i: int, letter: str) -> tuple[int, int] | None:
    """For option `-X` at argv[i]: (index, offset) of its value (`-Xvalue` or `-X value`)."""
    v = values[i]
    if v == "-" + letter:
        return (i + 1, 0) if i + 1 < len(values) else None
    if v.startswith("-" + letter) and len(v) > 2 and not v.startswith("--"):
        return (i, 2)
    return None


def _long_value(values: list[str], i: int, name: str,
                separate: bool = True) -> tuple[int, int] | None:
    v = values[i]
    if v.startswith(name + "="):
        return (i, len(name) + 1)
    if separate and v == name and i + 1 < len(values):
        return (i + 1, 0)
    return None


def _sshpass(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        v = values[i]
        if not v.startswith("-") or v == "-":
            return
        found = _short_value(values, i, "p")
        if found:
            yield Secret(found[0], found[1], len(values[found[0]]),
                         "`sshpass -p` (it blanks its copy only after it has started)",
                         "`sshpass -e` with the password in the `SSHPASS` environment variable, "
                         "`sshpass -f FILE`, or better a key (`ssh-copy-id`)")
            return
        if v in ("-f", "-d", "-P"):
            return


def _curl(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        found = _short_value(values, i, "u") or _long_value(values, i, "--user")
        if found:
            j, at = found
            value = values[j][at:]
            user, colon, password = value.partition(":")
            if colon and password:
                yield Secret(j, at + len(user) + 1, len(values[j]), "`curl -u user:password`",
                             "`--netrc-file FILE`, or `-K -` with `user = \"name:password\"` "
                             "on standard input")
        found = _short_value(values, i, "H") or _long_value(values, i, "--header")
        if found:
            yield from _header(values, found, "curl", "`-H @FILE` (curl 7.55+) or `-K -` with "
                               "`header = \"...\"` on standard input")
        found = _long_value(values, i, "--oauth2-bearer")
        if found:
            yield Secret(found[0], found[1], len(values[found[0]]), "`curl --oauth2-bearer`",
                         "`-K -` with `oauth2-bearer = \"...\"` on standard input")


def _header(values: list[str], found: tuple[int, int], prog: str,
            instead: str) -> Iterator[Secret]:
    j, at = found
    m = _AUTH_HEADER.match(values[j][at:])
    if m and m.group(2).strip():
        yield Secret(j, at + m.start(2), len(values[j]), f"an `{m.group(1)}:` header of "
                     f"`{prog}`", instead, basis="header")


def _wget(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        for name in ("--password", "--http-password", "--ftp-password", "--proxy-password"):
            found = _long_value(values, i, name)
            if found:
                yield Secret(found[0], found[1], len(values[found[0]]), f"`wget {name}`",
                             "`--ask-password`, or `--use-askpass`, or a `~/.netrc` entry")
        found = _long_value(values, i, "--header")
        if found:
            yield from _header(values, found, "wget", "a `~/.wgetrc` `header =` line")


def _mysql(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        v = values[i]
        if v.startswith("-p") and len(v) > 2 and not v.startswith("--"):
            yield Secret(i, 2, len(v), f"`{basename(values[0])} -p`",
                         "`--defaults-extra-file=FILE` with a `[client]` `password=` line "
                         "(mode 600), or a login path (`mysql_config_editor`)", "blanked")
        elif v.startswith("--password=") and len(v) > len("--password="):
            yield Secret(i, len("--password="), len(v), f"`{basename(values[0])} --password=`",
                         "`--defaults-extra-file=FILE` with a `[client]` `password=` line",
                         "blanked")


def _redis(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        found = _short_value(values, i, "a") if values[i].startswith("-a") else _long_value(
            values, i, "--pass")
        if found:
            yield Secret(found[0], found[1], len(values[found[0]]), "`redis-cli -a`",
                         "the `REDISCLI_AUTH` environment variable")


def _login(values: list[str]) -> Iterator[Secret]:
    if "login" not in values[1:3]:
        return
    for i in range(1, len(values)):
        found = _short_value(values, i, "p")
        if found:
            yield Secret(found[0], found[1], len(values[found[0]]),
                         f"`{basename(values[0])} login -p`", "`--password-stdin`")


def _openssl(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values) - 1):
        if values[i] in ("-pass", "-passin", "-passout", "-password") and values[
                i + 1].startswith("pass:"):
            yield Secret(i + 1, 5, len(values[i + 1]), f"`openssl {values[i]} pass:`",
                         "`env:VAR`, `file:PATH` or `stdin` as the password source")


def _ldap(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        found = _short_value(values, i, "w")
        if found:
            yield Secret(found[0], found[1], len(values[found[0]]),
                         f"`{basename(values[0])} -w`", "`-W` (prompt) or `-y FILE`")


def _smbclient(values: list[str]) -> Iterator[Secret]:
    for i in range(1, len(values)):
        found = _short_value(values, i, "U") or _long_value(values, i, "--user")
        if found and "%" in values[found[0]][found[1]:]:
            j, at = found
            cut = values[j].index("%", at) + 1
            if cut < len(values[j]):
                yield Secret(j, cut, len(values[j]), "`smbclient -U user%password`",
                             "`-A FILE` (an authentication file, mode 600)")


def _htpasswd(values: list[str]) -> Iterator[Secret]:
    flags = [v for v in values[1:] if v.startswith("-") and not v.startswith("--")]
    if any("b" in v for v in flags) and len(values) >= 4:
        yield Secret(len(values) - 1, 0, len(values[-1]), "`htpasswd -b`",
                     "`htpasswd -i` (reads the password from standard input)")


DETECTORS: dict[str, Callable[[list[str]], Iterator[Secret]]] = {
    "sshpass": _sshpass, "curl": _curl, "wget": _wget, "redis-cli": _redis,
    "openssl": _openssl, "smbclient": _smbclient, "htpasswd": _htpasswd,
    **{name: _mysql for name in MYSQL_CLIENTS},
    **{name: _login for name in REGISTRY_LOGIN_TOOLS},
    **{name: _ldap for name in ("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete",
                                "ldappasswd", "ldapwhoami")},
}


_REFERENCE = lazy_compile(r"(?:(?:id|type|src|source|env|target|required|mode|uid|gid)=[^,]*,?)+")


def _secret_reference(option: str, value: str) -> bool:
    """``docker build --secret id=NAME[,src=FILE|env=VAR]`` (BuildKit, podman, buildah) names a
    secret by id and where to read it: no secret value is on the command line."""
    return option.lower() == "--secret" and _REFERENCE.fullmatch(value) is not None


def _generic(values: list[str]) -> Iterator[Secret]:
    """`--password X`, `--token=X`... of any program, and credentials in URLs."""
    prog = basename(values[0])
    for i in range(1, len(values)):
        v = values[i]
        m = _SECRET_OPTION.match(v)
        if m and prog not in MYSQL_CLIENTS:
            name = v[:m.end()]
            found = _long_value(values, i, name)
            if found and _secret_reference(name, values[found[0]][found[1]:]):
                continue
            if found and (found[1] or not values[found[0]].startswith("-")):
                yield Secret(found[0], found[1], len(values[found[0]]), f"`{prog} {name}`",
                             "the program's file, stdin or environment variable form "
                             f"(`{name}-file`, `{name}-stdin`...)",
                             basis="known" if prog in PASSWORD_OPTION_PROGRAMS else "name")
        for u in _URL_CREDENTIALS.finditer(v):
            yield Secret(i, u.start(2), u.end(2), "a password inside a URL",
                         "a credential helper, `~/.netrc`, or the tool's password file")


def argv_secrets(values: list[str]) -> list[Secret]:
    if not values:
        return []
    out: list[Secret] = []
    seen: set[tuple[int, int]] = set()
    detector = DETECTORS.get(basename(values[0]))
    for found in [*(detector(values) if detector else ()), *_generic(values)]:
        if (found.index, found.start) in seen:
            continue
        seen.add((found.index, found.start))
        out.append(found)
    return out


# -- where it shows --------------------------------------------------------------------------------


def _machine(where: str) -> str:
    return "this machine" if where == "local" else f"`{where.removeprefix('remote:')}`"


def command_lines(ctx: CheckContext, layer: Layer) -> list[str]:
    """The outer command lines that carry ``layer``'s text literally."""
    out: list[str] = []
    cur: Layer | None = layer
    while cur is not None and cur.parent is not None:
        parent = ctx.parent(cur)
        if cur.kind == "shell" and not cur.stdin_script and cur.process and (
                "-c" in cur.process[1:3]):
            name = basename(cur.process[0]).lstrip("-")
            name = "login shell" if name.startswith("<") else name
            out.append(f"the `{name} -c` command line on {_machine(cur.where)}")
        # `eval` is a builtin: the text it joins is on no process's command line.
        if parent is not None and parent.kind in ("ssh", "join") and not cur.stdin_script \
                and parent.via != "eval":
            out.append(f"the local `{parent.via or parent.kind}` command")
        if cur.kind == "shell" and cur.stdin_script:
            break
        cur = parent
    return out


def _origin(layer: Layer, script: Script, arg: Arg, start: int, end: int) -> str:
    """`literal`, `outer` (filled in by an outer layer) or `own` (this layer expands it)."""
    word = arg.word
    if word is None:
        return "literal"
    at = 0
    kinds: set[str] = set()
    for part in word.parts:
        lo, hi = at, at + len(part.value)
        at = hi
        if hi <= start or lo >= end:
            continue
        if part.dynamic:
            kinds.add("outer" if part.offsets and inherited(layer, script, part.offsets[0])
                      else "own")
        elif any(inherited(layer, script, o) for o in part.offsets[max(start - lo, 0):end - lo]):
            kinds.add("outer")
    if "own" in kinds:
        return "own"
    return "outer" if "outer" in kinds else "literal"


def _span(arg: Arg, start: int, end: int) -> tuple[int, int] | None:
    offs = [o for o in arg.offsets[start:end] if o is not None]
    if offs and len(arg.offsets) == len(arg.value):
        return (min(offs), max(offs) + 1)
    return arg.source_span


# -- the rule --------------------------------------------------------------------------------------


def check(ctx: CheckContext) -> Iterator[Finding]:
    reported: set[int] = set()
    for layer in ctx.layers:
        if layer.kind != "shell":
            continue
        outer = command_lines(ctx, layer)
        for view in layer.commands:
            script = view.context.script
            for argv in _processes(ctx, view, bool(outer)):
                for s in argv_secrets([a.value for a in argv]):
                    arg = argv[s.index]
                    value = arg.value[s.start:s.end]
                    if placeholder(value):
                        continue
                    span = _span(arg, s.start, s.end)
                    if span is None or span[0] in reported:
                        continue
                    reported.add(span[0])
                    origin = _origin(layer, script, arg, s.start, s.end)
                    finding = _argv_finding(ctx, layer, s, value, origin, outer, span)
                    argument = _script_argument(ctx, value)
                    if argument is not None and origin != "literal" and \
                            layer.where == ctx.trace.root.where:
                        finding = replace(finding, severity="info", message=finding.message
                                          .extended(_ALREADY_ON_ITS_COMMAND_LINE.format(
                                              argument)))
                    elif origin == "own":
                        lines = _set_to_constants(ctx, layer, view, arg)
                        generated = "" if lines or not _guards_a_file(argv) else \
                            _generated_here(ctx, layer, view, arg)
                        if lines:
                            finding = replace(finding, severity="info", message=finding.message
                                              .extended(_SET_HERE.format(lines)))
                        elif generated:
                            finding = replace(finding, severity="info", message=finding.message
                                              .extended(_GENERATED_HERE.format(generated)))
                    yield finding
            if outer:
                yield from _assignments(ctx, layer, view, outer, reported)
        if outer:
            yield from _pasted_secrets(ctx, layer, outer, reported)


def _processes(ctx: CheckContext, view: CommandView, outer: bool) -> list[list[Arg]]:
    """The argvs of the processes a command starts: its own (not a builtin's, unless an outer
    command line holds its text), and those of exec wrappers."""
    argv = view.argv
    builtin = bool(argv) and not argv[0].dynamic and argv[0].value in NO_PROCESS_BUILTINS
    out = [] if builtin and not outer else [argv]
    for i in view.opens:
        if 0 <= i < len(ctx.layers) and ctx.layers[i].kind == "exec":
            out.append(ctx.layers[i].argv)
    return [a for a in out if a and not a[0].dynamic]


_SECRET_COMMAND_LINE = Template(
    "secret-command-line",
    "secret on a command line",
    "{what} gets {shown} as an argument, and every user of {machine} can read it "
    "with `ps` or `/proc/PID/cmdline` while the command runs{also}. Use {instead}.")


def _argv_finding(ctx: CheckContext, layer: Layer, s: Secret, value: str, origin: str,
                  outer: list[str], span: tuple[int, int]) -> Finding:
    if origin == "own":
        shown = (f"the value of `{value}` (expanding a variable does not hide it: the shell "
                 "substitutes it before the program starts)")
    elif origin == "outer":
        shown = f"the value of `{value}`, filled in by an outer layer"
    else:
        shown = f"`{mask(value)}`"
    also = f"; it is also in the text of {_join(outer)}" if outer and origin != "own" else ""
    message = (_SECRET_COMMAND_LINE(what=s.what, shown=shown, machine=_machine(layer.where),
                                    also=also, instead=s.instead))
    if origin == "literal":
        return Finding(span, message.extended(_WRITTEN_HERE), layer, severity="info")
    if s.basis == "blanked":
        if outer and origin != "own":
            return Finding(span, message.extended(_BLANKED_OUTER), layer)
        return Finding(span, message.extended(_BLANKED), layer, severity="info")
    if s.basis != "known":
        why = _HEADER if s.basis == "header" else _BY_NAME
        return Finding(span, message.extended(why), layer, severity="info")
    return Finding(span, message, layer)


_SET_HERE = (" The script sets it to a constant itself ({}), so it is only as secret as "
             "the script; if it is a real credential, move it out of the script too.")


def _set_to_constants(ctx: CheckContext, layer: Layer, view: CommandView, arg: Arg) -> str:
    """The lines where the script gives every variable of ``arg`` a constant value (`PASSWD=
    "admin"` ... `curl -u $USERID:$PASSWD`), or "" when one is known only at run time or is
    set in a file the script sources."""
    word = arg.word
    script = layer.script
    if word is None or script is None or view.context.script.text is not script.text or \
            any(x < word.span[1] and word.span[0] < y for x, y in layer.dynamic_ranges):
        return ""
    values = layer_values(ctx, layer)
    if values is None:
        return ""
    try:
        if values.expand_all(word) is None:
            return ""
    except (ValueError, IndexError, KeyError, RecursionError):
        return ""
    lines: set[int] = set()
    for part in word.parts:
        if part.kind == "command":
            return ""
        if part.name is None or not part.dynamic:
            continue
        k = values.at(part.name, part.span[0])
        if k.alts is None or not k.lines or k.sourced:
            return ""
        lines.update(k.lines)
    return _shown_lines(lines)



def _shown_lines(lines: set[int]) -> str:
    shown = sorted(lines)
    return (f"line {shown[0]}" if len(shown) == 1 else
            "lines " + ", ".join(str(n) for n in shown[:-1]) + f" and {shown[-1]}")


# A value the script draws at random itself for a file's password is new on every run: nobody
# chose it, and reading it from ps gives nothing without the file (precision corpus: a p12
# export password the script generated and then printed for the user).
_GENERATED_HERE = (" The script generates the value at random itself ({}) as the password of a "
                   "file: a fresh value of this run, not a credential someone chose and uses "
                   "elsewhere, and of use only with the file; if the file outlives the run, "
                   "keep it off the command line too.")


def _guards_a_file(argv: list[Arg]) -> bool:
    """Is the program one whose password protects a file (`openssl pkcs12 -passout`, `zip -P`)
    rather than an account (`curl -u`, `docker login -p`)? A fresh random password of a
    service account is a lasting credential all the same."""
    return bool(argv) and argv[0].value.rsplit("/", 1)[-1] in FILE_PASSWORD_PROGRAMS


def _generated_here(ctx: CheckContext, layer: Layer, view: CommandView, arg: Arg) -> str:
    """The lines where the script draws the value of every variable of ``arg`` at random
    (`p=$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c 18)`, `p=$(openssl rand -hex 16)`), or
    reads back the copy it stored itself (`printf '%s' "P=$p" >> "$F"` ... `p=$(grep ^P= "$F"
    ...)`); "" when any assignment takes it from elsewhere, or the script sets it in a way
    quotecheck does not follow (`read`, `local`, `for`, `getopts`...)."""
    word = arg.word
    if word is None or view.context.script.text is not (layer.script.text if layer.script
                                                          else None):
        return ""
    names = {p.name for p in word.parts if p.dynamic and p.name is not None}
    if not names or any(p.dynamic and (p.kind != "parameter" or p.name is None)
                        for p in word.parts):
        return ""
    lines: set[int] = set()
    for name in names:
        found = _random_assignments(ctx, name)
        if not found:
            return ""
        lines.update(found)
    return _shown_lines(lines)


def _random_assignments(ctx: CheckContext, name: str) -> set[int]:
    """The lines of the assignments of ``name`` that draw a random value, when every
    assignment of it does that or reads back the script's own stored copy; else an empty set."""
    def key() -> set[int]:
        return _find_random_assignments(ctx, name)
    found: set[int] = ctx.memo.get_or_compute(f"qc302-random-{name}", ctx.trace, key)
    return found


def _find_random_assignments(ctx: CheckContext, name: str) -> set[int]:
    text = ctx.source
    quoted = re.escape(name)
    if re.search(r"(?<![\w$#{!])" + quoted + r"(?!\w|\+?=)", text):
        return set()  # (`read NAME`, `local NAME`, `for NAME in`...: set some other way)
    written = {m.start() for m in re.finditer(r"(?<![\w$#{!])" + quoted + r"\+?=", text)}
    seen: set[int] = set()
    lines: set[int] = set()
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.script is None:
            continue
        stored = None
        for view in layer.commands:
            script = view.context.script
            for a in view.command.assignments:
                if a.name != name:
                    continue
                at = script.origin[a.span[0]]
                if at is None:
                    return set()
                if at in seen:
                    continue
                seen.add(at)
                how = _drawn(script, a.value.span, a.value.parts)
                if how is None:
                    return set()
                if isinstance(how, str):  # (drawn at random)
                    lines.add(text.count("\n", 0, at) + 1)
                    continue
                if stored is None:
                    stored = _stored_in(layer, name)
                if not how & stored:
                    return set()
    if seen != written:
        return set()  # (an assignment quotecheck did not read: `export NAME=...`)
    return lines


def _drawn(script: Script, span: tuple[int, int], parts: Sequence[Part]) -> str | frozenset[
        str] | None:
    """How an assignment's value is made: "random" when every command substitution of it
    draws from a random source; the files it reads when none does (to match against the
    files the script stores the value in); None otherwise (a parameter, a literal)."""
    if not parts or any(p.kind != "command" for p in parts if p.dynamic) or \
            any(not p.dynamic and p.value.strip() for p in parts):
        return None
    reads: set[str] = set()
    random = True
    for inner in script.substitutions_in(span):
        commands = [n for n in iter_nodes(inner.body) if isinstance(n, SimpleCommand)]
        if any(_draws_random(c) for c in commands):
            continue
        random = False
        for c in commands:
            reads.update(w.value for w in c.words[1:] if not w.value.startswith("-"))
            reads.update(r.target.value for r in c.redirects
                         if r.op == "<" and r.target is not None)
    if random:
        return "random"
    return frozenset(reads) if reads else None


def _draws_random(command: SimpleCommand) -> bool:
    words = [w.value for w in command.words]
    if not words:
        return False
    program = basename(words[0])
    if program in RANDOM_VALUE_PROGRAMS or (len(words) > 1 and (program, words[1])
                                            in RANDOM_VALUE_SUBCOMMANDS):
        return True
    return any(w in RANDOM_DEVICES for w in words[1:]) or any(
        r.target is not None and r.target.value in RANDOM_DEVICES for r in command.redirects)


def _stored_in(layer: Layer, name: str) -> frozenset[str]:
    """The files a command of ``layer`` writes a word holding `$name` into (`printf '%s\\n'
    "P='$p'" >> "$CONF_FILE"`): where the script keeps its own copy of the value."""
    out: set[str] = set()
    for view in layer.commands:
        command = view.command
        if not any(p.name == name for w in command.words for p in w.parts if p.dynamic):
            continue
        out.update(r.target.value for r in command.redirects
                   if r.op in (">", ">>", ">|") and r.target is not None)
    return frozenset(out)


_ALREADY_ON_ITS_COMMAND_LINE = (
    " It comes in as argument {} of the script, so the script's own command line on this "
    "machine shows it already; pass it in a file or the environment to keep it off both.")
_VALUE = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*|[1-9])\}?")


def _script_argument(ctx: CheckContext, value: str) -> str | None:
    """The number N when ``value`` is `$N`, or a variable every assignment of which is a
    plain `$N` (`PASSWORD=$1`): the value the script got on its own command line."""
    m = _VALUE.fullmatch(value)
    if m is None:
        return None
    name = m.group(1)
    if name.isdigit():
        return name
    found: set[str] = set()
    for layer in ctx.layers:
        if layer.kind != "shell":
            continue
        for view in layer.commands:
            for a in view.command.assignments:
                if a.name != name:
                    continue
                parts = [p for p in a.value.parts if p.kind != "literal" or p.value]
                number = parts[0].name if len(parts) == 1 and \
                    parts[0].kind in ("parameter", "special") else None
                if number is None or not number.isdigit():
                    return None
                found.add(number)
    return found.pop() if len(found) == 1 else None


# A secret written into the script itself is read by whoever reads the script: mostly a fixed
# password of a throw-away test database or certificate (precision corpus: all such findings
# were noise). Info, not a warning.
_WRITTEN_HERE = (" The value is written in the script itself, so it is only as secret as the "
                 "script; if it is a real credential, move it out of the script too.")


_BY_NAME = (" quotecheck knows this option by its name only, not what the program does with "
            "it.")
# MySQL manual, "End-User Guidelines for Password Security": the clients overwrite the argument
# during start-up, leaving a brief interval; they print their own warning about it on each run.
_BLANKED = (" The client blanks its copy as it starts, so `ps` shows it only for a moment "
            "(and it warns about this itself); `set -x` and a shell's history still show it.")
_BLANKED_OUTER = (" The client blanks its own copy as it starts, but the outer command lines "
                  "keep the text for as long as they run.")
_HEADER = (" A token in a request header is often short-lived; still, keep it off the command "
           "line where others share the machine.")


_SECRET_COMMAND_STRING = Template(
    "secret-command-string",
    "secret in a command string",
    "`{name}=` is set inside text that is itself a command-line argument, so {shown} "
    "is readable with `ps` in {values}. Send the script on standard input instead "
    "(`ssh host bash -s <<'EOF'` ... `EOF`, whose text is on no command line) and "
    "read the value there from a file or from the remote environment.")


def _assignments(ctx: CheckContext, layer: Layer, view: CommandView, outer: list[str],
                 reported: set[int]) -> Iterator[Finding]:
    script = view.context.script
    pairs: list[tuple[str, int, int, tuple[int, int] | None, str]] = []
    for a in view.command.assignments:
        origin = _word_origin(layer, script, a.value.parts)
        pairs.append((a.name, a.value.span[0], a.value.span[1],
                      script.origin.span(a.value.span[0], max(a.value.span[1],
                                                              a.value.span[0] + 1)),
                      origin if a.value.value else "empty"))
    argv = view.argv
    if argv and not argv[0].dynamic and argv[0].value in DECLARATION_BUILTINS:
        for arg in argv[1:]:
            name, eq, value = arg.value.partition("=")
            if not eq or arg.word is None:
                continue
            cut = len(name) + 1
            span = _span(arg, cut, len(arg.value))
            pairs.append((name, 0, 0, span, _origin(layer, script, arg, cut, len(arg.value))
                          if value else "empty"))
    for name, _s, _e, span, origin in pairs:
        if not secret_name(name) or origin in ("own", "empty") or span is None:
            continue
        text = ctx.source[span[0]:span[1]]
        if placeholder(text) or span[0] in reported:
            continue
        reported.add(span[0])
        shown = (f"the value of `{text}` (expanded before the string is handed on)"
                 if origin == "outer" else f"`{mask(text)}`")
        message = (_SECRET_COMMAND_STRING(name=name, shown=shown, values=_join(outer)))
        if origin == "literal":
            yield Finding(span, message.extended(_WRITTEN_HERE), layer, severity="info")
        else:
            yield Finding(span, message, layer)


_SECRET_PASTED_INTO_STRING = Template(
    "secret-pasted-into-string",
    "secret pasted into a command string",
    "the value of `{shown}` is put into text that is itself a command-line argument, so "
    "it is readable with `ps` in {values} while they run. Send it on standard input "
    "instead (`printf '%s\\n' \"${name}\" | ssh host 'sudo -S ...'`, or `ssh host bash -s "
    "<<'EOF'` with the script reading it there).")
# What shows the pasted value is a password beyond its name: the string feeds it to a program
# that reads a password on stdin, or the script read it without echo.
_PASSWORD_READER = lazy_compile(r"\bsudo\b[^|;&\n]*\s-\w*S|--password-stdin|\bchpasswd\b|"
                                r"\bpasswd\b[^|;&\n]*--stdin")


def _silent_read(name: str) -> re.Pattern[str]:
    """`read -s NAME` (or -rs, -sp...): the script read the value without echo."""
    return re.compile(r"\bread\b[^\n;|&]*\s-\w*s[^\n;|&]*\b" + re.escape(name) + r"\b")


_NAME_ONLY = (" Only its name says it is a secret (a throw-away test password looks the "
              "same).")
_PASTED_NAME = lazy_compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _pasted_secrets(ctx: CheckContext, layer: Layer, outer: list[str],
                    reported: set[int]) -> Iterator[Finding]:
    """`ssh h "echo $PASS | sudo -S ..."`: an outer variable with a secret's name expanded
    into the text of a layer whose text is on a command line (ssh's argv, `sh -c`'s)."""
    for start, end in layer.dynamic_ranges:
        span = ctx.span_in_source(layer, start, end)
        written = ctx.source[span[0]:span[1]]
        m = _PASTED_NAME.fullmatch(written)
        if m is None or not secret_name(m.group(1)) or span[0] in reported:
            continue
        reported.add(span[0])
        message = _SECRET_PASTED_INTO_STRING(shown=written, name=m.group(1),
                                             values=_join(outer))
        if _PASSWORD_READER.search(layer.text or "") or _silent_read(m.group(1)).search(
                ctx.source):
            yield Finding(span, message, layer)  # the text shows it is a password
        else:
            yield Finding(span, message.extended(_NAME_ONLY), layer, severity="info")


def _word_origin(layer: Layer, script: Script, parts: Sequence[Part]) -> str:
    kinds: set[str] = set()
    for p in parts:
        if p.dynamic:
            kinds.add("outer" if p.offsets and inherited(layer, script, p.offsets[0])
                      else "own")
        elif any(inherited(layer, script, o) for o in p.offsets):
            kinds.add("outer")
    if "own" in kinds:
        return "own"
    return "outer" if "outer" in kinds else "literal"


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


RULE = Rule("QC302", "secret-on-command-line",
            "A password, token or key on a command line, readable with ps", "warning", check,
            trigger=ALWAYS)
