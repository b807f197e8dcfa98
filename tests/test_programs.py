"""quotecheck/programs.py: the one home of the facts about shells and programs.

Three kinds of tests: the facts agree with the parsers in layers/ and with the real shells; each
difference the old copies had is decided, and the trace and the rules now read the same command
line the same way; and a guard that greps the package so that no copy comes back.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from quotecheck import programs
from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.files import local_dialect
from quotecheck.layers import dispatch as ho
from quotecheck.layers import shells, wrappers
from quotecheck.layers.effective import effective
from quotecheck.rules._text import one_line_escaped, one_line_marked
from quotecheck.trace import build_trace

PACKAGE = Path(programs.__file__).resolve().parent

# Modules allowed to keep a copy for now (none: an entry without `.py` would cover a package).
PENDING_FILES: frozenset[str] = frozenset()

# The modules that define the facts, and the text helpers of the rules' messages.
HOMES = frozenset({"programs.py", "rules/_text.py"})


def codes(src: str, *, select: list[str] | None = None, dialect: str = "bash",
          remote_shell: str | None = None) -> list[Diagnostic]:
    result = check_source(src, Options(select=select, severity="hint", dialect=dialect,
                                       remote_shell=remote_shell))
    return [d for d in result.diagnostics if d.code != "QC002"]


# -- the facts agree with the parsers and with the real shells ----------------------------------


def _handlers() -> dict[str, ho.Handler]:
    return ho._HANDLERS


def test_shell_programs_are_exactly_the_shells_the_argv_grammar_reads() -> None:
    shell_words = {n for n, h in _handlers().items()
                   if h is shells.parse_shell and not n.startswith("-")}
    assert shell_words == set(programs.SHELL_PROGRAMS)
    # A login shell's argv[0] (`-bash`) is the same shell.
    assert {n for n, h in _handlers().items() if h is shells.parse_shell and n.startswith("-")} \
        == {"-" + n for n in programs.SHELL_PROGRAMS}
    assert _handlers()["busybox"] is ho._busybox


def test_every_container_parser_is_a_container_runner() -> None:
    parsed = {n for n, h in _handlers().items()
              if h in (wrappers.parse_container, wrappers.parse_kubectl)}
    assert parsed == {"docker", "podman", "kubectl"}
    assert parsed <= programs.CONTAINER_RUNNERS


def test_the_names_without_a_parser_are_known() -> None:
    """These names are facts about programs the layer model does not read yet: no layer is
    opened through them, so their classes start to matter when a parser is added."""
    named = (programs.CONTAINER_RUNNERS | programs.USER_SWITCHERS | programs.NAMESPACE_ENTERERS
             | programs.ENVIRONMENT_CHANGERS | programs.PROCESS_BOUNDARIES
             | programs.HANGUP_DETACHERS)
    unparsed = {n for n in named if n not in _handlers()}
    assert unparsed == {"nerdctl", "nsenter", "machinectl", "lxc-attach", "incus", "lxc",
                        "pkexec"}


def test_shell_sets_are_drawn_from_the_one_table() -> None:
    table = programs.SHELL_DIALECTS
    assert set(programs.SHELL_OPTION_VALUES) <= set(table)
    assert set(programs.SCRIPT_SHEBANG_SHELLS) <= set(table)
    assert {n for n, d in table.items() if d == "sh"} == programs.POSIX_SHELLS
    assert programs.POSIX_SHELLS - {"sh"} == programs.NEVER_BASH
    assert programs.ASH_FAMILY <= programs.POSIX_SHELLS
    assert programs.EXEC_LAST_COMMAND.isdisjoint(programs.FORK_LAST_COMMAND)
    assert set(table) >= programs.EXEC_LAST_COMMAND | programs.FORK_LAST_COMMAND
    assert set(programs.QUOTE_SHELLS) >= programs.POSIX_QUOTING


@pytest.mark.parametrize("name, dialect", [
    ("bash", "bash"), ("/bin/bash", "bash"), ("-bash", "bash"), ("dash", "sh"), ("sh", "sh"),
    ("/usr/bin/zsh", "zsh"), ("ksh", "bash"), ("busybox", "sh"), ("yash", "unknown"),
    ("<login-shell>", "unknown"), ("python3", "unknown"), ("", "unknown"), (None, "unknown"),
])
def test_shell_dialect(name: str | None, dialect: str) -> None:
    assert programs.shell_dialect(name) == dialect


@pytest.mark.parametrize("word, name", [
    ("/usr/bin/ssh", "ssh"), ("ssh", "ssh"), ("./bin/sudo", "sudo"), ("/usr/bin/", "bin"),
    ("/", "/"), ("", ""),
])
def test_basename(word: str, name: str) -> None:
    assert programs.basename(word) == name
    assert ho.basename is programs.basename


def _installed(shells_: frozenset[str]) -> list[str]:
    return sorted(s for s in shells_ if shutil.which(s))


@pytest.mark.skipif(shutil.which("ps") is None, reason="needs ps")
@pytest.mark.parametrize(
    "shell", _installed(programs.EXEC_LAST_COMMAND | programs.FORK_LAST_COMMAND))
def test_which_shells_exec_the_last_command_in_place(shell: str) -> None:
    # `$$` is the shell's pid: when the shell execs `ps` in place, that pid is ps itself.
    out = subprocess.run([shell, "-c", ": ; ps -o comm= -p $$"], capture_output=True,
                         text=True, timeout=30, check=True).stdout.strip()
    if shell in programs.EXEC_LAST_COMMAND:
        assert out == "ps"
    else:
        assert out == shell


# -- the differences the copies had, decided -----------------------------------------------------


def test_nerdctl_is_opaque_to_the_trace_and_to_the_rules_alike() -> None:
    """nerdctl runs containers (CONTAINER_RUNNERS), but no parser reads its argv: the trace
    opens no layer for it and no rule sees a container; docker, whose argv is read, gets a
    container layer, and QC101 says the local shell expands `$HOME`."""
    nerdctl = 'nerdctl exec c sh -c "echo $HOME"\n'
    assert [layer.kind for layer in build_trace(nerdctl).layers] == ["shell"]
    assert codes(nerdctl) == []
    docker = nerdctl.replace("nerdctl", "docker")
    assert [(x.kind, x.where) for x in build_trace(docker).layers] == [
        ("shell", "local"), ("exec", "container:c"), ("shell", "container:c")]
    assert [d.code for d in codes(docker)] == ["QC101"]


def _pkill_candidates(wrapper: str) -> list[str]:
    """The shells QC201 says `pkill -f sleeper` kills, the kill running under ``wrapper``."""
    src = f"bash -c \"{wrapper} sh -c 'pkill -f sleeper'; sleeper\"\n"
    return [d.text for d in codes(src, select=["QC201"])]


@pytest.mark.parametrize("wrapper, reaches_outer", [
    ("timeout 5", True),  # the same machine, the same user
    ("sudo", True),  # another user, but the same processes: pkill running as root sees them
    ("srun", False),  # a cluster node: other processes
    ("docker exec c", False),  # a container: another pid namespace
])
def test_a_process_boundary_is_not_an_environment_change(wrapper: str,
                                                         reaches_outer: bool) -> None:
    """USER_SWITCHERS change the environment (ENVIRONMENT_CHANGERS) but keep the processes in
    view; srun keeps the environment (it passes it on) but runs elsewhere (PROCESS_BOUNDARIES).
    Only the containers are both, and only they move the trace to `container:NAME`."""
    program = wrapper.split()[0]
    assert (program in programs.PROCESS_BOUNDARIES) is not reaches_outer
    outer = "bash -c \"" + wrapper
    trace = build_trace(outer + " sh -c 'pkill -f sleeper'; sleeper\"\n")
    inner = trace.layers[-1]
    assert inner.where == ("container:c" if program in programs.CONTAINER_RUNNERS else "local")
    # The outer `bash -c` shell's command line holds `sleeper` too: QC201 names it exactly when
    # no boundary lies between the kill and that shell.
    messages = _pkill_candidates(wrapper)
    mentions_outer = any("bash -c" in m for m in messages)
    assert mentions_outer is reaches_outer, messages


def test_nocorrect_runs_its_argument_for_the_trace_and_the_rules() -> None:
    """zsh's `nocorrect prog` runs prog in the same shell: the trace follows it into an exec
    layer (IN_PLACE_BUILTINS), and the rules' `effective` must reach the same program."""
    trace = build_trace("nocorrect sh -c 'echo hi'\n")
    assert [x.kind for x in trace.layers] == ["shell", "exec", "shell"]
    eff = effective(["nocorrect", "pkill", "-f", "x"])
    assert eff is not None and eff.name == "pkill"


@pytest.mark.parametrize("shell, dialect", [
    ("posh", "sh"), ("busybox-sh", "sh"), ("rbash", "bash"), ("ksh93", "bash"),
    ("lksh", "bash"), ("pdksh", "bash"), ("yash", "unknown"),
])
def test_every_shell_the_grammar_reads_has_the_dialect_of_its_family(shell: str,
                                                                    dialect: str) -> None:
    """The trace knew ten names, the argv grammar fourteen: `posh -c` was judged `unknown` by
    the trace and a POSIX sh by QC108. One table now gives each shell its dialect."""
    trace = build_trace(f"{shell} -c 'echo hi'\n")
    assert trace.layers[-1].dialect == dialect
    assert trace.layers[-1].label() == f"local {shell}"


def test_posh_is_a_posix_sh_for_qc207_as_for_qc108() -> None:
    src = "posh -c '[[ -n $x ]] && echo $'\"'\"'a\\tb'\"'\"''\n"
    found = {d.code: d.severity for d in codes(src, select=["QC108", "QC207"])}
    assert found == {"QC108": "error", "QC207": "error"}


def test_yash_is_not_taken_for_a_shell_without_dollar_single_quotes() -> None:
    """yash has `$'...'` (and extensions of its own): QC108 no longer says it does not know
    it (an error); like any shell whose dialect is not modelled, it is a warning."""
    src = "yash -c \"echo \\$'a\\\\tb'\"\n"
    found = [(d.code, d.severity) for d in codes(src, select=["QC108"])]
    assert found == [("QC108", "warning")]
    assert "yash" not in programs.POSIX_SHELLS


@pytest.mark.parametrize("shebang, judged_sh", [
    ("#!/bin/sh", True), ("#!/bin/dash", True), ("#!/bin/busybox-sh", True),
    ("#!/bin/posh", True), ("#!/bin/bash", False), ("#!/bin/yash", False),
])
def test_the_shebang_decides_the_root_layer_with_the_same_table(shebang: str,
                                                                judged_sh: bool) -> None:
    """QC207 took its sh family from a list of five names, QC108 from one of seven."""
    src = f"{shebang}\n[[ -n $x ]] && echo hi\n"
    assert bool(codes(src, select=["QC207"])) is judged_sh


def test_the_local_dialect_of_a_script_comes_from_the_same_table() -> None:
    assert local_dialect("#!/bin/dash\n") == "sh"
    assert local_dialect("#!/usr/bin/env ash\n") == "sh"
    assert local_dialect("#!/bin/mksh\n") == "bash"
    assert local_dialect("#!/bin/zsh\n") == "zsh"  # parsed where bash's grammar reaches


@pytest.mark.parametrize("shell", ["sh", "mksh", "rbash"])
def test_any_shell_name_given_as_dollar_zero_is_a_placeholder(shell: str) -> None:
    """QC112 knew five shell names as deliberate $0 words; `mksh` was taken for a data word
    put where $1 belongs. With every shell name the finding is the missing $2."""
    src = f"sh -c 'echo \"$1\" \"$2\"' {shell} a\n"
    [finding] = codes(src, select=["QC112"])
    assert "reads `$2`" in finding.text
    assert "becomes `$0`" not in finding.text


@pytest.mark.parametrize("shell", ["sh", "posh", "rbash"])
def test_qc102_knows_every_shell_that_takes_dash_c(shell: str) -> None:
    """`ssh h SHELL -c 'python x.py'` runs only `python`: an error for any shell name."""
    [finding] = codes(f"ssh h {shell} -c 'python x.py'\n", select=["QC102"])
    assert finding.severity == "error"


def test_the_two_ways_of_showing_a_line_break() -> None:
    """One script line holding a literal backslash-n, and two lines: the escaped form cannot
    tell them apart, the marked form can. Each family of rules keeps its own form, so that no
    message changes; both cut the same way."""
    literal = "printf 'a\\nb'"
    broken = "printf 'a\nb'"
    assert one_line_escaped(literal) == one_line_escaped(broken) == "printf 'a\\nb'"
    assert one_line_marked(literal) != one_line_marked(broken)
    assert one_line_marked(broken) == "printf 'a⏎b'"
    assert one_line_escaped("a\tb") == "a\\tb"
    assert one_line_escaped("x" * 61) == "x" * 59 + "…"
    assert one_line_marked("x" * 61) == "x" * 59 + "…"
    assert one_line_escaped("x" * 60) == "x" * 60


# -- no copies ----------------------------------------------------------------------------------


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in HOMES or any(rel.removesuffix(".py") == p.removesuffix(".py")
                               or rel.startswith(p + "/") for p in PENDING_FILES):
            continue
        yield rel, ast.parse(path.read_text(), rel)


def _strings(node: ast.AST) -> list[str] | None:
    """The string members of a set, list or tuple literal, or of a dict from strings to
    strings (a table of parsers, name -> function, is not a copy of a set of names)."""
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        items = node.elts
    elif isinstance(node, ast.Dict):
        if not all(isinstance(v, ast.Constant) and isinstance(v.value, str)
                   for v in node.values):
            return None
        items = [k for k in node.keys if k is not None]
    else:
        return None
    return [x.value for x in items if isinstance(x, ast.Constant) and isinstance(x.value, str)]


ELSEWHERE = programs.CONTAINER_RUNNERS | programs.NAMESPACE_ENTERERS | {"srun"}
SHELLS = frozenset(programs.SHELL_DIALECTS)
DIALECT_VALUES = frozenset({"bash", "sh", "zsh", "unknown"})


def _copies(rel: str, tree: ast.Module) -> list[str]:
    """Where ``tree`` defines one of the facts again."""
    copies: list[str] = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.FunctionDef) and node.name in ("basename", "short"):
            copies.append(f"{where}: def {node.name}")
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                    and value.value.id == "Literal":
                members = {x.value for x in ast.walk(value.slice) if isinstance(x, ast.Constant)}
                if {"bash", "sh"} <= members:
                    copies.append(f"{where}: a Literal of shells or dialects")
        names = set(_strings(node) or ())
        if not names:
            continue
        if ELSEWHERE & names:
            copies.append(f"{where}: container or boundary names {sorted(names)}")
        shells_named = SHELLS & names
        # Dialect names alone (`("bash", "zsh")` compared with a layer's dialect) are fine.
        if len(shells_named) >= 2 and shells_named - DIALECT_VALUES:
            copies.append(f"{where}: shell names {sorted(names)}")
        if len(programs.IN_PLACE_BUILTINS & names) >= 3:
            copies.append(f"{where}: in-place builtins {sorted(names)}")
        if names == programs.DECLARATION_BUILTINS:
            copies.append(f"{where}: declaration builtins {sorted(names)}")
    return copies


def test_no_module_defines_these_facts_again() -> None:
    copies = [c for rel, tree in _modules() for c in _copies(rel, tree)]
    assert copies == [], "define these in quotecheck/programs.py:\n" + "\n".join(copies)


@pytest.mark.parametrize("source, found", [
    ('X = frozenset({"docker", "podman"})\n', "container or boundary names"),
    ('BOUNDARY = {"srun", "ssh"}\n', "container or boundary names"),
    ('SHELLS = ("bash", "sh", "dash", "zsh")\n', "shell names"),
    ('FOR = {"sh": "sh", "dash": "sh"}\n', "shell names"),
    ('D = Literal["bash", "sh", "zsh", "unknown"]\n', "a Literal of shells"),
    ("def basename(word):\n    return word\n", "def basename"),
    ('B = ("exec", "command", "builtin")\n', "in-place builtins"),
    ('D = {"export", "local", "declare", "typeset", "readonly"}\n', "declaration builtins"),
    ('DIALECTS = ("bash", "zsh")\nHANDLERS = {"docker": parse}\n', None),
])
def test_the_guard_finds_a_copy(source: str, found: str | None) -> None:
    copies = _copies("m.py", ast.parse(source))
    if found is None:
        assert copies == []
    else:
        assert len(copies) == 1 and found in copies[0], copies


def test_the_facts_module_stays_cheap_to_import() -> None:
    """Nothing of quotecheck and nothing heavy: every layer and the CLI's start-up import it."""
    tree = ast.parse(Path(programs.__file__).read_text())
    imported = {alias.name if isinstance(node, ast.Import) else node.module
                for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in node.names}
    assert imported == {"__future__", "typing"}


# apache/drill, start-build-env.sh lines 118-127 (Apache-2.0): `${DOCKER_INTERACTIVE_RUN}` is
# empty or `-i -t`; the words after it are docker's own options, then the image and command.
DRILL = ('docker run --rm=true ${DOCKER_INTERACTIVE_RUN} \\\n'
         '  --name "${CONTAINER_NAME}" \\\n'
         '  -v "${HOME}/.m2:${DOCKER_HOME_DIR}/.m2${V_OPTS:-}" \\\n'
         '  -w "${DOCKER_HOME_DIR}/drill" \\\n'
         '  -u "${USER_ID}" \\\n'
         '  "drill-build-${USER_ID}" sh -c "echo ready"\n')


def test_a_run_time_word_before_docker_s_own_options_holds_options() -> None:
    [layer] = [x for x in build_trace(DRILL).layers if x.kind == "exec"]
    assert [a.value for a in layer.argv] == ["sh", "-c", "echo ready"]
    assert layer.handoff is not None and layer.handoff.uncertain  # (known only at run time)
    assert [d.code for d in codes(DRILL, select=["QC101"])] == []


@pytest.mark.parametrize(("src", "command"), [
    ("docker run --rm $IMG --help\n", ["--help"]),  # the image's program gets --help
    ("docker run --rm $IMG -e foo\n", ["-e", "foo"]),  # nothing would be left for the image
])
def test_a_run_time_image_before_its_program_s_options_stays_the_image(
        src: str, command: list[str]) -> None:
    [layer] = [x for x in build_trace(src).layers if x.kind == "exec"]
    assert [a.value for a in layer.argv] == command
