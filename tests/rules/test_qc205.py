"""QC205 unconditional-success."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from _support import Finder
from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.checker import Options
from quotecheck.fixer import fix_source

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
CODE = "QC205"
found = Finder(CODE)


def bash(script: str) -> str:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          timeout=10).stdout


def test_the_facts_behind_the_seed_messages() -> None:
    # With no match at all, `xargs -r kill` runs nothing and succeeds.
    assert bash("printf '' | xargs -r kill; echo $?") == "0\n"
    # grep -c prints 0 and returns 1 when nothing matches; the next echo runs anyway.
    assert bash("grep -c nothing /dev/null; echo confirmed") == "0\nconfirmed\n"
    # Without set -e, a failing step does not stop the message; with it, it does.
    assert bash("false; echo done") == "done\n"
    assert bash("set -e; false; echo done") == ""


def test_seed_messages_name_the_step() -> None:
    src = SEED.read_text()
    hits = found(src)
    assert [(line, col) for line, col, _ in hits] == [(4, 1), (6, 1)]
    old, new = hits[0][2].text, hits[1][2].text
    assert old.startswith('`echo "Old killed"` claims success')
    assert "`ps aux | grep" in old and "(2:1)" in old  # the kill pipeline, not `sleep 3`
    assert "`xargs -r kill 2>/dev/null`" in old and "errors go to /dev/null" in old
    assert "runs nothing and exits 0" in old
    assert '`echo "New features confirmed"`' in new
    assert "`grep -c" in new and "(5:1)" in new and "exits 1 when nothing matches" in new


@pytest.mark.parametrize(("src", "pos", "step"), [
    ("cp a b; echo done", (1, 9), "`cp a b` (1:1)"),
    ("cp a b\necho 'Deploy complete'", (2, 1), "`cp a b` (1:1)"),
    ("rsync -a x/ y/\nsleep 1\necho 'sync OK'", (3, 1), "`rsync -a x/ y/` (1:1)"),
    ("mkdir -p x && cd x; echo ready", (1, 21), "`mkdir -p x && cd x` (1:1)"),
    ("app --daemon & echo 'deploy done'", (1, 16), "background"),
    ("kill $PID\nprintf 'Stopped %s\\n' app", (2, 1), "`kill $PID` (1:1)"),
    ("systemctl restart nginx\necho \"nginx restarted ✓\"", (2, 1), "systemctl restart"),
    ("ssh h 'make install; echo installed'", (1, 22), "`make install` (1:8)"),
])
def test_reported(src: str, pos: tuple[int, int], step: str) -> None:
    hits = found(src)
    assert [(line, col) for line, col, _ in hits] == [pos], src
    assert step in hits[0][2].text


@pytest.mark.parametrize("src", [
    "cp a b && echo done",
    "if cp a b; then echo done; fi",
    "set -e\ncp a b\necho done",
    "set -euo pipefail\ncp a b\necho done",
    "#!/bin/bash -e\ncp a b\necho done\n",
    "cp a b || exit 1\necho done",
    "cp a b || true\necho done",
    "echo done",  # nothing before it
    "cp a b; echo 'copy failed?'",  # not a success claim
    "cp a b; echo 'starting copy'",
    "make; echo 'build FAILED' >&2",
    "cp a b\nif [ $? -eq 0 ]; then echo done; fi",
    "x=$(cp a b; echo done)",
    "bash -ec 'cp a b; echo done'",
    "app --daemon & echo started",  # it was started: true even if it fails later
    "nohup ./worker > log 2>&1 &\npid=$!\necho \"worker started, pid $pid\"",
])
def test_not_reported(src: str) -> None:
    assert found(src) == [], src


def test_set_plus_e_turns_it_back_on() -> None:
    assert len(found("set -e\nset +e\ncp a b\necho done")) == 1


@pytest.mark.parametrize("src", [
    # pytorch__examples/run_cpp_examples.sh:42, kubernetes__minikube/hack/jenkins/common.sh:460:
    # a progress line.
    'make build\necho "Running example: mnist"',
    'make build\necho ">> Running gopogh"',
    # dokku__dokku/contrib/images/digitalocean/in_parts/100-image-check:595
    'cp a b\necho "Checking all user-created accounts..."',
    # Homebrew__install/install.sh:874, apache__accumulo/src/build/create-release-candidate.sh:133:
    # a prompt or an instruction.
    'cp a b\necho "Press any key when the installation has completed"',
    'cp a b\necho "Then click Close to complete the staging"',
    # pyenv__pyenv/plugins/python-build/bin/python-build:1293: a requirement, not a claim.
    'cp a b\necho "you must have the official GCC compiler installed"',
    'cp a b\necho "wait for the build to complete"',
    # apache__accumulo/assemble/bin/accumulo-service:221: a table header.
    'cp a b\necho "Currently running processes:"',
    # OpenRLHF__OpenRLHF/examples/scripts/train_nonrl_slurm.sh:25: the job's own start.
    'mkdir logs\necho "$(date) Job ${SLURM_JOB_ID} started ..."',
])
def test_text_that_claims_nothing(src: str) -> None:
    assert found(src) == []


def test_a_section_header_titles_what_follows() -> None:
    """openstack__kolla/tools/diag:12: `##### List installed packages #####` titles the output
    of the next command; real bash prints it before that output whatever the step above it did,
    and "installed" there names the packages listed, it says nothing worked."""
    header = 'echo "##### List installed packages, including editables #####"'
    script = f"false\n{header}\nprintf 'pkg 1.0\\n'\n"
    assert bash(script) == "##### List installed packages, including editables #####\npkg 1.0\n"
    assert found("docker info\n" + header + "\npip list\n") == []
    assert found('docker info\necho "=== Docker: installed images ==="\ndocker images\n') == []
    # A framed line that says the step ended or worked is still a claim.
    for claim in ("===== Build completed =====", "=== Build completed successfully ===",
                  "*** Deployed to prod ***", "##### Installed nginx #####",
                  "---- app installed ----"):
        [(line, _, _)] = found(f'make\necho "{claim}"\n')
        assert line == 2, claim


def test_a_message_that_prints_a_result_reports_it() -> None:
    """travis-ci__travis-build travis_custom_image.bash:4: "Build done with result:
    ${TRAVIS_TEST_RESULT}" prints the build's result; real bash prints the failure's status
    there when the step before it failed, so the message is right whatever happened."""
    src = ('sudo bash -c "mv /etc_backup /etc"\n'
           'echo -e "\\nBuild done with result: ${TRAVIS_TEST_RESULT}"\n')
    assert bash("TRAVIS_TEST_RESULT=1\nfalse\n" + src.split("\n", 1)[1]) == \
        "\nBuild done with result: 1\n"
    assert found(src) == []
    for message in ('echo "deploy finished, rc=$rc"', 'echo "Done (status ${status})"',
                    'echo "completed with exit code $exit_code"'):
        assert found(f"cp a b\n{message}\n") == [], message
    # A variable that only holds a path or a name is no status.
    for message in ('echo "Done, saved to $RESULT_DIR"', 'echo "Deployed $results"',
                    'echo "Done: ${status_page}"'):
        [(line, _, _)] = found(f"cp a b\n{message}\n")
        assert line == 2, message


WENET_UNTAR = (
    'if ! tar -xzf "$part.tgz"; then\n  echo "error un-tarring $part.tgz" >&2\n  exit 1\nfi\n'
    'touch "$part/.complete"\necho "Successfully downloaded and un-tarred $part.tgz"\n')


def test_a_marker_or_a_restart_after_the_work_is_not_what_the_message_reports(
        tmp_path: Path) -> None:
    """wenet-e2e__wenet thchs_download_and_untar.sh:94: the message names the untar, which the
    `if ! tar ...; then exit 1` checks; the `touch` of a marker after it does not undo it.
    Real bash: a failed tar stops the script before the message; a failed touch leaves the
    untarred files there, so the message is true."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f.txt").write_text("x\n")
    subprocess.run(["tar", "-czf", "data.tgz", "-C", "src", "f.txt"], cwd=tmp_path, check=True)
    (tmp_path / "bad.tgz").write_text("not an archive\n")
    for part, printed in (("bad", False), ("data", True)):
        res = subprocess.run(["bash", "-c", f"part={part}\n" + WENET_UNTAR], cwd=tmp_path,
                             capture_output=True, text=True, timeout=10)
        assert ("Successfully" in res.stdout) is printed, res
    assert (tmp_path / "f.txt").exists()  # untarred, though the touch of data/.complete failed
    assert found(WENET_UNTAR) == []
    # The same with `|| exit 1`, and after a service restart the message does not name.
    assert found('tar -xzf a.tgz || exit 1\ntouch a/.done\necho "Extracted a.tgz"\n') == []
    assert found('mv a.orig a || exit 1\nsystemctl restart cron\necho "Restored cron"\n') == []
    # Unchecked work before the marker: reported, naming the work, not the touch.
    [(line, _, diag)] = found('cp a b\ntouch .done\necho "copied"\n')
    assert line == 3 and "`cp a b` (1:1)" in diag.text
    # A message that names the restart (or the marker) reports on it.
    [(line, _, diag)] = found('cp a b || exit 1\nsystemctl restart app\necho "app restarted"\n')
    assert "systemctl restart" in diag.text
    # An `if` that checks nothing before the reload keeps the pairing with the reload.
    [(line, _, diag)] = found('if [ "$v6" = 1 ]; then\n  ufw route allow in on wg0\nfi\n'
                              'ufw reload >/dev/null\necho "UFW configuration completed."\n')
    assert "ufw reload" in diag.text


PIHOLE_CRON = ('if [[ -f crontab.orig ]]; then\n  mv crontab crontab.pihole\n'
               '  mv crontab.orig crontab\n  systemctl restart cron\n'
               '  echo "Restored the default system cron"\nfi\n')


def test_a_move_of_a_file_the_if_has_just_tested_is_info(tmp_path: Path) -> None:
    """pi-hole__pi-hole automated install/uninstall.sh:113: the `mv` of the file the `if` has
    just found there (like `mkdir` after `[ ! -d ]`). Real bash: with the file, the move is done
    and the message is true; without it, nothing runs and nothing is printed."""
    (tmp_path / "crontab").write_text("new\n")
    script = PIHOLE_CRON.replace("systemctl restart cron", "true")

    def run() -> str:
        return subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=tmp_path, timeout=10).stdout

    assert run() == ""
    (tmp_path / "crontab.orig").write_text("orig\n")
    assert run() == "Restored the default system cron\n"
    assert (tmp_path / "crontab").read_text() == "orig\n"
    [(line, _, diag)] = found(PIHOLE_CRON)
    assert line == 5 and diag.severity == "info" and "`mv crontab.orig crontab`" in diag.text
    # Not tested, or tested to be missing: a warning.
    for cond in ("[[ -f other ]]", "! [ -f crontab.orig ]", "[ -d crontab.orig ]"):
        [(_, _, diag)] = found(PIHOLE_CRON.replace("[[ -f crontab.orig ]]", cond))
        assert diag.severity == "warning", cond


PIVPN_REPAIR = ('echo -n "try to start now? [Y/n] "\nread -r REPLY\n'
                'if [[ "${REPLY}" =~ ^[Yy]$ ]] || [[ -z "${REPLY}" ]]; then\n'
                '  ls /nonexistent-qc205\n  echo "Done"\nfi\n')


def test_a_bare_done_after_a_prompt_the_user_answered_is_info() -> None:
    """pivpn__pivpn scripts/self_check.sh:118/251/299: a bare "Done" closing the attempt the
    user just asked for at a prompt. Real bash: the step's own error is printed right above
    it, on the same terminal."""
    res = subprocess.run(["bash", "-c", PIVPN_REPAIR], input="y\n", stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=10)
    lines = res.stdout.splitlines()
    assert "nonexistent-qc205" in lines[-2] and lines[-1] == "Done", res.stdout
    [(line, _, diag)] = found(PIVPN_REPAIR)
    assert line == 5 and diag.severity == "info"
    # Not after a prompt's answer, or more than a bare "Done": a warning.
    for src in (PIVPN_REPAIR.replace("read -r REPLY", "REPLY=y"),
                PIVPN_REPAIR.replace('"Done"', '"Done, the VPN is running"')):
        [(_, _, diag)] = found(src)
        assert diag.severity == "warning", src


def test_printing_helper_says_ok_by_definition() -> None:
    # apache__zeppelin/bin/functions.sh:63: the function's job is printing [ OK ].
    src = ('echo_success_msg() {\n  [ "$BOOTUP" = "color" ] && $MOVE_TO_COL\n  echo -n "["\n'
           '  [ "$BOOTUP" = "color" ] && $SETCOLOR_SUCCESS\n  echo -n "  OK  "\n}\n')
    assert found(src) == []
    # A function that does work and then says OK is still reported.
    assert len(found('stop() {\n  kill "$pid"\n  echo "stopped OK"\n}\n')) == 1


@pytest.mark.parametrize("src", [
    # helm__helm/scripts/get:145: set -e at the top level, before the function is called.
    'install() {\n  cp a b\n  echo "installed"\n}\ntrap fail_trap EXIT\nset -e\ninstall\n',
    # pyenv__pyenv/plugins/python-build/bin/python-build:304: set -E and an ERR trap.
    'set -E\ntrap build_failed ERR\nbuild() {\n  make\n  echo "Installed x"\n}\nbuild\n',
    # apache__zeppelin/dev/publish_release.sh:168, alibaba__nacos/distribution/bin/startup.sh:84:
    # cleanup after a step that was checked.
    'make || exit 1\npopd\necho "Build done"',
    'if sed -i.bak s/a/b/ f; then :; fi\nrm -f f.bak\necho "Updated"',
])
def test_failures_handled_elsewhere(src: str) -> None:
    assert found(src) == []


@pytest.mark.parametrize("src", [
    'connect_to db\necho "Connected to db OK"',
    'kill $PID\necho "Job stopped and cleanup done"',
    'make\npopd\necho "Build done"',
])
def test_claims_still_reported(src: str) -> None:
    assert len(found(src)) == 1, src


# -- issue 13: texts and steps that claim nothing, taken from the precision corpus --------------

# apache/zeppelin 904e9136d95377d3a04deba531250719ccf1483c, bin/functions.sh lines 59-68
# (Apache-2.0): a printing helper; the step before "OK" only sets a colour.
ZEPPELIN_SUCCESS_MSG = '''echo_success_msg() {
  [ "$BOOTUP" = "color" ] && $MOVE_TO_COL
  echo -n "["
  [ "$BOOTUP" = "color" ] && $SETCOLOR_SUCCESS
  echo -n $"  OK  "
  [ "$BOOTUP" = "color" ] && $SETCOLOR_NORMAL
  echo -n "]"
  echo -ne "\\r"
  return 0
}
'''

# alibaba/nacos 486e19848605bbea24902b26e741a433d912e0a8, distribution/bin/startup.sh lines
# 82-84 (Apache-2.0): the step is the `if` condition; the then-branch only cleans up first.
NACOS_UPDATED = ('if sed -i.bak "s/^\\(${escaped_key}=\\)$/\\1${input_val}/" '
                 '"${target_file}" 2>/dev/null; then\n') + '''    rm -f "${target_file}.bak"
    echo "\\`${key_pattern}\\` Updated: "
fi
'''

# apache/zeppelin 904e9136d95377d3a04deba531250719ccf1483c, dev/create_release.sh lines 61-71
# and 98-107, shortened (Apache-2.0): the build function exits on failure itself.
ZEPPELIN_RELEASE = '''function make_binary_release() {
  ./mvnw clean package -Pbuild-distr -DskipTests ${BUILD_FLAGS}
  if [[ $? -ne 0 ]]; then
    echo "Build failed. ${BUILD_FLAGS}"
    exit 1
  fi
}
make_binary_release all "-Pweb-classic -pl !shell"

# remove non release files and dirs
rm -rf "${WORKING_DIR}/zeppelin"
rm -rf "${WORKING_DIR}/zeppelin-${RELEASE_VERSION}"
echo "Release files are created under ${WORKING_DIR}"
'''

# dokku/dokku 33896f5d7efc3b03d0ea94934d8413cddbce07fd,
# contrib/images/digitalocean/in_parts/100-image-check lines 593-595 (MIT): a progress line.
DOKKU_CHECKING = '''checkLogs

echo -en "\\n\\nChecking all user-created accounts...\\n"
'''


@pytest.mark.parametrize("src", [
    ZEPPELIN_SUCCESS_MSG, NACOS_UPDATED, ZEPPELIN_RELEASE, DOKKU_CHECKING,
    # A success word inside a warning, after a colour code.
    'cp a b\necho -e "\\033[31mERROR\\033[0m: restart needed, deploy completed"',
])
def test_texts_and_steps_that_claim_nothing(src: str) -> None:
    assert found(src) == []


def test_a_claim_after_a_colour_code_is_still_a_claim() -> None:
    [(line, _, _)] = found('cp build/app /srv/app\necho -e "\\033[32mDeployed\\033[0m"')
    assert line == 2


def test_a_function_that_does_not_exit_is_still_a_step() -> None:
    src = 'build() { make; }\nbuild\necho "Build done"'
    [(line, _, _)] = found(src)
    assert line == 3


# apache/celeborn 7b050089b837055a3813b26f05b1fce88aa32e0b, toolkit/reg.sh lines 405-430
# (Apache-2.0), shortened: the run opens with "start at ..." and ends with a time stamp line.
CELEBORN_REG_END = '''echo -e "start at ${REG_CURRENT_RUNNING_DATE}"
rm -rf ${REG_RESULT}
zip ${REG_RESULT}/${REG_CURRENT_RUNNING_DATE}.zip -r ${REG_RESULT}/${REG_CURRENT_RUNNING_DATE}
rm -rf ${REG_RESULT}/${REG_CURRENT_RUNNING_DATE}

echo -e "done at $(date)"
'''


@pytest.mark.parametrize("src", [
    CELEBORN_REG_END,
    'make\necho "Finished at `date +%T`"\nexit 0\n',
    'make\necho "$(date \'+%F %T\'): all done"\n',
    # how long the run took, as its last line
    'start=$(date +%s)\nmake build\necho "Finished in $(( $(date +%s) - start ))s"\n',
    'make\necho "Done in ${SECONDS}s"\n',
    'make\necho "All done, took $elapsed seconds"\nexit 0\n',
])
def test_a_time_stamped_end_of_run_line_claims_nothing(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize("src", [
    'make\necho "done at $(date)"\nmake install\n',  # not the end of the run
    'make\necho "Build done at $(date)"\n',  # it names what was done
    'make\necho "done"\n',  # no time stamp
    'make\necho "Build finished successfully in ${SECONDS}s"\n',  # it names what succeeded
    'make\necho "Finished in ${SECONDS}s"\nmake install\n',  # not the end of the run
])
def test_a_done_line_that_reports_on_a_step(src: str) -> None:
    assert len(found(src)) == 1, src


# -- issue 13: the severity says how likely the step is to have failed unseen -------------------

# Steps whose failure is common and easy to miss: a warning. From the precision corpus, shortened:
# apache/rocketmq 8fc57f1468d182eea11c01e089c0250d647dc5f3 distribution/bin/mqshutdown:24,
# distribution/bin/os.sh:63, distribution/bin/play.sh:33; alibaba/nacos
# 486e19848605bbea24902b26e741a433d912e0a8 distribution/bin/startup.sh:90; apache/bookkeeper
# 9590a97f67c81a2964c79a92c7c58976894588f3 bin/bookkeeper-daemon.sh:176; apache/storm
# 73da988d9ac3f2c9b83ec224bc54edb038654f75 dev-tools/rc/download-rc-directory.sh:26;
# apache/linkis bad400a77b9502a68ec229ce6a5aedab6f039b28 linkis-web/install.sh:146;
# apache/zookeeper 53a78e36f99602162643303ab330377fc383b41f bin/zkServer.sh:221 (all Apache-2.0).
@pytest.mark.parametrize("src", [
    'kill ${pid}\necho "Send shutdown request to mqbroker OK(${pid})"',
    'kill -9 $TARGET_PID >/dev/null 2>&1\necho Successfully stopped the process',
    'pkill -f worker\necho "worker stopped"',
    'sudo systemctl restart nginx\necho "nginx restarted"',
    'nohup sh mqbroker -n ${ADDR} > bk.log 2>&1 &\n\necho "Start Broker Successfully, ${ADDR}"',
    'sed -i "" "s/^a=$/a=1/" "${target_file}"\necho "Updated"',
    'ln -s /dev/shm ${HOME}/tmpfs\necho "create tmpfs ok"',
    'wget -r -e robots=off -nH -nd -np $1\n\necho "Done..."',
    'sudo yum install -y nginx\necho "install nginx success"',
    '$KILL "$(cat "$ZOOPIDFILE")"\nrm "$ZOOPIDFILE"\nsleep 1\necho STOPPED',
    # Forced removals after a kill: the message reports on the kill.
    'kill "$pid"\nrm -f "$PIDFILE"\necho "stopped"',
    # An ordinary step stays a warning.
    'cp build/app /srv/app\necho "Deployed"',
    'connect_to db\necho "Connected to db OK"',
    # The test is of another pid, another directory.
    'if kill -0 "$a"; then\n  kill -9 "$b"\n  echo "killed $b"\nfi',
    'if [ ! -d "$A" ]; then\n  mkdir "$B"\n  echo "created"\nfi',
])
def test_a_common_failure_is_a_warning(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "warning", src


# Steps that rarely fail unseen: info. apache/kafka 1eb7644349cb07139d6a3c1ad1986979647cac99
# tests/docker/ducker-ak lines 432-433 (a function of the script); facebookresearch/fairseq
# 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99 examples/wav2vec/unsupervised/kaldi_self_train/st/
# steps_gan/train_sat.sh lines 277-279 (MIT; a script of the project); hpcaitech/ColossalAI
# 4f9953be335ef371b3848719ddafe596c01ecd37 applications/ColossalChat/tests/
# test_data_preparation.sh lines 51-53 (a mkdir just tested); pytorch/examples
# 77f55b912142e11fcfdf5b530231fb9c52f181e8 run_cpp_examples.sh lines 150-153 (BSD-3-Clause;
# forced removals only); apache/linkis bad400a77b9502a68ec229ce6a5aedab6f039b28
# linkis-dist/package/sbin/kill-yarn-jobs.sh lines 248-251 (a kill just tested) and
# linkis-daemon.sh lines 169-171 (a function, then `$(rm -f ...)`). Shortened; Apache-2.0 unless
# named.
KAFKA_DUCKER_UP = '''generate_cluster_json_file() {
  exec 3<> "$2"
  echo "{" >&3
}
generate_cluster_json_file "${num_nodes}" "${ducker_dir}/build/cluster.json"
echo "ducker_up: successfully wrote ${ducker_dir}/build/cluster.json"
'''
LINKIS_STOP = '''wait_for_server_to_die() {
  kill ${1}
}
wait_for_server_to_die $pid 40
$(rm -f ${SERVER_PID})
echo "server $SERVER_NAME is stopped."
'''


@pytest.mark.parametrize("src", [
    KAFKA_DUCKER_UP,
    LINKIS_STOP,
    'steps/info/gmm_dir_info.pl $dir\n\necho "$0: done training SAT system in $dir"',
    'bash ./tools/setup_env.sh\necho "environment ready"',
    'if [ ! -d "$BASE_TEMP_DIR" ]; then\n  mkdir "$BASE_TEMP_DIR"\n'
    '  echo "Directory created successfully"\nfi',
    'find . -type d -name build -exec rm -rf {} +\nrm -rf $HOME_DIR/libtorch\n'
    'rm -f $HOME_DIR/libtorch.zip\necho "Clean completed"',
    'if kill -0 ${sub_pid} > /dev/null 2>&1; then\n  kill -9 ${sub_pid}\n'
    '  echo "Killed subprocess ${sub_pid}"\nfi',
    'build() { make; }\nbuild\necho "Build done"',
])
def test_a_step_that_rarely_fails_unseen_is_info(src: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == "info", src
    assert "may be meant as progress" in d.text


# -- a status the script reads itself: no finding, and no fix that would take the read away ------

def run_in(tmp: Path, script: str, *, source_there: bool) -> tuple[str, int]:
    """Run ``script`` with real bash in ``tmp`` (holding the file `a` or not): stdout, status."""
    (tmp / "b").unlink(missing_ok=True)
    if source_there:
        (tmp / "a").write_text("x\n")
    else:
        (tmp / "a").unlink(missing_ok=True)
    (tmp / "s.sh").write_text(script)
    res = subprocess.run(["bash", "s.sh"], cwd=tmp, capture_output=True, text=True,
                         timeout=30)
    return res.stdout, res.returncode


def fixed(script: str) -> str:
    return fix_source(script, Options(select=[CODE]), unsafe=True, path="s.sh").text


# Each reads the status of `cp a b` in the command right after it, and prints `rc=1` when the
# copy failed.
STATUS_READS = [
    '#!/bin/bash\ncp a b\necho "rc=$?"\necho "done"\n',
    '#!/bin/bash\ncp a b\nstatus=$?\necho "done"\necho "rc=$status"\n',
    '#!/bin/bash\ncp a b\nret=$?; echo done; echo "rc=$ret"\n',
    '#!/bin/bash\ncp a b\nrc=${?}\necho "Deploy complete"\necho "rc=$rc"\n',
    '#!/bin/bash\ncp a b\nif [ $? -ne 0 ]; then echo "rc=1"; exit 1; fi\necho "done"\n',
    '#!/bin/bash\ncp a b\n[ $? -eq 0 ] || { echo "rc=1"; exit 1; }\necho "done"\n',
    '#!/bin/bash\ncp a b\ncase $? in 0) ;; *) echo "rc=1"; exit 1;; esac\necho "done"\n',
    '#!/bin/bash\ncp a b\necho "done (rc=$?)"\n',
    '#!/bin/bash\ncp a b; printf "copy done, rc=%s\\n" "$?"\n',
]


@pytest.mark.parametrize("script", STATUS_READS)
def test_a_status_read_after_the_step_is_kept(script: str, tmp_path: Path) -> None:
    assert found(script) == [], script
    after = fixed(script)
    assert after == script
    for there in (False, True):
        before_run = run_in(tmp_path, script, source_there=there)
        assert run_in(tmp_path, after, source_there=there) == before_run
    assert "rc=1" in run_in(tmp_path, script, source_there=False)[0]


def test_the_fix_still_stops_a_claim_nothing_checks(tmp_path: Path) -> None:
    """The control: with no status read, the fix is offered and changes what runs."""
    script = '#!/bin/bash\ncp a b\necho "done"\n'
    after = fixed(script)
    assert after != script and "exit 1" in after
    assert run_in(tmp_path, script, source_there=False) == ("done\n", 0)
    assert run_in(tmp_path, after, source_there=False) == ("", 1)
    assert run_in(tmp_path, after, source_there=True) == ("done\n", 0)


READERS = ['echo "rc=$?"', "rc=$?", "rc=${?}", "local_rc=$? rc=$?",
           'if [ $? -ne 0 ]; then echo "rc=1"; fi', '[ $? -eq 0 ] || echo "rc=1"',
           'case $? in 0) ;; *) echo "rc=1";; esac', "(( rc = $? ))"]
CLAIMS = ['echo "done"', "echo 'Deploy complete'", 'printf "OK\\n"', "echo copied successfully"]


@settings(max_examples=40, deadline=None)
@given(reader=st.sampled_from(READERS), claim=st.sampled_from(CLAIMS),
       joined=st.sampled_from(["\n", "; "]), neutral=st.sampled_from(["", "sleep 0\n"]))
def test_a_fix_never_takes_a_status_read_away(reader: str, claim: str, joined: str,
                                              neutral: str) -> None:
    """Whatever QC205 does with a script whose step's status is read right after it, the
    fixed script, run with real bash, reports the failed copy as the original does."""
    script = (f"#!/bin/bash\ncp a b{joined}{reader}\n{neutral}{claim}\n"
              'echo "rc=${rc:-$local_rc}"\n')
    after = fixed(script)
    with tempfile.TemporaryDirectory() as tmp:
        before_run = run_in(Path(tmp), script, source_there=False)
        assert "rc=1" in before_run[0]
        assert run_in(Path(tmp), after, source_there=False) == before_run, after


@pytest.mark.parametrize(("src", "severity"), [
    # the script wrote the file a moment ago: the chmod does not fail unseen
    ("cat > /tmp/run.sh <<EOF\necho hi\nEOF\nchmod +x /tmp/run.sh\necho installed\n", "info"),
    ('curl -fsSL -o "$HOME/bin/tool" https://x.example/t\nchmod 755 "$HOME/bin/tool"\n'
     'echo "tool installed"\n', "info"),
    ("cp build/app /usr/local/bin/app\nchmod 755 /usr/local/bin/app\necho installed\n", "info"),
    # a file the script did not write
    ("chmod +x /opt/other.sh\necho installed\n", "warning"),
])
def test_a_chmod_of_a_file_the_script_just_wrote(src: str, severity: str) -> None:
    [(_, _, d)] = found(src)
    assert d.severity == severity, src


@pytest.mark.parametrize("claim", ["Volume backuped", "backed up", "saved to /backup",
                                   "restored", "migrated", "published v1.2"])
def test_success_claimed_in_other_words(claim: str, tmp_path: Path) -> None:
    """A failing step (a `docker` stub that fails) and the claim printed anyway."""
    src = (f"docker run --rm -v /srv:/backup ubuntu tar cf /backup/v.tar /data\n"
           f'echo "{claim}"\n')
    [(_, _, d)] = found(src)
    assert d.severity == "warning" and claim.split()[0] in d.text
    stub = tmp_path / "docker"
    stub.write_text("#!/bin/sh\nexit 1\n")
    stub.chmod(0o755)
    out = subprocess.run(["bash", "-c", src], capture_output=True, text=True, timeout=10,
                         env={"PATH": f"{tmp_path}:/usr/bin:/bin"}).stdout
    assert out == f"{claim}\n"  # printed although the backup failed


# -- issue 25: `set -e` that a sourced file runs ------------------------------------------------

# apache/ozone, hadoop-ozone/dist/src/main/compose/ozonesecure-ha/test-repair-tools.sh:97 sources
# ../testlib.sh, whose first command is `set -e -u -o pipefail`: a failing step stops the script.
_SOURCING = ('source "$(dirname "$0")/lib.sh"\n'
             'step() {\n  cp /nonexistent/a /nonexistent/b\n  echo "copied in function"\n}\n'
             'cp /nonexistent/a /nonexistent/b\necho "copy done"\n')


@pytest.mark.parametrize(("lib", "claims"), [
    ("set -e\n", []),                                     # the script's own set -e
    ("set -euo pipefail\nlog() { echo \"$@\"; }\n", []),
    ("set -o errexit\n", []),
    ("f() { set -e; }\n", [4, 7]),                        # only in a function it defines
    ("set -e\nset +e\n", [4, 7]),                         # turned off again
    ('[ -n "$DEBUG" ] && set -e\n', [4, 7]),              # only sometimes
    ("", [4, 7]),
])
def test_a_sourced_files_set_e_is_the_scripts(lib: str, claims: list[int],
                                              tmp_path: Path) -> None:
    (tmp_path / "lib.sh").write_text(lib)
    script = tmp_path / "s.sh"
    script.write_text(_SOURCING + "step\n")
    out = subprocess.run(["bash", str(script)], capture_output=True, text=True,
                         timeout=10).stdout
    # bash is the oracle: the claims it prints after a failed cp are the ones reported.
    printed = [line for line, text in ((4, "copied in function"), (7, "copy done"))
               if text in out]
    assert printed == claims, (lib, out)
    hits = found.diagnostics(_SOURCING + "step\n", path=str(script))
    assert sorted(_SOURCING.count("\n", 0, h.span[0]) + 1 for h in hits) == claims


def test_a_sourced_file_that_cannot_be_read_changes_nothing(tmp_path: Path) -> None:
    script = tmp_path / "s.sh"
    # No lib.sh beside the script, or no script file at all (stdin): reported as before.
    assert len(found.diagnostics(_SOURCING, path=str(script))) == 2
    assert len(found.diagnostics(_SOURCING, path=None)) == 2
    # A `set +e` of the script's own after the source turns it off again.
    (tmp_path / "lib.sh").write_text("set -e\n")
    src = _SOURCING.replace("cp /nonexistent/a /nonexistent/b\necho \"copy done\"",
                            "set +e\ncp /nonexistent/a /nonexistent/b\necho \"copy done\"")
    assert len(found.diagnostics(src, path=str(script))) == 1


# apache/oozie, bin/test-patch-40-modernizer lines 88-94 (Apache-2.0): the build's status is
# taken from PIPESTATUS and logged; the closing line follows a message written through tee.
OOZIE_SAVE = ('save() {\n'
              '  mvn clean compile modernizer:modernizer | tee "$out" >> "$STDOUT"\n'
              '  exitCode=${PIPESTATUS[0]}\n'
              '  echo "EXITVALUE $exitCode" | tee -a "$out"\n'
              '  echo "[TRACE] Modernizer output verified and saved"\n'
              '}\nsave\n')


def test_a_status_read_from_pipestatus_is_a_checked_step() -> None:
    assert found(OOZIE_SAVE) == []
    res = subprocess.run(["bash", "-c", 'false | tee /dev/null; echo "${PIPESTATUS[0]}"'],
                         capture_output=True, text=True, timeout=10, check=True)
    assert res.stdout == "1\n"  # the status of the first command, which tee's 0 would hide


def test_a_message_through_tee_is_no_step_of_its_own() -> None:
    src = ('mvn clean install | tee build.log\n'
           'echo "build finished at $(date)" | tee -a build.log\n'
           'echo "Build succeeded"\n')
    [(line, _, d)] = found(src)
    assert line == 3 and "mvn clean install" in d.text


# -- the script's way out: a stop line after the wait for TERM, or in a trap on it ----------------

# alibaba/canal, docker/image/app.sh lines 15-28 and 155-185 (Apache-2.0), shortened: the
# entrypoint waits for TERM or INT (`waitterm`), then stops its service and ends.
CANAL_WAY_OUT = (
    'waitterm() {\n'
    '  local PID\n'
    '  tail -f /dev/null &\n'
    '  PID="$!"\n'
    '  trap "kill -TERM ${PID}" TERM INT\n'
    '  wait "${PID}" || true\n'
    '  trap - TERM INT\n'
    '  wait "${PID}" 2>/dev/null || true\n'
    '}\n'
    'stop_app() {\n'
    '  echo "stop app"\n'
    '  ls /nonexistent-qc205-a\n'
    '  echo "stop app successful ..."\n'
    '}\n'
    'echo "==> START"\n'
    'waitterm\n'
    'echo "==> STOP"\n'
    'stop_app\n')


def _run_until_term(script: str) -> tuple[list[str], int]:
    """Run ``script`` in real bash, send it TERM once it has started, and return its lines
    (stdout and stderr together) and status."""
    import signal
    import time
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sh"
        path.write_text(script)
        proc = subprocess.Popen(["bash", str(path)], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        first = proc.stdout.readline()
        time.sleep(0.3)  # let it reach the wait
        assert proc.poll() is None, first  # still running: it waits for the signal
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=10)
        return [first.rstrip("\n"), *rest.splitlines()], proc.returncode


def test_a_stop_line_on_the_way_out_is_info() -> None:
    """alibaba__canal docker/image/app.sh:158, app_admin.sh:139: the stop function runs only
    after the entrypoint's wait for TERM, right before the script ends. Real bash: nothing of it
    runs until TERM comes; then the failed step's error, the claim, and the end of the script."""
    lines, status = _run_until_term(CANAL_WAY_OUT)
    assert lines[0] == "==> START" and lines[1] == "==> STOP", lines
    assert "nonexistent-qc205-a" in lines[-2] and lines[-1] == "stop app successful ...", lines
    assert status == 0
    [(line, _, diag)] = found(CANAL_WAY_OUT)
    assert line == 13 and diag.severity == "info"
    assert "on the script's way out" in diag.text and "`waitterm` (16:1)" in diag.text
    # A trap that runs the stop function and then exits: the same.
    trapped = CANAL_WAY_OUT.replace(
        'echo "==> START"\nwaitterm\necho "==> STOP"\nstop_app\n',
        "trap 'stop_app; exit 0' TERM\necho \"==> START\"\nsleep 5 >/dev/null 2>&1 &\nwait $!\n")
    lines, status = _run_until_term(trapped)
    assert lines[-1] == "stop app successful ..." and status == 0, lines
    [(_, _, diag)] = found(trapped)
    assert diag.severity == "info" and "`trap` runs on TERM" in diag.text
    # Still a warning: the function also runs before the wait (a stop at start-up), the
    # trap goes on after it (no exit), no wait for a signal comes before it, or what is
    # claimed is no stop.
    for src in (CANAL_WAY_OUT.replace('echo "==> START"\n', 'stop_app\necho "==> START"\n'),
                trapped.replace("stop_app; exit 0", "stop_app"),
                CANAL_WAY_OUT.replace("waitterm\n", "sleep 1\n"),
                # on the way out, but neither the line nor the step is about a stop
                CANAL_WAY_OUT.replace('"stop app successful ..."', '"logs uploaded"')):
        [(_, _, diag)] = found(src)
        assert diag.severity == "warning", src


# apache/kylin, dev-support/release-manager/standalone-docker/all_in_one/dev-docker/
# entrypoint-dev.sh lines 105-127 (Apache-2.0), shortened: the first run's set-up, the marker
# that records it, the line that says the machine is up, and the loop that keeps it running.
KYLIN_READY = (
    'if [ ! -f "$START_FLAG" ]; then\n'
    '  ls /nonexistent-qc205-setup\n'
    'fi\n'
    'touch "$START_FLAG"\n'
    'echo "Kylin-Machine is ready for you to remote debug."\n'
    'while :\ndo\n  sleep 10\ndone\n')


def test_a_ready_line_before_the_script_parks_forever_reports_no_marker(
        tmp_path: Path) -> None:
    """apache__kylin entrypoint-dev.sh:123: the marker and the line both record that the
    start-up is over, and the script then waits forever; the line announces the start-up as a
    whole, not the `touch`. Real bash: the line is the last thing printed, and the script is
    still running when it is stopped."""
    res = subprocess.run(["timeout", "1", "bash", "-c", KYLIN_READY],
                         env={"START_FLAG": str(tmp_path / "first_run"), "PATH": "/usr/bin:/bin"},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=10)
    assert res.returncode == 124  # still waiting when timeout stopped it
    assert res.stdout.splitlines()[-1] == "Kylin-Machine is ready for you to remote debug."
    assert (tmp_path / "first_run").exists()
    assert found(KYLIN_READY) == []
    for keep_alive in ("tail -f /dev/null\n", "sleep infinity\n"):
        assert found(KYLIN_READY.replace("while :\ndo\n  sleep 10\ndone\n", keep_alive)) == []
    # Still reported: the script goes on after the line; plain work before the marker (it is
    # named); a step that is not a marker.
    [(_, _, diag)] = found(KYLIN_READY.replace("while :\ndo\n  sleep 10\ndone\n", "run_app\n"))
    assert "`touch" in diag.text
    [(_, _, diag)] = found(KYLIN_READY.replace("fi\n", "fi\ncp a b\n"))
    assert "`cp a b`" in diag.text and diag.severity == "warning"
    [(_, _, diag)] = found(KYLIN_READY.replace('touch "$START_FLAG"', "service app start"))
    assert "`service app start`" in diag.text and diag.severity == "warning"


# -- texts that claim nothing: a clause of condition or time, a labelled progress line, a word
# of state before its noun --------------------------------------------------------------------

# The fourth precision set, shortened: CrunchyData/crunchy-containers
# c7398a94d2419a05172b16d977c07f8794b62288 examples/docker/custom-config-ssl/run.sh:59
# (Apache-2.0); pivpn/pivpn aa96de7d27bfe4b9b00b8abe8fda80bb8e2bb81b auto_install/install.sh:1377
# (MIT); netdata/netdata 04b1cf54270c4e21c02e322e577e7e96d547c9ee
# packaging/installer/netdata-support-bundle:1287 (GPL-3.0-or-later, one line, shortened).
@pytest.mark.parametrize("src", [
    'docker run --detach crunchy-postgres\n'
    'echo "To connect via SSL, run the following once the DB is ready: "',
    'ip addr replace dev eth0 10.0.0.2/24\n'
    'echo "You may need to restart after the install is complete."',
    'mkdir -p "$WORK/07-runtime"\necho "Agent API at 127.0.0.1:$NDPORT was unreachable when '
    'this bundle was created. See 05-logs for why." > "$WORK/07-runtime/AGENT-WAS-DOWN.txt"',
    'cp a b\necho "Wait until the database is fully ready before you log in"',
    'cp a b\necho "Tag the release as soon as the build has finished"',
    'cp a b\necho "Connect once it\'s ready"',
])
def test_a_success_word_inside_a_clause_of_condition_or_time_claims_nothing(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize("src", [
    # after the clause, not in it: a comma, a sentence end or "then" closes it
    'cp a b\necho "after 3 tries, deployed"',
    'cp a b\necho "When the build is done, the app is deployed"',
    'cp a b\necho "Once the DB is ready. Deployed"',
    'cp a b\necho "once it is done then deployed"',
    # no verb of its own before the word: it is the main clause's
    'cp a b\necho "after 3 tries deployed"',
    # a claim first, the clause after it
    'cp a b\necho "Deployed; restart after the install is complete"',
])
def test_a_claim_after_a_clause_is_still_a_claim(src: str) -> None:
    [(line, _, diag)] = found(src)
    assert line == 2 and diag.severity == "warning", src


@pytest.mark.parametrize("src", [
    # netdata/netdata 04b1cf54270c4e21c02e322e577e7e96d547c9ee
    # packaging/installer/install-required-packages.sh:1465 (GPL-3.0-or-later, one line)
    'read -r -a apt_opts <<< "$opts"\n'
    'echo >&2 "NOTE: Running apt-get update and updating your APT caches ..."',
    'cp a b\necho "[TRACE] Running the spotbugs diff, done when it says so"',
    'cp a b\necho "INFO - Running migrations, all done soon"',
    'cp a b\necho -e "  ${INFO} Running update, done"',
    'INFO="[i]"\ncp a b\necho -e "  ${INFO} Running update, done"',
    'cp a b\necho -e "${COL_BLUE}Running${COL_NC} the upgrade, done"',
])
def test_a_labelled_progress_line_claims_nothing(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize("src", [
    # a tick or an OK in front says the step worked
    'cp a b\necho -e " ${TICK} Successfully restored from backup"',
    'cp a b\necho -e " ${TICK} Running update, done"',
    'TICK="[✓]"\ncp a b\necho -e " ${TICK} Running update, done"',
    'cp a b\necho "[ OK ] Running"',
    # a label in front of a claim: the claim stays
    'cp a b\necho "[TRACE] FindBugs diff JAR downloaded"',
    'cp a b\necho "NOTE: Build complete. Running tests next"',
])
def test_a_label_in_front_of_a_claim_is_still_a_claim(src: str) -> None:
    [(line, _, diag)] = found(src)
    assert line == src.count("\n") + 1 and diag.severity == "warning", src


@pytest.mark.parametrize("src", [
    # apache/oozie 8bdac8be4fa719a99612a83dcba86748486f9408 bin/test-patch-20-tests:147
    # (Apache-2.0), shortened
    'head -5 "$TEMPDIR/flakies.out"\n'
    'echo ".    For the complete list of flaky tests, see TEST-SUMMARY-FULL files."',
    'cp a b\necho "Attach to the running container with: docker exec -it app sh"',
])
def test_a_word_of_state_before_its_noun_claims_nothing(src: str) -> None:
    assert found(src) == [], src


@pytest.mark.parametrize("src", [
    'cp a b\necho "Build complete"',
    'cp a b\necho "The build is complete"',
    'cp a b\necho "the updated config is at /etc/app.conf"',  # a past form: it was updated
    'cp a b\necho "A complete success"',
    'cp a b\necho "the complete build finished"',
    'cp a b\necho "the complete"',
])
def test_a_claim_beside_a_word_of_state_is_still_a_claim(src: str) -> None:
    [(_, _, diag)] = found(src)
    assert diag.severity == "warning", src


# MichaIng/DietPi d52164f8c3633b862ce5efa1b49662f301471316 .build/images/dietpi-installer:1883-1886
# (GPL-2.0), shortened: the echo appends a line of shell code to a start-up file.
DIETPI_BASHRC = (
    "sed --follow-symlinks -i '\\#/etc/bashrc\\.d/#d' bash.bashrc\n"
    "echo 'for i in bashrc.d/*.sh bashrc.d/*.bash; do [ -r \"$i\" ] && . \"$i\"; done; "
    "unset -v i' >> bash.bashrc\n")


@pytest.mark.parametrize("src", [
    DIETPI_BASHRC,
    # apache/trafodion 8455c839ad6b6d7b6e04edda5715053095b78046 core/sqf/tools/sqtools.sh:633-636
    # (Apache-2.0), shortened: a generated extractor script
    'eval \'$SQPDSHA "sqsavelogs_compress $dir $PWD" 2>/dev/null\'\n'
    'echo "#!/bin/bash" > xtract_logs\n'
    'echo "for lv_fn in \\$lv_files; do tar xzf \\$lv_fn; done" >> xtract_logs',
    "cp a b\necho 'while read -r l\ndo\n  echo \"$l\"\ndone' > loop.sh",
    "sed -i s/a/b/ conf\necho 'make && echo OK' > build.sh",
    "scp app.tgz host:/srv\necho 'cd /srv && tar xzf app.tgz && echo \"Deployed\"' > remote.sh",
])
def test_a_message_that_is_shell_code_claims_nothing(src: str) -> None:
    assert found(src) == [], src


def test_the_done_of_a_loop_written_to_a_file_is_no_message(tmp_path: Path) -> None:
    """Real bash: the DietPi line writes the loop into the file; nothing says "done" when the
    script runs, and the file's loop, run later, prints nothing of its own."""
    (tmp_path / "bash.bashrc").write_text("#/etc/bashrc.d/ old\n")
    (tmp_path / "bashrc.d").mkdir()
    (tmp_path / "bashrc.d" / "a.sh").write_text("echo sourced-a\n")
    res = subprocess.run(["bash", "-c", DIETPI_BASHRC], cwd=tmp_path, capture_output=True,
                         text=True, timeout=10)
    assert res.stdout == ""
    written = (tmp_path / "bash.bashrc").read_text()
    assert written.endswith("done; unset -v i\n")
    ran = subprocess.run(["bash", "bash.bashrc"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=10)
    assert ran.stdout == "sourced-a\n"
    # `make && echo OK` written to a file prints OK only when the step worked.
    assert bash("printf 'false && echo OK\\n' | bash") == ""


@pytest.mark.parametrize("src", [
    'make install; echo "Installed; done"',  # no loop opened: a claim
    'cp a b\necho "Loop done"',
    'cp a b\necho "for the record: done"',
    'cp a b\necho "Deployed && running"',  # `&&` joins no echo in the text
])
def test_a_claim_beside_words_of_code_is_still_a_claim(src: str) -> None:
    [(_, _, diag)] = found(src)
    assert diag.severity == "warning", src


# openstack/kolla-ansible 1a681814eb19a4840ca307a25f21b2907b432272 tools/init-vpn:42-129
# (Apache-2.0), shortened: `setup` ends with a wait that exits 1 unless the connection is up,
# and a listing the script announces comes between it and the message.
KOLLA_VPN = '''function setup(){
    openstack vpn ipsec site connection create conn_west
    echo ">>> Waiting for VPN connections to become ACTIVE..."
    wait_for_vpn_active conn_west
    echo ">>> All VPN connections are ACTIVE!"
}
function wait_for_vpn_active(){
    if [ "$(openstack vpn ipsec site connection show $1)" == "ACTIVE" ]; then
        return 0
    fi
    echo ">>> Timeout waiting for VPN connection $1 to become ACTIVE"
    exit 1
}
setup
echo ">>> Displaying current VPN connections:"
openstack vpn ipsec site connection list
echo ">>> VPN setup completed successfully."
'''


def test_a_function_ending_with_a_call_that_exits_is_checked(tmp_path: Path) -> None:
    """Real bash: when the wait at the end of `setup` fails, the script stops before the
    message; when it succeeds, the message follows the listing."""
    for status, printed in (("DOWN", False), ("ACTIVE", True)):
        stub = tmp_path / "openstack"
        stub.write_text(f"#!/bin/sh\ncase \"$*\" in *show*) echo {status};; esac\n")
        stub.chmod(0o755)
        res = subprocess.run(["bash", "-c", KOLLA_VPN], capture_output=True, text=True,
                             timeout=10, env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
        assert ("completed successfully" in res.stdout) is printed, res
        assert res.returncode == (0 if printed else 1)
    assert found(KOLLA_VPN) == []
    # Without the announced listing, the same: the step is `setup`.
    assert found(KOLLA_VPN.replace('echo ">>> Displaying current VPN connections:"\n'
                                   'openstack vpn ipsec site connection list\n', "")) == []


@pytest.mark.parametrize(("src", "step"), [
    # the call is not the function's last step, or not a plain one: the function's status is
    # its last command's
    ("w() { x || exit 1; }\ns() { w; cp a b; }\ns\necho 'setup done'", "`s`"),
    ("w() { x || exit 1; }\ns() { cp a b; w || true; }\ns\necho 'setup done'", "`s`"),
    ("w() { x || exit 1; }\ns() { cp a b && w; }\ns\necho 'setup done'", "`s`"),
    ("w() { x || exit 1; }\ns() { if y; then w; fi; }\ns\necho 'setup done'", "`s`"),
    ("w() { x || exit 1; }\ns() { w | tee log; }\ns\necho 'setup done'", "`s`"),
    # an announced listing is skipped: the work before it is the step
    ("cp a b\necho 'Listing files:'\nls\necho 'Copy done'", "`cp a b`"),
    # a listing no line announces is the step
    ("cp a b\nls\necho 'Copy done'", "`ls`"),
])
def test_an_unchecked_step_before_the_message_is_still_reported(src: str, step: str) -> None:
    [(_, _, diag)] = found(src)
    assert step in diag.text, src


# apache/trafodion 8455c839ad6b6d7b6e04edda5715053095b78046 install/traf_checkset_env.sh:
# 279-286 (Apache-2.0), shortened: failed installs are collected, and the script exits on any.
TRAF_ENV = '''faillibs=()
for lib in $LIBS; do
    install_lib "$lib" || faillibs+=("$lib")
done
if (("${#faillibs[@]}" > "0")); then
    echo "ERROR: libs [${faillibs[@]}] aren't found in your repo server."
    exit 1;
fi
source $HOME/.bashrc
echo $'\\n'"Build environment is created SUCCESS!"
'''


def test_a_check_of_collected_failures_before_a_sourced_startup_file(tmp_path: Path) -> None:
    """Real bash: with a failed install, the script exits 1 before the message; the
    `source ~/.bashrc` after the check only loads settings, and the message reports on the
    installs the check covered."""
    (tmp_path / ".bashrc").write_text("export X=1\n")
    for libs, printed in (("good bad", False), ("good", True)):
        script = 'install_lib() { [ "$1" = good ]; }\n' + TRAF_ENV
        res = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                             timeout=10, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                              "LIBS": libs})
        assert ("SUCCESS" in res.stdout) is printed, res
    assert found(TRAF_ENV) == []
    assert found(TRAF_ENV.replace("(( ", "((").replace(
        '(("${#faillibs[@]}" > "0"))', '[ ${#faillibs[@]} -gt 0 ]')) == []


@pytest.mark.parametrize(("src", "step"), [
    # a check of something else than the work: the sourcing stays the step
    ('if [ ! -d "$JAVA" ]; then exit 1; fi\nsource ~/.bashrc\necho "Environment created"',
     "source ~/.bashrc"),
    # unchecked work before the sourcing: the finding names it
    ('cp a b\nsource ~/.bashrc\necho "copied"', "`cp a b`"),
    # a message that names the sourcing reports on it
    ('if ((${#fails[@]})); then exit 1; fi\n. ~/.profile\necho "profile loaded, done"',
     ". ~/.profile"),
    # a script of the project's own is no start-up file
    ('if ((${#fails[@]})); then exit 1; fi\nsource ./env.sh\necho "Environment created"',
     "./env.sh"),
])
def test_a_sourced_file_or_another_check_keeps_the_finding(src: str, step: str) -> None:
    [(_, _, diag)] = found(src)
    assert step in diag.text, src


# GoogleCloudPlatform/slurm-gcp 13fd92b615c030b9ba62e4a87d610bcc7af72b75
# ansible/roles/gcsfuse_spank/files/test_gcsfuse_spank.sh:40-58 (Apache-2.0), shortened
SLURM_SRUN = '''srun --gcsfuse-mount="${BUCKET_A}:${CONFLICT_MP}" bash -c "ls '${CONFLICT_MP}'"
echo "srun command finished for Test 1."

if mountpoint -q "${CONFLICT_MP}"; then
    echo "ERROR: ${CONFLICT_MP} is still a mount point after srun (Test 1)."
else
    echo "SUCCESS: ${CONFLICT_MP} is NOT a mount point after srun (Test 1)."
fi
'''


def test_a_line_that_the_step_ended_before_the_scripts_own_test(tmp_path: Path) -> None:
    """Real bash: "finished" prints whatever srun did, and the test right after it prints the
    result: ERROR when the mount is left behind."""
    (tmp_path / "srun").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "mountpoint").write_text("#!/bin/sh\nexit 0\n")
    for name in ("srun", "mountpoint"):
        (tmp_path / name).chmod(0o755)
    res = subprocess.run(["bash", "-c", SLURM_SRUN], capture_output=True, text=True,
                         timeout=10, env={"PATH": f"{tmp_path}:/usr/bin:/bin",
                                          "CONFLICT_MP": "/tmp/mp"})
    assert res.stdout.splitlines() == [
        "srun command finished for Test 1.",
        "ERROR: /tmp/mp is still a mount point after srun (Test 1)."]
    assert found(SLURM_SRUN) == []


@pytest.mark.parametrize("src", [
    # a claim that it worked, not only that it ended
    SLURM_SRUN.replace("srun command finished", "Mount deployed"),
    SLURM_SRUN.replace("srun command finished", "srun finished OK"),
    # no test after it
    SLURM_SRUN.split("\n\n")[0] + "\n",
    # a test of something the step does not name
    SLURM_SRUN.replace('mountpoint -q "${CONFLICT_MP}"', 'mountpoint -q /mnt'),
    # a test whose branches report no failure
    'srun -n1 "$JOB"\necho "srun finished"\nif [ -f "$JOB.out" ]; then cat "$JOB.out"; fi\n',
])
def test_a_claim_before_a_test_is_still_a_claim(src: str) -> None:
    [(line, _, diag)] = found(src)
    assert line == 2 and diag.severity == "warning", src
