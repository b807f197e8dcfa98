"""Parse errors only where bash has them (issue 13, the parser part).

The excerpts in tests/data/parse_precision (sources and licences in SOURCE.md) are real scripts
that bash accepts and that quotecheck reported QC001 on: a `{` inside `${...}` taken as nesting,
extglob patterns in a file that turns extglob on, eval text whose run-time values were parsed as
their own spelling. The generated checks ask bash itself (``bash -n``, and the value a word
expands to) on many small texts of the same kinds. And one unparseable region costs one finding,
said in the file's own spelling, with the rest of the file still analysed.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from quotecheck.checker import Options, check_source
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.runtime_text import certain_errors, with_plain_values
from quotecheck.parsing.shell_options import enables_extglob
from quotecheck.parsing.tree import Compound, Script, iter_nodes, walk
from quotecheck.positions import LineIndex

DATA = Path(__file__).resolve().parent / "data" / "parse_precision"
EXCERPTS = sorted(p for p in DATA.iterdir() if p.suffix in (".sh", ".bash"))
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def bash_accepts(src: str, extglob: bool = False) -> bool:
    assert BASH is not None
    args = [BASH, *(["-O", "extglob"] if extglob else []), "-n"]
    return subprocess.run(args, input=src, capture_output=True, text=True,
                          timeout=60).returncode == 0


def qc001(src: str, dialect: str = "bash") -> list[tuple[int, int, str]]:
    """(line, column, message) of every QC001 ``check`` reports on ``src``."""
    result = check_source(src, Options(select=["QC001"], dialect=dialect), path=None)
    index = LineIndex(src)
    out = []
    for d in result.diagnostics:
        if d.code == "QC001":
            line, col = index.position(d.span[0])
            out.append((line + 1, col + 1, d.text))
    return out


def argv_of(src: str) -> list[list[str]]:
    return [[w.raw for w in c.words] for c, _ in walk(parse_script(src))]


# -- the real excerpts ----------------------------------------------------------------------


@needs_bash
@pytest.mark.parametrize("path", EXCERPTS, ids=lambda p: p.name)
def test_real_excerpt_that_bash_accepts_has_no_parse_error(path: Path) -> None:
    src = path.read_text()
    dialect = "sh" if src.startswith("#!/bin/sh") else "bash"
    assert bash_accepts(src, extglob=enables_extglob(src))
    assert qc001(src, dialect) == []


def test_extglob_function_is_analysed_whole() -> None:
    src = (DATA / "pyenv_python_build_extglob.bash").read_text()
    assert ["return", "0"] in argv_of(src) and ["return", "1"] in argv_of(src)


def test_braced_default_with_a_brace_keeps_the_function() -> None:
    src = (DATA / "kind_e2e_k8s_feature_gates.sh").read_text()
    script = parse_script(src, "sh")
    words = [a.value.raw for c, _ in walk(script) for a in c.assignments]
    assert '"${FEATURE_GATES:-{\\}}"' in words and '"${RUNTIME_CONFIG:-{\\}}"' in words


@needs_bash
def test_extglob_without_turning_it_on_is_an_error_that_says_so() -> None:
    src = (DATA / "pyenv_python_build_extglob.bash").read_text().replace(
        "shopt -s extglob\n", "\n")
    assert not bash_accepts(src)
    found = qc001(src)
    assert len(found) == 1, found  # the whole function is one region
    line, col, message = found[0]
    assert src.splitlines()[line - 1][col - 2:col] == "+("
    assert "extglob" in message and "shopt -s extglob" in message


# -- generated: `{` in `${...}` -----------------------------------------------------------------


_BODY = ["{", "}", "\\}", "\\{", "a", " ", '"q"', "'s'", "${Y}"]


def _braced_cases(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        body = "".join(rng.choice(_BODY) for _ in range(rng.randint(0, 6)))
        word = f"${{X:-{body}}}"
        out.append(f'"{word}"' if rng.random() < 0.5 else word)
    return out


@needs_bash
@pytest.mark.parametrize("seed", [1, 2])
def test_braced_parameter_words_match_bash(seed: int) -> None:
    """`${X:-...}` with braces, escapes and quotes in it: the words quotecheck reads (where the
    expansion ends, the literal text after it) are the arguments bash passes."""
    assert BASH is not None
    cases = _braced_cases(seed, 150)
    src = "".join(f"printf '<%s>' {w}; echo\n" for w in cases)
    run = subprocess.run([BASH, "-c", "X=V; Y=y; set -f; IFS=; " + src], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    for word, expected in zip(cases, run.stdout.split("\n"), strict=False):
        script = parse_script(f"printf '<%s>' {word}\n")
        assert not [p for p in script.problems if p.code == "QC001"], (word, script.problems)
        command = next(c for c, _ in walk(script))
        got = "".join(
            "<" + "".join(p.value if p.kind == "literal" else "V" if p.name == "X" else "y"
                          for p in w.parts) + ">"
            for w in command.words[2:])
        assert got == expected, word


# -- generated: extglob patterns -------------------------------------------------------------


def _pattern(rng: random.Random, depth: int = 0) -> str:
    alternatives = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.25 and depth < 2:
            alternatives.append(_pattern(rng, depth + 1))
        else:
            alternatives.append(rng.choice(["a", "b*", '"c d"', "'e)'", "[0-9]", "$v", "\\)",
                                            ""]))
    return rng.choice("@*+?!") + "(" + "|".join(alternatives) + ")"


@needs_bash
@pytest.mark.parametrize("seed", [3, 4])
def test_extglob_parse_errors_match_bash(seed: int) -> None:
    """With `shopt -s extglob` in the file and without: QC001 exactly where `bash -n` (with
    `-O extglob` when the file turns it on) rejects the text."""
    rng = random.Random(seed)
    for _ in range(60):
        pattern = rng.choice(["", "x", "x.", "*"]) + _pattern(rng) + rng.choice(["", "-*", ".sh"])
        body = rng.choice([f"case $v in\n  {pattern}) echo m ;;\nesac\n", f"ls {pattern}\n",
                           f"f() {{\n  echo {pattern}\n}}\n", f"[[ $v == {pattern} ]]\n"])
        for on in (True, False):
            src = ("shopt -s extglob\n" if on else "") + body
            errors = [p for p in parse_script(src).problems if p.code == "QC001"]
            assert bash_accepts(src, extglob=on) == (not errors), (src, errors)


@pytest.mark.parametrize(("text", "on"), [
    ("shopt -s extglob\n", True),
    ("shopt -qs nullglob extglob\n", True),
    ("#!/bin/bash -O extglob\necho\n", True),
    ("#!/usr/bin/env -S bash -O extglob\n", True),
    ("# shopt -s extglob\n", False),
    ("shopt -u extglob\n", False),
    ("echo extglob\n", False),
])
def test_what_turns_extglob_on(text: str, on: bool) -> None:
    assert enables_extglob(text) is on


def test_extglob_is_bash_only() -> None:
    src = "shopt -s extglob\nls +(a|b)\n"
    assert not [p for p in parse_script(src).problems if p.code == "QC001"]
    assert [p for p in parse_script(src, "sh").problems if p.code == "QC001"]


# -- one region, one finding ----------------------------------------------------------------


@needs_bash
@pytest.mark.parametrize("lines", [5, 40, 150])
def test_a_broken_function_costs_one_finding_and_the_next_one_is_analysed(lines: int) -> None:
    body = "".join(f"  echo line{k} ;;\n" if k % 7 == 3 else f"  echo line{k}\n"
                   for k in range(lines))
    src = f"broken() {{\n  if true; then\n{body}  fi\n}}\n\nafter() {{\n  echo fine\n}}\necho end\n"
    assert not bash_accepts(src)
    found = qc001(src)
    assert len(found) == 1, found
    assert found[0][2] == "syntax error near `;;`"
    argv = argv_of(src)
    assert ["echo", "fine"] in argv and ["echo", "end"] in argv


@needs_bash
def test_consecutive_broken_lines_are_one_region() -> None:
    src = "A=<PATH_OF_A>\nB=<PATH_OF_B>\nC=<PATH_OF_C>\necho ok\nD=<PATH_OF_D>\n"
    assert not bash_accepts(src)
    found = qc001(src)
    assert [(line, message) for line, _, message in found] == [
        (1, "syntax error: `>` is not followed by a file name"),
        (5, "syntax error: `>` is not followed by a file name"
            " (a later syntax error: bash stops reading at the first one above)")]
    assert ["echo", "ok"] in argv_of(src)


@needs_bash
def test_open_quote_costs_one_finding_at_its_cause() -> None:
    src = 'echo "${x:-a\nif true; then\n  echo in\nfi\n'
    assert not bash_accepts(src)
    # the `${` leaves the quote open, and the `if` is taken in: one finding, at the `${`
    assert qc001(src) == [(1, 7, "unterminated ${...}")]


@needs_bash
def test_the_message_spells_the_token_as_the_file_does() -> None:
    src = 'echo "a b" $(date) \'c\' ) x\n'
    assert not bash_accepts(src)
    assert qc001(src) == [(1, 24, "syntax error near `)`")]
    src = 'case x in\n  "$a b") echo ;;\n  "$c" "$d") echo ;;\nesac\n'
    assert not bash_accepts(src)
    assert qc001(src) == [(3, 8, 'syntax error near `"$d"`')]


@needs_bash
def test_a_construct_left_open_is_named_where_it_opens() -> None:
    src = "echo before\nwhile true; do\n  echo in\n"
    assert not bash_accepts(src)
    found = qc001(src)
    assert [(line, col) for line, col, _ in found] == [(2, 1)]
    assert "`while`" in found[0][2] and "`done`" in found[0][2]


# -- text built at run time ------------------------------------------------------------------


def test_plain_values_keep_positions() -> None:
    assert with_plain_values("$a=( b $c )", [(0, 2), (7, 9)]) == "xx=( b xx )"


@pytest.mark.parametrize("src", [
    'eval "$variable=( \\"\\${value[@]}\\" )"\n',
    'eval ${name}=\\(\\"\\${array[@]}\\" \\"${add}\\" \\)\n',
    'eval "f() { case \\"$1\\" in ${patterns[@]} *) return 1;; esac; }"\n',
    'eval "if $cond; then echo yes; fi"\n',
    'ssh host "if $test; then echo"\n',
])
def test_run_time_text_that_a_value_can_make_valid_is_no_parse_error(src: str) -> None:
    assert qc001(src) == []


@pytest.mark.parametrize(("src", "column"), [
    ('ssh host "echo \\"$x"\n', 17),  # a quote left open stays open whatever $x is
    ("ssh host \"echo $x; echo 'a\"\n", 25),
    ('eval "echo ) $x"\n', 12),  # before any value: the error is there whatever they are
])
def test_run_time_text_with_an_error_no_value_avoids_is_reported(src: str, column: int) -> None:
    found = qc001(src)
    assert [col for _, col, _ in found] == [column], found
    assert "receives: it will fail on it too" in found[0][2]


def test_certain_errors_without_run_time_parts_are_the_parse_errors() -> None:
    assert [p.message for p in certain_errors("echo 'a", "bash", [])] == [
        "unterminated single quote"]
    assert certain_errors("echo a", "bash", [(5, 6)]) == []


# -- arithmetic next to reserved words ---------------------------------------------------------


@needs_bash
@pytest.mark.parametrize("src", [
    "while((x <= 3))\ndo\n  echo in\ndone\n",
    "if((1)); then echo in; elif((2)); then echo in; fi\n",
    "until((x > 3)); do echo in; done\n",
    "for((i = 0; i < 3; i++)); do echo in; done\n",
    "for ((i = 0; i < 3; i++)) {\n  echo in\n}\n",
    "for((;;)) { echo in; }\n",
    "f() {\n  for ((i = 0; i < n; i++)) {\n    echo in\n  }\n}\n",
])
def test_arithmetic_glued_to_a_reserved_word_or_with_a_brace_body(src: str) -> None:
    assert bash_accepts(src)
    script = parse_script(src)
    assert not [p for p in script.problems if p.code == "QC001"], script.problems
    assert ["echo", "in"] in argv_of(src)
    spans = [(n.kind, src[n.span[0]:n.span[1]]) for n in _compounds(script)
             if n.kind in ("arith", "for")]
    assert all(text.startswith(("((", "for")) for _, text in spans), spans


def _compounds(script: Script) -> list[Compound]:
    return [n for n in iter_nodes(script.body) if isinstance(n, Compound)]


# -- generated: one broken line among valid ones -----------------------------------------------

_VALID = [
    "echo a", "x=${y:-{a}b}", 'echo "${X:-{\\}}"', "if true; then\n  echo in\nfi",
    "while((i < 3)); do\n  ((i++))\ndone", "for ((i=0;i<2;i++)) {\n  echo $i\n}",
    "case $x in\n  a|b) echo ab ;;\n  *) : ;;\nesac", 'f() {\n  local v=( "$@" )\n  echo "$v"\n}',
    "cat <<EOF\nbody $x\nEOF", "cat <<'E'\n{ ( \"\nE", "arr=(1 2 3)", "echo $(( 1 + 2 ))",
    "[[ $a == +(x|y) ]]", "echo `date`", 'a=$(echo "$(pwd)")', "if((1)); then :; fi",
    "echo ${#arr[@]} ${arr[1]:-{}}", "select s in a b; do break; done", "time ls | wc -l",
    "echo }{ {a,b}", "g() ( echo sub )",
]
# (a quote or `${` left open takes the rest of the text in)
_OPEN_TO_THE_END = ['echo "open', "echo 'open", "echo ${x"]
_BROKEN = [*_OPEN_TO_THE_END, "fi", "X=<PLACEHOLDER>", "if true; then", "case $x in\n  a) echo",
           "done", "echo )", "for x in a b; do"]


def _generated(rng: random.Random, broken: str | None) -> str:
    lines = [rng.choice(_VALID) for _ in range(rng.randint(1, 8))]
    if broken is not None:
        lines.insert(rng.randrange(len(lines) + 1), broken)
    if rng.random() < 0.5:  # inside a function, indented (heredocs stay at the margin)
        lines = ["f0() {", *(line if line.startswith("cat <<") else
                             "  " + line.replace("\n", "\n  ") for line in lines), "}"]
    return "\n".join([*lines, "echo tail_ok"]) + "\n"


@needs_bash
@pytest.mark.parametrize("seed", [5, 6])
def test_generated_scripts_get_a_parse_error_only_where_bash_does(seed: int) -> None:
    """Valid constructs (with the kinds fixed here among them), and the same with one broken
    line put in: no QC001 where `bash -n` accepts; where it rejects, exactly one, and the
    command after the broken region is analysed."""
    rng = random.Random(seed)
    for k in range(80):
        broken = rng.choice(_BROKEN) if k % 2 else None
        src = _generated(rng, broken)
        errors = [p for p in parse_script(src).problems if p.code == "QC001"]
        if bash_accepts(src):
            assert errors == [], src
        else:
            assert len(errors) == 1, (src, errors)
            if broken not in _OPEN_TO_THE_END:
                assert ["echo", "tail_ok"] in argv_of(src), src


# -- extglob in inner layers -------------------------------------------------------------------


@needs_bash
@pytest.mark.parametrize(("src", "errors"), [
    ('shopt -s extglob\neval "case \\"x$1\\" in +(a)) echo ;; esac"\n', 0),  # eval: same shell
    ('eval "case \\"x$1\\" in +(a)) echo ;; esac"\n', 1),
    ('bash -O extglob -c "ls +(a|b)"\n', 0),
    ('bash -c "ls +(a|b)"\n', 1),  # a new bash: the file's shopt does not reach it
    ('shopt -s extglob\nbash -c "ls +(a|b)"\n', 1),
])
def test_extglob_of_the_shell_an_inner_layer_runs_in(src: str, errors: int) -> None:
    assert BASH is not None
    run = subprocess.run([BASH, "-c", src.replace("ls ", "echo ")],
                         capture_output=True, text=True, timeout=60)
    assert ("syntax error" in run.stderr) == bool(errors), run.stderr
    assert len(qc001(src)) == errors


@needs_bash
def test_only_the_first_syntax_error_of_a_text_is_an_error() -> None:
    # bash -n stops at the first; NVIDIA/Megatron-LM examples/academic_paper_scripts/msdp/
    # prompt_knwl_gen.sh has two `<PLACEHOLDER>` regions, the second was judged noise.
    src = "A=<PATH_OF_A>\necho ok\nD=<PATH_OF_D>\n"
    result = check_source(src, Options(select=["QC001"]), path=None)
    assert [d.severity for d in result.diagnostics if d.code == "QC001"] == ["error", "info"]
