"""The argv the trace gives a command once it puts in the values the script set is the argv bash
gives it: word splitting of `$X`, `"$X"` whole, concatenations, arrays, wrapper parameters.

Generated scripts run with the real bash (`printf '%s\\0'` prints each argument), compared with
the argv of the same command in the trace. A word the trace still marks dynamic (a glob, a value
not known) is left out of the comparison, and so is an example with none known.
"""

from __future__ import annotations

import shlex
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.trace import build_trace

# Values with blanks, quotes and metacharacters, but no glob characters (those stay dynamic).
VALUES = st.text(alphabet="ab -_.'\"$;&|<>()\\\t", min_size=0, max_size=8)
WORDS = ['$X', '"$X"', 'a${X}b', '"a$X b"', '${A[@]}', '"${A[@]}"', '"${A[*]}"', "'$X'",
         '${X:-d}', '"${Y:-$X}"']


def bash_argv(script: str) -> list[str]:
    out = subprocess.run(["bash", "-c", script], capture_output=True, timeout=20, check=True)
    # (every script prints a first word `-`, so that printf never runs without arguments)
    return out.stdout.decode("utf-8", "surrogateescape").split("\0")[1:-1]


def traced_argv(script: str) -> list[tuple[str, bool]]:
    trace = build_trace(script)
    last = trace.root.commands[-1]
    return [(a.value, a.dynamic) for a in last.argv[3:]]


def check(script: str) -> None:
    predicted = traced_argv(script)
    if any(dynamic for _, dynamic in predicted):
        return  # not all known: the trace says so, nothing exact to compare
    assert [v for v, _ in predicted] == bash_argv(script), script


@settings(max_examples=60, deadline=None)
@given(VALUES, st.lists(VALUES, max_size=3), st.lists(st.sampled_from(WORDS), min_size=1,
                                                        max_size=4))
def test_known_values_split_as_bash_splits(x: str, a: list[str], words: list[str]) -> None:
    array = " ".join(shlex.quote(v) for v in a)
    script = f"X={shlex.quote(x)}\nA=({array})\nprintf '%s\\0' - {' '.join(words)}\n"
    check(script)


@settings(max_examples=40, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=3),
       st.sampled_from(['"$@"', '$@', '"$*"', '"$1"', '$1', '"x$2y"', '"${1}"']))
def test_wrapper_parameters_as_bash_passes_them(args: list[str], body: str) -> None:
    call = " ".join(shlex.quote(v) for v in args)
    script = f"w() {{ local h=$1; printf '%s\\0' - {body} \"$h\"; }}\nw {call}\n"
    # The same body handing its words to `sh -c` instead: the trace's hand-off of the call
    # carries them as that shell's positional parameters.
    probe = (f"w() {{ local h=$1; sh -c 'printf \"%s\\\\0\" \"$@\"' sh {body} \"$h\"; }}\n"
             f"w {call}\n")
    trace = build_trace(probe)
    inner = [x for x in trace.layers if x.kind == "shell" and x.parent is not None]
    if not inner or any(p.dynamic for p in inner[0].positional):
        return
    predicted = [p.value for p in inner[0].positional[1:]]
    assert predicted == bash_argv(script), (script, predicted)
