"""Property: what quotecheck.values says a variable holds is what real bash prints there.

Generated scripts of assignments (plain, `+=`, concatenation of other variables, `${X:-w}`,
arrays), `if` branches on `true`/`false`, `&&`/`||`, `case` on a literal word, `for` loops over
literal words and `( )` subshells;
each read prints `ID=value` with `printf`. bash runs the generated text (test data of
assignments and prints only, with an empty environment). For every read bash printed, the
value must be one of those the analysis allows (or empty for a variable it says is never set);
in straight-line code the analysis must also know every value exactly.
"""

from __future__ import annotations

import shutil

import pytest
from harness.shells import run_shell
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quotecheck.parsing.parse import parse_script
from quotecheck.values import analyse_values

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

NAMES = ["A", "B", "C"]
# Values with blanks, quotes and metacharacters: single-quoted in the script, so only the
# analysis of quoting and flow is tested, never an expansion of the value itself.
VALUES = st.text(alphabet="ab -;$*'\"\\x", max_size=6)


def sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@st.composite
def statements(draw: st.DrawFn, depth: int = 0) -> list[str]:
    out: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["set", "set", "append", "concat", "default", "array",
                                     "read", "andor"]
                                    + (["if", "for", "sub", "case"] if depth < 2 else [])))
        name = draw(st.sampled_from(NAMES))
        if kind == "set":
            out.append(f"{name}={sq(draw(VALUES))}")
        elif kind == "append":
            out.append(f"{name}+={sq(draw(VALUES))}")
        elif kind == "concat":
            other = draw(st.sampled_from(NAMES))
            out.append(f'{name}="${{{other}}}"{sq(draw(VALUES))}')
        elif kind == "default":
            other = draw(st.sampled_from(NAMES))
            colon = draw(st.sampled_from([":-", "-"]))
            out.append(f"{name}=${{{other}{colon}{draw(st.sampled_from(['w', 'x1', '']))}}}")
        elif kind == "array":
            items = " ".join(sq(draw(VALUES)) for _ in range(draw(st.integers(0, 3))))
            out.append(f"{name}=({items})")
        elif kind == "andor":
            cond = draw(st.sampled_from(["true &&", "false &&", "true ||", "false ||"]))
            out.append(f"{cond} {name}={sq(draw(VALUES))}")
        elif kind == "case":
            subject = draw(st.sampled_from(["a", "b", "c"]))
            clauses = " ".join(f"{p}) {'; '.join(draw(statements(depth + 1)))};;"
                               for p in draw(st.lists(st.sampled_from(["a", "b", "*", "a|c"]),
                                                      min_size=1, max_size=3)))
            out.append(f"case {subject} in {clauses} esac")
        elif kind == "read":
            out.append("READ")  # a read point, filled in below
        elif kind == "if":
            cond = draw(st.sampled_from(["true", "false"]))
            then = "; ".join(draw(statements(depth + 1)))
            other = draw(st.one_of(st.none(), statements(depth + 1)))
            tail = f"; else {'; '.join(other)}" if other else ""
            out.append(f"if {cond}; then {then}{tail}; fi")
        elif kind == "for":
            var = draw(st.sampled_from(NAMES))
            words = " ".join(sq(draw(VALUES)) for _ in range(draw(st.integers(1, 3))))
            out.append(f"for {var} in {words}; do {'; '.join(draw(statements(depth + 1)))}; done")
        else:
            out.append(f"( {'; '.join(draw(statements(depth + 1)))} )")
    return out


def build(stmts: list[str]) -> tuple[str, list[tuple[int, str, str]]]:
    """The script text, and each read: (offset of its `$`, variable, form)."""
    text = ""
    reads: list[tuple[int, str, str]] = []
    counter = 0

    def read_code(name: str, form: str) -> str:
        nonlocal counter
        counter += 1
        ref = {"plain": f"${{{name}}}", "element": f"${{{name}[1]}}",
               "all": f"${{{name}[*]}}"}[form]
        return f"printf '%s=%s\\0' {counter} \"{ref}\""

    lines = []
    for i, s in enumerate([*stmts, "READ"]):
        while "READ" in s:
            name = NAMES[(i + counter) % len(NAMES)]
            form = ["plain", "element", "all"][(i + counter) % 3]
            s = s.replace("READ", read_code(name, form), 1)
        lines.append(s)
    # Reads are also put inside branches and loops (the READ markers of nested statements).
    text = "\n".join(lines) + "\n"
    # Find each read's offset and what it reads.
    at = text.find("printf '%s=%s\\0' ")
    while at >= 0:
        dollar = text.index("\"$", at) + 1
        ref = text[dollar:text.index('"', dollar)]
        name = ref[2:].split("[")[0].rstrip("}")
        form = "element" if "[1]" in ref else "all" if "[*]" in ref else "plain"
        reads.append((dollar, name, form))
        at = text.find("printf '%s=%s\\0' ", at + 1)
    return text, reads


def allowed(values: object, name: str, form: str, offset: int) -> set[str] | None:
    from quotecheck.values import Values
    assert isinstance(values, Values)
    k = values.at(name, offset)
    if k.kind == "environment":
        return {""}
    if k.alts is None:
        return None
    if form == "plain":
        return set(k.exact or ())
    arrays = k.arrays or ()
    if form == "element":
        return {a[1] if len(a) > 1 else "" for a in arrays}
    return {" ".join(a) for a in arrays}


def check(stmts: list[str]) -> None:
    text, reads = build(stmts)
    result = run_shell("bash", text, {}, timeout=20)
    assert result.returncode == 0, (text, result.stderr)
    values = analyse_values(parse_script(text))
    by_id = {i + 1: r for i, r in enumerate(reads)}
    # Straight-line code that gives every variable a value first: all of it is known.
    straight = stmts[:1] == [INIT] and not any(
        s.startswith(("if ", "for ", "( ", "case ", "true ", "false ")) for s in stmts)
    for record in result.stdout.split("\0")[:-1]:
        ident, _, printed = record.partition("=")
        offset, name, form = by_id[int(ident)]
        ok = allowed(values, name, form, offset)
        if straight and form == "plain":
            assert ok is not None and len(ok) == 1, (text, ident, values.at(name, offset))
        if ok is not None:
            assert printed in ok, (text, ident, printed, ok)


INIT = "A=; B=; C="


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), statements())
def test_known_values_are_what_bash_prints(init: bool, stmts: list[str]) -> None:
    check([INIT, *stmts] if init else stmts)


@pytest.mark.parametrize("stmts", [
    ["A='x y'", "B=\"${A}\"';'", "READ"],
    ["A=(a 'b c')", "A+=('d')", "READ", "READ"],
    ["if false; then A=1; else A=2; fi", "READ"],
    ["for A in 'p' 'q'; do READ; done", "READ"],
    ["A=x", "( A=y; READ )", "READ"],
    ["B=${A-w}", "A=", "C=${A:-z}", "READ", "READ", "READ"],
    # Found by the property test: after a loop that set it as an array, `B=''` sets element 0
    # and keeps element 1 (`;`), which is not known.
    ["for A in ''; do B=('' ';'); A=''; done", "READ", "B=''"],
])
def test_examples_against_bash(stmts: list[str]) -> None:
    check(stmts)
