"""Each program's options are defined once, in layers/, and every reader uses that definition.

Two kinds of tests: the disagreements the second copies had, each decided (they fail on the tree
before the copies were removed: the names that tree lacks are imported inside the tests, so that
the file runs there); and a guard that scans the package and the tests so that no second table
comes back.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import quotecheck.layers
from quotecheck.checker import Options, check_source
from quotecheck.fixer import fix_source
from quotecheck.layers import dispatch, ssh
from quotecheck.layers.argv_options import Grammar
from quotecheck.layers.effective import effective
from quotecheck.layers.stdin_readers import reads_stdin
from quotecheck.trace import build_trace

ROOT = Path(__file__).resolve().parent.parent


def findings(src: str, rule: str) -> list[tuple[str, str]]:
    result = check_source(src, Options(select=[rule], severity="hint"))
    return [(d.code, d.text) for d in result.diagnostics if d.code == rule]


# -- ssh's table is OpenSSH's ------------------------------------------------------------------

SSH = shutil.which("ssh", path="/usr/bin:/bin")
needs_ssh = pytest.mark.skipif(SSH is None, reason="OpenSSH client not installed")
# -P takes a tag since OpenSSH 9.4; older clients list it nowhere (9.2 ignores it as a flag).
NEWER_THAN_THIS_CLIENT = frozenset("P")


def _ssh_usage() -> tuple[set[str], set[str]]:
    """The flags and the value-taking letters of the installed client's usage message."""
    assert SSH is not None
    usage = subprocess.run([SSH], capture_output=True, text=True, timeout=10,
                           stdin=subprocess.DEVNULL).stderr
    flags = re.search(r"\[-([0-9A-Za-z]+)\]", usage)
    assert flags is not None, usage
    return set(flags.group(1)), set(re.findall(r"\[-([A-Za-z]) [^]]+\]", usage))


@needs_ssh
def test_ssh_s_table_is_the_installed_client_s() -> None:
    flags, values = _ssh_usage()
    assert set(ssh.SSH_GRAMMAR.short_flags) == flags
    table = set(ssh.SSH_GRAMMAR.short_values)
    assert values <= table and table - values <= NEWER_THAN_THIS_CLIENT


@needs_ssh
@pytest.mark.parametrize("option, value", [
    ("-B", "lo"), ("-b", "127.0.0.1"), ("-c", "aes128-ctr"), ("-i", "/dev/null"),
    ("-J", "jump"), ("-l", "u"), ("-m", "hmac-sha2-256"), ("-o", "User=u"), ("-p", "2222"),
    ("-S", "none"), ("-w", "any"), ("-A", None), ("-C", None), ("-n", None), ("-T", None),
])
def test_ssh_reads_the_destination_where_the_table_says(option: str, value: str | None) -> None:
    """`ssh -G` prints the resolved configuration without connecting: the destination it
    resolves is the one the table finds."""
    assert SSH is not None
    argv = ["ssh", option, *([value] if value else []), "desthost", "true"]
    h = dispatch.classify(argv)
    assert isinstance(h, dispatch.SshHandoff) and h.destination is not None
    real = subprocess.run([SSH, "-F", "/dev/null", "-G", *argv[1:]], capture_output=True,
                          text=True, timeout=10, stdin=subprocess.DEVNULL,
                          env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert real.returncode == 0, real.stderr
    assert f"hostname {argv[h.destination]}\n" in real.stdout
    assert h.sends() == "true"


# -- ssh: stdin readers read ssh's own table ------------------------------------------------------


@pytest.mark.parametrize("args, reads", [
    (["-lfred", "h", "cat"], True),  # -l takes `fred`: neither -f nor -n is given
    (["-oConnectTimeout=5", "h", "cat"], True),  # the `n` is in -o's value
    (["h", "cat", "-n"], True),  # after the destination and its command: cat's option
    (["-n", "h", "cat"], False),
    (["-fN", "h"], False),
    (["-p", "22", "-tn", "h", "cat"], False),
])
def test_ssh_reads_stdin_as_its_grammar_says(args: list[str], reads: bool) -> None:
    assert reads_stdin("ssh", args) is reads


def test_the_remote_script_is_not_moved_before_an_ssh_that_reads_it() -> None:
    # QC201's fix puts the script on the remote shell's stdin: `ssh -lfred other rec` there
    # would read the rest of the script.
    src = "ssh h 'pkill -f worker; ssh -lfred other rec; rec started'\n"
    assert fix_source(src, Options(select=["QC201"]), unsafe=True).text == src
    ok = "ssh h 'pkill -f worker; ssh -nlfred other rec; rec started'\n"
    assert "bash -s <<'EOF'" in fix_source(ok, Options(select=["QC201"]), unsafe=True).text


@pytest.mark.parametrize("name, args, reads", [
    ("grep", ["--max-count", "1", "x"], True),  # `1` is the count, x the pattern: no file
    ("egrep", ["-d", "skip", "x"], True),  # egrep is grep -E: -d takes a value
    ("awk", ["1", "n=2"], True),  # an assignment operand is not a file
    ("python3", ["-s", "x.py"], False),  # python's -s is not the shells' -s
    ("mksh", [], True),  # every shell the shell grammar reads, not five of them
    ("sh", ["-eo", "pipefail", "-s"], True),
    ("bash", ["-o", "pipefail", "x.sh"], False),
])
def test_readers_take_their_options_from_the_grammars(name: str, args: list[str],
                                                      reads: bool) -> None:
    assert reads_stdin(name, args) is reads


# -- exec and command: one reading for the trace and for the rules --------------------------------


FORMS = [
    (["command", "-v", "ssh"], None),
    (["command", "-pv", "ssh"], None),
    (["command", "-V", "ssh"], None),
    (["command", "-p", "-v", "ssh"], None),
    (["command", "-p", "ssh", "h"], 2),
    (["command", "--", "ssh", "h"], 2),
    (["exec", "-cl", "ssh", "h"], 2),
    (["exec", "-c", "-l", "ssh", "h"], 3),
    (["exec", "-a", "name", "ssh", "h"], 3),
    (["exec", "-aname", "ssh", "h"], 2),
    (["exec", "--", "ssh", "h"], 2),
    (["exec", "-a"], None),
    (["builtin", "--", "echo", "x"], 2),
    (["nocorrect", "ssh", "h"], 1),
]


@pytest.mark.parametrize("argv, program", FORMS)
def test_in_place_builtins_run_what_bash_runs(argv: list[str], program: int | None) -> None:
    from quotecheck.layers.wrappers import in_place_command
    assert in_place_command(argv) == program


@pytest.mark.parametrize("argv, program", FORMS)
def test_the_trace_and_the_rules_agree_on_what_runs(argv: list[str],
                                                    program: int | None) -> None:
    trace = build_trace(" ".join(argv) + "\n")
    inner = [x for x in trace.layers if x.kind == "exec"]
    eff = effective(argv)
    if program is None:
        assert inner == []
        # the builtin itself runs (a lookup), not a program named `-v`
        assert eff is None or eff.name == argv[0]
    else:
        assert [a.value for a in inner[0].argv] == argv[program:]
        assert eff is not None and eff.argv == tuple(argv[program:])


def test_a_command_after_exec_options_is_analysed() -> None:
    assert findings('exec -cl ssh h "echo $HOME"\n', "QC101") != []
    assert findings('exec -afoo ssh h "ls $x"\n', "QC103") != []
    assert findings("command -v ssh\n", "QC101") == []


# -- qc204 reads RequestTTY as ssh does ----------------------------------------------------------


def test_a_quoted_request_tty_is_the_word_that_asks_for_the_terminal() -> None:
    # ssh removes the double quotes (ssh_settings.parse_config_option): the word named is that
    # -o, not a `-t` the command line does not have.
    result = check_source("ssh -o 'RequestTTY=\"yes\"' h 'sleep 100 & echo ok'\n",
                          Options(select=["QC204"]))
    [d] = result.diagnostics
    assert [r.message for r in d.related] == ['`RequestTTY="yes"` asks for a pseudo-terminal']
    assert "(`-t`)" not in d.text


@pytest.mark.parametrize("text, asks", [
    ("RequestTTY=yes", True), ("requesttty force", True), ('RequestTTY="yes"', True),
    ("RequestTTY = force", True), ("RequestTTY=no", False), ("RequestTTY=auto", False),
    ("RequestTTY=yesplease", False), ("BatchMode=yes", False),
])
def test_asks_for_tty(text: str, asks: bool) -> None:
    assert ssh.asks_for_tty(text) is asks


# -- pgrep, pkill and grep: one table for qc210 and the process rules -----------------------------


def test_pkill_queue_takes_a_value() -> None:
    [(_, message)] = findings("ssh h 'pkill -q 5 -f worker; rec started'\n", "QC201")
    assert "`pkill -f worker`" in message


@pytest.mark.parametrize("option", ["-A 1", "-m 1", "--max-count 1"])
def test_qc210_finds_grep_s_pattern_after_a_value_option(option: str) -> None:
    src = f"ps aux | grep {option} serve | awk '{{print $2}}' | xargs kill\nserve app &\n"
    assert findings(src, "QC210") != []


# -- the harness's ssh stub reads the same table -------------------------------------------------


def test_the_harness_ssh_option_letters_are_the_grammar_s() -> None:
    from harness import layer_stubs
    assert ssh.SSH_GRAMMAR.short_values == layer_stubs.SSH_ARG_OPTIONS


# -- the guard ------------------------------------------------------------------------------------

# Files that may build a Grammar outside layers/, and why.
GRAMMAR_ALLOWED = {
    "tests/test_handoff.py": "tests of the option scanner itself, on made-up tables",
}


def _grammars() -> dict[str, Grammar]:
    """Every Grammar the modules of layers/ define (module level, in tables, in specs)."""
    found: dict[int, tuple[str, Grammar]] = {}

    def visit(name: str, value: object, depth: int) -> None:
        if isinstance(value, Grammar):
            found.setdefault(id(value), (name, value))
        elif isinstance(value, dict) and depth < 2:
            for k, v in value.items():
                visit(f"{name}[{k!r}]", v, depth + 1)
        elif isinstance(value, tuple) and depth < 2:
            for i, v in enumerate(value):
                visit(f"{name}[{i}]", v, depth + 1)
        elif isinstance(getattr(value, "grammar", None), Grammar):
            visit(f"{name}.grammar", value.grammar, depth + 1)

    for info in pkgutil.iter_modules(quotecheck.layers.__path__):
        module = importlib.import_module(f"quotecheck.layers.{info.name}")
        for name, value in vars(module).items():
            visit(f"layers/{info.name}.{name}", value, 0)
    return {name: g for name, g in found.values()}


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for top in ("quotecheck", "tests"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            yield rel, ast.parse(path.read_text(encoding="utf-8"), rel)


def _near(letters: str, table: str) -> bool:
    """`letters` spells (nearly) the same option letters as `table`: a copy, or a copy one
    or two options behind (the difference allowed grows with the table)."""
    if len(table) < 5 or len(letters) < 5 or len(set(letters)) != len(letters):
        return False
    return len(set(letters) ^ set(table)) <= len(table) // 6


_OPTION = re.compile(r"--?[A-Za-z0-9][-A-Za-z0-9]*\Z")


def _option_table(node: ast.Dict, programs: frozenset[str]) -> bool:
    """A dict from program names (with a grammar in layers/) to option names: a second table
    of those programs' options (the shape of the old stdin readers' tables)."""
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if len(keys & programs) < 2:
        return False
    strings = {x.value for v in node.values for x in ast.walk(v)
               if isinstance(x, ast.Constant) and isinstance(x.value, str)}
    # (an argv per program, `{"sh -c": ["sh", "-c"]}`, is a command, not an option table)
    return bool(strings) and all(_OPTION.match(o) for o in strings)


def second_tables(sources: list[tuple[str, ast.Module]], grammars: dict[str, Grammar],
                  programs: frozenset[str]) -> list[str]:
    """Where an option table is defined again: a Grammar built outside layers/, a string of
    a grammar's option letters spelled a second time, a dict of programs' options."""
    letters: dict[str, list[str]] = {}
    for name, g in grammars.items():
        for field in ("short_flags", "short_values", "short_optional"):
            letters.setdefault(getattr(g, field), []).append(f"{name}.{field}")
    spelled: dict[str, list[str]] = {table: [] for table in letters}
    out: list[str] = []
    for rel, tree in sources:
        for node in ast.walk(tree):
            where = f"{rel}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Call) and rel not in GRAMMAR_ALLOWED and \
                    not rel.startswith("quotecheck/layers/"):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else \
                    func.attr if isinstance(func, ast.Attribute) else None
                if called == "Grammar":
                    out.append(f"{where}: a Grammar outside layers/")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for table in letters:
                    if _near(node.value, table):
                        spelled[table].append(f"{where}: {node.value!r}")
            if isinstance(node, ast.Dict) and not rel.startswith("quotecheck/layers/") and \
                    _option_table(node, programs):
                out.append(f"{where}: a table of programs' options")
    for table, places in spelled.items():
        if len(places) > 1:
            out.append(f"the option letters of {letters[table]} are spelled {len(places)} "
                       f"times: {places}")
    return out


def _programs_with_grammars() -> frozenset[str]:
    from quotecheck.layers import dispatch, tool_grammars
    from quotecheck.programs import AWK_PROGRAMS
    return frozenset(dispatch._HANDLERS) | frozenset(tool_grammars.FILE_READERS) | \
        frozenset(tool_grammars.INLINE_PROGRAMS) | frozenset(AWK_PROGRAMS)


def test_no_second_option_table() -> None:
    copies = second_tables(list(_sources()), _grammars(), _programs_with_grammars())
    assert copies == [], "define each program's options once, in layers/:\n" + "\n".join(copies)


def test_the_grammars_are_found() -> None:
    names = _grammars()
    assert "layers/ssh.SSH_GRAMMAR" in names
    assert any(n.startswith("layers/wrappers.WRAPPERS['exec']") for n in names)
    assert "layers/tool_grammars.PGREP_GRAMMAR" in names


@pytest.mark.parametrize("source, found", [
    # the old harness copy of ssh's value letters
    ('SSH_ARG_OPTIONS = "BbcDEeFIiJLlmOoPpQRSWw"\n', "spelled 2 times"),
    # a copy one option behind (before -B was added)
    ('ARGS = "bcDEeFIiJLlmOoPpQRSWw"\n', "spelled 2 times"),
    # qc210's own pgrep letters
    ('takes_value = set("gGPstuUFrdOq")\n', "spelled 2 times"),
    ("G = Grammar(short_values='x')\n", "a Grammar outside layers/"),
    ('T = {"grep": frozenset({"-e", "-f"}), "sed": frozenset({"-e"})}\n',
     "a table of programs' options"),
    ('WORDS = ("tilde", "export", "unsafe")\nM = {"grep": 1, "sed": 2}\n', None),
])
def test_the_guard_finds_a_copy(source: str, found: str | None) -> None:
    grammars = _grammars()
    sources = [(rel, tree) for rel, tree in _sources()
               if rel.startswith("quotecheck/layers/")]
    copies = second_tables([*sources, ("quotecheck/rules/m.py", ast.parse(source))], grammars,
                           _programs_with_grammars())
    if found is None:
        assert copies == []
    else:
        assert len(copies) == 1 and found in copies[0], copies
