"""QC105 program-text-expanded: a shell expands `$...` inside an awk/sed/perl/jq/python program."""

from __future__ import annotations

from pathlib import Path

import pytest
from _support import CROSSLAYER, Finder, at, fixture_test
from harness.shells import run_shell

from quotecheck.checker import Options, check_source

CODE = "QC105"
MINE = list(CROSSLAYER)
found = Finder(CODE, group=CROSSLAYER).diagnostics
ROOT = Path(__file__).resolve().parents[2]
SEED = Path("/work/shared/seed/dflash_restart.sh")


test_fixture_expectations = fixture_test(
    "crosslayer", [CODE], lambda path, text: found(text, path=str(path)))


def test_awk_field_in_double_quotes() -> None:
    src = 'ps aux | awk "{print $2}"'
    [d] = found(src)
    assert d.severity == "error"
    assert at(src, d) == (1, 22)
    assert "awk receives `{print }`" in d.text
    assert d.layers == ("local bash", "awk")


def test_the_fact_with_real_bash_and_awk() -> None:
    expanded = run_shell("bash", 'echo "a b" | awk "{print $2}"', None, timeout=10)
    escaped = run_shell("bash", 'echo "a b" | awk "{print \\$2}"', None, timeout=10)
    assert expanded.stdout == "a b\n"  # `{print }` prints the whole line
    assert escaped.stdout == "b\n"


def test_one_layer_out_through_ssh() -> None:
    src = "ssh host \"ps aux | awk '{print $2}' | xargs kill\""
    [d] = found(src)
    assert src[d.span[0]:d.span[1]] == "$2"
    assert d.layers == ("local bash", "ssh", "remote shell", "awk")
    assert "one layer out" in d.text
    # One finding: not QC101 or QC103 as well.
    assert [x.code for x in check_source(src, Options(select=MINE)).diagnostics] == [CODE]


def test_inner_shell_expanding_the_program() -> None:
    src = "ssh host 'ps aux | awk \"{print $2}\"'"
    [d] = found(src)
    assert "for the remote shell" in d.text


def test_the_seed_is_not_reported() -> None:
    assert not found(SEED.read_text())


def test_awk_loop_variable_and_builtin() -> None:
    [d1] = found('awk "{for (i = 1; i <= NF; i++) print $i}"')
    assert d1.severity == "error"
    [d2] = found('awk "{print $NF}"')
    assert d2.severity == "error"


def test_shell_value_spliced_into_awk_is_info_suggesting_v() -> None:
    # Right, but on real code nearly always intended (precision corpus: 0 of 17 true).
    [d] = found('pat=$1; awk "/$pat/ {n++} END {print n}" log')
    assert d.severity == "info"
    assert "-v name=" in d.text


@pytest.mark.parametrize("src, severity", [
    ('sed "$d" notes', "error"),
    ('sed -n "$p" notes', "error"),
    ('sed "1,$s/a/b/" notes', "error"),
    ('sed "$!N" notes', "error"),
    ('sed -e "/x/,$ d" -e "$a end" notes', "error"),
    ('perl -ne "print $_"', "error"),
    ('perl -lane "print $F[1]"', "error"),
    ('x=$1; perl -pe "s/a/$x/"', "info"),
    ('jq --arg id 3 ".[] | select(.id == $id)"', "error"),
    ('python3 -c "print($n)"', "info"),
    ('gawk -e "{print $1}" f', "error"),
    ('gawk --source="{print $1}" f', "error"),
])
def test_other_languages(src: str, severity: str) -> None:
    [d] = found(src)
    assert d.severity == severity


def test_sed_last_line_with_real_sed() -> None:
    expanded = run_shell("bash", 'printf "1\\n2\\n" | sed "$d"', None, timeout=10)
    escaped = run_shell("bash", 'printf "1\\n2\\n" | sed "\\$d"', None, timeout=10)
    assert expanded.stdout == "1\n2\n"  # an empty script deletes nothing
    assert escaped.stdout == "1\n"


def test_fix_escapes_the_field() -> None:
    src = 'awk "{print $2}" f'
    [d] = found(src)
    edit = d.fixes[0].edits[0]
    fixed = src[:edit.span[0]] + edit.text + src[edit.span[1]:]
    assert fixed == 'awk "{print \\$2}" f'
    assert not found(fixed)


@pytest.mark.parametrize("src", [
    'ps aux | awk "{print \\$2}"',
    "ps aux | awk '{print $2}'",
    "ssh host \"ps aux | awk '{print \\$2}'\"",
    "ssh host 'ps aux | awk \"{print \\$2}\"'",
    "awk -v pat=\"$pat\" '$0 ~ pat' log",
    'sed "s/$old/$new/" f',  # interpolation: sed has no -v
    'sed "s/a$/b/" f',
    'sed "/^$/d" f',
    "sed '$d' f",
    "perl -ne 'print $_'",
    "jq --arg id \"$id\" '.[] | select(.id == $id)'",
    "python3 -c 'import sys; print(sys.argv[1])' \"$x\"",
    "awk -f prog.awk \"$x\"",
])
def test_correct_code_is_not_reported(src: str) -> None:
    assert not found(src)


@pytest.mark.parametrize("src", [
    'awk "', 'awk "$', "sed", "sed -e", "perl -e", "jq --arg", "python -c", "awk -v",
    'perl -e', 'sed -i.bak -e "$d"', "jq -n",
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=MINE))
    assert not [d for d in result.diagnostics if "failed on this input" in d.text]


@pytest.mark.parametrize("src", [
    # openstack__devstack/lib/horizon:130: sed has no variables; the shell fills the template.
    'sed -e "s,%USER%,$APACHE_USER,g" -i f',
    'sed "s/%HOST%/$HOST/; s|%D%|$Dir|" f',
    # nvm-sh__nvm/nvm.sh:1038: the single quotes closed to splice a value into the regex.
    "f() { awk '$1 ~ /^'\"${2-}\"'$/ {print}'; }",
    # kubernetes__minikube/hack/jenkins/test-flake-chart/compute_flake_rate.sh:75: a constant.
    "T=20\nawk '{ if ($3 >= '${T}') print }' f",
    # dokku__dokku/plugins/traefik-vhosts/docker-args-process-deploy:136: the script's own filter.
    "f() { local a hc_filter\n  hc_filter='.hc // [] | .[0]'\n  jq -r \"$hc_filter | .path\" x; }",
    # openstack__devstack/inc/async:255: numbers from $(( )).
    'f() { t=$(( $2 - $1 )); s=$(( t + 1 )); awk "{print $s / $t}"; }',
])
def test_values_meant_for_the_program(src: str) -> None:
    assert found(src) == []


@pytest.mark.parametrize("src", [
    'sed "$d" notes',
    'sed "s/a/b/;$d" notes',
    "awk \"{print $2}\" f",
    'awk "{print \\$1, $NF}" f',
])
def test_program_dollars_still_errors(src: str) -> None:
    [d] = found(src)
    assert d.severity == "error", src


# -- issue 13: program text the script splices in by design ------------------------------------

# openstack/devstack 493835a61a996731a7031861f80c7629acd5d6f2, functions-common lines 805-815
# (Apache-2.0): the variable is awk code the function writes itself (a field reference).
DEVSTACK_GET_FIELD = r'''function get_field {
    local data field
    while read data; do
        if [ "$1" -lt 0 ]; then
            field="(\$(NF$1))"
        else
            field="\$$(($1 + 1))"
        fi
        echo "$data" | awk -F'[ \t]*\\|[ \t]*' "{print $field}"
    done
}
'''

# microsoft/Megatron-DeepSpeed f4157bea69f3df8c6cb66f2ebcda66ba03d1288e,
# examples_deepspeed/data_efficiency/bert/pretrain/ds_pretrain_bert_336M_base_script.sh line 58
# (BSD-3-Clause): a function whose arguments are the awk expression.
MEGATRON_CALC = 'calc() { awk "BEGIN{ printf \\"%.0f\\n\\", $* }"; }\n'


@pytest.mark.parametrize("src", [DEVSTACK_GET_FIELD, MEGATRON_CALC])
def test_program_text_the_script_splices_in_by_design(src: str) -> None:
    assert found(src) == []


def test_a_value_from_outside_in_an_awk_regex_is_still_info() -> None:
    [d] = found('awk "/$pattern/ {print}" f')
    assert d.severity == "info"


# docker-mailserver/docker-mailserver c9b015ddc869b277c16dd20ef4a70e595c72d022,
# target/scripts/startup/setup.d/log.sh lines 51-53 (MIT): the values are written into the
# logrotate file on purpose; the `}` of the `s|}|...|` pattern (or of `${HOSTNAME}`) opens no
# sed block, so no `$` here stands where sed reads an address.
MAILSERVER_POSTROTATE = (
    'sed -i \\\n'
    '  "s|}|  postrotate\\n    /usr/local/bin/postfix-summary ${HOSTNAME} '
    '${PFLOGSUMM_RECIPIENT} ${PFLOGSUMM_SENDER}\\n  endscript\\n}\\n|" \\\n'
    '  /etc/logrotate.d/maillog\n')


def test_values_in_a_sed_replacement_after_a_brace_are_spliced_in() -> None:
    assert found(MAILSERVER_POSTROTATE) == []


@pytest.mark.parametrize(("src", "reported"), [
    # At an address, but sed would reject the text: `P` takes nothing, `F` is an error.
    ('sed "${PFLOGSUMM_RECIPIENT}" f', False),
    ('sed "$PFLOGSUMM_RECIPIENT" f', False),
    ('sed "$dx" f', False),
    # sed reads these: the last line, then a command (a block, `q` with an exit code).
    ('sed -n "${p}" f', True),
    ('sed "$q5" f', True),
    ('sed "s|a|b|;$d" f', True),
])
def test_a_sed_dollar_is_sed_s_only_when_the_text_reads_as_a_command(
        src: str, reported: bool) -> None:
    assert bool(found(src)) == reported, src


# -- the command line an ad-hoc `ansible` command hands its hosts' shell ----------------------

ANSIBLE = "ansible all -m shell -a \"df -h / | awk 'NR==2 {print $5}'\"\n"


def test_ansible_shell_module_text_is_a_layer() -> None:
    [d] = found(ANSIBLE)
    assert d.severity == "error" and ANSIBLE[d.span[0]:d.span[1]] == "$5"
    assert "awk receives `NR==2 {print }`" in d.text
    trace = check_source(ANSIBLE, Options(select=["QC105"])).trace
    [shell] = [x for x in trace.layers if x.kind == "shell" and x.parent is not None]
    assert shell.process[:2] == ["sh", "-c"] and shell.where.startswith("remote:")


def test_ansible_args_with_real_bash_and_awk(tmp_path: Path) -> None:
    """A stub ansible records what real bash hands it; real dash and awk then run that text
    as a host would: the program has lost its field, and awk prints the whole line."""
    from harness.stubs import StubDir

    stubs = StubDir(tmp_path, names=["ansible"])
    run_shell("bash", ANSIBLE, stubs.env(), timeout=10)
    run_shell("bash", ANSIBLE.replace("$5", "\\$5"), stubs.env(), timeout=10)
    [bad, good] = [r[r.index("-a") + 1] for r in stubs.records_for("ansible")]
    assert bad == "df -h / | awk 'NR==2 {print }'"
    assert good == "df -h / | awk 'NR==2 {print $5}'"
    line = "/dev/sda1 100G 40G 60G 40% /\n"
    host = [run_shell("dash", t.replace("df -h /", "printf 'head\\n%s' \"$L\""),
                      {"L": line, "PATH": "/usr/bin:/bin"}, timeout=10).stdout
            for t in (bad, good)]
    assert host == [line, "40%\n"]
    assert found(ANSIBLE.replace("$5", "\\$5")) == []


@pytest.mark.parametrize("src", [
    "ansible web -m ansible.builtin.raw -a \"ps | awk '{print $1}'\"\n",
    "sudo -u ops ansible web -m shell --args=\"ps aux | awk '{print $NF}'\"\n",
    "ansible web -m shell -a\"ps aux | awk '{print $2}'\"\n",
])
def test_ansible_other_spellings(src: str) -> None:
    [d] = found(src)
    assert d.severity == "error"


@pytest.mark.parametrize("src", [
    "ansible web -m copy -a \"src=a dest=/tmp/$2\"\n",  # no command line
    "ansible web -a \"echo '{print $2}'\"\n",  # the command module: no shell, no awk here
    "ansible web -m shell -a 'ps aux | awk \"{print \\$2}\"'\n",
    "ansible web -m shell -a \"grep $user /etc/passwd | awk -F: '{print \\$7}'\"\n",
])
def test_ansible_left_alone(src: str) -> None:
    assert [d for d in found(src) if d.code == "QC105"] == []


# -- issue 25: a function's own argument spliced into its awk program ---------------------------

# apache/impala, bin/report_build_error.sh lines 20-30 (Apache-2.0): the ERR trap passes the
# failing line's number, and awk prints that line.
REPORT_LINE = ('report_build_error() {\n'
               '  ERROR_MSG=$(cd "$PWD" && awk "NR == $1" $0)\n'
               '  echo ERROR in $0 at line $1: $ERROR_MSG\n'
               '}\n'
               "trap 'report_build_error $LINENO' ERR\n")


def test_a_function_s_argument_spliced_into_awk_is_info() -> None:
    [d] = found(REPORT_LINE)
    assert d.severity == "info"
    assert "<argument 1 of report_build_error>" in d.text


def test_the_function_s_argument_with_real_bash_and_awk(tmp_path: Path) -> None:
    script = tmp_path / "s.sh"
    script.write_text("f() { awk \"NR == $1\" \"$0\"; }\nf 2\n# second line\n")
    res = run_shell("bash", f"bash {script}", None, timeout=10)
    assert res.stdout == "f 2\n"  # awk got `NR == 2`, the shell's value


@pytest.mark.parametrize("src", [
    'f() { awk "{ print $1 }" file; }\nf\n',  # called with no argument: awk gets `{ print  }`
    'f() { awk "{ print $2 }" file; }\nf "$x"\n',  # fewer arguments than the `$N` read
    'awk "NR == $1" file\n',  # the script's own $1, not a function's
])
def test_a_positional_no_call_gives_stays_an_error(src: str) -> None:
    [d] = found(src)
    assert d.severity == "error", src


# -- fifth set: a value the script's library sets ---------------------------------------------

# hestiacp/hestiacp bin/v-backup-user:287-288 (GPL-3.0): the function comes from a file sourced
# by a path known only at run time (func/domain.sh), and sets both line numbers with $(( )).
HESTIA_LIB = ('get_web_config_lines() {\n    top_line=$(( $(grep -n "name $2" "$1" | cut -d: -f1)'
              ' ))\n    bottom_line=$((top_line + 1))\n}\n')
HESTIA = ('source $HESTIA/func/domain.sh\nget_web_config_lines "$conf" "$domain"\n'
          'sed -n "$top_line,$bottom_line p" $conf\n')


def test_a_value_the_sourced_library_sets_with_real_bash_and_sed(tmp_path: Path) -> None:
    (tmp_path / "func").mkdir()
    (tmp_path / "func" / "domain.sh").write_text(HESTIA_LIB)
    conf = tmp_path / "web.conf"
    conf.write_text("# a\nname one\n  root /a\nname two\n  root /b\n")
    src = f"HESTIA={tmp_path}; conf={conf}; domain=two\n{HESTIA}"
    res = run_shell("bash", src, None, timeout=10)
    # sed got `4,5 p`: the shell's values, the block of `two`, as the author meant ...
    assert res.returncode == 0 and res.stdout == "name two\n  root /b\n", res.stderr
    # ... where the escaped form makes sed read `$` and a branch to a label that is not there.
    escaped = run_shell("bash", src.replace('"$top_line', '"\\$top_line'), None, timeout=10)
    assert escaped.returncode != 0 and "label" in escaped.stderr
    assert found(HESTIA) == []
    # The same variables set in the script itself: a number from $(( )), nothing reported.
    assert found(HESTIA_LIB + HESTIA.split("\n", 1)[1]) == []


@pytest.mark.parametrize("src", [
    'sed -n "$top_line,$bottom_line p" f\n',  # nothing sourced: the script sets nothing
    'sed -n "$top_line,$bottom_line p" f\nsource ./lib.sh\n',  # sourced only afterwards
    'source ./lib.sh\nsed "$d" notes\n',  # a one-letter name: sed's own `$d`
    'source ./lib.sh\nawk "{print $2}" f\n',  # a positional parameter: awk's field
])
def test_without_a_library_value_the_program_dollar_stays_an_error(src: str) -> None:
    [d] = found(src)
    assert d.severity == "error", src
