"""Shells started on a script: `sh -c STR`, `bash -s`, `bash file`, `su -c`, `runuser`, `script -c`.

Facts (verified with bash 5.2, dash 0.5.12, util-linux 2.38.1 su/runuser/script, as root):
- `sh -c STR a0 a1`: options may also follow -c up to the first non-option word, which is the
  string (`bash -c -x 'echo hi'` traces); the words after it are $0 $1 ...; after the string
  nothing is an option (`bash -c 'echo $0' --norc` prints `--norc`);
- `-o NAME` takes the next word even inside a cluster (`bash -eo pipefail -c ...`);
- bash long options must come before short ones (`bash -x --login` fails); `--` or a lone `-`
  ends the options; `bash -- -c` runs a script file named `-c`;
- -l / --login, or argv[0] starting with `-`, make a login shell;
- su reads options anywhere (GNU getopt permutation): `su root A -c STR B` runs
  `shell -c STR A B`, so $0=A, $1=B; the last -c wins; an unknown option after the string is
  an su error (`su root -c x -x`); `-` is only the login marker before the user
  (`su root - -c 'echo $0'` prints `-`); `-s SHELL` picks the shell;
- `runuser -u USER CMD...` execs CMD without a shell but still reads options among CMD's words
  (`runuser -u nobody echo -l` fails: -l and -u are mutually exclusive); `--` stops that;
- `script -c CMD [file]` runs `$SHELL -c CMD` (/bin/sh when SHELL is unset), options may
  follow the file, and more than one file operand is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from quotecheck.layers.argv_options import Grammar, Option, scan
from quotecheck.layers.handoff_types import (
    ExecHandoff,
    Handler,
    Handoff,
    ShellHandoff,
    basename,
)
from quotecheck.programs import SHELL_PROGRAMS

# bash(1): long options that take the next word as their value.
_SHELL_LONG_VALUES = frozenset({"rcfile", "init-file", "emulate"})


def parse_shell_words(
    argv: tuple[str, ...],
    dynamic: AbstractSet[int],
    shell: str,
    indices: Sequence[int],
    *,
    shell_index: int | None,
    login: bool = False,
    wrapper: str | None = None,
    runs_as: str | None = None,
    shell_source: str | None = None,
    options: tuple[Option, ...] = (),
    problems: tuple[str, ...] = (),
) -> ShellHandoff:
    """Read shell options from argv[indices] (the shell's arguments after argv[0])."""
    flags: list[str] = []
    cmode = smode = interactive = False
    uncertain = False
    pos = 0
    seen_short = False
    while pos < len(indices):
        k = indices[pos]
        word = argv[k]
        if k in dynamic and not word.startswith(("-", "+")):
            uncertain = True
            break
        if word in ("--", "-"):
            pos += 1
            break
        if word.startswith("--") and not seen_short:
            name = word[2:].partition("=")[0]
            if name == "login":
                login = True
            elif name in _SHELL_LONG_VALUES and "=" not in word and pos + 1 < len(indices):
                flags.append(f"{word} {argv[indices[pos + 1]]}")
                pos += 1
            else:
                flags.append(word)
            pos += 1
            continue
        if len(word) < 2 or word[0] not in "-+":
            break
        seen_short = True
        sign = word[0]
        for letter in word[1:]:
            if letter == "c" and sign == "-":
                cmode = True
            elif letter == "s" and sign == "-":
                smode = True
            elif letter == "i" and sign == "-":
                interactive = True
            elif letter == "l" and sign == "-":
                login = True
            elif letter in "oO":
                if pos + 1 < len(indices):
                    pos += 1
                    flags.append(f"{sign}{letter} {argv[indices[pos]]}")
                else:
                    flags.append(sign + letter)
            else:
                flags.append(sign + letter)
        pos += 1
    operands = tuple(indices[pos:])
    probs = list(problems)
    if cmode:
        script = operands[0] if operands else None
        if script is None:
            probs.append(f"{shell}: -c: option requires an argument")
        args = operands[1:]
        return ShellHandoff(
            argv=argv, shell=shell, mode="c", script=script, args=args, login=login,
            flags=tuple(flags), interactive=interactive, wrapper=wrapper, runs_as=runs_as,
            dollar0=args[0] if args else shell_index, shell_index=shell_index,
            shell_source=shell_source, options=options, uncertain=uncertain,
            problems=tuple(probs),
        )
    if smode or not operands:
        return ShellHandoff(
            argv=argv, shell=shell, mode="stdin", script=None, args=operands, login=login,
            flags=tuple(flags), interactive=interactive,
            wrapper=wrapper, runs_as=runs_as, dollar0=shell_index, shell_index=shell_index,
            shell_source=shell_source, options=options, uncertain=uncertain,
            problems=tuple(probs),
        )
    return ShellHandoff(
        argv=argv, shell=shell, mode="file", script=operands[0], args=operands[1:],
        login=login, flags=tuple(flags), interactive=interactive, wrapper=wrapper,
        runs_as=runs_as, dollar0=operands[0], shell_index=shell_index,
        shell_source=shell_source, options=options,
        uncertain=uncertain or operands[0] in dynamic, problems=tuple(probs),
    )


def parse_shell(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> ShellHandoff:
    name = basename(argv[start])
    login = name.startswith("-")
    return parse_shell_words(
        argv, dynamic, name.lstrip("-"), range(start + 1, end), shell_index=start, login=login
    )


# -- su / runuser ------------------------------------------------------------------------------

# util-linux su(1)/runuser(1) 2.38: getopt_long("c:fg:G:lmpPs:hVw:" [+ "u:" for runuser]).
SU_GRAMMAR = Grammar(
    short_flags="flmpPhV",
    short_values="cgGsw",
    long_flags=frozenset({"fast", "login", "preserve-environment", "pty", "help", "version"}),
    long_values=frozenset({"command", "session-command", "group", "supp-group", "shell",
                           "whitelist-environment"}),
    permute=True,
)
RUNUSER_GRAMMAR = Grammar(
    short_flags=SU_GRAMMAR.short_flags,
    short_values=SU_GRAMMAR.short_values + "u",
    long_flags=SU_GRAMMAR.long_flags,
    long_values=SU_GRAMMAR.long_values | {"user"},
    permute=True,
)
_SHELL_ONLY = frozenset({"-c", "--command", "--session-command", "-s", "--shell", "-f", "--fast",
                         "-l", "--login"})


def _value_offset(argv: tuple[str, ...], opt: Option) -> int:
    if opt.value is None or opt.value_index != opt.index:
        return 0
    return len(argv[opt.index]) - len(opt.value)


def parse_su(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    name = basename(argv[start])
    grammar = RUNUSER_GRAMMAR if name == "runuser" else SU_GRAMMAR
    sc = scan(argv, grammar, start + 1, end, dynamic)
    names = {o.name for o in sc.options}
    if names & {"-h", "--help", "-V", "--version"}:
        return None
    problems: list[str] = []
    if sc.missing_value is not None:
        problems.append(f"{name}: option requires an argument -- {sc.missing_value.name}")
    if sc.unknown:
        problems.append(f"{name}: invalid option {argv[sc.unknown[0]]!r}")
    operands = list(sc.operands)
    user_opt = sc.last("-u", "--user") if name == "runuser" else None
    if user_opt is not None:
        if names & _SHELL_ONLY:
            problems.append(
                "runuser: options --{shell,fast,command,session-command,login} and --user are "
                "mutually exclusive"
            )
        if not operands:
            return None
        words = tuple(operands)
        return ExecHandoff(
            argv=argv, wrapper="runuser", inner=words[0], end=words[-1] + 1,
            runs_as=None if user_opt.value_index in dynamic else user_opt.value,
            words=words, options=sc.options, uncertain=sc.uncertain, problems=tuple(problems),
        )
    login = bool(names & {"-l", "--login"})
    if operands and argv[operands[0]] == "-" and operands[0] not in dynamic:
        login = True
        operands.pop(0)
    runs_as: str | None = "root"
    if operands:
        user = operands.pop(0)
        runs_as = None if user in dynamic else argv[user]
    shell_opt = sc.last("-s", "--shell")
    shell = "unknown"
    source: str | None = "the target user's login shell (passwd), /bin/sh if empty"
    if shell_opt is not None and shell_opt.value and shell_opt.value_index not in dynamic:
        shell = basename(shell_opt.value)
        source = None
    command = sc.last("-c", "--command", "--session-command")
    flags = ("-f",) if names & {"-f", "--fast"} else ()
    if command is not None:
        args = tuple(operands)
        return ShellHandoff(
            argv=argv, shell=shell, mode="c", script=command.value_index, args=args,
            login=login, flags=flags, wrapper=name, runs_as=runs_as,
            script_offset=_value_offset(argv, command),
            dollar0=args[0] if args else None, shell_source=source, options=sc.options,
            uncertain=sc.uncertain, problems=tuple(problems),
        )
    # No -c: the remaining words are the shell's own arguments (`su u script.sh a`, even
    # `su u -- -c CMD`), so read them with the shell grammar.
    inner = parse_shell_words(
        argv, dynamic, shell, operands, shell_index=None, login=login, wrapper=name,
        runs_as=runs_as, shell_source=source, options=sc.options, problems=tuple(problems),
    )
    if inner.mode == "stdin" and not operands:
        return ShellHandoff(
            argv=argv, shell=shell, mode="stdin", script=None, login=login, flags=flags,
            wrapper=name, runs_as=runs_as, shell_source=source,
            options=sc.options, uncertain=sc.uncertain, problems=tuple(problems),
        )
    return inner


# -- script ------------------------------------------------------------------------------------

# util-linux script(1) 2.38.1 options (permuting getopt; 2.42 stops at the first operand).
SCRIPT_GRAMMAR = Grammar(
    short_flags="aefqhV",
    short_values="cEBIOTmo",
    short_optional="t",
    long_flags=frozenset({"append", "return", "flush", "force", "quiet", "help", "version"}),
    long_values=frozenset({"command", "echo", "log-io", "log-in", "log-out", "log-timing",
                           "logging-format", "output-limit"}),
    long_optional=frozenset({"timing"}),
    permute=True,
)


def parse_script(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    sc = scan(argv, SCRIPT_GRAMMAR, start + 1, end, dynamic)
    if sc.has("-h", "--help", "-V", "--version"):
        return None
    problems: list[str] = []
    if len(sc.operands) > 1:
        problems.append("script: unexpected number of arguments")
    command = sc.last("-c", "--command")
    source = "$SHELL, else /bin/sh"
    if command is None:
        return ShellHandoff(
            argv=argv, shell="unknown", mode="stdin", script=None, flags=("-i",),
            interactive=True, wrapper="script", shell_source=source, options=sc.options,
            uncertain=sc.uncertain, problems=tuple(problems),
        )
    return ShellHandoff(
        argv=argv, shell="unknown", mode="c", script=command.value_index, wrapper="script",
        script_offset=_value_offset(argv, command), shell_source=source, options=sc.options,
        uncertain=sc.uncertain, problems=tuple(problems),
    )


HANDLERS: dict[str, Handler] = {
    **{name: parse_shell for name in SHELL_PROGRAMS},
    **{"-" + name: parse_shell for name in SHELL_PROGRAMS},
    "su": parse_su,
    "runuser": parse_su,
    "script": parse_script,
}
