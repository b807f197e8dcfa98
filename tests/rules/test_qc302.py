"""QC302 secret-on-command-line.

What `ps` can see is checked in /proc with processes this test starts (a harmless `sleep`):
an argument is in the program's command line, an expanded variable too, an environment
assignment in a script is not, and the same assignment inside a `-c` string is.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from _support import Finder

CODE = "QC302"
SECRET = "hunter2-QC302"


found = Finder(CODE)


def cmdlines_while_running(script: str, tmp_path: Path) -> str:
    """Start ``bash script`` and return the command lines of it and its children."""
    path = tmp_path / "s.sh"
    path.write_text(script)
    proc = subprocess.Popen(["bash", str(path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(0.4)
        seen = []
        for pid in [proc.pid, *_children(proc.pid)]:
            try:
                seen.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" "))
            except OSError:
                continue
        return b"\n".join(seen).decode(errors="replace")
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        out.extend(int(k) for k in kids)
        todo.extend(int(k) for k in kids)
    return out


# -- the facts ---------------------------------------------------------------------------------


def test_argument_and_expanded_variable_are_visible(tmp_path: Path) -> None:
    seen = cmdlines_while_running(f"sh -c 'sleep 2' sh --password={SECRET}\n", tmp_path)
    assert SECRET in seen
    seen = cmdlines_while_running(f"P={SECRET}\nsh -c 'sleep 2' sh --password=\"$P\"\n",
                                  tmp_path)
    assert SECRET in seen
    assert len(found('tool --password="$P"')) == 1


def test_assignment_in_a_script_is_not_but_in_a_c_string_it_is(tmp_path: Path) -> None:
    seen = cmdlines_while_running(f"TOKEN={SECRET} sleep 2\n", tmp_path)
    assert SECRET not in seen
    assert found(f"TOKEN={SECRET} sleep 2") == []
    seen = cmdlines_while_running(f"bash -c 'TOKEN={SECRET}; sleep 2; :'\n", tmp_path)
    assert SECRET in seen
    [(_, _, d)] = found(f"bash -c 'TOKEN={SECRET}; sleep 2; :'")
    assert "`TOKEN=`" in d.text


# -- detections ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("src", "secret"), [
    ("sshpass -p Tr0ub4dor ssh h uptime", "Tr0ub4dor"),
    ("sshpass -pTr0ub4dor ssh h uptime", "Tr0ub4dor"),
    ("curl -u admin:s3cretpw https://x", "s3cretpw"),
    ("curl --user=admin:s3cretpw https://x", "s3cretpw"),
    ('curl -H "Authorization: Bearer abcdef123" https://x', "Bearer abcdef123"),
    ('curl --header "X-Api-Key: abcdef123" https://x', "abcdef123"),
    ("mysql -uroot -pSecret99 shop", "Secret99"),
    ("mysqldump --password=Secret99 shop", "Secret99"),
    ("redis-cli -a Secret99 ping", "Secret99"),
    ("docker login -u me -p Secret99 registry.example.com", "Secret99"),
    ("openssl enc -aes256 -pass pass:Secret99 -in f", "Secret99"),
    ("ldapsearch -D cn=admin -w Secret99 -b dc=x", "Secret99"),
    ("smbclient -U admin%Secret99 //srv/share", "Secret99"),
    ("htpasswd -b /etc/htpasswd alice Secret99", "Secret99"),
    ("wget --http-password=Secret99 https://x", "Secret99"),
    ("vault login -token=Secret99", "Secret99"),
    ("deploy-cli --api-key Secret99 push", "Secret99"),
    ("git clone https://bob:ghp_Secret99@github.com/o/r", "ghp_Secret99"),
    ("sudo mysql -pSecret99", "Secret99"),
])
def test_argument_secrets(src: str, secret: str) -> None:
    [(_, _, d)] = found(src)
    assert src[d.span[0]:d.span[1]] == secret
    # The finding shows the shape of the secret, never the secret.
    assert secret not in d.text
    assert "ps" in d.text


@pytest.mark.parametrize("src", [
    "sshpass -e ssh h uptime",
    "sshpass -f ~/.pass ssh h uptime",
    "curl -u admin https://x",
    "curl -H 'Content-Type: application/json' https://x",
    "mysql -p shop",
    "mysql --password shop",
    "docker login --password-stdin -u me reg",
    "openssl enc -pass env:PASS -in f",
    "ldapsearch -W -b dc=x",
    "curl -u admin:xxxx https://x",
    "mysql -p'<password>' shop",
    "tool --password=*** x",
    "tool --password - x",
    "git clone https://github.com/o/r",
    "TOKEN=abc ./run",
    "export API_KEY=xyz",
    "ssh h 'TOKEN=$(cat /etc/token) ./deploy'",
    "ssh h 'export PGPASSWORD=$DBPASS; psql'",
    "ssh h bash -s <<'EOF'\nexport PGPASSWORD=abc123\npsql\nEOF\n",
    "TOKEN_FILE=/run/secrets/t ssh h 'cat $TOKEN_FILE'",
    "sh -c 'PWD=/tmp; cd $PWD'",
])
def test_not_reported(src: str) -> None:
    assert found(src) == []


def test_remote_string_shows_on_both_machines() -> None:
    src = 'ssh db-01 "curl -u admin:s3cretpw https://x"'
    [(_, _, d)] = found(src)
    assert "`db-01`" in d.text and "local `ssh` command" in d.text
    assert d.layers == ("local bash", "ssh", "remote shell")


def test_assignment_in_a_remote_string() -> None:
    src = 'ssh db-01 "PGPASSWORD=reporting2024 psql -U report"'
    [(_, col, d)] = found(src)
    assert col == src.index("reporting2024") + 1
    assert "reporting2024" not in d.text and "bash -s" in d.text
    # Expanded locally first: the value lands in the remote string, so it is visible too.
    [(_, _, d)] = found('ssh db-01 "PGPASSWORD=$PGPASS psql -U report"')
    assert "the value of `$PGPASS`" in d.text
    [(_, _, d)] = found("sh -c \"export API_TOKEN=zz123abc; ./deploy\"")
    assert "zz123abc" not in d.text


def test_heredoc_script_still_shows_program_arguments() -> None:
    src = "ssh h bash -s <<'EOF'\ncurl -u a:verysecret https://x\nEOF\n"
    [(line, col, d)] = found(src)
    assert (line, col) == (2, 11)
    assert "local `ssh`" not in d.text  # the script is on no command line


def test_odd_inputs() -> None:
    for src in ["sshpass -p", "curl -u", "curl -H", "mysql -p", "export", "export =",
                "TOKEN= x", "ssh h 'TOKEN='", "x --password=", "htpasswd -b", "openssl -pass",
                "$x --password=abc123", "smbclient -U a%"]:
        found(src)


@pytest.mark.parametrize("src", [
    # NVIDIA__Megatron-LM/.gitlab/scripts/build.sh:61: BuildKit secrets named by id.
    "docker build --secret id=JET_INDEX_URLS --target x .",
    "docker buildx build --secret id=npm,src=$HOME/.npmrc .",
    "podman build --secret=id=tok,env=TOKEN .",
])
def test_secret_named_by_id_is_not_a_secret(src: str) -> None:
    assert found(src) == []


def test_secret_value_after_secret_option_still_reported() -> None:
    assert len(found("mytool --secret hunter2")) == 1


# -- issue 13: a secret written in the script is only as secret as the script ------------------

# apache/zookeeper 53a78e36f99602162643303ab330377fc383b41f,
# zookeeper-client/zookeeper-client-c/ssl/gencerts.sh line 85 (Apache-2.0), and
# apache/dolphinscheduler 7e0095dca198bfc50c59bbc10b3be5617d7b3229,
# .github/workflows/schema-check/mysql/running-test.sh lines 45-47 (Apache-2.0).
@pytest.mark.parametrize("src", [
    "openssl pkcs12 -export -in client.crt -inkey clientkey.pem -out client.pkcs12 "
    "-password pass:password\n",
    'atlas_result=$(atlas schema diff \\\n'
    '  --from "mysql://root:mysql@127.0.0.1:3306/dolphinscheduler_${DATABASE_VERSION}" \\\n'
    '  --to "mysql://root:mysql@127.0.0.1:3306/dolphinscheduler_dev")\n',
])
def test_a_literal_secret_is_info(src: str) -> None:
    found_here = found(src)
    assert found_here and {d.severity for _, _, d in found_here} == {"info"}
    assert all("written in the script itself" in d.text for _, _, d in found_here)


def test_a_secret_from_a_variable_stays_a_warning() -> None:
    [(_, _, d)] = found('curl -u "$USER:$ARTIFACTORY_TOKEN" https://example.invalid/api')
    assert d.severity == "warning"


# A `--password` of a program quotecheck has no entry for, and a token in a request header, are
# info: on the precision corpus they were throw-away test passwords (openstack/devstack
# lib/tempest, functions-common) and personal short-lived tokens (ohmyzsh plugins/macos/spotify).
@pytest.mark.parametrize("src", [
    'openstack user create --password "$SERVICE_PASSWORD" nova\n',
    'curl -s -H "Authorization: Bearer ${ACCESS_TOKEN}" https://api.example.invalid/v1/me\n',
])
def test_an_option_known_by_name_only_is_info(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "info"
    assert "by its name only" in d.text or "short-lived" in d.text


# Programs known to take the secret itself stay warnings: apache/celeborn
# build/release/release.sh (svn), the Maven wrapper's curl and wget lines.
@pytest.mark.parametrize("src", [
    'svn commit --username "${ASF_USERNAME}" --password "${ASF_PASSWORD}" -m release\n',
    'wget --http-user="$MVNW_USERNAME" --http-password="$MVNW_PASSWORD" "$url"\n',
    'docker login -u bot -p "$DOCKERHUB_TOKEN"\n',
])
def test_a_known_password_option_stays_a_warning(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "warning"


# openstack/devstack stack.sh read_password (Apache-2.0): `eval "$var=$pw"` runs in the same
# shell; eval is a builtin, so the text it reads is on no process's command line.
def test_a_secret_assigned_through_eval_is_on_no_command_line() -> None:
    src = 'read -rs pw\nvar=DATABASE_PASSWORD\neval "$var=$pw"\neval "DB_PASSWORD=$pw"\n'
    assert found(src) == []


# MySQL clients blank a `-pX` value in their own argv as they start (MySQL manual, "End-User
# Guidelines for Password Security"): `ps` sees it for a moment only. openstack/devstack
# stack.sh 1534 (Apache-2.0) and apache/linkis linkis-dist/bin/install.sh 75 (Apache-2.0).
@pytest.mark.parametrize("src", [
    'mysql -u $DATABASE_USER -p$DATABASE_PASSWORD -h $MYSQL_HOST stats -e \\\n'
    "      'SELECT * FROM queries' -t 2>/dev/null\n",
    'until mysql -h$MYSQL_HOST -P$MYSQL_PORT -u$MYSQL_USER -p$MYSQL_PASSWORD  -e ";" ; do\n'
    '  exit 1\ndone\n',
    'mariadb-dump --password="$DB_PASS" shop > shop.sql\n',
])
def test_a_mysql_client_blanks_its_own_copy_info(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "info"
    assert "blanks its copy as it starts" in d.text


def test_a_mysql_password_in_a_remote_command_stays_a_warning() -> None:
    # The local ssh and the remote `bash -c` keep the text, value and all, while they run.
    [(_, _, d)] = found('read -r PW\nssh db1 "mysql -u root -p$PW -e \'select 1\'"\n')
    assert d.severity == "warning"
    assert "outer command lines keep the text" in d.text
    # Expanded by the remote shell itself, the outer lines hold only `$PW`: the client's own
    # argv is what remains, blanked at start-up.
    [(_, _, d)] = found("ssh db1 'PW=$(cat ~/.pw); mysql -u root -p$PW -e \"select 1\"'\n")
    assert d.severity == "info"


def test_a_secret_pasted_into_a_command_string_is_on_its_command_lines(tmp_path: Path) -> None:
    src = 'read -rs PASS\nssh h "echo $PASS | sudo -S systemctl restart app"\n'
    [d] = [d for d in found.diagnostics(src) if d.message.kind == "secret-pasted-into-string"]
    assert d.severity == "warning" and src[d.span[0]:d.span[1]] == "$PASS"
    assert "readable with `ps`" in d.text
    # Real processes: the inner shell's command line holds the value read from input, which
    # the script itself never wrote (the script's own command line is `bash s.sh`).
    seen = cmdlines_while_running(
        f'read -r PASS <<EOF\n{SECRET}\nEOF\nsh -c "sleep 5; : $PASS; :"\n', tmp_path)
    assert f"sh -c sleep 5; : {SECRET}; :" in seen


@pytest.mark.parametrize("src", [
    "printf '%s\\n' \"$PASS\" | ssh h 'sudo -S systemctl restart app'",  # on stdin
    'ssh h "echo \\$PASS | sudo -S systemctl restart app"',  # the remote side's own
    'ssh h "ls $PASS_FILE"',  # a file's name
])
def test_no_secret_pasted_into_the_string(src: str) -> None:
    assert not [d for d in found.diagnostics(src)
                if d.message.kind == "secret-pasted-into-string"]


def test_a_pasted_value_only_its_name_calls_secret_is_information() -> None:
    # DevStack's lib/databases/postgresql: a password from its config pasted into psql's SQL
    # (judged noise: a throw-away password of a development cloud). Nothing but the name.
    src = 'sudo -u postgres -i psql -c "ALTER ROLE app LOGIN PASSWORD \'$DATABASE_PASSWORD\'"\n'
    [d] = [d for d in found.diagnostics(src) if d.message.kind == "secret-pasted-into-string"]
    assert d.severity == "info" and "Only its name" in d.text
    fed = 'echo "$TOKEN" | ssh h "docker login --password-stdin reg; echo $TOKEN"\n'
    [d] = [d for d in found.diagnostics(fed) if d.message.kind == "secret-pasted-into-string"]
    assert d.severity == "warning"


def test_a_script_argument_is_on_the_scripts_own_command_line() -> None:
    """Real sh: what a script gets as an argument is in its /proc/PID/cmdline already."""
    run = subprocess.run(["sh", "-c", "tr '\\0' ' ' < /proc/$$/cmdline", "deploy.sh", "s3cret"],
                         capture_output=True, text=True, timeout=10)
    assert "s3cret" in run.stdout


@pytest.mark.parametrize(("src", "severity"), [
    ('mysql -u root -p"$1" -e "select 1"\n', "info"),
    ('P=$2\ncurl -u "admin:$P" https://x.example/\n', "info"),
    ('P="$2"\ncurl -u "admin:$P" https://x.example/\n', "info"),
    # reassigned from elsewhere, or read from input: not the script's argument
    ('P=$2\nP=$(cat /run/secret)\ncurl -u "admin:$P" https://x.example/\n', "warning"),
    ('read -r P\ncurl -u "admin:$P" https://x.example/\n', "warning"),
    # on another machine the argument was not on a command line before
    ('ssh -o BatchMode=yes -o ConnectTimeout=5 h "curl -u admin:$1 https://x.example/"\n',
     "warning"),
])
def test_a_secret_from_the_scripts_arguments(src: str, severity: str) -> None:
    from quotecheck.checker import Options, check_source

    [d] = [x for x in check_source("#!/bin/sh\n" + src, Options(severity="info")).diagnostics
           if x.code == "QC302"]
    assert d.severity == severity, src


def _cmdlines(argv: list[str], seconds: float = 2.0) -> list[bytes]:
    """Every /proc/PID/cmdline the program shows while it waits on a local socket that
    accepts and never answers (no network), in order."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    held: list[object] = []  # the accepted connection stays open: the client keeps waiting
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    proc = subprocess.Popen([a.replace("PORT", str(port)) for a in argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: list[bytes] = []
    end = time.monotonic() + seconds
    try:
        while proc.poll() is None and time.monotonic() < end:
            try:
                line = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
            except OSError:
                break
            if line and (not seen or seen[-1] != line):
                seen.append(line)
            if seen and SECRET.encode() not in seen[-1]:
                break
    finally:
        proc.kill()
        proc.wait()
        server.close()
    return seen


def test_a_nightly_mysqldump_shows_its_password_for_a_moment_only() -> None:
    """The recall case b043 (a cron backup, `mysqldump --password="$DBPASS"`): real mysqldump
    (MariaDB's) overwrites the value as it parses its options, milliseconds after it starts,
    so `ps` does not show it while the dump runs: information, saying so."""
    import shutil

    if shutil.which("mysqldump") is None:
        pytest.skip("mysqldump not installed")
    seen = _cmdlines(["mysqldump", "--host=127.0.0.1", "--port=PORT", "--user=u",
                      f"--password={SECRET}", "--opt", "db"])
    assert seen and SECRET.encode() not in seen[-1]
    src = ("DBPASS='change-me'\nmysqldump --user=u --password=\"$DBPASS\" --opt db"
           " > /srv/db.sql\n")
    [d] = found.diagnostics(src)
    assert d.severity == "info" and "only for a moment" in d.text


def test_a_script_argument_passed_to_curl_stays_on_the_scripts_command_line(
        tmp_path: Path) -> None:
    """The recall case b044 (`PASSWORD=${4:?}` ... `curl --user "$USER_NAME:$PASSWORD"`):
    real curl blanks its own copy, but the script's command line holds the password for as
    long as curl runs; that exposure is the caller's, on this machine already: information
    that says so."""
    import shutil

    if shutil.which("curl") is None:
        pytest.skip("curl not installed")
    seen = _cmdlines(["curl", "-s", "--max-time", "3", "--user", f"alice:{SECRET}",
                      "http://127.0.0.1:PORT/jobs"])
    assert seen and SECRET.encode() not in seen[-1]
    src = ("#!/bin/bash\nUSER_NAME=${3:?user required}\nPASSWORD=${4:?password required}\n"
           "curl --user \"$USER_NAME:$PASSWORD\" -d \"\" \"http://$LEAD/jobs\"\n")
    [d] = found.diagnostics(src)
    assert d.severity == "info" and "argument 4 of the script" in d.text


# -- issue 25: a variable the script sets to a constant, and a builtin's arguments -------------

# apache/ambari, ambari-server/src/main/resources/scripts/install_flume.sh lines 34-38
# (Apache-2.0): the default Ambari login, set once at the top and used in every function.
CONSTANT_LOGIN = (
    'USERID="admin"\nPASSWD="admin"\n'
    'defineService () {\n'
    '  curl -s -u $USERID:$PASSWD "http://$1:8080/api/v1/clusters/$2/services"\n'
    '}\n'
    'defineService "$1" "$2"\n')


def test_a_variable_set_to_a_constant_is_only_as_secret_as_the_script() -> None:
    [(line, _, d)] = found(CONSTANT_LOGIN)
    assert line == 4 and d.severity == "info"
    assert "sets it to a constant itself (lines 1 and 2)" in d.text


@pytest.mark.parametrize("setter", [
    "read -rs PASSWD", 'PASSWD=$(cat /etc/ambari/pass)',
    'if [ -n "$X" ]; then PASSWD=admin; else read -rs PASSWD; fi'])
def test_a_variable_set_at_run_time_stays_a_warning(setter: str) -> None:
    src = CONSTANT_LOGIN.replace('PASSWD="admin"', setter)
    [(_, _, d)] = [f for f in found(src) if f[0] == 4]
    assert d.severity == "warning", setter


@pytest.mark.parametrize("shell", ["bash", "dash", "zsh"])
def test_the_no_process_builtins_are_builtins(shell: str) -> None:
    """Each name is a builtin of the shell (`command -V` says so), which runs it without a
    process: its arguments reach no command line."""
    from quotecheck.programs import NO_PROCESS_BUILTINS

    path = shutil.which(shell)
    if path is None:
        pytest.skip(f"no {shell}")
    names = sorted(n for n in NO_PROCESS_BUILTINS if n not in ("declare", "typeset", "local")
                   or shell != "dash")
    script = "".join(f"command -V {shlex.quote(n)}\n" for n in names)
    out = subprocess.run([path, "-c", script], capture_output=True, text=True, timeout=10).stdout
    lines = out.splitlines()
    assert len(lines) == len(names)
    for name, line in zip(names, lines, strict=True):
        assert "builtin" in line or "reserved" in line, (shell, name, line)


def test_a_builtin_writing_a_secret_shows_it_to_nobody() -> None:
    # mailcow/mailcow-dockerized, data/Dockerfiles/sogo/bootstrap-sogo.sh line 112 (GPL-3.0):
    # echo writes the plist; the URL is on no command line.
    src = ('DBPASS=$(cat /run/secrets/db)\n'
           'echo "<string>mysql://${DBUSER}:${DBPASS}@%2Fvar%2Frun/db</string>" >> sogod.plist\n')
    assert found(src) == []
    # In a remote string the text is on ssh's command line and the remote shell's: reported.
    assert found('DBPASS=$(cat /run/secrets/db)\n'
                 'ssh h "echo mysql://u:$DBPASS@h > /etc/x"\n')
    # /bin/echo is a program.
    assert found('DBPASS=$(cat /run/secrets/db)\n/bin/echo "mysql://u:$DBPASS@h"\n')


# -- issue 25: a value the script draws at random itself ---------------------------------------

# hwdsl2/setup-ipsec-vpn, extras/ikev2setup.sh lines 790-839 (MIT), shortened: the export
# password of the client's .p12 files is drawn from /dev/urandom, or read back from the
# script's own config file where it stored it, and then passed to openssl as `pass:`.
GENERATED = (
    '#!/bin/sh\n'
    'create_p12_password() {\n'
    "  p12_password=$(LC_CTYPE=C tr -dc 'A-HJ-NPR-Za-km-z2-9' </dev/urandom 2>/dev/null "
    '| head -c 18)\n'
    '}\n'
    'get_p12_password() {\n'
    '  if [ "$use_config_password" = 0 ]; then\n'
    '    create_p12_password\n'
    '  else\n'
    "    p12_password=$(grep -s '^IKEV2_CONFIG_PASSWORD=.\\+' \"$CONF_FILE\" | tail -n 1 "
    '| cut -f2- -d=)\n'
    '    if [ -z "$p12_password" ]; then\n'
    '      create_p12_password\n'
    "      printf '%s\\n' \"IKEV2_CONFIG_PASSWORD='$p12_password'\" >> \"$CONF_FILE\"\n"
    '    fi\n'
    '  fi\n'
    '}\n'
    'get_p12_password\n'
    'openssl pkcs12 -in c.enc.p12 -out c.pem -passin "pass:$p12_password" '
    '-passout "pass:$p12_password"\n')


def test_the_generator_gives_a_new_value_on_every_run() -> None:
    """Real bash, tr and head: the assignment of the script draws a different 18-character
    password each time it runs."""
    line = GENERATED.splitlines()[2].strip()
    script = f"{line}\nprintf '%s' \"$p12_password\"\n"
    runs = {subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                           timeout=10).stdout for _ in range(3)}
    assert len(runs) == 3 and all(len(r) == 18 for r in runs)


def test_a_value_the_script_generates_at_random_is_information() -> None:
    got = found(GENERATED)
    assert [(line, d.severity) for line, _, d in got] == [(17, "info"), (17, "info")]
    assert "generates the value at random itself (line 3)" in got[0][2].text
    # openssl rand draws one too.
    [(_, _, d)] = found('#!/bin/sh\np=$(openssl rand -hex 16)\n'
                        'openssl pkcs12 -export -in c.pem -out c.p12 -passout "pass:$p"\n')
    assert d.severity == "info" and "(line 2)" in d.text


@pytest.mark.parametrize("change", [
    # read back from a file the script never stored it in
    ("\"$CONF_FILE\" | tail", "/etc/ipsec.secrets | tail"),
    # also read from input, set from the script's argument, or exported from elsewhere
    ("get_p12_password\nopenssl", "get_p12_password\n[ -t 0 ] && read -r p12_password\nopenssl"),
    ("get_p12_password\nopenssl", "get_p12_password\n[ -n \"$1\" ] && p12_password=$1\nopenssl"),
    ("get_p12_password\nopenssl", "get_p12_password\nexport p12_password=\"$VPN_PASS\"\nopenssl"),
    # a random part appended to a secret read from a file
    ("</dev/urandom 2>/dev/null | head -c 18)", "</dev/urandom | head -c 2)$(cat /run/s)"),
])
def test_a_value_also_taken_from_elsewhere_stays_a_warning(change: tuple[str, str]) -> None:
    src = GENERATED.replace(*change)
    assert src != GENERATED
    severities = {d.severity for line, _, d in found(src) if line >= 17}
    assert severities == {"warning"}, change


@pytest.mark.parametrize("use", [
    'curl -u "admin:$p" https://127.0.0.1:9/api/users',
    'docker login -u robot -p "$p" registry.example',
    'git clone "https://bot:$p@example.com/r.git"',
])
def test_a_random_password_of_an_account_stays_a_warning(use: str) -> None:
    # a fresh random value that becomes a service's password is a lasting credential: whoever
    # reads it from ps can log in; only a file's password (openssl, zip) is information
    src = f"#!/bin/sh\np=$(openssl rand -hex 16)\n{use}\n"
    assert {d.severity for _, _, d in found(src)} == {"warning"}
