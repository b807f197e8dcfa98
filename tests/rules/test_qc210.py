"""QC210 relaunch-without-wait.

The two facts behind the rule are checked with real processes started by the test itself (and
killed by their own pid): a process asked to stop by SIGTERM may still be alive after a fixed
sleep, and pgrep without `-f` matches the process name, not the command line.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _support import Finder

from quotecheck.positions import LineIndex

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "fixtures" / "dflash" / "restart.sh"
CODE = "QC210"
found = Finder(CODE)


def position(src: str, offset: int) -> tuple[int, int]:
    line, col = LineIndex(src).position(offset)
    return line + 1, col + 1


# -- the facts ------------------------------------------------------------------------------------


def test_a_fixed_sleep_is_not_a_wait() -> None:
    """SIGTERM to a process that cleans up for a second: alive after the sleep, gone later."""
    script = (
        'sh -c \'trap "sleep 1; exit 0" TERM; while :; do sleep 0.05; done\' & p=$!\n'
        "sleep 0.3\n"
        "kill $p\n"
        "sleep 0.3\n"
        'kill -0 $p 2>/dev/null && echo alive-after-sleep\n'
        "while kill -0 $p 2>/dev/null; do sleep 0.1; done\n"
        "echo gone\n"
    )
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10)
    assert res.stdout == "alive-after-sleep\ngone\n", res.stderr
    # The same shape with a relaunch is reported; with the polling loop it is not.
    assert found("pkill -f cleanup.py\nsleep 0.3\npython3 cleanup.py &\n")
    assert not found("pkill -f cleanup.py\nwhile pgrep -f cleanup.py; do sleep 0.1; done\n"
                     "python3 cleanup.py &\n")


def test_pgrep_without_f_matches_the_name_not_the_command_line() -> None:
    marker = f"qc210-marker-{os.getpid()}"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(20)", marker])
    try:
        deadline = time.monotonic() + 5
        full = ""
        while time.monotonic() < deadline and str(proc.pid) not in full:
            full = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True,
                                  timeout=10).stdout
            time.sleep(0.05)
        assert str(proc.pid) in full.split()
        name = subprocess.run(["pgrep", marker], capture_output=True, text=True, timeout=10)
        assert name.stdout == ""
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    # So `pkill train.py` does not kill `python3 train.py`, and nothing is reported ...
    assert found("pkill train.py; python3 train.py &") == []
    # ... while `pkill -f train.py` does, and is.
    assert len(found("pkill -f train.py; python3 train.py &")) == 1


# -- the seed -------------------------------------------------------------------------------------


def test_seed_relaunch_points_at_python3_and_the_kill_is_related() -> None:
    src = SEED.read_text()
    [(line, col, d)] = found(src)
    assert (line, col) == (9, 56)
    assert src[d.span[0]:d.span[1]] == "python3"
    assert d.message.kind == "started-again"
    assert d.message.value("killed").endswith("matches `[p]ython3.*train_dflash`")
    assert d.message.value("note") == " (`sleep 3` is a guess, not a wait)"
    assert d.message.value("line") == "2"
    [related] = d.related
    assert position(src, related.span[0]) == (2, 72)
    assert src[related.span[0]:related.span[1]] == "kill"
    assert d.layers == ("local bash", "ssh", "remote shell")


# -- kills, launches and waits --------------------------------------------------------------------


@pytest.mark.parametrize(("src", "launch"), [
    ("pkill -f train.py; sleep 3; nohup python3 train.py > log 2>&1 &", "python3"),
    ("killall nginx; nginx", "nginx"),
    ("pkill -x redis-server\nsleep 1\nredis-server /etc/redis.conf", "redis-server"),
    ("kill $(pidof redis-server); redis-server /etc/redis.conf", "redis-server"),
    ("kill -9 $(pgrep -f 'gunicorn app'); gunicorn app:main &", "gunicorn"),
    ("pgrep -f 'gunicorn app' | xargs kill; gunicorn app:main -b :80 &", "gunicorn"),
    ("ps aux | grep 'serve\\|worker' | grep -v grep | awk '{print $2}' | xargs kill\n"
     "./worker --queue a &", "./worker"),
    ("ps -ef | awk '/[m]y_daemon/ {print $2}' | xargs -r kill\n./my_daemon &", "./my_daemon"),
    ("pid=$(pgrep -f 'node server.js')\nkill $pid\nnode server.js &", "node"),
    ("./server --port 80 & pid=$!\nsleep 10\nkill $pid\n./server --port 80 &", "./server"),
    ("./server & echo $! > /run/s.pid\nkill \"$(cat /run/s.pid)\"\n./server &", "./server"),
    ("sudo pkill -f uvicorn; sudo uvicorn app:api &", "uvicorn"),
    ('ssh h "pkill -f worker.py"; sleep 2; ssh h "nohup python3 worker.py > /dev/null 2>&1 &"',
     "python3"),
])
def test_relaunch_reported_at_the_program(src: str, launch: str) -> None:
    [(_, _, d)] = found(src)
    assert src[d.span[0]:d.span[1]] == launch
    assert d.related and "killed here" in d.related[0].message


@pytest.mark.parametrize("src", [
    "pkill -f train.py; while pgrep -f train.py >/dev/null; do sleep 1; done; python3 train.py &",
    "pkill -f train.py\ntimeout 60 sh -c 'while pgrep -f train.py; do sleep 1; done'\n"
    "python3 train.py &",
    "kill $pid; while kill -0 $pid 2>/dev/null; do sleep 1; done; ./server &",
    "./server & pid=$!\nkill $pid\nwait $pid\n./server &",
    "killall -w nginx; nginx",
    "pkill -f app.py; pidwait -f app.py; python3 app.py &",
    "kill $p; tail --pid=$p -f /dev/null; ./app &",
    "kill $p; until [ ! -e /proc/$p ]; do sleep 1; done; ./app &",
    "pkill -f vllm; while nvidia-smi | grep -q vllm; do sleep 2; done; vllm serve m &",
    "pkill -HUP nginx; nginx",
    "kill -0 $pid && ./server",
    "kill -l; ./server",
    "pkill -f worker.py; ./server &",
    "pkill -f worker; ssh h 'python3 worker.py'",
    "ssh a 'pkill -f worker.py'; ssh b 'python3 worker.py &'",
    "systemctl stop app; systemctl start app",
    "pkill -f train.py; pgrep -f train.py; echo train.py stopped",
    "python3 train.py & pkill -f train.py",
])
def test_not_reported(src: str) -> None:
    assert found(src) == []


def test_one_finding_per_relaunch_with_the_nearest_kill() -> None:
    src = "pkill -f app.py\nsleep 5\npkill -9 -f app.py\npython3 app.py &\n"
    [(line, col, d)] = found(src)
    assert (line, col) == (4, 1)
    assert position(src, d.related[0].span[0]) == (3, 1)


def test_odd_inputs() -> None:
    for src in ["kill", "pkill", "pkill -f", "killall", "kill $(", "xargs kill", "| xargs kill",
                "pkill -f '('; python3 '(' &", "pkill -f '[' ; x [", "kill $!; $cmd &",
                "ps | grep -e; x", "pgrep -f -- ; kill"]:
        found(src)


# -- run order and the program a name pattern names -------------------------------------------


def test_a_function_runs_where_it_is_called(tmp_path: Path) -> None:
    """Real bash: the kill in a function defined first runs where the function is called."""
    from harness.stubs import StubDir

    stubs = StubDir(tmp_path, names=["pkill", "python3"])
    script = ('stop_old() {\n  pkill -f "python3 app.py"\n}\n'
              "python3 app.py\nstop_old\n")
    subprocess.run(["bash", "-c", script], env=stubs.env(), check=True, timeout=10)
    assert [r[0] for r in stubs.records()] == ["python3", "pkill"]
    # so the start does not follow the kill: nothing to wait for
    assert found(script) == []
    # called before the start, it is a relaunch
    called_first = script.replace("python3 app.py\nstop_old\n", "stop_old\npython3 app.py &\n")
    [(line, _, _)] = found(called_first)
    assert line == 5


def test_a_function_a_trap_runs_runs_when_the_script_ends(tmp_path: Path) -> None:
    """Real bash and dash: a function called only by `trap ... EXIT` (or INT/TERM) runs when
    the script exits, after the start that follows its definition; its kill stops that start
    at the end, it is no kill before it."""
    from harness.stubs import StubDir

    stubs = StubDir(tmp_path, names=["pkill", "containerd"])
    script = ("cleanup() {\n  pkill containerd || true\n}\ntrap cleanup EXIT\n"
              "containerd --config x.toml &\nwait\n")
    for shell in ("bash", "dash"):
        subprocess.run([shell, "-c", script], env=stubs.env(), check=True, timeout=10)
        assert [r[0] for r in stubs.records()][-2:] == ["containerd", "pkill"]
    assert found(script) == []
    assert found(script.replace("trap cleanup EXIT", "trap 'cleanup; exit 1' INT TERM")) == []
    # a function the trap calls through another one runs at the end too
    nested = script.replace("trap cleanup EXIT", "on_exit() { cleanup; }\ntrap on_exit EXIT")
    assert found(nested) == []
    # called directly before the start, it is a relaunch, trap or not
    [(line, _, _)] = found(script.replace("trap cleanup EXIT", "trap cleanup EXIT\ncleanup"))
    assert line == 6


@pytest.mark.parametrize(("src", "reported"), [
    ("pkill app\nappctl restore --all\n", False),  # appctl is another program
    ("pkill java\njavac Main.java\n", False),
    ("pkill python\nnohup python3 train.py &\n", True),  # python3: a version of it
    ("pkill app\nnohup app --serve &\n", True),
    ("pkill -f train_\nnohup python3 train_dflash.py &\n", True),  # a command-line family
])
def test_a_name_pattern_restarts_only_the_program_it_names(src: str, reported: bool) -> None:
    assert bool(found(src)) is reported, src


@pytest.mark.parametrize("src", [
    # the start and the stop are different runs of the script
    'start() { nohup python3 app.py & }\nstop() { pkill -f app.py; }\n'
    'case "$1" in\n  stop) stop ;;\n  restart-later) start ;;\nesac\n',
    'if [ "$1" = stop ]; then pkill -f app.py; else nohup python3 app.py & fi\n',
])
def test_a_kill_and_a_start_in_different_branches_never_meet(src: str) -> None:
    assert found(src) == [], src


def test_a_function_started_in_the_background_is_no_program() -> None:
    # a function's subshell has no trap here: SIGTERM ends it at once, nothing to wait for
    spinner = 'spin() { while :; do sleep 1; done; }\nspin & P=$!\nkill $P\nspin &\n'
    assert found(spinner) == []
    program = 'python3 srv.py & P=$!\nkill $P\npython3 srv.py &\n'
    assert len(found(program)) == 1


def test_a_function_subshell_ends_at_once_on_sigterm() -> None:
    run = subprocess.run(["bash", "-c", "spin() { while :; do sleep 0.05; done; }\n"
                          "spin & P=$!\nsleep 0.2\nkill $P\nsleep 0.2\n"
                          "kill -0 $P 2>/dev/null && echo alive || echo gone"],
                         capture_output=True, text=True, timeout=20)
    assert run.stdout.strip() == "gone"


INIT_SCRIPT = """PIDFILE=/var/run/app.pid
start() {
  nohup /usr/bin/app --serve > /var/log/app.log 2>&1 &
  echo $! > "$PIDFILE"
}
stop() {
  kill "$(cat "$PIDFILE")"
}
case "$1" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
esac
"""


def test_an_init_scripts_restart_reads_the_pid_file_its_start_writes() -> None:
    # `restart` kills what an earlier `start` recorded, then starts at once
    [(line, _, d)] = found(INIT_SCRIPT)
    assert line == 3 and "line 7" in d.text
    # without the restart branch the two never run in one go
    assert found(INIT_SCRIPT.replace("  restart) stop; start ;;\n", "")) == []
    # waiting for the old one clears it
    waiting = INIT_SCRIPT.replace(
        '  kill "$(cat "$PIDFILE")"\n',
        '  kill "$(cat "$PIDFILE")"\n'
        '  while kill -0 "$(cat "$PIDFILE")" 2>/dev/null; do sleep 1; done\n')
    assert found(waiting) == []


@pytest.mark.parametrize("kill", ["kill -9", "kill -KILL", "kill -s KILL", "kill -SIGKILL"])
def test_after_sigkill_the_old_process_runs_no_more_code(kill: str) -> None:
    src = INIT_SCRIPT.replace('  kill "$(cat', f'  {kill} "$(cat')
    [(_, _, d)] = found(src)
    assert d.severity == "info" and "SIGKILL" in d.text


# -- a pid file the program writes itself; a service started by name ------------------------------

# boot2docker/boot2docker#1132, /usr/local/etc/init.d/docker before the fix (Apache-2.0).
DOCKER_INIT = """#!/bin/sh
PIDFILE={pidfile}

check() {{ [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }}
start() {{
	check && return 0
	{dockerd} --pidfile "$PIDFILE" >> {log} 2>&1 &
}}
stop() {{ check && kill "$(cat "$PIDFILE")"; }}
restart() {{
	if check; then
		stop && sleep 1 && start
	else
		start
	fi
}}
case "$1" in
	start|stop|restart) "$1" ;;
esac
"""
DOCKER_INIT_FIXED_RESTART = """restart() {{
	if check; then
		stop; i=0
		while check; do
			i=$((i + 1))
			[ "$i" -gt 30 ] && return 1
			sleep 1
		done
	fi
	start
}}
"""
# A daemon that writes its own pid to --pidfile and takes 1.5 s to shut down on SIGTERM.
SLOW_DAEMON = """#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --pidfile ] && pf=$2; shift; done
echo $$ > "$pf"
trap 'sleep 1.5; rm -f "$pf"; exit 0' TERM
while :; do sleep 0.1; done
"""


def _docker_init(fixed: bool, daemon: str = "/usr/local/bin/dockerd",
                 pidfile: str = "/var/run/docker.pid", log: str = "/var/log/docker.log") -> str:
    text = DOCKER_INIT.format(pidfile=pidfile, dockerd=daemon, log=log)
    if fixed:
        start = text.index("restart() {")
        end = text.index("}\n", text.index("\tfi\n", start)) + 2
        text = text[:start] + DOCKER_INIT_FIXED_RESTART.format() + text[end:]
    return text


@pytest.mark.parametrize("fixed", [False, True])
def test_a_pid_file_the_daemon_writes_itself(tmp_path: Path, fixed: bool) -> None:
    """`dockerd --pidfile F` writes its own pid; `stop` kills `$(cat F)`, and `restart` starts
    again after `sleep 1`. Real dash: the old daemon is still shutting down, so `start` sees it
    running and starts nothing, and once it exits no daemon runs. Polling until it is gone
    leaves one running."""
    daemon = tmp_path / "dockerd"
    daemon.write_text(SLOW_DAEMON)
    daemon.chmod(0o755)
    pidfile = tmp_path / "docker.pid"
    script = tmp_path / "docker"
    script.write_text(_docker_init(fixed, str(daemon), str(pidfile), str(tmp_path / "log")))
    started: list[int] = []
    try:
        subprocess.run(["dash", str(script), "start"], check=True, timeout=20)
        deadline = time.monotonic() + 5
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        started.append(int(pidfile.read_text()))
        subprocess.run(["dash", str(script), "restart"], timeout=60)
        if pidfile.exists():
            started.append(int(pidfile.read_text()))
        time.sleep(2.5)  # the old daemon's shutdown is over
        running = pidfile.exists() and Path(f"/proc/{pidfile.read_text().strip()}").exists()
        if pidfile.exists():
            started.append(int(pidfile.read_text()))
        assert running == fixed
    finally:
        for pid in set(started):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    src = _docker_init(fixed)
    hits = found(src)
    if fixed:
        assert hits == []
    else:
        [(line, _, d)] = hits
        assert src.splitlines()[line - 1].strip().startswith("/usr/local/bin/dockerd")
        assert "`sleep 1` is a guess" in d.text


def test_a_pid_file_option_links_only_that_program() -> None:
    src = ('redis-server --pidfile=/run/r.pid --daemonize yes\n'
           'kill "$(cat /run/r.pid)"\nredis-server --pidfile=/run/r.pid --daemonize yes\n')
    [(line, _, _)] = found(src)
    assert line == 3
    other = src.replace("kill \"$(cat /run/r.pid)\"", "kill \"$(cat /run/other.pid)\"")
    assert found(other) == []


def test_killall_returns_before_the_service_is_gone(tmp_path: Path) -> None:
    """hannobraun/vndf-2016@152f403: `killall vndf-server; start vndf-server`. Real killall
    sends SIGTERM and returns; the `start` right after it (a stub on PATH that records whether
    a process of that name still runs, as Upstart's check does) finds the old one alive."""
    name = f"qcsrv{os.getpid() % 100000}"
    server = tmp_path / name
    server.write_text("#!/bin/sh\ntrap 'sleep 1; exit 0' TERM\nwhile :; do sleep 0.1; done\n")
    server.chmod(0o755)
    start = tmp_path / "start"
    start.write_text("#!/bin/sh\nif pgrep -x \"$1\" > /dev/null; then echo \"running $1\"; "
                     "else echo \"started $1\"; fi\n")
    start.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    proc = subprocess.Popen([str(server)])
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and subprocess.run(
                ["pgrep", "-x", name], capture_output=True, timeout=10).returncode:
            time.sleep(0.05)
        run = subprocess.run(["sh", "-c", f"killall {name}; start {name}"], env=env,
                             capture_output=True, text=True, timeout=20)
        assert run.stdout == f"running {name}\n", run
        proc.wait(timeout=10)  # ... and it does exit, a second later
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    src = ("ssh -o BatchMode=yes -o ConnectTimeout=10 root@gamevm "
           "'killall vndf-server; start vndf-server'")
    [(_, _, d)] = found(src)
    assert src[d.span[0]:d.span[1]] == "start"
    assert "service `vndf-server`" in d.text and d.fixes == ()


@pytest.mark.parametrize(("src", "reported"), [
    ("killall app; start app", True),
    ("pkill -x app; service app start", True),
    ("killall app\nsystemctl start app.service", True),
    ("killall app; /etc/init.d/app start", True),
    ("killall app; sudo initctl start app", True),
    ("killall app; rc-service app start", True),
    ("killall app; start other", False),
    ("killall -w app; start app", False),
    ("killall app; restart app", False),
    ("killall app; service app status", False),
    ("killall app; systemctl start \"$UNIT\"", False),
    ('start() { ./app & }\nkillall app; start', True),  # the function starts ./app itself
])
def test_a_service_started_by_name_after_a_kill(src: str, reported: bool) -> None:
    assert bool(found(src)) is reported, src


def test_a_pid_kill_and_the_same_program_doing_something_else() -> None:
    """impala's run-k8s-e2e-tests.sh: `kubectl ... port-forward ... &` is killed by its pid;
    a later `kubectl ... get pod` is no restart of it, a new port-forward is."""
    src = ('kubectl -n "$NS" port-forward svc/impala 21050:21050 &\npid=$!\nkill "$pid"\n'
           'kubectl -n "$NS" get pod -l app=impalad\n')
    assert not [d for d in found(src)]
    again = src + 'kubectl -n "$NS" port-forward pod/impalad-0 21050:21050 &\n'
    assert len(found(again)) == 1


# -- issue 25: a kill meets the first relaunch after it, not every later start -----------------

# GoogleCloudPlatform/cluster-toolkit tools/rdma-preflight.sh:84-96: `killall rping`, the rping
# server started again in the background (reported), `sleep 10`, then an rping client: the
# client was reported too, as a second restart after the same kill.
_SERVER_THEN_CLIENT = ("killall rping 2>/dev/null\nrping -d -s -a \"$IP\" >/dev/null &\n"
                       "sleep 10\nrping -d -c -C 1 -a \"$IP\"\n")


def test_the_first_relaunch_after_a_kill_is_the_one_that_meets_it(tmp_path: Path) -> None:
    """Real bash: an old process that takes a second to stop is still there when the first
    start after the kill runs; every later start runs after that first one."""
    from harness.stubs import StubDir

    stubs = StubDir(tmp_path, names=["killall", "rping"])
    subprocess.run(["bash", "-c", _SERVER_THEN_CLIENT.replace("sleep 10", "sleep 0")],
                   env=stubs.env(), check=True, timeout=10)
    # (the background server may record after the client: compare as a set, kill first)
    records = [r[0] for r in stubs.records()]
    assert records[0] == "killall" and sorted(records[1:]) == ["rping", "rping"]
    script = ('sh -c \'trap "sleep 1; exit 0" TERM; while :; do sleep 0.05; done\' & p=$!\n'
              "sleep 0.3\nkill $p\n"
              'kill -0 $p 2>/dev/null && echo old-alive-at-first-start\n')
    res = subprocess.run(["bash", "-c", script + "wait\n"], capture_output=True, text=True,
                         timeout=10)
    assert res.stdout == "old-alive-at-first-start\n", res.stderr
    [(line, _, d)] = found(_SERVER_THEN_CLIENT)
    assert line == 2 and "on line 1 killed" in d.text


@pytest.mark.parametrize(("src", "lines"), [
    # the first start runs only on some runs: the later one may be the first on the others
    ('pkill -f srv.py\nif [ -n "$A" ]; then python3 srv.py --a & fi\npython3 srv.py --b &\n',
     [2, 3]),
    ('pkill -f srv.py\n[ -n "$A" ] && python3 srv.py --a &\npython3 srv.py --b &\n', [2, 3]),
    ('pkill -f srv.py\nfor i in $L; do python3 srv.py --w "$i" & done\npython3 srv.py --b &\n',
     [2, 3]),
    # on every run after the first: one finding, at the first
    ('pkill -f srv.py\npython3 srv.py --a &\npython3 srv.py --b &\n', [2]),
    # a second kill before the later start pairs with it
    ('pkill -f srv.py\npython3 srv.py --a &\npkill -f srv.py\npython3 srv.py --b &\n', [2, 4]),
])
def test_a_later_start_is_paired_only_when_no_relaunch_always_ran_before(
        src: str, lines: list[int]) -> None:
    assert [line for line, _, _ in found(src)] == lines, src
