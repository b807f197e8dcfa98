"""Which commands read their standard input, from the program's name and its arguments.

Used where a script is about to arrive on a shell's standard input (``ssh host bash -s <<EOF``):
a command there that reads its standard input would read the rest of the script as its data.
When in doubt a command counts as a reader: the caller then refuses its change.
"""

from __future__ import annotations

from collections.abc import Sequence

# Always read standard input (or may: a password prompt, a client without a script file).
_ALWAYS = frozenset({
    "read", "mapfile", "readarray", "tee", "sponge", "passwd", "chpasswd", "mysql", "psql",
    "sqlite3", "tr", "xargs", "less", "more", "parallel", "mail", "sendmail", "crontab",
    "ftp", "sftp", "nc", "ncat", "socat", "telnet", "expect", "gpg", "openssl", "vipe",
    "dialog", "whiptail", "select",
})
# Read standard input when no file operand is given; the value: options that take an argument
# as the next word, and how many leading operands are not files (grep's pattern, sed's and
# awk's program, jq's filter).
_UNLESS_FILE: dict[str, tuple[frozenset[str], int]] = {
    "cat": (frozenset(), 0),
    "tac": (frozenset({"-s"}), 0),
    "nl": (frozenset({"-b", "-d", "-f", "-h", "-i", "-n", "-s", "-v", "-w"}), 0),
    "head": (frozenset({"-n", "-c"}), 0),
    "tail": (frozenset({"-n", "-c", "--pid", "-s"}), 0),
    "grep": (frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--label"}), 1),
    "egrep": (frozenset({"-e", "-f", "-m", "-A", "-B", "-C"}), 1),
    "fgrep": (frozenset({"-e", "-f", "-m", "-A", "-B", "-C"}), 1),
    "zgrep": (frozenset({"-e", "-f", "-m", "-A", "-B", "-C"}), 1),
    "rg": (frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-g", "-t", "-T"}), 1),
    "sed": (frozenset({"-e", "-f", "-l"}), 1),
    "awk": (frozenset({"-F", "-v", "-f"}), 1),
    "gawk": (frozenset({"-F", "-v", "-f"}), 1),
    "mawk": (frozenset({"-F", "-v", "-f"}), 1),
    "jq": (frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile", "-f", "--indent"}), 1),
    "sort": (frozenset({"-k", "-t", "-o", "-S", "-T", "--parallel"}), 0),
    "uniq": (frozenset({"-f", "-s", "-w"}), 0),
    "wc": (frozenset(), 0),
    "cut": (frozenset({"-b", "-c", "-d", "-f"}), 0),
    "paste": (frozenset({"-d"}), 0),
    "fold": (frozenset({"-w"}), 0),
    "fmt": (frozenset({"-w"}), 0),
    "rev": (frozenset(), 0),
    "column": (frozenset({"-s", "-t", "-c"}), 0),
    "od": (frozenset({"-A", "-j", "-N", "-t", "-w"}), 0),
    "hexdump": (frozenset({"-e", "-f", "-n", "-s"}), 0),
    "xxd": (frozenset({"-c", "-g", "-l", "-s"}), 0),
    "strings": (frozenset({"-n", "-t"}), 0),
    "base64": (frozenset({"-w"}), 0),
    "md5sum": (frozenset(), 0), "sha1sum": (frozenset(), 0), "sha256sum": (frozenset(), 0),
    "sha512sum": (frozenset(), 0), "cksum": (frozenset(), 0), "b2sum": (frozenset(), 0),
    "gzip": (frozenset({"-S"}), 0), "gunzip": (frozenset({"-S"}), 0), "zcat": (frozenset(), 0),
    "bzip2": (frozenset(), 0), "bunzip2": (frozenset(), 0), "xz": (frozenset(), 0),
    "unxz": (frozenset(), 0), "zstd": (frozenset({"-o"}), 0),
    "split": (frozenset({"-a", "-b", "-l", "-n"}), 0),
    "iconv": (frozenset({"-f", "-t", "-o"}), 0),
    "diff": (frozenset(), 0),
}
# Interpreters read their program from standard input without a script or an inline program.
_INTERPRETERS: dict[str, frozenset[str]] = {
    "sh": frozenset({"-c"}), "bash": frozenset({"-c"}), "dash": frozenset({"-c"}),
    "zsh": frozenset({"-c"}), "ksh": frozenset({"-c"}),
    "python": frozenset({"-c", "-m"}), "python3": frozenset({"-c", "-m"}),
    "perl": frozenset({"-e", "-E"}), "ruby": frozenset({"-e"}), "node": frozenset({"-e", "-p"}),
}


def reads_stdin(name: str, args: Sequence[str]) -> bool:
    """Whether ``name args...`` (the program run, after wrappers like sudo) reads its standard
    input; True when the arguments leave it unclear."""
    if name in _ALWAYS:
        return True
    if name == "ssh":  # -n (or -f) gives the remote command /dev/null
        return not any(a.startswith("-") and not a.startswith("--")
                       and ("n" in a[1:] or "f" in a[1:]) for a in args)
    if name == "dd":
        return not any(a.startswith("if=") for a in args)
    if name == "tar":
        return not any(a == "-f" or (a.startswith("-") and "f" in a[1:]) or a.startswith(
            "--file") for a in args) or "-" in args
    if name in _INTERPRETERS:
        return _interpreter_reads(_INTERPRETERS[name], args)
    if name in _UNLESS_FILE:
        takes_argument, leading = _UNLESS_FILE[name]
        operands = _operands(args, takes_argument)
        if name in ("grep", "egrep", "fgrep", "zgrep", "rg", "sed", "awk", "gawk", "mawk") \
                and any(a in ("-e", "-f") or a.startswith(("-e", "-f", "--regexp", "--file",
                                                           "--expression"))
                        for a in args):
            leading = 0  # the pattern or program came with -e / -f
        files = operands[leading:]
        return not files or "-" in files
    return False


def _interpreter_reads(inline: frozenset[str], args: Sequence[str]) -> bool:
    if "-s" in args:
        return True
    for a in args:
        if not a.startswith("-"):
            return False  # a script file
        if a in inline or (not a.startswith("--") and any(f"-{c}" in inline for c in a[1:])):
            return False  # an inline program (`-c`, `-lc`, `-e`)
    return True


def _operands(args: Sequence[str], takes_argument: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    ended = False
    for a in args:
        if skip:
            skip = False
        elif ended or a == "-" or not a.startswith("-"):
            out.append(a)
        elif a == "--":
            ended = True
        elif a in takes_argument:
            skip = True
    return out
