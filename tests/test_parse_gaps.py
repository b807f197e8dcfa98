"""Regression tests for parser gaps found on real scripts (issue 5, parser part).

Each case was read wrongly before: array-element assignments as command names, `((` that opens
two subshells as arithmetic, commands inside array literals and arithmetic left out of the walk,
one unreadable node losing its whole region, and per-word costs that grew with the text. Where
the question is what bash does, bash itself is asked (``bash -n`` and small scripts that only
run ``echo``/``printf``/``cat``).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from typing import Any

import pytest

from quotecheck.parsing import parse as parse_module
from quotecheck.parsing import scanner as scanner_module
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.scanner import scan
from quotecheck.parsing.tree import (
    Assignment,
    Compound,
    Script,
    SimpleCommand,
    SubstitutionMap,
    iter_nodes,
    walk,
)
from quotecheck.parsing.words import segment
from quotecheck.trace import build_trace

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def commands(src: str) -> list[tuple[list[str], list[str]]]:
    """(assignments as `name[sub]=value`, argv) of every simple command, in walk order."""
    out = []
    for cmd, _ in walk(parse_script(src)):
        assigns = [a.name + (f"[{a.subscript.value}]" if a.subscript is not None else "")
                   + ("+=" if a.append else "=") + a.value.value for a in cmd.assignments]
        out.append((assigns, [w.value for w in cmd.words]))
    return out


def argvs(src: str) -> list[list[str]]:
    return [argv for _, argv in commands(src) if argv]


def problems(src: str) -> list[str]:
    return [f"{p.code} {p.message}" for p in parse_script(src).problems]


def bash_run(src: str) -> str:
    assert BASH is not None
    done = subprocess.run([BASH, "-c", src], capture_output=True, text=True, timeout=10,
                          check=False)
    return done.stdout


def bash_accepts(src: str) -> bool:
    assert BASH is not None
    return subprocess.run([BASH, "-n", "-c", src], capture_output=True,
                          timeout=10, check=False).returncode == 0


# -- 1. array-element assignments ----------------------------------------------------------------

@pytest.mark.parametrize(("src", "expected"), [
    ("a[1]=x", [(["a[1]=x"], [])]),
    ("a[i+1]=x cmd", [(["a[i+1]=x"], ["cmd"])]),
    ("arr[$k]+=v", [(["arr[$k]+=v"], [])]),
    ("a[1 + 1]=x; echo", [(["a[1 + 1]=x"], []), ([], ["echo"])]),
    ('SKIP_UMOUNT_LIST["[SWAP]"]=1', [(["SKIP_UMOUNT_LIST[[SWAP]]=1"], [])]),
    ("JETTY_ARGS[${#JETTY_ARGS[@]}]=$XMLFILE", [(["JETTY_ARGS[${#JETTY_ARGS[@]}]=$XMLFILE"], [])]),
    ("a[b[1]]=x", [(["a[b[1]]=x"], [])]),
    ("a[1]=x b=2 c[2]+=3 cmd arg", [(["a[1]=x", "b=2", "c[2]+=3"], ["cmd", "arg"])]),
    ("if true; then m[k]=v; fi", [([], ["true"]), (["m[k]=v"], [])]),
    # Not assignments: an argument, a quoted name, text after the bracket, no `=`.
    ("echo a[1]=x", [([], ["echo", "a[1]=x"])]),
    ('"a"[1]=x', [([], ["a[1]=x"])]),
    ("a[1]x=1", [([], ["a[1]x=1"])]),
    ("declare a[1]=x", [([], ["declare", "a[1]=x"])]),
])
def test_array_element_assignment(src: str, expected: list[tuple[list[str], list[str]]]) -> None:
    assert commands(src) == expected
    assert problems(src) == []


def test_array_element_assignment_shape() -> None:
    [(cmd, _)] = walk(parse_script("arr[$k]+=v"))
    [a] = cmd.assignments
    assert isinstance(a, Assignment)
    assert (a.span, a.name, a.append, a.value.value, a.value.span) == ((0, 10), "arr", True, "v",
                                                                        (9, 10))
    assert a.subscript is not None and a.subscript.span == (4, 6) and a.subscript.dynamic
    assert cmd.words == []


def test_commands_in_a_subscript_are_walked() -> None:
    assert argvs("a[$(id -u)]=1 b") == [["b"], ["id", "-u"]]
    trace = build_trace("k[$(ssh h hostname)]=1")
    assert [[a.value for a in v.argv] for v in trace.layers[0].commands] == [
        [], ["ssh", "h", "hostname"]]


@needs_bash
@pytest.mark.parametrize("src", [
    "a[1 + 1]=x; echo ${a[2]}",
    "declare -A m; m[a b]=1; echo ${!m[@]}",
    "a[$(echo 3)]=x; echo ${a[3]}",
    "a[1]+=x; a[1]+=y; echo ${a[1]}",
    "i=1; a[i+1]=x b=y; echo ${a[2]} $b",
])
def test_array_element_assignments_agree_with_bash(src: str) -> None:
    # bash runs no command named like the assignment; every echo it runs we see.
    out = bash_run(src)
    assert "command not found" not in out
    seen = argvs(src)
    assert [argv[0] for argv in seen] == ["echo"] * len(seen) or seen[0][0] == "declare"
    assert all("=" not in argv[0] for argv in seen)


# -- 2. `((` that opens two subshells --------------------------------------------------------------

# (script, what bash prints, the `echo` arguments we see): bash's output tells whether it read
# `((` as arithmetic (no echo inside runs) or as subshells (they run).
DPAREN_CASES = [
    ("((echo 1; echo 2) | cat)", ["1", "2"], ["1", "2"]),
    ("((echo 1) )", ["1"], ["1"]),
    ("((echo 1)||(echo 2))", ["1"], ["1", "2"]),
    ("((echo 1); echo 2)", ["1", "2"], ["1", "2"]),
    ("(((echo 1) | cat) | cat)", ["1"], ["1"]),
    ('((echo ")"; echo 2) | cat)', [")", "2"], [")", "2"]),
    ("x=$( ((echo 1; echo 2) | cat) ); echo $x", ["1", "2"], ["1", "2", "$x"]),
    ("echo $((echo 1) | cat)", ["1"], ["$((echo 1) | cat)", "1"]),
    ("echo $((echo 1); echo 2)", ["1", "2"], ["$((echo 1); echo 2)", "1", "2"]),
    ("echo $(( (echo 1) ) )", ["1"], ["$(( (echo 1) ) )", "1"]),
    ("case x in x) ((echo 1) | cat);; esac", ["1"], ["1"]),
    ("if ((echo 1) | cat); then echo 2; fi", ["1", "2"], ["1", "2"]),
    ("((\necho 1\n) | cat\n)", ["1"], ["1"]),
    # Arithmetic: the `)` closing the second `(` is followed at once by `)`.
    ("((1+2)); echo 1", ["1"], ["1"]),
    ("((a=(1+2)*3)); echo $a", ["9"], ["$a"]),
    ("x=1; ((x)) && echo 1", ["1"], ["1"]),
    ("((echo 1)) 2>/dev/null; echo 2", ["2"], ["2"]),
    ("echo $((1+(2)))", ["3"], ["$((1+(2)))"]),
    ("(echo $((echo 1))) 2>/dev/null; echo 2", ["2"], ["$((echo 1))", "2"]),
    ("for ((i=0; i<2; i++)); do echo $i; done", ["0", "1"], ["$i"]),
]


@needs_bash
@pytest.mark.parametrize(("src", "printed", "echoed"), DPAREN_CASES)
def test_dparen_agrees_with_bash(src: str, printed: list[str], echoed: list[str]) -> None:
    assert bash_accepts(src)
    assert bash_run(src).split() == printed
    assert problems(src) == []
    assert [argv[1] for argv in argvs(src) if argv[0] == "echo"] == echoed


def test_dparen_subshells_structure() -> None:
    script = parse_script("((a; b) | c)")
    kinds = [n.kind for n in iter_nodes(script.body) if isinstance(n, Compound)]
    assert kinds == ["subshell", "subshell"]
    assert argvs("((a; b) | c)") == [["a"], ["b"], ["c"]]
    assert argvs("x=$( ((a; b) | c) )") == [["a"], ["b"], ["c"]]
    arith = parse_script("((a; b))")  # arithmetic (a runtime error in bash), no commands
    assert [n.kind for n in arith.body if isinstance(n, Compound)] == ["arith"]
    assert argvs("((a; b))") == []


# -- 3. commands in array literals and arithmetic ----------------------------------------------

@pytest.mark.parametrize(("src", "expected"), [
    ('a=( $(cmd) "$(cmd2)" )', [["cmd"], ["cmd2"]]),
    ("x=(`id`)", [["id"]]),
    ("declare -a x=($(id))", [["declare", "-a", "x=($(id))"], ["id"]]),
    ("local -a x=(a $(id) <(ls))", [["local", "-a", "x=(a $(id) <(ls))"], ["id"], ["ls"]]),
    ("(( $(cmd) ))", [["cmd"]]),
    ("(( $(cmd) )) > f", [["cmd"]]),
    ("while (( $(h) )); do :; done", [["h"], [":"]]),
    ("for ((i=$(f); i<3; i++)); do :; done", [["f"], [":"]]),
    ("echo $(( $(cmd) + 1 ))", [["echo", "$(( $(cmd) + 1 ))"], ["cmd"]]),
    ("echo $[ $(cmd) + 1 ]", [["echo", "$[ $(cmd) + 1 ]"], ["cmd"]]),
    ("x=$(( `a` + $(b) ))", [["a"], ["b"]]),
])
def test_commands_inside_arrays_and_arithmetic_are_walked(src: str,
                                                          expected: list[list[str]]) -> None:
    assert argvs(src) == expected
    assert problems(src) == []


def test_array_literal_commands_reach_the_trace() -> None:
    trace = build_trace("COMPREPLY=($(ssh h ls))")
    root = trace.layers[0]
    assert [[a.value for a in v.argv] for v in root.commands] == [[], ["ssh", "h", "ls"]]
    assert any(layer.kind == "ssh" for layer in trace.layers)


def test_for_arith_keeps_its_name_and_has_the_word() -> None:
    [loop] = parse_script("for ((i=0; i<3; i++)); do :; done").body
    assert isinstance(loop, Compound) and loop.kind == "for"
    assert loop.name == "((i=0; i<3; i++))"
    assert [w.raw for w in loop.words] == ["((i=0; i<3; i++))"]


# -- 4. a node that cannot be converted loses only itself ----------------------------------------

def test_conversion_failure_drops_only_the_failing_command(monkeypatch: pytest.MonkeyPatch) -> None:
    original = parse_module._Builder.command

    def command(self: Any, n: Any, base: int) -> Any:
        if any(self.scan.text[base + p.pos[0]:base + p.pos[1]] == "boom" for p in n.parts):
            raise AttributeError("simulated bashlex surprise")
        return original(self, n, base)

    monkeypatch.setattr(parse_module._Builder, "command", command)
    src = "echo a\nif true; then echo b; boom x; echo c; fi\nx=$(echo d; boom)\necho e\n"
    script = parse_script(src)
    assert argvs(src) == [["echo", "a"], ["true"], ["echo", "b"], ["echo", "c"],
                          ["echo", "d"], ["echo", "e"]]
    found = [(p.code, src[p.start:p.end]) for p in script.problems]
    assert found == [("QC002", "boom x"), ("QC002", "boom")]
    assert "unexpected structure" in script.problems[0].message


# -- 5. per-word costs do not grow with the text ---------------------------------------------------

class _CountingList(list[Any]):
    iterations = 0

    def __iter__(self) -> Any:
        type(self).iterations += 1
        return super().__iter__()


def test_segmenting_a_word_does_not_walk_every_nested_script() -> None:
    text = "".join(f"echo $(n{i}) <(m{i})\n" for i in range(300))
    result = scan(text)
    result.nested = _CountingList(result.nested)
    _CountingList.iterations = 0
    for line_start in range(0, len(text), len("echo $(n0) <(m0)\n")):
        segment(result, line_start, line_start + 4)
    assert _CountingList.iterations <= 1
    word = segment(result, 11, 16)  # `<(m0)`: still found as a process substitution
    assert [p.kind for p in word.parts] == ["process"]


def test_substitutions_in_matches_the_plain_definition() -> None:
    rng = random.Random(5)
    text = "x" * 2000
    for _ in range(30):
        subs = SubstitutionMap()
        plain: dict[int, Script] = {}
        for start in rng.sample(range(1990), 60):
            end = start + rng.randint(1, 40)
            inner = Script(text, None, "bash", (start + 2, end - 1), [],  # type: ignore[arg-type]
                           anchor=(start, end))
            subs[start] = plain[start] = inner
        holder = Script(text, None, "bash", (0, 2000), [], substitutions=subs)  # type: ignore
        for _ in range(20):
            a = rng.randrange(2000)
            span = (a, a + rng.randint(0, 300))
            expected, taken = [], -1
            for k in sorted(k for k in plain if span[0] <= k < span[1]):
                if k >= taken:
                    expected.append(plain[k])
                    taken = plain[k].anchor[1]  # type: ignore[index]
            assert holder.substitutions_in(span) == expected


def test_substitution_keys_are_sorted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    src = "".join(f"echo $(a{i}) \"$(b{i})\"\n" for i in range(200))
    script = parse_script(src)
    assert isinstance(script.substitutions, SubstitutionMap)
    calls = 0
    original = SubstitutionMap.sorted_keys

    def counting(self: SubstitutionMap) -> list[int]:
        nonlocal calls
        if self._sorted is None:
            calls += 1
        return original(self)

    monkeypatch.setattr(SubstitutionMap, "sorted_keys", counting)
    found = list(walk(script))
    assert len(found) == 600
    assert calls <= 1
    nested = [c for c, ctx in found if ctx.in_substitution]
    assert all(isinstance(c, SimpleCommand) for c in nested) and len(nested) == 400


class _CountingScanner:
    """Counts the scanners made (the scan itself and every read-ahead probe)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = scanner_module.Scanner.__init__

        def init(inner: Any, *args: Any, **kwargs: Any) -> None:
            self.count += 1
            original(inner, *args, **kwargs)

        monkeypatch.setattr(scanner_module.Scanner, "__init__", init)


@pytest.mark.parametrize("unit", ["a[x;", "a[$i]=1;", "((x++));", "((a) | b);", "a[\"x;",
                                  "echo $((x) | y);", "a[x\n"])
def test_read_ahead_costs_one_probe_per_construct(unit: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    counter = _CountingScanner(monkeypatch)
    scan(unit * 2000)
    assert counter.count <= 2001


@pytest.mark.parametrize("nest", [
    lambda d: "((" + " $( ((" * d + " 1 " + ")) )" * d + "))\n",
    lambda d: "echo $(( " + "$( echo $((" * d + " 1 " + ")) )" * d + "))\n",
    lambda d: "a[" + "$( b[" * d + " 1 " + "]=1 )" * d + "]=2\n",
])
def test_read_ahead_inside_read_ahead_is_not_exponential(nest: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # A probe that probed again for every construct inside it would make 2**depth scans.
    counter = _CountingScanner(monkeypatch)
    result = scan(nest(60))
    assert counter.count < 20_000
    assert not [p for p in result.problems if p.code == "QC001"]


def test_array_element_assignment_is_a_command_name_in_sh() -> None:
    # dash has no arrays: it looks for a command named `a[1]=x` (QC207 says so).
    script = parse_script("a[1]=x; b[2]=y cmd", "sh")
    assert [([a.name for a in c.assignments], [w.value for w in c.words])
            for c, _ in walk(script)] == [([], ["a[1]=x"]), ([], ["b[2]=y", "cmd"])]


@pytest.mark.parametrize(("src", "valid"), [
    ("{ echo a; } {fd}>&1\n", True),  # NVIDIA enroot's curl wrapper
    ("( echo a ) {out}>/tmp/x\n", True),
    ("if true; then echo; fi {fd}>/dev/null\n", True),
    ("while false; do :; done {_f2}</dev/null\n", True),
    ("{ echo a; } {fd}\n", False),  # a word after a compound without a redirection
    ("{ echo a; } x>y\n", False),
    ("{ echo a; } {1x}>y\n", False),  # not a name
])
def test_a_named_fd_redirection_after_a_compound_agrees_with_bash(src: str, valid: bool) -> None:
    """bash's REDIR_WORD (`{name}>...`): after a compound command it is a redirection that
    stores the fd it opens in `name`; any other word there is a syntax error."""
    if shutil.which("bash"):
        ok = subprocess.run(["bash", "-n", "-c", src], capture_output=True, timeout=10)
        assert (ok.returncode == 0) == valid
    problems = [p for p in parse_script(src).problems if p.code == "QC001"]
    assert (not problems) == valid, problems
    if valid:
        [compound] = [n for n in parse_script(src).body if isinstance(n, Compound)]
        assert compound.redirects and compound.redirects[0].op in (">&", ">", "<")


def test_a_bats_file_is_read_as_bats_hands_it_to_bash() -> None:
    """`@test "name" {` is bats syntax (bats rewrites it into a function before bash runs the
    file): no parse error, and the code of each test is analysed at its own place."""
    from quotecheck.checker import Options, check_source
    from quotecheck.parsing.bats import as_shell

    src = ('#!/usr/bin/env bats\nload helper\n\n@test "a remote home" {\n'
           '  ssh -o BatchMode=yes -o ConnectTimeout=5 h "echo $HOME"\n'
           '  [ "$status" -eq 0 ]\n}\n')
    if shutil.which("bash"):
        raw = subprocess.run(["bash", "-n", "-c", src], capture_output=True, timeout=10)
        assert raw.returncode != 0  # raw, bash refuses the @test line
        done = subprocess.run(["bash", "-n", "-c", as_shell(src)], capture_output=True,
                              timeout=10)
        assert done.returncode == 0
    assert len(as_shell(src)) == len(src) and as_shell(src).count("\n") == src.count("\n")
    result = check_source(src, Options(select=["QC001", "QC101"]), path="remote.bats")
    codes = [(d.code, src[d.span[0]:d.span[1]]) for d in result.diagnostics]
    assert codes == [("QC101", "$HOME")]
