"""Which commands read their standard input, from the program's name and its arguments.

Used where a script is about to arrive on a shell's standard input (``ssh host bash -s <<EOF``):
a command there that reads its standard input would read the rest of the script as its data.
When in doubt a command counts as a reader: the caller then refuses its change. The options
of each program come from its grammar in ``layers/`` (ssh's, the shells', awk's, and
``layers/tool_grammars.py`` for the filters), the names of the constant readers from
``programs.ALWAYS_READ_STDIN``.
"""

from __future__ import annotations

from collections.abc import Sequence

from quotecheck.layers import awk, shells
from quotecheck.layers.argv_options import scan
from quotecheck.layers.ssh import parse_ssh
from quotecheck.layers.tool_grammars import FILE_READERS, INLINE_PROGRAMS, FileReader
from quotecheck.programs import ALWAYS_READ_STDIN, SHELL_PROGRAMS

_AWKS = frozenset(awk.HANDLERS)


def reads_stdin(name: str, args: Sequence[str]) -> bool:
    """Whether ``name args...`` (the program run, after wrappers like sudo) reads its standard
    input; True when the arguments leave it unclear."""
    if name in ALWAYS_READ_STDIN:
        return True
    argv = (name, *args)
    if name == "ssh":  # -n (or -f) gives the remote command /dev/null
        return not parse_ssh(argv, frozenset(), 0, len(argv)).stdin_null
    if name == "dd":
        return not any(a.startswith("if=") for a in args)
    if name == "tar":
        return not any(a == "-f" or (a.startswith("-") and "f" in a[1:]) or a.startswith(
            "--file") for a in args) or "-" in args
    if name in SHELL_PROGRAMS:
        return shells.parse_shell(argv, frozenset(), 0, len(argv)).mode == "stdin"
    if name in INLINE_PROGRAMS:
        grammar, inline = INLINE_PROGRAMS[name]
        sc = scan(argv, grammar, 1)
        # a script file, or an inline program (`-c`, `-lc`, `-e`)
        return not sc.operands and not sc.has(*inline)
    if name in _AWKS:
        h = awk.parse_awk(argv, frozenset(), 0, len(argv))
        files = [] if h is None else [argv[i] for i in h.files()]
        return not files or "-" in files
    reader = FILE_READERS.get(name)
    if reader is None:
        return False
    return _reads_unless_file(reader, argv)


def _reads_unless_file(reader: FileReader, argv: tuple[str, ...]) -> bool:
    sc = scan(argv, reader.grammar, 1)
    leading = 0 if sc.has(*reader.program_options) else reader.leading
    files = [argv[i] for i in sc.operands[leading:]]
    return not files or "-" in files
