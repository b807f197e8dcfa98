"""QC103 value-becomes-code: an outer value is pasted unquoted into an inner layer's code."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _support import CROSSLAYER, Finder, at, fixture_test
from harness.shells import run_shell

from quotecheck.checker import Options, check_source
from quotecheck.diagnostics import Diagnostic
from quotecheck.layers.handoff_types import sudo_shell_string

CODE = "QC103"
MINE = list(CROSSLAYER)
found = Finder(CODE, group=CROSSLAYER).diagnostics


def mine(src: str) -> list[Diagnostic]:
    return [d for d in check_source(src, Options(select=MINE)).diagnostics if d.code in MINE]


test_fixture_expectations = fixture_test(
    "crosslayer", [CODE], lambda path, text: found(text, path=str(path)))


def test_local_variable_in_ssh_command() -> None:
    src = 'dir=$(mktemp -d); ssh host "rm -rf $dir"'
    [d] = found(src)
    assert src[d.span[0]:d.span[1]] == "$dir"
    assert d.severity == "info"
    assert d.layers == ("local bash", "ssh", "remote shell")
    assert d.message.kind == "pasted-unquoted" and d.message.value("snippet") == "rm -rf $dir"
    assert 'printf %q "$dir"' in d.message.value("quote_advice")


def test_sh_c_suggests_the_exact_positional_rewrite() -> None:
    [d] = found('sh -c "wc -l $f > /tmp/count"')
    assert d.message.value("quote_advice").endswith("`sh -c 'wc -l \"$1\" > /tmp/count' sh \"$f\"`")


def test_the_suggested_rewrite_really_keeps_the_value_data() -> None:
    # The splice runs the value's `;` as code; the positional form does not.
    value = "a b;echo INJECTED"
    spliced = run_shell("bash", f'v={value!r}; sh -c "printf \'<%s>\' $v"', None, timeout=10)
    assert spliced.stdout == "<a><b>INJECTED\n"
    safe = run_shell("bash", f"v={value!r}; sh -c 'printf \"<%s>\" \"$1\"' sh \"$v\"", None,
                     timeout=10)
    assert safe.stdout == f"<{value}>"


def test_find_placeholder_is_an_error_even_when_quoted_inside() -> None:
    src = "find . -name '*.txt' -exec sh -c 'wc -l \"{}\"' \\;"
    [d] = found(src)
    assert d.severity == "error"
    assert src[d.span[0]:d.span[1]] == "{}"
    assert d.message.kind == "placeholder-pasted"
    assert "quotes around it do not help" in d.message.value("quoted")
    assert d.layers == ("local bash", "find", "local sh")


def test_xargs_replace_string_is_found_from_its_option() -> None:
    src = "ls | xargs -I% sh -c 'cp % /backup/%.bak'"
    diags = found(src)
    assert [src[d.span[0]:d.span[1]] for d in diags] == ["%", "%"]
    assert all(d.severity == "error" for d in diags)


def test_placeholder_in_double_quotes_still_runs_code_with_real_sh() -> None:
    # What find/xargs would build for a name holding `$(...)`: the inner sh runs it.
    script = 'wc -c "$(echo INJECTED >&2)x"'
    res = run_shell("dash", script, None, timeout=10)
    assert "INJECTED" in res.stderr


def test_eval_splices_the_value() -> None:
    src = 'eval "echo $v"'
    [d] = found(src)
    assert at(src, d) == (1, 12)
    assert d.message.value("inner").startswith("eval ")


def test_whole_command_in_a_variable_is_info() -> None:
    [d] = found('docker exec c sh -c "$cmd"')
    assert d.severity == "info"
    assert d.layers == ("local bash", "docker", "container sh")
    src = 'cmd="gzip $f"; ssh host "$cmd"'
    [d] = found(src)
    assert d.severity == "info"
    assert d.related and src[d.related[0].span[0]:].startswith('cmd="gzip')
    assert not found("cmd='systemctl restart app'; ssh host \"$cmd\"")


def test_all_arguments_to_ssh_suggest_printf_q() -> None:
    [d] = found('ssh host "$@"')
    assert d.severity == "warning"
    assert d.message.kind == "ssh-joins-arguments" and "printf '%q '" in d.explanation


def test_value_reaching_code_one_layer_further() -> None:
    # Quoted for the remote shell, but the remote sh -c then parses it unquoted.
    src = "read -r f; ssh host \"sh -c 'cat $f'\""
    [d] = found(src)
    assert d.layers == ("local bash", "ssh", "remote shell", "remote sh")


def test_one_finding_per_mistake() -> None:
    for src in ['dir=$2; ssh host "rm -rf $dir"', 'sh -c "cat $f"',
                "find . -exec sh -c 'wc -l {}' \\;"]:
        assert [d.code for d in mine(src)] == [CODE]


@pytest.mark.parametrize("src", [
    "sh -c 'cmd \"$1\"' sh \"$x\"",
    'ssh host "$(printf \'%q \' "$@")"',
    'q=$(printf %q "$d"); ssh host "rm -rf $q"',
    'printf -v q %q "$d"; ssh host "rm -rf $q"',
    'ssh host "rm -rf ${d@Q}"',
    'opts=$(getopt -o ab -- "$@"); eval set -- "$opts"',
    'eval "$(ssh-agent -s)"',
    'ssh host "$(declare -f deploy); deploy"',
    'ssh host "ls \'$dir\'"',
    "find . -exec sh -c 'gzip \"$1\"' sh {} \\;",
    "find . -exec sh -c 'for f; do gzip \"$f\"; done' sh {} +",
    "printf '%s\\n' a | xargs -I{} sh -c 'echo \"$1\"' sh {}",
    "xargs -I{} ssh {} uptime < hosts",
    'sudo rm -rf "$dir"',  # exec: no shell parses the value
    'ssh host "sleep $((n * 2))"',  # a number cannot become code
])
def test_correct_code_is_not_reported(src: str) -> None:
    assert not found(src)


@pytest.mark.parametrize("src", [
    "xargs -I", "xargs -I{} sh -c", "find . -exec sh -c", "find . -exec", "eval", 'eval ""',
    'docker exec "$c" "$sh" -c "$x"', "sh -c \"$(\"", 'kubectl exec p -- sh -c "cat $f"',
])
def test_odd_inputs_do_not_crash(src: str) -> None:
    result = check_source(src, Options(select=MINE))
    assert not [d for d in result.diagnostics if "failed on this input" in d.text]


@pytest.mark.parametrize("src", [
    # Values that are always numbers cannot carry code (issue 13: $LINENO, $$, $#, $?, $RANDOM,
    # the result of $((...))).
    'ssh h "echo $LINENO"',
    'ssh h "touch /tmp/x.$$"',
    'ssh h "echo $# $?"',
    'ssh h "sleep $RANDOM"',
    'ssh h "sleep $((n * 2))"',
])
def test_numbers_are_not_code(src: str) -> None:
    assert found(src) == []


def test_command_string_built_to_run_is_info() -> None:
    # The corpus's QC103 noise is mostly eval/sh -c of a command string built to be run
    # (e.g. acmesh-official__acme.sh/deploy/ssh.sh's configured remote commands).
    [d] = found('cmd="$1 --flag"\nsh -c "$cmd"')
    assert d.severity == "info"


# -- sudo -s / sudo -i escape what they pass to the shell (issue 13, layer facts) --------------

# openstack/devstack 493835a61a996731a7031861f80c7629acd5d6f2, lib/databases/postgresql lines
# 89-91 (Apache-2.0). sudo -i puts a backslash before each character of the command that is not
# a letter, digit, `_`, `-` or `$`, so the login shell reads the values as literals.
DEVSTACK_POSTGRES = (
    "function configure_database_postgresql {\n"
    "    sudo -u root sudo -u postgres -i psql -c \"CREATE ROLE $DATABASE_USER WITH SUPERUSER"
    " LOGIN PASSWORD '$DATABASE_PASSWORD'\" || \\\n"
    "    sudo -u root sudo -u postgres -i psql -c \"ALTER ROLE $DATABASE_USER WITH SUPERUSER"
    " LOGIN PASSWORD '$DATABASE_PASSWORD'\"\n"
    "}\n")


@pytest.mark.parametrize("src", [
    DEVSTACK_POSTGRES,
    'x=$1\nsudo -s printf "<%s>" "$x"',
    "sudo -s rm -rf $dir",  # split locally, each word escaped: no word is code there
    'sudo -i "$cmd"',  # one word: the command's name is the whole value
    'sudo -u bob -s -- cp "$src" "/home/bob/${name}.txt"',
])
def test_values_sudo_escapes_are_not_code(src: str) -> None:
    assert mine(src) == []


def test_a_value_sudo_passes_to_sh_c_is_code_for_that_shell() -> None:
    # sudo's escapes are removed by its shell; the `sh -c` it runs parses the value.
    [d] = found('sudo -s -- sh -c "echo $x"')
    assert d.code == CODE and "`sh -c`" in d.text


def test_the_sudo_string_keeps_a_hostile_value_literal_in_bash() -> None:
    # What sudo -s builds for `sudo -s printf '<%s>' "$x"` with a hostile value, run by bash.
    value = "a b;touch /nonexistent/x `id` $(id) '\"*"
    script = sudo_shell_string(["printf", "<%s>", value])
    out = run_shell("bash", script, {"PATH": "/usr/bin:/bin"})
    assert out.stdout == f"<{value}>"


# -- what the script itself says about the value (quotecheck.values) ----------------------------

@pytest.mark.parametrize("src", [
    'APP=shopfront\nssh web1 "sudo systemctl restart $APP"\n',
    'readonly DIR=/srv/app\nssh web1 "cd $DIR && git pull"\n',
    'for h in web1 web2; do ssh "$h" "echo $h"; done\n',
    'if [ "$1" = prod ]; then ENV=production; else ENV=staging; fi\n'
    'ssh web1 "deploy --env $ENV"\n',
    'for i in "${!hosts[@]}"; do ssh "${hosts[$i]}" "echo node $i"; done\n',
    'for ((i = 0; i < 4; i++)); do ssh web1 "echo $i"; done\n',
    '[[ $port =~ ^[0-9]+$ ]] || exit 1\nssh web1 "ss -ltn sport = :$port"\n',
    'q=$(printf %q "$1")\nssh web1 "rm -rf $q"\n',
    'sq() { printf "%q " "$@"; }\nargs=$(sq "$@")\nssh web1 "run $args"\n',
    'n=$((2 * 4))\nssh web1 "seq $n"\n',
    'APP=shopfront\ndeploy() { ssh web1 "systemctl restart $APP"; }\ndeploy\n',
])
def test_values_the_script_sets_to_plain_words_are_not_qc103(src: str) -> None:
    assert found(src) == []


def test_a_random_number_from_shuf_is_not_code() -> None:
    # apache/celeborn 7b050089b837055a3813b26f05b1fce88aa32e0b toolkit/reg.sh:236-239.
    src = ('SLEEP_TIME=$(shuf -i500-800 -n1)\n'
           'ssh core-1 "sleep ${SLEEP_TIME}s && jps | grep Worker" &\n')
    assert found(src) == []
    # The fact, with the real shuf: one integer and a newline, nothing else.
    out = subprocess.run(["shuf", "-i500-800", "-n1"], capture_output=True, text=True,
                         timeout=10).stdout
    assert re.fullmatch(r"\d+\n", out)


# apache/kafka 1eb7644349cb07139d6a3c1ad1986979647cac99 gradlew:255-260 (Gradle's wrapper):
# sed backslash-escapes every character that is not plain, tr joins the lines with blanks.
GRADLEW_EVAL = (
    "eval \"set -- $(\n"
    "        printf '%s\\n' \"$DEFAULT_JVM_OPTS $JAVA_OPTS $GRADLE_OPTS\" |\n"
    "        xargs -n1 |\n"
    "        sed ' s~[^-[:alnum:]+,./:=@_]~\\\\&~g; ' |\n"
    "        tr '\\n' ' '\n"
    "    )\" '\"$@\"'\n")


def test_output_escaped_for_the_shell_by_sed_is_not_code() -> None:
    assert found(GRADLEW_EVAL) == []
    # The fact, with a real sh: a hostile value stays one literal argument.
    hostile = "JAVA_OPTS='\"$(touch /x);echo\" *' ; "
    out = run_shell("sh", hostile + GRADLEW_EVAL + 'printf "<%s>" "$@"\n', None, timeout=10)
    assert out.stdout == "<$(touch /x);echo><*>"
    # Without the join a newline would end the command; a sed that leaves `;` alone is not it.
    assert found(GRADLEW_EVAL.replace(" |\n        tr '\\n' ' '", ""))
    assert found(GRADLEW_EVAL.replace("=@_]", "=@_;]"))


@pytest.mark.parametrize("src", [
    'read -r APP\nssh web1 "systemctl restart $APP"\n',  # read: not known
    'APP=shopfront\nread -r APP\nssh web1 "systemctl restart $APP"\n',
])
def test_values_read_from_input_are_warnings(src: str) -> None:
    [d] = [d for d in found(src) if src[d.span[0]:d.span[1]] == "$APP"]
    assert d.severity == "warning"
    assert "is read from input on line" in d.text


# A value the script does not show is mostly a setting spliced in on purpose (precision corpus:
# of 42 judged warnings of this kind, none was true): info, saying what is not known.
@pytest.mark.parametrize("src", [
    'APP=a\nsource ./env\nssh web1 "systemctl restart $APP"\n',
    'APP=a\neval "$1"\nssh web1 "systemctl restart $APP"\n',
    'APP=a\nwhile read -r l; do APP=$l; done\nssh web1 "systemctl restart $APP"\n',
    'APP=a\nset_app() { APP=$1; }\nset_app "$x"\nssh web1 "systemctl restart $APP"\n',
    '[[ $APP =~ ^.+$ ]] || exit 1\nssh web1 "systemctl restart $APP"\n',  # `.` matches `;`
    'ssh web1 "systemctl restart $APP"\n',  # never set: the environment's
])
def test_values_not_known_stay_qc103_and_say_so(src: str) -> None:
    [d] = [d for d in found(src) if src[d.span[0]:d.span[1]] == "$APP"]
    assert d.severity == "info"
    assert "not known before run time" in d.text


def test_a_value_known_to_hold_a_blank_is_an_error_naming_it_and_its_line() -> None:
    src = 'host=web1\nMSG="deploy done; rm -rf /"\nssh "$host" "logger $MSG"\n'
    [d] = found(src)
    assert d.severity == "error"
    assert "`$MSG` is `deploy done; rm -rf /` (line 2)" in d.text
    assert "`;`" in d.text
    assert src[d.related[0].span[0]:].startswith("MSG=")


def test_the_known_value_really_breaks_the_inner_code() -> None:
    # What the error says, with a real shell standing in for the remote one.
    src = 'MSG="a b; echo INJECTED"\nsh -c "printf \'<%s>\' $MSG"\n'
    assert run_shell("bash", src, None, timeout=10).stdout == "<a><b>INJECTED\n"
    [d] = found(src)
    assert d.severity == "error"


def test_one_value_of_several_with_a_metacharacter_is_an_error() -> None:
    src = 'if c; then P=/srv/a; else P="/srv/b c"; fi\nssh web1 "ls $P"\n'
    [d] = found(src)
    assert d.severity == "error"
    assert "one of `/srv/a`, `/srv/b c`" in d.text


def test_a_command_string_the_script_wrote_itself_is_not_qc103() -> None:
    # acme.sh deploy/openmediavault.sh (acmesh-official/acme.sh@d60c75b4e30a, GPL-3.0), lines
    # 96-99: a constant command sent to ssh (judged a false QC103 in the precision corpus).
    src = ('omv_reload() {\n'
           '    _command="nginx -s reload"\n'
           '    # shellcheck disable=SC2029\n'
           '    _result=$(ssh "$DEPLOY_OMV_SSH_USER@$DEPLOY_OMV_HOST" "$_command")\n'
           '}\n')
    assert found(src) == []


def test_slurm_launcher_values_from_the_script() -> None:
    # OpenRLHF examples/scripts/train_ppo_ray_slurm.sh (OpenRLHF/OpenRLHF@3c3be6234e0c,
    # Apache-2.0), lines 25-37, shortened: `$port` is set two lines above (a number), `$ip`
    # comes from the node list (not known): only `$ip` and the never-set `$RAY_VERSION` stay.
    src = ('nodes_array=( $nodes )\n'
           'node_1=${nodes_array[0]}\n'
           'ip=$node_1\n'
           'port=6379\n'
           'srun --nodes=1 --ntasks=1 -w "$node_1" bash -c \\\n'
           '    "pip install ray[default]==$RAY_VERSION \\\n'
           '    && ray start --head --node-ip-address=$ip --port=$port --block" &\n')
    names = sorted(src[d.span[0]:d.span[1]] for d in found(src))
    assert names == ["$RAY_VERSION", "$ip"]


def test_a_user_name_checked_by_a_case_pattern() -> None:
    # Oh My Zsh tools/install.sh (ohmyzsh/ohmyzsh@830a5bcfd29f, MIT), lines 58-64: `$USER`
    # reaches eval only when it holds nothing outside [[:alnum:]_.-] (judged a false QC103 in
    # the precision corpus).
    src = ('case "$USER" in\n'
           "  *[![:alnum:]_.-]*|'')\n"
           '    ;;\n'
           '  *)\n'
           '    resolved_home=$(eval echo ~"$USER")\n'
           '    [ "$resolved_home" = "~$USER" ] || HOME=$resolved_home\n'
           '    ;;\n'
           'esac\n')
    assert found(src) == []


def test_node_names_built_from_seq() -> None:
    # Apache Kafka tests/docker/ducker-ak (apache/kafka@1eb7644349cb, Apache-2.0), lines
    # 419-424, shortened: `ducker` plus a `seq -f %02g` number cannot carry code.
    src = ('for n in $(seq -f %02g 1 ${num_nodes}); do\n'
           '    node="ducker${n}"\n'
           '    docker exec --user=root "${node}" \\\n'
           '        bash -c "grep -v ${node} /opt/kafka-dev/tests/docker/build/node_hosts >> '
           '/etc/hosts"\n'
           'done\n')
    assert found(src) == []


# kubernetes/minikube hack/jenkins/common.sh (Apache-2.0): xargs -I {} sh -c fed by a program's
# listing (VM UUIDs, /dev/diskN names) was judged noise on the precision corpus; fed by file names
# (apache/storm dev-tools/collect_license_files.sh: find | sort) it is the defect the rule is for.
@pytest.mark.parametrize(("src", "severity"), [
    ('virsh -c qemu:///system list --all --uuid | xargs -I {} sh -c "virsh destroy {}"\n',
     "info"),
    ('hdiutil info | grep -E "/dev/disk[1-9]" | awk \'{print $1}\' | '
     'xargs -I {} sh -c "hdiutil detach {}"\n', "info"),
    ('find . -name NOTICE | sort | xargs -I fname sh -c "cat fname >> out"\n', "error"),
    ('ls *.log | xargs -I {} sh -c "gzip {}"\n', "error"),
    ('xargs -I {} sh -c "rm {}" < list.txt\n', "error"),
    ('grep -l foo ./*.txt | xargs -I {} sh -c "rm {}"\n', "error"),
    ('grep -h host hosts.txt | xargs -I {} sh -c "ping -c1 {}"\n', "error"),
])
def test_xargs_placeholder_severity_follows_what_feeds_it(src: str, severity: str) -> None:
    got = [d for d in found(src) if d.severity != "hint"]
    assert got and {d.severity for d in got} == {severity}
    if severity == "info":
        assert "not a file name" in got[0].text


# microsoft/DeepSpeed csrc/aio/py_test/run_read_sweep.sh (Apache-2.0): a command the script
# wrote into a variable and runs with `eval $cmd` is the command meant, blanks and all.
@pytest.mark.parametrize("src", [
    'validate_cmd="python3 ./validate_async_io.py"\neval ${validate_cmd}\n',
    'f() {\n  c="TORCH_EXTENSIONS_DIR=./ext python3 ./v.py"\n  eval $c\n}\nf\n',
    'C="echo a; rm -f b"\nssh -o BatchMode=yes -o ConnectTimeout=5 web1 "$C"\n',
])
def test_a_command_the_script_wrote_and_runs_whole_is_no_finding(src: str) -> None:
    assert [d for d in found(src) if d.code == "QC103"] == []


# Debian's apt, /usr/lib/apt/apt.systemd.daily 384 (GPL-2.0-or-later, apt 2.6 as installed on
# Debian 12): the script puts a redirection into a variable and evals the command so that it
# takes effect. The operator in the value is the code the script meant; a blank alone stays an
# error (test above).
def test_an_operator_the_script_wrote_for_eval_is_no_finding() -> None:
    src = ('XSTDERR="2>/dev/null"\n[ "$VERBOSE" -ge 3 ] && XSTDERR=""\n'
           'eval apt-get check $XAPTOPT $XSTDERR\n')
    at = src.index("$XSTDERR")
    assert [d.text for d in found(src) if d.code == "QC103" and d.span[0] == at] == []
    # Outside eval (ssh's remote shell parses it), the same value is still an error.
    remote = ('XSTDERR="2>/dev/null"\n'
              'ssh -o BatchMode=yes -o ConnectTimeout=5 h "apt-get check $XSTDERR"\n')
    assert [d.severity for d in found(remote) if d.code == "QC103"] == ["error"]


# NVIDIA/Megatron-LM tests/performance_tests/shell_test_utils/run_perf_test.sh 125 (BSD-3-Clause,
# d98e8a64): `eval echo` of lines read from the repository's own argument file, "to expand
# variable references". The script says what eval is for: info, still named.
MEGATRON_EVAL_ECHO = (
    'while IFS= read -r LINE; do\n'
    '    EXPANDED=$(eval echo "$LINE")\n'
    '    for TOK in $EXPANDED; do MODEL_ARGS+=("$TOK"); done\n'
    'done < "$ARGS_FILE"\n')


def test_eval_echo_of_a_read_value_is_info() -> None:
    [d] = found(MEGATRON_EVAL_ECHO)
    assert d.severity == "info"
    assert "`eval echo` is the way to expand" in d.text
    assert "is read from input on line 1" in d.text
    # What eval does with such a line, in a real bash: the `${VAR}` is expanded (the intent),
    # and a `;` would run the rest as a command (why it is still reported).
    script = 'CK=/ckpt\nLINE=\'--load ${CK}; echo RAN\'\neval echo "$LINE"\n'
    assert run_shell("bash", script, None, timeout=10).stdout == "--load /ckpt\nRAN\n"
    # Another program evaluated with the value is not a request to expand it: a warning.
    [d] = found(MEGATRON_EVAL_ECHO.replace("eval echo", "eval cp"))
    assert d.severity == "warning"


def test_an_argument_of_the_script_pasted_into_sh_c_is_a_warning(tmp_path: Path) -> None:
    # The text shows whose value it is: whoever runs the script chooses `$1`, and `sh -c`
    # has positional parameters of its own that the script could have passed it in.
    src = '#!/bin/sh\nsh -c "cd /tmp && printf \'<%s>\' $1"\n'
    [d] = found(src)
    assert d.severity == "warning"
    assert "argument of the script" in d.text
    script = tmp_path / "run.sh"
    script.write_text(src)
    ran = subprocess.run(["dash", str(script), "a b;echo INJECTED"], capture_output=True,
                         text=True, timeout=10, check=False)
    assert ran.stdout == "<a><b>INJECTED\n"  # the argument ran as code in the inner shell
    src = '#!/bin/bash\nfn=$1\nshift\neval "$fn" "$@"\n'
    by_word = {src[d.span[0]:d.span[1]]: d for d in found(src)}
    assert by_word["$@"].severity == "warning"
    assert "`$@` is an argument of the script" in by_word["$@"].text


@pytest.mark.parametrize("src", [
    # In a function the parameters are the call's: a value the script may pass itself.
    'f() {\n  sh -c "gzip $1"\n}\nf "$name"\n',
    # Into a remote command, where pasting is the only way to send a value: as any value.
    'ssh host "rm -f /var/log/app/$2.log"\n',
])
def test_other_positional_values_stay_info(src: str) -> None:
    assert [d.severity for d in found(src)] == ["info"]


@pytest.mark.parametrize("src, severity", [
    # Data nobody in the script controls: what another machine sent, file names.
    ("curl -s https://example.com/hosts | xargs -I{} sh -c 'ping -c1 {}'", "error"),
    ("find . -name '*.log' | xargs -I{} sh -c 'gzip {}'", "error"),
    # The script's own standard input: whoever runs it types or pipes the lines.
    ("xargs -I{} sh -c 'echo {}'", "warning"),
    # Another program's listing of names (identifiers, as judged on the precision corpus).
    ("virsh list --name | xargs -I{} sh -c 'virsh shutdown {}'", "info"),
])
def test_the_placeholder_severity_follows_who_controls_the_input(src: str, severity: str
                                                                  ) -> None:
    [d] = found(src)
    assert d.message.kind == "placeholder-pasted" and d.severity == severity


def test_a_network_readers_line_runs_as_code_with_real_sh() -> None:
    # What the pipeline hands on is pasted into the script: a line `x;echo INJECTED` runs.
    ran = run_shell("bash", "printf 'x;echo INJECTED\\n' | xargs -I{} sh -c 'echo {}'", None,
                    timeout=10)
    assert ran.stdout == "x\nINJECTED\n"


# -- a list of options the script wrote, split on purpose ---------------------------------------

def _qc103(src: str) -> list[Diagnostic]:
    return [d for d in check_source(src, Options(severity="info")).diagnostics
            if d.code == "QC103"]


def test_an_options_list_the_script_wrote_is_split_on_purpose() -> None:
    # what the remote shell makes of it: the options as the author wrote them, nothing else
    run = subprocess.run(["sh", "-c", "printf '%s|' -D 10 -x 0"], capture_output=True,
                         text=True, timeout=10)
    assert run.stdout == "-D|10|-x|0|"
    assert _qc103('OPTS="-D 10 -x 0"\nssh -o BatchMode=yes h "cmd $OPTS"\n') == []
    assert _qc103('ARGS="--epochs 6 --lr 6e-4"\nsh -c "python3 train.py $ARGS"\n') == []


@pytest.mark.parametrize("value", ["/srv/my app", "a;b -x", "-x $(id)"])
def test_a_literal_that_is_no_options_list_is_still_reported(value: str) -> None:
    [d] = _qc103(f"V='{value}'\nssh -o BatchMode=yes h \"ls $V\"\n")
    assert d.severity == "error"


def test_a_variable_set_only_to_a_script_argument(tmp_path: Path) -> None:
    """`dir=$2` then `sh -c "ls $dir"`: the caller's value, split and parsed as code there."""
    src = 'dir=$2\nsh -c "ls -d $dir"\n'
    [d] = [x for x in found(src) if x.code == "QC103"]
    assert d.severity == "warning" and "set on line 1" in d.text
    (tmp_path / "my dir").mkdir()
    run = subprocess.run(["bash", "-c", src, "script", "x", str(tmp_path / "my dir")],
                         capture_output=True, text=True, timeout=10)
    assert run.returncode != 0 and "No such file" in run.stderr  # split at the blank
    # in a function, `$1` is the call's argument; elsewhere set, it is not only the argument
    for quiet in ('f() { dir=$1; sh -c "ls -d $dir"; }', 'dir=$2\ndir=/srv\nsh -c "ls -d $dir"'):
        assert [x.severity for x in found(quiet) if x.code == "QC103"] in ([], ["info"])


def test_an_ssh_destination_named_target_is_no_options_word() -> None:
    """`$target_host` holds `arg` inside a word: it is the destination, not an options list."""
    src = 'target_host=$1\nssh "$target_host" "ls $path"\n'
    [d] = [x for x in found(src) if x.code == "QC103"]
    assert "remote shell on $target_host" in d.text


@pytest.mark.parametrize("src", [
    'cmd="tool --message=\\"${INPUT_MESSAGE}\\""\neval "$cmd"\n',
    'sh -c "tool --branch=$INPUT_BRANCH"\n',
])
def test_an_action_input_pasted_into_code(src: str, tmp_path: Path) -> None:
    """`$INPUT_<NAME>` is what the calling workflow passes: a `$(...)` in it runs."""
    [d] = [x for x in found(src) if x.code == "QC103"]
    assert d.severity == "warning" and "input of a GitHub Action" in d.text
    stub = tmp_path / "tool"
    stub.write_text('#!/bin/sh\necho "tool $*"\n')
    stub.chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "INPUT_MESSAGE": 'fix $(echo INJECTED)',
           "INPUT_BRANCH": 'x;echo INJECTED'}
    out = subprocess.run(["bash", "-c", src], env=env, capture_output=True, text=True,
                         timeout=10).stdout
    assert "INJECTED" in out and "echo INJECTED" not in out  # ran, not passed as text
    assert not [x for x in found('INPUT_BRANCH=main\nsh -c "tool $INPUT_BRANCH"\n')
                if x.code == "QC103" and x.severity != "info"]


def test_eval_echo_of_a_template_the_script_wrote(tmp_path: Path) -> None:
    """MLCommons' run.sub: `SRUN='srun -w $hostn'`, then `$(eval echo $SRUN)` in a loop over
    hosts: the `$hostn` written into the value is what `eval echo` is there to expand."""
    src = ("SRUN='srun -N 1 -w $hostn'\nfor hostn in n1 n2; do\n"
           "  $(eval echo $SRUN) hostname\ndone\n")
    assert not [d for d in found(src) if d.code == "QC103"]
    stub = tmp_path / "srun"
    stub.write_text('#!/bin/sh\necho "srun $*"\n')
    stub.chmod(0o755)
    out = subprocess.run(["bash", "-c", src], env={"PATH": f"{tmp_path}:/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=10).stdout
    assert out.splitlines() == ["srun -N 1 -w n1 hostname", "srun -N 1 -w n2 hostname"]
    # a value holding other syntax than references is still code for eval
    assert [d for d in found("X='ls \"$d\"'\neval echo $X\n") if d.code == "QC103"]
