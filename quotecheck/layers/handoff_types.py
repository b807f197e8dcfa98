"""The kinds of hand-off: what a program that passes text or argv on does with its argv.

One frozen dataclass per kind (ssh, exec wrappers, shells, joins, awk), filled in by the
parser of the program's argv (`ssh.py`, `wrappers.py`, `shells.py`, `joins.py`, `awk.py`), which
`dispatch.classify` chooses. No argv is parsed here.

Indices always refer to positions in the argv that was classified. A word listed in `dynamic`
is unknown at analysis time (its text is the word as written, e.g. `$X`); its value is never
guessed. Each result has `uncertain=True` when such a word sits where the program's grammar
decides the structure (it may expand to options, several words, or nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar, Literal

from quotecheck.layers.argv_options import Option
from quotecheck.layers.ssh_settings import config_value, first_setting, split_destination
from quotecheck.programs import basename, sudo_shell_escapes
from quotecheck.records import FrozenRecord

__all__ = [
    "AwkAssignment",
    "AwkHandoff",
    "ExecHandoff",
    "Handler",
    "Handoff",
    "JoinHandoff",
    "ShellHandoff",
    "SshHandoff",
    "basename",
    "sudo_shell_string",
]


def _pick(argv: tuple[str, ...], values: Sequence[str] | None) -> Sequence[str]:
    return argv if values is None else values


class SshHandoff(FrozenRecord):
    """OpenSSH client: the remote command words are joined with single spaces and sent to sshd,
    which runs them with the user's login shell (`shell -c STRING`)."""

    kind: ClassVar[str] = "ssh"
    argv: tuple[str, ...]
    destination: int | None
    """Index of the destination word (`[user@]host` or `ssh://[user@]host[:port]`)."""
    command: tuple[int, ...]
    """Remote command words; empty = an interactive login shell (or -N/-W/-O: none at all)."""
    options: tuple[tuple[str, int | None], ...]
    """Each option as (`-p`, index of the word holding its value, or None for flags)."""
    tty: int
    """Effective -t level as OpenSSH computes it: 0 none (or -T, RequestTTY=no), 1 requested,
    2 forced. OpenSSH toggles: -t gives 1, -tt 2, -ttt 1 again (verified with ssh -G)."""
    stdin_null: bool
    """-n, or -f which implies it: local stdin is not read."""
    background: bool
    """-f: ssh forks into the background before running the command."""
    request_tty: Literal["auto", "no", "yes", "force"] = "auto"
    parsed: tuple[Option, ...] = ()
    no_command: bool = False
    """-N, -W, -O, -G, -V, -Q: no remote command is run (or no connection at all)."""
    subsystem: bool = False
    """-s: the command words name a subsystem, not a shell command."""
    dashdash: int | None = None
    uncertain: bool = False
    problems: tuple[str, ...] = ()
    spread: tuple[int, ...] = ()
    """Run-time words in option position that may expand to any number of words
    (`"${SSH_OPTS[@]}"`, `$@`, `$SSH_OPTS`) and were taken for options because more words
    follow them: where the destination and the command start is then uncertain."""

    def option_values(self, letter: str) -> tuple[str, ...]:
        """All values given to one option (`-o` or `o`), in argv order."""
        name = letter if letter.startswith("-") else "-" + letter
        return tuple(o.value for o in self.parsed if o.name == name and o.value is not None)

    def config(self, name: str) -> str | None:
        """The value of `-o Name=value` / `-o "Name value"` / `-oName=value`; keyword matched
        case-insensitively, the first value wins (ssh_config(5): "the first obtained value will
        be used"; verified: `-o Port=1 -o Port=2` gives port 1)."""
        return config_value(self.option_values("-o"), name)

    def port(self) -> str | None:
        """The port ssh will use when given on the command line (-p, -o Port, ssh:// URI):
        whichever comes first in argv wins (verified: `-p 2 -o Port=1` gives 2)."""
        return first_setting(self.parsed, self.destination, self.argv, "port")

    def user(self) -> str | None:
        """The login name from -l, -o User or `user@` in the destination; the first wins
        (verified: `-l y -o User=x h` gives y, `root@h -l bob` gives root)."""
        return first_setting(self.parsed, self.destination, self.argv, "user")

    def host(self) -> str | None:
        """The host part of the destination (without user@ or the URI decoration)."""
        if self.destination is None:
            return None
        return split_destination(self.argv[self.destination])[1]

    def sends(self, values: Sequence[str] | None = None) -> str:
        """The exact string ssh sends: the command words joined with single spaces, no quoting
        added (verified). `values` replaces argv (same indices) when given."""
        argv = _pick(self.argv, values)
        return " ".join(argv[i] for i in self.command)


class ExecHandoff(FrozenRecord):
    """A wrapper that execs an argv it got (no shell): sudo, env, timeout, xargs, find -exec..."""

    kind: ClassVar[str] = "exec"
    argv: tuple[str, ...]
    wrapper: str
    """Basename of the wrapper, e.g. `sudo`, `find`, `docker`."""
    inner: int
    """Index where the inner argv starts (== end when the inner argv has no word from argv)."""
    end: int
    """Exclusive end of the inner argv (for find -exec: the index of the `;`/`+` terminator)."""
    placeholder: str | None = None
    """`{}` for find -exec, the -I/-i string for xargs: replaced by input inside words."""
    appends_input: bool = False
    """Input words are appended to the inner argv (xargs without -I; find -exec ... {} +)."""
    runs_as: str | None = None
    """Target user when known: sudo -u (default root), runuser -u, chroot --userspec, gosu..."""
    words: tuple[int, ...] = ()
    """Exact argv indices of the inner argv, in order. Usually range(inner, end); differs when
    the wrapper permutes options (runuser -u, kubectl without --)."""
    prefix: tuple[str, ...] = ()
    """Literal words the wrapper puts before `words`: xargs' default `echo`, the split of an
    `env -S` string."""
    split_string: int | None = None
    """env -S: index of the word whose split starts the inner argv (see `prefix`)."""
    action: str | None = None
    """Sub-mode: find's `-exec`/`-execdir`/`-ok`/`-okdir`, docker's `exec`/`run`..."""
    terminator: str | None = None
    """find: `;` or `+`."""
    target: int | None = None
    """The operand the wrapper reads before the command: docker/podman container or image,
    kubectl pod, chroot NEWROOT, flock lock file, timeout DURATION, gosu USER."""
    options: tuple[Option, ...] = ()
    uncertain: bool = False
    problems: tuple[str, ...] = ()

    def inner_argv(self, values: Sequence[str] | None = None) -> tuple[str, ...]:
        """The inner argv as far as it is known (placeholders not substituted)."""
        argv = _pick(self.argv, values)
        return self.prefix + tuple(argv[i] for i in self.words)

    @property
    def program(self) -> int | None:
        """Index of the inner program word, if it comes from argv (not from `prefix`)."""
        if self.prefix or not self.words:
            return None
        return self.words[0]


class ShellHandoff(FrozenRecord):
    """A shell started on a script: `sh -c STR`, `bash -s`, `bash file`, `su -c`, `sudo -s`..."""

    kind: ClassVar[str] = "shell"
    argv: tuple[str, ...]
    shell: str
    """Basename of the shell (sh, bash, dash, zsh, ksh...) or `unknown` when it is a user's
    login shell or $SHELL (see `shell_source`)."""
    mode: Literal["c", "stdin", "file"]
    script: int | None
    """Index of the -c string (mode c) or of the script file (mode file); None for stdin, for
    a missing -c operand, and for sudo -s/-i (see `script_words`)."""
    args: tuple[int, ...] = ()
    """Words after the script operand. Mode c: they become $0 $1 ... ($0 is the FIRST word after
    the string). Mode stdin: they become $1 $2 ... Mode file: $1 $2 ... ($0 is the file)."""
    login: bool = False
    flags: tuple[str, ...] = ()
    """Shell options seen, as written per option: `-e`, `-x`, `+u`, `-o pipefail`, `-f`."""
    interactive: bool = False
    """-i is passed (by argv or by the wrapper: chroot and script run `$SHELL -i`). A shell in
    mode stdin without it is still interactive when its stdin is a terminal."""
    wrapper: str | None = None
    """The program that starts the shell when it is not argv[0]'s shell: su, runuser, sudo,
    flock, script, tmux, chroot, doas."""
    runs_as: str | None = None
    script_offset: int = 0
    """Characters of argv[script] before the script text (`--command=STR`, `-cSTR`)."""
    script_words: tuple[int, ...] = ()
    """sudo -s/-i: the words sudo escapes and joins into the -c string (`sudo_shell_string`)."""
    dollar0: int | None = None
    """Index of the word that becomes $0, if it comes from argv."""
    shell_index: int | None = None
    """Index of the shell program word itself (for `sh -c`, 0)."""
    shell_source: str | None = None
    """Where an `unknown` shell comes from, e.g. `$SHELL, else /bin/sh`."""
    elsewhere: str | None = None
    """The machines the shell runs on when they are not this one (ansible: its hosts)."""
    options: tuple[Option, ...] = ()
    uncertain: bool = False
    problems: tuple[str, ...] = ()

    def script_text(self, values: Sequence[str] | None = None) -> str | None:
        """The script string as the shell receives it (mode c), if any."""
        argv = _pick(self.argv, values)
        if self.script_words:
            return sudo_shell_string([argv[i] for i in self.script_words])
        if self.mode != "c" or self.script is None:
            return None
        return argv[self.script][self.script_offset :]

    def positional(self) -> tuple[int, ...]:
        """Indices of the words that become $1 $2 ..."""
        if self.mode == "c":
            return self.args[1:]
        return self.args


class JoinHandoff(FrozenRecord):
    """A layer that joins several words with spaces and hands the string to a shell:
    `eval WORDS`, `watch CMD...` (sh -c)."""

    kind: ClassVar[str] = "join"
    argv: tuple[str, ...]
    joiner: str
    words: tuple[int, ...]
    shell: str
    """The shell that parses the joined string: `sh` for watch, `same` for eval."""
    wrapper: str
    skipped_dashdash: int | None = None
    """eval: a leading `--` that bash, ksh and zsh drop but dash runs as a command (verified
    for bash 5.2 and dash 0.5.12). `words` does not include it."""
    options: tuple[Option, ...] = ()
    uncertain: bool = False
    problems: tuple[str, ...] = ()

    def sends(self, values: Sequence[str] | None = None) -> str:
        argv = _pick(self.argv, values)
        return self.joiner.join(argv[i] for i in self.words)


class AwkAssignment(FrozenRecord):
    """A `-v name=value` option or a `name=value` operand."""

    index: int
    """Index of the word holding `name=value` (for an attached `-vname=value`, the -v word)."""
    name: str
    raw: str
    """The value as given."""
    value: str
    """The value after awk's escape processing (see `quotecheck.layers.awk.awk_unescape`)."""
    kind: Literal["option", "operand"] = "option"
    ambiguous: bool = False
    """awk implementations disagree on this value (unknown escape, trailing backslash...)."""


class AwkHandoff(FrozenRecord):
    """awk/gawk/mawk/nawk: the program text is a separate language layer."""

    kind: ClassVar[str] = "awk"
    argv: tuple[str, ...]
    implementation: str
    """Basename: awk, gawk, mawk, nawk, busybox..."""
    program: int | None
    """Index of the program text operand (None when -f/-e/--source/-E supply the program)."""
    program_files: tuple[int, ...] = ()
    """Indices of the words holding -f FILE values (-E/--exec and mawk's -W exec too)."""
    sources: tuple[Option, ...] = ()
    """gawk -e/--source program texts (value_index, value)."""
    assignments: tuple[AwkAssignment, ...] = ()
    field_separator: int | None = None
    """Index of the word holding the -F value (for `-F:` the option word itself)."""
    field_separator_value: str | None = None
    """The -F value after escape processing (`-Ft` means tab for gawk, `t` for mawk)."""
    operands: tuple[int, ...] = ()
    """Operands after the program: input files and `name=value` assignments."""
    options: tuple[Option, ...] = ()
    uncertain: bool = False
    problems: tuple[str, ...] = ()

    def is_assignment(self, index: int) -> bool:
        return any(a.index == index and a.kind == "operand" for a in self.assignments)

    def files(self) -> tuple[int, ...]:
        return tuple(i for i in self.operands if not self.is_assignment(i))

    def program_text(self, values: Sequence[str] | None = None) -> str | None:
        argv = _pick(self.argv, values)
        return None if self.program is None else argv[self.program]


Handoff = SshHandoff | ExecHandoff | ShellHandoff | JoinHandoff | AwkHandoff


def sudo_shell_string(values: Sequence[str]) -> str:
    """The -c string sudo builds for `sudo -s CMD...` / `sudo -i CMD...`.

    The escaping is a fact about sudo (`programs.SUDO_SHELL_KEPT`, with what follows from it).
    sudo tests bytes, so a non-ASCII character gets a backslash before each of its UTF-8 bytes;
    here it gets one backslash before the character, which a shell turns into the same text.
    """
    return " ".join(
        "".join("\\" + ch if sudo_shell_escapes(ch) else ch for ch in word) for word in values)


# The parser of one program's argv: (argv, dynamic, start, end) -> its hand-off, or None.
Handler = Callable[[tuple[str, ...], AbstractSet[int], int, int], "Handoff | None"]
