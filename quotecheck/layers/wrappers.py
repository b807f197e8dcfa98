"""Exec-style wrappers: programs that run the rest of their argv without a shell.

Each simple wrapper is one row of `WRAPPERS` (its option table and where the command
starts). The few with extra behaviour (sudo's shell mode and NAME=value words, env -S, flock -c,
xargs -I, find -exec, docker/podman/kubectl sub-commands) have a short parser below.

Facts used, besides the manuals cited per row (verified here with coreutils 9.1, util-linux
2.38.1, findutils 4.9.0, Docker CLI 28.2, kubectl 1.32 unless marked otherwise):
- GNU wrappers stop reading options at the first operand (`timeout 5 -s KILL x` runs `-s`;
  `env A=1 -i env` runs `-i`; `xargs echo -t` passes `-t` to echo);
- `nice -5 cmd` is +5, `nice --5 cmd` is -5 (obsolete form, still accepted);
- `env -S STR` splits STR (its own quoting rules) and splices the words into argv in place of
  the option, then resumes option parsing (coreutils manual, "-S/--split-string syntax");
- `flock FILE -c CMD` runs `$SHELL -c CMD`, /bin/sh when SHELL is unset or empty, and refuses
  more words after CMD (exit 64);
- xargs: -I/-i set the replace string; a later -L/-l or -n N (N != 1) cancels it; without it
  input words are appended; the default command is echo;
- find: `{} +` ends -exec/-execdir only right after a lone `{}` (`+` elsewhere is a plain
  argument); -ok/-okdir only end at `;`; with `+`, `{}` may not appear in another word;
- docker and podman stop reading options at the container/image (pflag, interspersed off);
  kubectl (cobra) reads flags anywhere before `--`; modern kubectl refuses `exec POD CMD`
  without `--` ("exec [POD] [COMMAND] is not supported anymore").
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from quotecheck.layers.argv_options import Grammar, Option, Scan, scan
from quotecheck.layers.handoff_types import (
    ExecHandoff,
    Handler,
    Handoff,
    ShellHandoff,
    basename,
)
from quotecheck.records import FrozenRecord

_HELP = frozenset({"help", "version"})


def _g(
    flags: str = "",
    values: str = "",
    optional: str = "",
    long_flags: str = "",
    long_values: str = "",
    long_optional: str = "",
    **kw: bool,
) -> Grammar:
    """Compact Grammar constructor for the tables below (long names space-separated)."""
    return Grammar(
        short_flags=flags,
        short_values=values,
        short_optional=optional,
        long_flags=frozenset(long_flags.split()) | _HELP,
        long_values=frozenset(long_values.split()),
        long_optional=frozenset(long_optional.split()),
        **kw,
    )


class WrapperSpec(FrozenRecord):
    """How one exec wrapper reads its argv."""

    grammar: Grammar
    operands_before: int = 0
    """Operands read before the command: timeout DURATION, chroot NEWROOT, flock FILE."""
    assignments: bool = False
    """NAME=value operands before the command set its environment (env)."""
    default_command: tuple[str, ...] = ()
    """What runs when no command is given (xargs: echo)."""
    no_run: frozenset[str] = frozenset({"--help", "--version"})
    """Options that make the wrapper run nothing (help, list modes...)."""
    user_options: tuple[str, ...] = ()
    """Options whose value names the target user (the last one wins)."""
    user_operand: bool = False
    """The first operand is the target user (gosu, su-exec)."""
    default_user: str | None = None


WRAPPERS: dict[str, WrapperSpec] = {
    # coreutils nohup(1): no options besides --help/--version.
    "nohup": WrapperSpec(_g()),
    # coreutils timeout(1): [-k DUR] [-s SIG] [-v] [--foreground] [--preserve-status] DURATION.
    "timeout": WrapperSpec(
        _g("v", "ks", long_flags="preserve-status foreground verbose",
           long_values="kill-after signal"),
        operands_before=1,
    ),
    # timelimit(1) (Debian and FreeBSD): [-pq] [-S killsig] [-s warnsig] [-T killtime]
    # [-t warntime] command [arguments].
    "timelimit": WrapperSpec(_g("pq", "SsTt")),
    # coreutils nice(1): -n N / --adjustment=N, and the obsolete -N (verified).
    "nice": WrapperSpec(_g("", "n", long_values="adjustment", numeric=True)),
    # util-linux setsid(1): -c -f -w.
    "setsid": WrapperSpec(_g("cfw", long_flags="ctty fork wait")),
    # tini (a container's PID 1, krallin/tini README): -s -v -w -g -l, -p SIGNAL, -e CODE, then
    # the program (`tini -- prog args`).
    "tini": WrapperSpec(_g("svwgl", "pe")),
    # dumb-init (Yelp/dumb-init README): -c/--single-child, -r/--rewrite s:r, -v/--verbose.
    "dumb-init": WrapperSpec(_g("cv", "r", long_flags="single-child verbose",
                                long_values="rewrite")),
    # coreutils stdbuf(1): -i/-o/-e MODE.
    "stdbuf": WrapperSpec(_g("", "ioe", long_values="input output error")),
    # GNU time(1): -f FMT, -o FILE, -a -p -q -v; bash's `time` keyword only knows -p.
    "time": WrapperSpec(
        _g("apqvV", "fo", long_flags="append portability quiet verbose",
           long_values="format output"),
    ),
    # coreutils chroot(8): --userspec=U:G --groups=G --skip-chdir NEWROOT [CMD].
    "chroot": WrapperSpec(
        _g(long_flags="skip-chdir", long_values="userspec groups"),
        operands_before=1,
        user_options=("--userspec",),
    ),
    # util-linux flock(1): "+sexnoFuw:E:hV" plus long forms; FILE then CMD (or -c CMD).
    "flock": WrapperSpec(
        _g("sexnoFuhV", "wE",
           long_flags="shared exclusive nonblock nb close no-fork unlock verbose",
           long_values="wait timeout conflict-exit-code"),
        operands_before=1,
    ),
    # GNU findutils xargs(1): "+0a:E:e::i::I:l::L:n:prs:txP:d:o".
    "xargs": WrapperSpec(
        _g("0prtxo", "aEILnsPd", "eil",
           long_flags="null interactive no-run-if-empty verbose exit open-tty show-limits",
           long_values="arg-file delimiter max-args max-procs max-chars process-slot-var",
           long_optional="eof replace max-lines"),
        default_command=("echo",),
        no_run=frozenset({"--help", "--version", "--show-limits"}),
    ),
    # Slurm srun(1): getopt string (src/srun/libsrun/opt.c)
    # "+A:b:B:c:C:d:D:e:EF:G:hHi:I::jJ:k::K::lL:m:M:n:N:o:Op:q:Qr:sS:t:T:uvVw:W:x:XZ"
    # and the common long options taking a value.
    "srun": WrapperSpec(
        _g("EhHjlOQsuvVXZ", "AbBcCdDeFGiJLmMnNopqrStTwWx", "Ikk",
           long_flags=(
               "label pty multi-prog unbuffered overcommit quiet verbose exact overlap "
               "spread-job test-only disable-status no-allocate preserve-env contiguous "
               "reboot oversubscribe hold use-min-nodes quit-on-interrupt"
           ),
           long_values=(
               "account begin extra-node-info cpus-per-task constraint dependency chdir "
               "error nodefile gpus input job-name licenses distribution clusters ntasks "
               "nodes output partition qos relative core-spec time threads nodelist wait "
               "exclude gres gres-flags mem mem-per-cpu mem-per-gpu ntasks-per-node "
               "ntasks-per-socket ntasks-per-core ntasks-per-gpu tasks-per-node "
               "gpus-per-node gpus-per-task gpus-per-socket cpus-per-gpu gpu-bind gpu-freq "
               "cpu-freq cpu-bind mem-bind export mpi time-min reservation comment jobid "
               "het-group pack-group container container-id tres-per-task tres-bind "
               "accel-bind acctg-freq bb bbf cores-per-socket sockets-per-node "
               "threads-per-core deadline delay-boot epilog prolog task-epilog task-prolog "
               "mail-type mail-user mcs-label network open-mode power priority profile "
               "signal slurmd-debug switches thread-spec tmp uid gid wckey "
               "cluster-constraint msg-timeout mincpus hint"
           ),
           long_optional=(
               "exclusive kill-on-bad-exit immediate no-kill bcast compress propagate "
               "resv-ports nice x11 send-libs"
           )),
        user_options=("--uid",),
    ),
    # OpenBSD doas(1): doas [-Lns] [-a style] [-C config] [-u user] command [args].
    "doas": WrapperSpec(
        _g("Lns", "aCu"),
        no_run=frozenset({"-L", "-C"}),
        user_options=("-u",),
        default_user="root",
    ),
    # gosu / su-exec: USER[:GROUP] COMMAND [ARGS]; no options.
    "gosu": WrapperSpec(_g(), operands_before=1, user_operand=True),
    "su-exec": WrapperSpec(_g(), operands_before=1, user_operand=True),
    # phusion baseimage's setuser: USER COMMAND [ARGS], with HOME and USER set for USER.
    "setuser": WrapperSpec(_g(), operands_before=1, user_operand=True),
    # util-linux ionice(1): -c class -n level -t; -p/-P/-u act on running processes.
    "ionice": WrapperSpec(
        _g("tV", "cnpPu", long_flags="ignore", long_values="class classdata pid pgid uid"),
        no_run=frozenset({"--help", "--version", "-p", "-P", "-u", "--pid", "--pgid", "--uid"}),
    ),
    # util-linux taskset(1): [-a] [-c] MASK|LIST command [args]; -p acts on a running pid.
    "taskset": WrapperSpec(
        _g("acpV", long_flags="all-tasks cpu-list pid"), operands_before=1,
        no_run=frozenset({"--help", "--version", "-p", "--pid"}),
    ),
    # util-linux prlimit(1): resource options take an optional attached value
    # (`--nofile=512`, `-n512`); -p PID acts on a running process instead of a command.
    "prlimit": WrapperSpec(
        _g("V", "po", optional="cdefilmnqrstuvxy",
           long_values="pid output",
           long_flags="noheadings raw verbose",
           long_optional="as core cpu data fsize locks memlock msgqueue nice nofile nproc "
                         "rss rtprio rttime sigpending stack"),
        no_run=frozenset({"--help", "--version", "-p", "--pid"}),
    ),
    # util-linux chrt(1): [policy flags] PRIORITY command [args]; -p acts on a pid.
    "chrt": WrapperSpec(
        _g("abdefimoprRvV", "DPT",
           long_flags="all-tasks batch deadline fifo idle max other pid rr reset-on-fork "
                      "verbose",
           long_values="sched-runtime sched-period sched-deadline"),
        operands_before=1,
        no_run=frozenset({"--help", "--version", "-p", "--pid", "-m", "--max"}),
    ),
    # expect's unbuffer: [-p] program [args].
    "unbuffer": WrapperSpec(_g("p")),
    # Shell builtins that run a command without a new shell layer (`in_place_command`).
    # bash and zsh `exec [-cl] [-a name] [command [args]]` (`help exec`; `-cl`, `-aNAME` and
    # `--` verified with bash 5.2). dash's exec takes no options: `exec -a n prog` and
    # `exec -- prog` run a program named `-a` or `--` there (dash 0.5.12); bash's form is read.
    "exec": WrapperSpec(_g("cl", "a")),
    # POSIX `command [-p] [-v|-V] command [args]` (`help command`, dash(1)): -v/-V only look the
    # command up, in any cluster (`command -pv ls`, verified with bash 5.2 and dash 0.5.12).
    "command": WrapperSpec(_g("pvV"), no_run=frozenset({"-v", "-V", "--help"})),
}


def in_place_command(
    argv: Sequence[str], dynamic: AbstractSet[int] = frozenset(), start: int = 0
) -> int | None:
    """Index of the command word the in-place builtin `argv[start]` runs (one of
    `programs.IN_PLACE_BUILTINS`), or None when it runs no command (`command -v ssh`, a lone
    `exec`, `exec -a` without its value).

    `exec` and `command` are read with their rows of `WRAPPERS`; bash's `builtin` and zsh's
    `noglob`/`nocorrect` take no options (bash's `builtin` skips one `--`)."""
    name = basename(argv[start])
    spec = WRAPPERS.get(name) if name in ("exec", "command") else None
    if spec is None:
        at = start + 1
        if name == "builtin" and at < len(argv) and argv[at] == "--" and at not in dynamic:
            at += 1
        return at if at < len(argv) else None
    sc = scan(argv, spec.grammar, start + 1, len(argv), dynamic)
    if {o.name for o in sc.options} & spec.no_run or not sc.operands:
        return None
    return sc.operands[0]

# -- sudo ------------------------------------------------------------------------------------

# sudo 1.9 src/parse_args.c: short_opts "+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv",
# --preserve-env[=list]; NAME=value words (not starting with `/`) may sit among the options
# until `--`; `-h` followed by a word that is neither an option nor NAME=value reads it as the
# remote host.
SUDO_GRAMMAR = _g(
    "AbBEeHiKklNnPSsVv",
    "aCcDgpRrTtUu",
    "h",
    long_flags=(
        "askpass background bell edit set-home login remove-timestamp reset-timestamp "
        "list non-interactive no-update preserve-groups stdin shell validate"
    ),
    long_values=(
        "auth-type close-from login-class chdir group host prompt chroot role type "
        "command-timeout other-user user"
    ),
    long_optional="preserve-env",
)
_SUDO_NO_RUN = frozenset(
    {"-l", "--list", "-v", "--validate", "-K", "--remove-timestamp", "-V", "--version",
     "-e", "--edit", "--help"}
)


def _is_sudo_envar(word: str) -> bool:
    return not word.startswith("/") and "=" in word


def _value(dynamic: AbstractSet[int], opt: Option | None) -> str | None:
    """An option's value unless it is unknown (dynamic)."""
    if opt is None or opt.value is None or opt.value_index in dynamic:
        return None
    return opt.value


def parse_sudo(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    if basename(argv[start]) == "sudoedit":
        return None
    options: list[Option] = []
    envars: list[int] = []
    command: tuple[int, ...] = ()
    uncertain = False
    i = start + 1
    while i < end:
        sc = scan(argv, SUDO_GRAMMAR, i, end, dynamic)
        options.extend(sc.options)
        uncertain = uncertain or sc.uncertain
        if sc.dashdash is not None or not sc.operands:
            command = sc.operands
            break
        first = sc.operands[0]
        last = options[-1] if options else None
        if (
            last is not None
            and last.name == "-h"
            and last.value is None
            and last.index == first - 1
            and argv[last.index] == "-h"
            and not _is_sudo_envar(argv[first])
        ):
            # `-h host`: sudo reads a plain word right after a bare -h as the remote host.
            options[-1] = Option("-h", last.index, argv[first], first)
            i = first + 1
            continue
        if _is_sudo_envar(argv[first]):
            envars.append(first)
            i = first + 1
            continue
        command = sc.operands
        break
    names = {opt.name for opt in options}
    if names & _SUDO_NO_RUN or any(o.name == "-h" and o.value is None for o in options):
        return None
    user_opt = None
    for opt in options:
        if opt.name in ("-u", "--user"):
            user_opt = opt
    runs_as = _value(dynamic, user_opt) if user_opt is not None else "root"
    login = bool(names & {"-i", "--login"})
    if login or names & {"-s", "--shell"}:
        problems: tuple[str, ...] = ()
        if login and names & {"-s", "--shell"}:
            problems = ("sudo: you may not specify both the -i and -s options",)
        return ShellHandoff(
            argv=argv,
            shell="unknown",
            mode="c" if command else "stdin",
            script=None,
            login=login,
            wrapper="sudo",
            runs_as=runs_as,
            script_words=command,
            shell_source=(
                "the target user's login shell (passwd)" if login
                else "$SHELL, else the target user's shell (passwd)"
            ),
            options=tuple(options),
            uncertain=uncertain,
            problems=problems,
        )
    if not command:
        return None
    return ExecHandoff(
        argv=argv,
        wrapper="sudo",
        inner=command[0],
        end=command[-1] + 1,
        runs_as=runs_as,
        words=command,
        options=tuple(options),
        uncertain=uncertain,
    )


# -- env --------------------------------------------------------------------------------------

ENV_GRAMMAR = _g(
    "i0v",
    "uCS",
    long_flags="ignore-environment null debug list-signal-handling",
    long_values="unset chdir split-string",
    long_optional="block-signal default-signal ignore-signal",
)

_ENV_SEPARATORS = " \t\n\r\v\f"
_ENV_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "#": "#", "$": "$",
                '"': '"', "'": "'", "\\": "\\"}


class EnvSplit(FrozenRecord):
    """The result of splitting an `env -S` string."""

    words: tuple[str, ...]
    expanded: tuple[int, ...] = ()
    """Positions of words holding `${NAME}`, kept as written: env expands it from its own
    environment, unknown statically."""
    error: str | None = None


def env_split_string(text: str) -> EnvSplit:
    """Split STRING the way `env -S STRING` does (coreutils manual, "-S/--split-string syntax";
    the error cases were checked against env 9.1): separators are space, tab, CR, LF, VT, FF;
    single quotes keep everything but `\\'` and `\\\\`; double quotes and bare text process
    `\\f \\n \\r \\t \\v \\# \\$ \\" \\' \\\\`; `\\_` is a space inside double quotes and a
    separator outside; `\\c` outside quotes ends the string; `#` starting a word starts a
    comment; `${NAME}` is env's own expansion; any other `\\x`, a bare `$`, a trailing `\\` or
    an unterminated quote is an error."""
    words: list[str] = []
    expanded: list[int] = []
    current: list[str] = []
    in_word = False
    has_var = False
    quote: str | None = None
    i = 0

    def finish() -> None:
        nonlocal in_word, has_var
        if in_word:
            if has_var:
                expanded.append(len(words))
            words.append("".join(current))
        current.clear()
        in_word = False
        has_var = False

    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = None
            elif ch == "\\" and i + 1 < len(text) and text[i + 1] in "'\\":
                current.append(text[i + 1])
                i += 1
            else:
                current.append(ch)
            i += 1
            continue
        if quote is None and ch in _ENV_SEPARATORS:
            finish()
            i += 1
            continue
        if quote is None and ch == "#" and not in_word:
            break
        if quote is None and ch in "'\"":
            quote = ch
            in_word = True
            i += 1
            continue
        if ch == '"' and quote == '"':
            quote = None
            i += 1
            continue
        if ch == "\\":
            if i + 1 >= len(text):
                return EnvSplit(tuple(words), tuple(expanded),
                                "invalid backslash at end of string in -S")
            nxt = text[i + 1]
            if nxt == "c":
                if quote == '"':
                    return EnvSplit(tuple(words), tuple(expanded),
                                    "'\\c' must not appear in double-quoted -S string")
                finish()
                return EnvSplit(tuple(words), tuple(expanded))
            if nxt == "_":
                if quote == '"':
                    current.append(" ")
                    in_word = True
                else:
                    finish()
                i += 2
                continue
            if nxt not in _ENV_ESCAPES:
                return EnvSplit(tuple(words), tuple(expanded),
                                f"invalid sequence '\\{nxt}' in -S")
            current.append(_ENV_ESCAPES[nxt])
            in_word = True
            i += 2
            continue
        if ch == "$":
            close = text.find("}", i)
            if not text.startswith("${", i) or close < 0:
                return EnvSplit(tuple(words), tuple(expanded),
                                f"only ${{VARNAME}} expansion is supported, error at: {text[i:]}")
            current.append(text[i : close + 1])
            has_var = True
            in_word = True
            i = close + 1
            continue
        current.append(ch)
        in_word = True
        i += 1
    if quote is not None:
        return EnvSplit(tuple(words), tuple(expanded), "no terminating quote in -S string")
    finish()
    return EnvSplit(tuple(words), tuple(expanded))


def parse_env(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    # Work on a virtual argv: env splices the split words in place of `-S STR` and restarts
    # getopt on [argv0, split..., rest...]. origin[k] maps virtual k back to argv (None = split).
    virtual: list[str] = [argv[start], *argv[start + 1 : end]]
    origin: list[int | None] = [start, *range(start + 1, end)]
    options: list[Option] = []
    problems: list[str] = []
    uncertain = False
    split_index: int | None = None
    while True:
        vdyn = {k for k, o in enumerate(origin) if o is not None and o in dynamic}
        sc = scan(virtual, ENV_GRAMMAR, 1, len(virtual), vdyn)
        uncertain = uncertain or sc.uncertain
        split_opt = next((o for o in sc.options if o.name in ("-S", "--split-string")), None)
        before = sc.options if split_opt is None else sc.options[: sc.options.index(split_opt)]
        options.extend(_remap(before, origin, split_index))
        if split_opt is None or split_opt.value_index is None:
            break
        options.append(_remap((split_opt,), origin, split_index)[0])
        value_origin = origin[split_opt.value_index]
        if value_origin is not None:
            split_index = value_origin  # else: a nested -S inside an earlier split string
        if value_origin is not None and value_origin in dynamic:
            # The string is unknown: the words after it still follow the split words.
            uncertain = True
            problems.append("env -S: the split string is unknown statically")
            rest = split_opt.value_index + 1
            virtual = [virtual[0], *virtual[rest:]]
            origin = [origin[0], *origin[rest:]]
            continue
        assert split_opt.value is not None
        result = env_split_string(split_opt.value)
        if result.error is not None:
            return ExecHandoff(argv=argv, wrapper="env", inner=end, end=end,
                               split_string=split_index, options=tuple(options),
                               problems=(f"env: {result.error}",))
        rest = split_opt.value_index + 1
        virtual = [virtual[0], *result.words, *virtual[rest:]]
        origin = [origin[0], *([None] * len(result.words)), *origin[rest:]]
        if result.expanded:
            uncertain = True
    names = {o.name for o in options}
    if names & {"--help", "--version"}:
        return None
    operands = list(sc.operands)
    if operands and virtual[operands[0]] == "-":
        operands.pop(0)  # a lone `-` right after the options means -i (even after `--`)
    while operands and "=" in virtual[operands[0]]:
        operands.pop(0)
    if not operands:
        return None
    prefix = tuple(virtual[k] for k in operands if origin[k] is None)
    words = tuple(o for k in operands if (o := origin[k]) is not None)
    inner = words[0] if words else end
    return ExecHandoff(
        argv=argv,
        wrapper="env",
        inner=inner,
        end=words[-1] + 1 if words else end,
        words=words,
        prefix=prefix,
        split_string=split_index,
        options=tuple(options),
        uncertain=uncertain,
        problems=tuple(problems),
    )


def _remap(
    options: Sequence[Option], origin: Sequence[int | None], split_index: int | None
) -> tuple[Option, ...]:
    """Options found in env's virtual argv, with indices mapped back to argv; an option that
    came out of an -S string is reported at the index of that string."""
    out: list[Option] = []
    for opt in options:
        idx = origin[opt.index]
        vidx = None if opt.value_index is None else origin[opt.value_index]
        if vidx is None and opt.value_index is not None:
            vidx = split_index
        if idx is None:
            idx = -1 if split_index is None else split_index
        out.append(Option(opt.name, idx, opt.value, vidx))
    return tuple(out)


# -- generic table-driven wrappers --------------------------------------------------------------


def _runs_as(
    spec: WrapperSpec, argv: tuple[str, ...], dynamic: AbstractSet[int], sc: Scan
) -> str | None:
    if spec.user_operand and sc.operands:
        first = sc.operands[0]
        return None if first in dynamic else argv[first].split(":", 1)[0]
    for name in spec.user_options:
        opt = sc.last(name)
        if opt is not None:
            value = _value(dynamic, opt)
            return None if value is None else value.split(":", 1)[0]
    return spec.default_user


def parse_wrapper(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    name = basename(argv[start])
    spec = WRAPPERS[name]
    sc = scan(argv, spec.grammar, start + 1, end, dynamic)
    names = {o.name for o in sc.options}
    if names & spec.no_run:
        return None
    problems: list[str] = []
    if sc.missing_value is not None:
        problems.append(f"{name}: option requires an argument -- {sc.missing_value.name}")
    operands = sc.operands
    if len(operands) < spec.operands_before:
        return None
    target = operands[0] if spec.operands_before else None
    command = operands[spec.operands_before :]
    runs_as = _runs_as(spec, argv, dynamic, sc)
    if name == "flock" and command and argv[command[0]] in ("-c", "--command"):
        return _flock_shell(argv, command, sc, problems)
    if name == "chroot" and not command:
        return ShellHandoff(
            argv=argv, shell="unknown", mode="stdin", script=None, interactive=True,
            flags=("-i",), wrapper="chroot", runs_as=runs_as,
            shell_source="$SHELL, else /bin/sh, inside NEWROOT (run as `$SHELL -i`)",
            options=sc.options, uncertain=sc.uncertain,
        )
    if name == "doas" and "-s" in names:
        return ShellHandoff(
            argv=argv, shell="unknown", mode="stdin", script=None,
            wrapper="doas", runs_as=runs_as, options=sc.options,
            shell_source="$SHELL, else the target user's shell (passwd)",
        )
    placeholder: str | None = None
    appends = False
    prefix: tuple[str, ...] = ()
    if name == "xargs":
        placeholder = xargs_replace_string(sc.options)
        appends = placeholder is None
    if not command:
        if not spec.default_command:
            return None
        prefix = spec.default_command
    return ExecHandoff(
        argv=argv,
        wrapper=name,
        inner=command[0] if command else end,
        end=command[-1] + 1 if command else end,
        placeholder=placeholder,
        appends_input=appends,
        runs_as=runs_as,
        words=command,
        prefix=prefix,
        target=target,
        options=sc.options,
        uncertain=sc.uncertain,
        problems=tuple(problems),
    )


def _flock_shell(
    argv: tuple[str, ...], command: tuple[int, ...], sc: Scan, problems: list[str]
) -> ShellHandoff:
    if len(command) != 2:
        problems.append(f"flock: {argv[command[0]]} requires exactly one command argument")
    return ShellHandoff(
        argv=argv,
        shell="unknown",
        mode="c",
        script=command[1] if len(command) > 1 else None,
        wrapper="flock",
        shell_source="$SHELL, else /bin/sh",
        options=sc.options,
        uncertain=sc.uncertain,
        problems=tuple(problems),
    )


def xargs_replace_string(options: Sequence[Option]) -> str | None:
    """The replace string xargs ends up with: -I R, -i[R] / --replace[=R] (default `{}`);
    a later -L/-l/--max-lines, or -n/--max-args other than 1, resets it (verified)."""
    replace: str | None = None
    for opt in options:
        if opt.name == "-I":
            replace = opt.value
        elif opt.name in ("-i", "--replace"):
            replace = opt.value if opt.value is not None else "{}"
        elif opt.name in ("-L", "-l", "--max-lines"):
            replace = None
        elif opt.name in ("-n", "--max-args") and replace is not None:
            try:
                one = int(opt.value or "") == 1
            except ValueError:
                one = False
            if not one:
                replace = None
    return replace


# -- find --------------------------------------------------------------------------------------

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Primaries taking one argument (GNU find(1)); -fprintf takes two. A word after them is data.
_FIND_ONE_ARG = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-lname", "-ilname", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm", "-size",
    "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-used", "-newer", "-anewer",
    "-cnewer", "-samefile", "-inum", "-links", "-maxdepth", "-mindepth", "-fprint", "-fprint0",
    "-printf", "-fls", "-context", "-regextype", "-files0-from", "-fstype",
})


def find_clauses(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> list[ExecHandoff]:
    clauses: list[ExecHandoff] = []
    i = start + 1
    while i < end:
        word = argv[i]
        if word == "-fprintf":
            i += 3
            continue
        if word in _FIND_ONE_ARG or (word.startswith("-newer") and len(word) == 8):
            i += 2
            continue
        if word not in _FIND_EXEC:
            i += 1
            continue
        clause, i = _find_clause(argv, dynamic, i, end)
        clauses.append(clause)
    return clauses


def _find_clause(
    argv: tuple[str, ...], dynamic: AbstractSet[int], at: int, end: int
) -> tuple[ExecHandoff, int]:
    action = argv[at]
    plus_allowed = action in ("-exec", "-execdir")
    first = at + 1
    term: int | None = None
    for j in range(first, end):
        if j in dynamic:
            continue
        if argv[j] == ";":
            term = j
            break
        if plus_allowed and argv[j] == "+" and j - 1 >= first and argv[j - 1] == "{}":
            term = j
            break
    problems: list[str] = []
    if term is None:
        problems.append(f"find: missing argument to `{action}'")
        stop = end
    else:
        stop = term
    words = tuple(range(first, stop))
    terminator = None if term is None else argv[term]
    if term is not None and not words:
        problems.append(f"find: invalid argument `;' to `{action}'")
    if terminator == "+" and any("{}" in argv[k] for k in words[:-1]):
        problems.append("find: Only one instance of {} is supported with -exec ... +")
    clause = ExecHandoff(
        argv=argv,
        wrapper="find",
        inner=first,
        end=stop,
        placeholder="{}",
        appends_input=terminator == "+",
        words=words,
        action=action,
        terminator=terminator,
        uncertain=any(k in dynamic for k in words[:1]),
        problems=tuple(problems),
    )
    return clause, stop + 1


def parse_find(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    clauses = find_clauses(argv, dynamic, start, end)
    return clauses[0] if clauses else None


# -- docker / podman ---------------------------------------------------------------------------

# `docker --help` (Docker CLI 28.2): global options before the sub-command.
DOCKER_GLOBAL = _g(
    "Dv", "cHl", long_flags="debug tls tlsverify",
    long_values="config context host log-level tlscacert tlscert tlskey",
    abbreviations=False, short_equals=True,
)
# podman(1) global options (podman 4/5 manual).
PODMAN_GLOBAL = _g(
    "rv", "c", long_flags="remote syslog transient-store noout debug",
    long_values=(
        "url connection identity root runroot storage-driver storage-opt cgroup-manager "
        "log-level events-backend hooks-dir module network-cmd-path network-config-dir runtime "
        "runtime-flag ssh tmpdir volumepath imagestore conmon config cni-config-dir db-backend out"
    ),
    abbreviations=False, short_equals=True,
)
# `docker exec --help`; podman exec adds --preserve-fds and -l/--latest (no container then).
CONTAINER_EXEC = _g(
    "ditl", "euw", long_flags="detach interactive privileged tty latest",
    long_values="detach-keys env env-file user workdir preserve-fds preserve-fd",
    abbreviations=False, short_equals=True,
)
# `docker run --help` (value-taking options listed by their type in the help text); podman
# run's extra value options added from podman-run(1).
CONTAINER_RUN = _g(
    "diPqt", "acehlmpuvw",
    long_flags=(
        "detach disable-content-trust init interactive no-healthcheck oom-kill-disable "
        "privileged publish-all quiet read-only rm sig-proxy tty use-api-socket rootfs replace "
        "env-host http-proxy read-only-tmpfs no-hosts"
    ),
    long_values=(
        "add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop "
        "cgroup-parent cgroupns cidfile cpu-count cpu-percent cpu-period cpu-quota "
        "cpu-rt-period cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems detach-keys device "
        "device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops "
        "dns dns-option dns-search domainname entrypoint env env-file expose gpus group-add "
        "health-cmd health-interval health-retries health-start-interval health-start-period "
        "health-timeout hostname io-maxbandwidth io-maxiops ip ip6 ipc isolation kernel-memory "
        "label label-file link link-local-ip log-driver log-opt mac-address memory "
        "memory-reservation memory-swap memory-swappiness mount name network network-alias "
        "oom-score-adj pid pids-limit platform publish pull restart runtime security-opt "
        "shm-size stop-signal stop-timeout storage-opt sysctl tmpfs ulimit user userns uts "
        "volume volume-driver volumes-from workdir "
        "pod userns arch os variant secret preserve-fds uidmap gidmap subuidname subgidname "
        "tz timezone init-path passwd-entry pidfile requires sdnotify seccomp-policy systemd "
        "umask unsetenv chrootdirs hostuser personality rdt-class retry retry-delay "
        "decryption-key cgroup-conf cgroups conmon-pidfile group-entry image-volume "
        "pod-id-file shm-size-systemd"
    ),
    abbreviations=False, short_equals=True,
)


def _takes_a_value(grammar: Grammar, word: str) -> bool:
    """``word`` is an option of ``grammar`` that takes a value (`--name`, `-v`, `--env=X`)."""
    if word.startswith("--"):
        return word[2:].partition("=")[0] in grammar.long_values
    return len(word) == 2 and word[0] == "-" and word[1] in grammar.short_values


def parse_container(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    name = basename(argv[start])
    glob = scan(argv, DOCKER_GLOBAL if name == "docker" else PODMAN_GLOBAL, start + 1, end,
                dynamic)
    ops = glob.operands
    if ops and argv[ops[0]] == "container":
        ops = ops[1:]
    if not ops or argv[ops[0]] not in ("exec", "run"):
        return None
    action = argv[ops[0]]
    grammar = CONTAINER_EXEC if action == "exec" else CONTAINER_RUN
    sub = scan(argv, grammar, ops[0] + 1, end, dynamic)
    while len(sub.operands) > 1 and sub.operands[0] in dynamic and \
            _takes_a_value(grammar, argv[sub.operands[0] + 1]):
        # `docker run --rm $INTERACTIVE --name "$n" -v ... image cmd`: a run-time word followed
        # by the program's own options with their values holds options too (or nothing); taken
        # for the container, it made `--name` the command.
        rest = scan(argv, grammar, sub.operands[0] + 1, end, dynamic)
        if not rest.operands:
            break
        sub = type(sub)((*sub.options, *rest.options), rest.operands, rest.dashdash,
                        (*sub.unknown, *rest.unknown), rest.missing_value, True)
    options = glob.options + sub.options
    uncertain = glob.uncertain or sub.uncertain
    if sub.has("--help"):
        return None
    operands = sub.operands
    latest = action == "exec" and sub.has("-l", "--latest")
    target = None if latest else (operands[0] if operands else None)
    command = operands if latest else operands[1:]
    user = sub.last("-u", "--user")
    runs_as = _value(dynamic, user)
    entry = sub.last("--entrypoint")
    prefix: tuple[str, ...] = ()
    if entry is not None and entry.value:
        prefix = (entry.value,)
    if target is None and not latest:
        return None
    if action == "exec" and not command:
        return None
    return ExecHandoff(
        argv=argv,
        wrapper=name,
        inner=command[0] if command else end,
        end=command[-1] + 1 if command else end,
        runs_as=None if runs_as is None else runs_as.split(":", 1)[0],
        words=command,
        prefix=prefix,
        action=action,
        target=target,
        options=options,
        uncertain=uncertain,
    )


# -- kubectl -----------------------------------------------------------------------------------

# `kubectl exec --help` and `kubectl options` (kubectl 1.32): cobra reads flags anywhere
# before `--`; bool flags print `=false`, the others take a value.
KUBECTL_GRAMMAR = _g(
    "itq", "cfnsv",
    long_flags=(
        "stdin tty quiet disable-compression insecure-skip-tls-verify match-server-version "
        "warnings-as-errors rm attach command privileged expose leave-stdin-open"
    ),
    long_values=(
        "container filename pod-running-timeout as as-group as-uid cache-dir "
        "certificate-authority client-certificate client-key cluster context kubeconfig "
        "log-flush-frequency namespace password profile profile-output request-timeout server "
        "tls-server-name token user username v vmodule "
        # `kubectl run --help` (kubectl 1.32)
        "image env labels port overrides serviceaccount image-pull-policy annotations "
        "restart field-manager override-type"
    ),
    permute=True, abbreviations=False, short_equals=True,
)


def parse_kubectl(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    sc = scan(argv, KUBECTL_GRAMMAR, start + 1, end, dynamic)
    dash = sc.dashdash
    before = [k for k in sc.operands if dash is None or k < dash]
    after = tuple(k for k in sc.operands if dash is not None and k > dash)
    if before and argv[before[0]] == "run":
        return _kubectl_run(argv, sc, before, after)
    if not before or argv[before[0]] != "exec":
        return None
    pod = before[1] if len(before) > 1 else None
    problems: list[str] = []
    if dash is None:
        command = tuple(before[2:])
        if command:
            problems.append(
                "kubectl exec POD COMMAND without `--`: kubectl reads flags among the command "
                "words, and current kubectl refuses it (exec [POD] [COMMAND] is not supported "
                "anymore)"
            )
    else:
        command = after
        if len(before) > 2:
            problems.append("kubectl exec: words before `--` besides the pod")
    if pod is None and not sc.has("-f", "--filename"):
        return None
    if not command:
        return None
    return ExecHandoff(
        argv=argv,
        wrapper="kubectl",
        inner=command[0],
        end=command[-1] + 1,
        words=command,
        action="exec",
        target=pod,
        options=sc.options,
        uncertain=sc.uncertain,
        problems=tuple(problems),
    )


def _kubectl_run(argv: tuple[str, ...], sc: Scan, before: list[int],
                 after: tuple[int, ...]) -> Handoff | None:
    """`kubectl run NAME --image=IMG [--env=K=V]... -- ARGS`: the words after `--` run in the
    pod's container as its argv, no shell (with `--command` they replace the image's
    entrypoint, else they are the arguments of it)."""
    if len(before) < 2 or not after:
        return None
    return ExecHandoff(
        argv=argv,
        wrapper="kubectl",
        inner=after[0],
        end=after[-1] + 1,
        words=after,
        action="run",
        target=before[1],
        options=sc.options,
        uncertain=sc.uncertain or not sc.has("--command"),
    )


# MPI launchers read single-dash long options (`-np 4`, `-hostfile f`) as well as `--name`;
# Open MPI mpirun(1) (4.1) and MPICH's Hydra `mpiexec -help`. A name not listed here is taken
# for a flag, and the split is marked uncertain.
_MPI_TWO_VALUES = frozenset({"mca", "gmca", "env", "genv"})
_MPI_VALUES = frozenset({
    "np", "n", "c", "H", "host", "hosts", "hostfile", "machinefile", "f", "default-hostfile",
    "x", "wdir", "wd", "prefix", "map-by", "bind-to", "rank-by", "npernode", "npersocket", "N",
    "ppn", "output-filename", "timeout", "path", "preload-files", "launcher", "bootstrap",
    "iface", "genvlist", "envlist", "report-pid", "report-uri", "cpus-per-proc",
    "cpus-per-rank", "mca-param-file", "tune", "rankfile", "hostlist",
    # Intel MPI: `-r ssh` names the remote shell that starts the daemons; Hydra's programs
    "r", "bootstrap-exec", "launcher-exec", "rmk"})
_MPI_FLAGS = frozenset({
    "allow-run-as-root", "oversubscribe", "report-bindings", "tag-output",
    "timestamp-output", "q", "quiet", "v", "verbose", "display-map", "display-allocation",
    "use-hwthread-cpus", "nolocal", "noprefix", "d", "l", "prepend-rank", "genvall",
    "genvnone", "envall", "envnone", "bind-to-core", "bind-to-socket", "byslot", "bynode",
    "merge-stderr-to-stdout", "enable-recovery", "disable-recovery", "help", "version", "h",
    "V"})
# Options after which no program follows: an appfile or a config file names the programs.
_MPI_NO_PROGRAM = frozenset({"app", "configfile", "help", "version", "h", "V"})


def parse_mpi(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    """`mpirun`/`mpiexec` OPTIONS PROGRAM ARGS: the program runs as each MPI process, on the
    hosts the options name, with no shell (only the first app of an `a : b` line is read)."""
    name = basename(argv[start])
    i = start + 1
    uncertain = False
    while i < end:
        word = argv[i]
        if i in dynamic:
            uncertain = True  # (an option or the program: not known before run time)
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        option = word.lstrip("-")
        if "=" in option:
            i += 1
            continue
        if option in _MPI_NO_PROGRAM:
            return None
        if option in _MPI_TWO_VALUES:
            i += 3
        elif option in _MPI_VALUES:
            i += 2
        else:
            uncertain = uncertain or option not in _MPI_FLAGS
            i += 1
    if i >= end:
        return None
    stop = next((k for k in range(i, end) if argv[k] == ":"), end)
    command = tuple(range(i, stop))
    return ExecHandoff(argv=argv, wrapper=name, inner=i, end=stop, words=command,
                       uncertain=uncertain)


HANDLERS: dict[str, Handler] = {
    **{name: parse_wrapper for name in WRAPPERS},
    "sudo": parse_sudo,
    "sudoedit": parse_sudo,
    "env": parse_env,
    "find": parse_find,
    "docker": parse_container,
    "podman": parse_container,
    "kubectl": parse_kubectl,
    "mpirun": parse_mpi,
    "mpiexec": parse_mpi,
    "orterun": parse_mpi,
}
