"""The value analysis (quotecheck.values): what a variable holds where it is read."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.tree import walk
from quotecheck.values import Knowledge, analyse_values


def at(src: str, marker: str, name: str | None = None) -> Knowledge:
    """What the read marked by the last ``marker`` (e.g. `$X` in `echo $X #here`) gives."""
    script = parse_script(src)
    values = analyse_values(script)
    offset = src.rindex(marker)
    return values.at(name or marker.lstrip("${").split("[")[0].rstrip("}"), offset)


@pytest.mark.parametrize("src, marker, exact", [
    ("APP=shopfront\necho $APP\n", "$APP", ("shopfront",)),
    ("readonly APP='shop front'\necho $APP\n", "$APP", ("shop front",)),
    ("declare -rx APP=a\necho $APP\n", "$APP", ("a",)),
    ("export APP=\"a\"b\necho $APP\n", "$APP", ("ab",)),
    ("f() { local v=x; echo $v; }\n", "$v", ("x",)),
    ("A=web; B=$A-1.example\necho $B\n", "$B", ("web-1.example",)),
    ("A=1 B=$A\necho $B\n", "$B", ("1",)),
    ("X=${U:-abc}\necho $X\n", "$X", None),
    ("U=; X=${U:-abc}\necho $X\n", "$X", ("abc",)),
    ("U=v; X=${U:-abc}\necho $X\n", "$X", ("v",)),
    ("X=a\nX+=b\necho $X\n", "$X", ("ab",)),
    ("if c; then M=a; elif d; then M=b; else M=c; fi\necho $M\n", "$M", ("a", "b", "c")),
    ("if c; then M=a; fi\necho $M\n", "$M", None),
    ("M=z; if c; then M=a; fi\necho $M\n", "$M", ("z", "a")),
    ("M=z; c && M=a\necho $M\n", "$M", ("z", "a")),
    ("case $1 in a) M=1;; *) M=2;; esac\necho $M\n", "$M", ("1", "2")),
    ("M=z; if c; then M=a; else exit 1; fi\necho $M\n", "$M", ("a",)),
    ("for h in web1 web2; do echo $h; done\n", "$h", ("web1", "web2")),
    ("HOSTS='a b'\nfor h in $HOSTS c; do echo $h; done\n", "$h", ("a", "b", "c")),
    ("X=1; ( X=2 ); echo $X\n", "$X", ("1",)),
    ("X=1; echo | X=2; echo $X\n", "$X", ("1",)),
    ("X=1; Y=$(X=2; echo); echo $X\n", "$X", ("1",)),
    ("X=1; { X=2; }; echo $X\n", "$X", ("2",)),
    ("X=1; X=2 cmd; echo $X\n", "$X", ("1",)),
    ("X=1; X=2 && Y=3 &\necho $X\n", "$X", ("1",)),
    ("X=1; c && X=2 &\necho $X\n", "$X", ("1",)),
    # `command f` runs no function f; `command -v source` only says what `source` is
    ("f() { X=2; }\nX=1\ncommand f\necho $X\n", "$X", ("1",)),
    ("X=1\ncommand -v source\necho $X\n", "$X", ("1",)),
    ("X=1\nbuiltin export X=2\necho $X\n", "$X", ("2",)),
])
def test_exact_values(src: str, marker: str, exact: tuple[str, ...] | None) -> None:
    got = at(src, marker).exact
    assert (None if got is None else sorted(got)) == (None if exact is None else sorted(exact))


@pytest.mark.parametrize("src, marker, kind", [
    ("X=1\nread X\necho $X\n", "$X", "unknown"),
    ("X=1\nunset X\necho $X\n", "$X", "unknown"),
    ("X=1\neval \"$cmd\"\necho $X\n", "$X", "unknown"),
    ("X=1\nsource ./env.sh\necho $X\n", "$X", "unknown"),
    ("X=1\n. ./env.sh\necho $X\n", "$X", "unknown"),
    # the builtin run through `builtin`/`command`: a source, an eval, a read all the same
    ("X=1\nbuiltin source ./env.sh\necho $X\n", "$X", "unknown"),
    ("X=1\ncommand . ./env.sh\necho $X\n", "$X", "unknown"),
    ("X=1\nbuiltin eval \"$cmd\"\necho $X\n", "$X", "unknown"),
    ("X=1\ncommand read X\necho $X\n", "$X", "unknown"),
    ("X=1\nbuiltin \"$name\" x\necho $X\n", "$X", "unknown"),
    ("X=1\nwhile c; do builtin read X; done\necho $X\n", "$X", "unknown"),
    ("X=1\nread -r \"$name\"\necho $X\n", "$X", "unknown"),
    ("X=1\nprintf -v \"$name\" %s v\necho $X\n", "$X", "unknown"),
    ("f() { X=$1; }\nX=1\n\"$@\"\necho $X\n", "$X", "unknown"),
    ("f() { X=$1; }\nX=1\nf a\necho $X\n", "$X", "unknown"),
    ("X=1\nwhile c; do X=$(next); done\necho $X\n", "$X", "unknown"),
    ("X=1\nwhile c; do echo $X; X=$(next); done\n", "$X", "unknown"),
    ("echo $HOME\n", "$HOME", "environment"),
    ("X=$(cat f)\necho $X\n", "$X", "unknown"),
    ("for i in \"${!arr[@]}\"; do echo $i; done\n", "$i", "number"),
    ("for ((i=0; i<3; i++)); do echo $i; done\n", "$i", "number"),
    ("for i in {1..10}; do echo $i; done\n", "$i", "number"),
    ("n=$((a + 1))\necho $n\n", "$n", "number"),
    ("(( n = a * 2 ))\necho $n\n", "$n", "number"),
    ("let n=a+1\necho $n\n", "$n", "number"),
    ("declare -i n=$x\necho $n\n", "$n", "number"),
    ("[[ $x =~ ^[0-9]+$ ]] || exit 1\necho $x\n", "$x", "validated"),
    ("[[ \"$x\" =~ ^[a-z0-9_-]+$ ]] || { echo bad; exit 1; }\necho $x\n", "$x", "validated"),
    ("if ! [[ $x =~ ^[0-9]+$ ]]; then exit 1; fi\necho $x\n", "$x", "validated"),
    ("[[ $x =~ ^.+$ ]] || exit 1\necho $x\n", "$x", "environment"),
    ("[[ $x =~ ^[0-9]+$ ]] && echo ok\necho $x\n", "$x", "environment"),
    ("q=$(printf %q \"$x\")\necho $q\n", "$q", "quoted"),
    ("printf -v q '%q' \"$x\"\necho $q\n", "$q", "quoted"),
    ("sq() { printf '%q ' \"$@\"; }\nq=$(sq \"$x\")\necho $q\n", "$q", "quoted"),
    ("id=job_$RANDOM\necho $id\n", "$id", "word"),
    ("case $x in *[!0-9]*) exit 1;; esac\necho $x\n", "$x", "validated"),
    ("case $x in *[![:alnum:]_-]*|'') echo bad;; *) echo $x;; esac\n", "$x", "validated"),
    ("case $x in *[!0-9]*) echo bad;; esac\necho $x\n", "$x", "environment"),
    ("case $x in *[!a-z\\;]*) exit 1;; esac\necho $x\n", "$x", "environment"),
    ("for i in $(seq 1 $n); do echo $i; done\n", "$i", "number"),
    ("for i in $(seq -w 10); do echo $i; done\n", "$i", "number"),
    ("for n in $(seq -f %02g 1 3); do h=node$n; echo $h; done\n", "$h", "word"),
    ("for i in $(seq -s ' ' 3); do echo $i; done\n", "$i", "unknown"),
    ("d=/srv/$(ls)\necho $d\n", "$d", "unknown"),
])
def test_kinds(src: str, marker: str, kind: str) -> None:
    assert at(src, marker).kind == kind


def test_number_specials_and_shell_numbers() -> None:
    script = parse_script("echo $$ $# $LINENO\n")
    values = analyse_values(script)
    assert values.at("LINENO", 0).kind == "number"
    assert values.at("$", 0).kind == "number"
    assert values.at("LINENO", 0).safe


def test_arrays_and_elements() -> None:
    src = ('SSH_OPTS=(-o "BatchMode=yes" -p 22)\nSSH_OPTS+=(-i ~/k)\n'
           'echo "${SSH_OPTS[@]}"\nA=(a "b c" d)\nA[1]=x\necho ${A[1]}\n')
    script = parse_script(src)
    values = analyse_values(script)
    # `~/k` is expanded with this machine's HOME: not known.
    assert values.array_at("SSH_OPTS", src.index('"${SSH_OPTS')) is None
    ok = "O=(-o 'BatchMode=yes' -p 22)\nO+=(-4)\nssh \"${O[@]}\" h\n"
    v2 = analyse_values(parse_script(ok))
    assert v2.array_at("O", ok.index("ssh")) == (("-o", "BatchMode=yes", "-p", "22", "-4"),)
    assert values.at("A", src.index("${A[1]}")).arrays == (("a", "x", "d"),)


def test_expand_splits_fields_and_keeps_origins() -> None:
    src = "SSH='ssh -o BatchMode=yes'\n$SSH gpu1 \"pkill -f x\"\n"
    script = parse_script(src)
    values = analyse_values(script)
    cmd = [c for c, _ in walk(script)][1]
    fields = [f for w in cmd.words for f in values.expand(w) or []]
    assert [f.text for f in fields] == ["ssh", "-o", "BatchMode=yes", "gpu1", "pkill -f x"]
    assert src[fields[1].offsets[0]] == "-"  # `-o` points into the assignment
    assert fields[3].offsets[0] == src.index("gpu1")


def test_expand_array_quoted_and_unquoted() -> None:
    src = "A=(a 'b c')\nf \"${A[@]}\" ${A[@]} \"${A[*]}\" x\"$A\"y\n"
    script = parse_script(src)
    values = analyse_values(script)
    node = [c for c, _ in walk(script)][1]
    out = [[f.text for f in values.expand(w) or []] for w in node.words[1:]]
    assert out == [["a", "b c"], ["a", "b", "c"], ["a b c"], ["xay"]]


def test_expand_unknown_or_glob_is_none() -> None:
    src = "G='*.log'\nf $G $HOME \"$G\"\n"
    script = parse_script(src)
    values = analyse_values(script)
    node = [c for c, _ in walk(script)][1]
    assert values.expand(node.words[1]) is None
    assert values.expand(node.words[2]) is None
    assert [f.text for f in values.expand(node.words[3]) or []] == ["*.log"]


def test_function_bodies_see_top_level_values() -> None:
    src = "APP=shopfront\ndeploy() { ssh web1 \"restart $APP\"; }\ndeploy\n"
    assert at(src, "$APP").exact == ("shopfront",)
    # Called before the assignment: the environment's value may be read.
    late = "deploy() { ssh web1 \"restart $APP\"; }\ndeploy\nAPP=shopfront\n"
    assert at(late, "$APP").exact is None


def test_describe_names_value_and_line() -> None:
    assert at("\n\nAPP=shopfront\necho $APP\n", "$APP").describe() == \
        "`$APP` is `shopfront` (line 3)"
    assert "environment" in at("echo $X\n", "$X").describe()
    assert "line 1" in at("read X\necho $X\n", "$X").describe()


def test_heredoc_body_reads_the_state_before_the_command() -> None:
    src = "D=/data/x\nssh h <<EOF\nls $D\nEOF\nD=other\n"
    k = at(src, "$D")
    assert k.exact == ("/data/x",) and k.local


@pytest.mark.parametrize("src, kind", [
    ("h=$(hostname)\necho $h\n", "word"),
    ("u=$(whoami)\necho $u\n", "word"),
    ("d=$(date +%Y%m%d-%H%M%S)\necho $d\n", "word"),
    ("d=$(date -u +%FT%T)\necho $d\n", "word"),
    ("d=$(date '+%F %T')\necho $d\n", "unknown"),  # a blank
    ("d=$(date +%e)\necho $d\n", "unknown"),  # padded with a blank
    ("n=$(nproc)\necho $n\n", "number"),
    ("r=$(git rev-parse --short HEAD)\necho $r\n", "word"),
    ("b=$(git rev-parse --abbrev-ref HEAD)\necho $b\n", "unknown"),  # a branch may hold `;`
    ("i=$(hostname -I)\necho $i\n", "unknown"),  # several addresses
    ("s=$(shuf -i500-800 -n1)\necho $s\n", "number"),
    ("s=$(shuf --input-range=1-$n --head-count 1)\necho $s\n", "number"),
    ("s=$(shuf -i1-8 -n3)\necho $s\n", "unknown"),  # three numbers, one a line
    ("s=$(shuf -i1-8)\necho $s\n", "unknown"),
    ("s=$(shuf -n1 hosts.txt)\necho $s\n", "unknown"),  # a line of a file
])
def test_outputs_of_commands_that_print_one_plain_word(src: str, kind: str) -> None:
    assert at(src, "$" + src[0]).kind == kind


def test_describe_says_which_command_a_word_came_from() -> None:
    k = at("h=$(hostname)\necho $h\n", "$h")
    assert k.describe() == "`$h` is the output of `$(hostname)`, one plain word (line 1)"


_FRAGMENTS = ["a", "xs", "=", "(", ")", "[", "]", "+", "$", " ", "-", "-a", "-A", "-r", "1",
              "declare", "local", "export", "typeset", "readonly", "\n", "\t", "#", "'", '"',
              "xs=(", "xs+=(", "a[1]=", "a[$i]+=", "declare -a ", "local -rA ", "=("]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map("".join))
@example("x\nxs=(1)\n")
@example("a[$i]+=1")
@example("local -rA m")
@example("typeset -a\nxs")
def test_array_names_filter_skips_no_line_that_holds_one(text: str) -> None:
    # The cheap test in front of the pattern only skips lines the pattern cannot match in;
    # line by line, because no assignment or `declare -a NAME` goes on past a newline.
    from quotecheck.values import flow

    every_line = {n for line in text.split("\n") for m in flow._ARRAY_ASSIGNMENT.finditer(line)
                  for n in m.groups() if n}
    assert flow._array_names(text) == every_line


_STATEMENTS = ["A=1", "B+=x", "C[2]=y", "D=(a b)", "E+=(c)", "for F in a b; do :; done",
               "select G in a; do break; done", "local H", "local -a I J=2", "declare K",
               "typeset -r L", "export M=3", "readonly N=4", "f() { local O=5; P=6; }", "f",
               "read Q", "echo $A $B ${C[2]} $Z", "x=$(R=7; echo)", "S=8 cmd", "if c; then T=9; fi",
               "case $1 in a) U=1;; esac", "declare -- V=w", "builtin local W", "command X=1",
               "eval Y=2", "printf -v AA %s x", "for ((i=0; i<2; i++)); do :; done", "BB=$A$B",
               "CC=${A:-d}", "DD=~", "EE=\\\nq", "local \\\nFF"]


@given(st.lists(st.sampled_from(_STATEMENTS), max_size=12).map("\n".join))
@example("local -a I J=2\necho $I")
@example("f() { local O=5; P=6; }\nf\necho $P")
@example("EE=\\\nq")
def test_settable_names_hold_every_name_the_walk_knows(text: str) -> None:
    # The trace asks the analysis only about words reading one of these names: a name the walk
    # knows exactly but the text scan missed would lose that value.
    from quotecheck.values.flow import settable_names

    names = settable_names(text)
    if names is None:
        assert "\\\n" in text
        return
    values = analyse_values(parse_script(text))
    known = {name for _, _, state in values._snaps for name, k in state.items()
             if k.exact is not None}
    assert known <= names


def test_settable_names_on_the_fixture_scripts() -> None:
    from pathlib import Path

    from quotecheck.values.flow import settable_names

    root = Path(__file__).parent
    scripts = sorted([*root.glob("deploy_cases/**/*.sh"), *root.glob("../fixtures/**/*.sh")])
    assert len(scripts) > 20
    for path in scripts:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        names = settable_names(text)
        if names is None:
            continue
        values = analyse_values(parse_script(text))
        known = {name for _, _, state in values._snaps for name, k in state.items()
                 if k.exact is not None}
        assert known <= names, path
