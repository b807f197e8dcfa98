"""QC109 local-glob-or-tilde: globs and ~ meant for the other side are expanded here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _support import Finder, fixture_test

CODE = "QC109"
found = Finder(CODE, severity="hint")


test_fixture_expectations = fixture_test(
    "handoffs", [CODE], lambda path, text: [d for _, _, d in found(text)])


def test_real_bash_expands_before_the_command_sees_the_words(tmp_path: Path) -> None:
    """`ssh h ls ~/x *.log` hands ssh the local home and the local matches."""
    (tmp_path / "here.log").write_text("")
    home = tmp_path / "home"
    out = subprocess.run(["bash", "-c", "printf '%s\\n' ssh h ls ~/x *.log 'ls *.log'"],
                         cwd=tmp_path, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=10, check=True)
    assert out.stdout.splitlines() == ["ssh", "h", "ls", f"{home}/x", "here.log", "ls *.log"]


def test_ssh_words() -> None:
    src = "ssh h ls ~/x *.log"
    [(l1, c1, tilde), (l2, c2, glob)] = found(src)
    assert (l1, c1, l2, c2) == (1, 10, 1, 14)
    assert "`~/x`" in tilde.text and "`*.log`" in glob.text
    assert "`ssh h 'ls ~/x *.log'`" in glob.text
    assert tilde.severity == glob.severity == "warning"
    [fix] = glob.fixes
    assert fix.applicability == "unsafe" and fix.edits[0].text == "'*.log'"


def test_quoted_or_local_words_are_not_reported() -> None:
    for src in ["ssh h 'ls ~/x *.log'", 'ssh h ls "*.log"', "ssh h ls \\*.log",
                "timeout 5 ls *.log", "ls ~/x *.log", "ssh root@[REDACTED_IP] uptime",
                "scp h:'*.log' .", "ssh h bash -s <<'EOF'\nls ~/*.log\nEOF\n",
                "sh -c 'cmd \"$1\"' sh \"$x\"", "ssh h 'echo '\\''~'\\'''",
                "ssh -i ~/.ssh/id_ed25519 h uptime", "ssh -F ~/.ssh/cfg h ls",
                "docker run --rm -v ~/data:/data img ls /data", "scp ~/x h:~/y"]:
        assert found(src) == [], src


def test_containers_and_chroot() -> None:
    [(_, col, d)] = found("docker exec app ls /var/log/*.log")
    assert col == 29 and "container" in d.text  # the `*`
    assert "`docker exec app sh -c 'ls /var/log/*.log'`" in d.text
    assert len(found("kubectl exec pod -- cat ~/.bashrc")) == 1
    assert len(found("chroot /srv/jail ls /etc/*.conf")) == 1
    assert found("docker exec app sh -c 'ls /var/log/*.log'") == []


def test_sudo_targets() -> None:
    [(_, _, d)] = found("sudo -u bob cat ~/.profile")
    assert d.severity == "warning" and "`bob`" in d.text
    assert found("sudo cat ~/.bashrc") == []  # root keeps your home on purpose
    [(_, _, d)] = found("sudo rm /root/*.tmp")
    assert d.severity == "info"


def test_in_a_remote_layer_the_remote_shell_is_the_culprit() -> None:
    src = "ssh h 'sudo -u bob ls ~'"
    [(_, col, d)] = found(src)
    assert src[col - 1] == "~"
    assert "remote" in d.text and d.fixes == ()


def test_one_finding_per_word() -> None:
    assert len(found("ssh h ls ~/logs/*.log")) == 1


@pytest.mark.parametrize("src", ["ssh", "ssh h", "ssh -N h *", "sudo", "docker exec",
                                 "kubectl exec p --", "$ssh h ~", "ssh h ~$x", "sudo -s *"])
def test_odd_inputs_do_not_crash(src: str) -> None:
    found(src)


def test_a_tilde_quoted_in_the_inner_text_is_never_expanded(tmp_path: Path) -> None:
    # Real dash as the inner shell, HOME pointing at a directory that holds the file: the
    # quoted `~` names a directory `~`, the fixed word the home directory.
    (tmp_path / "app.log").write_text("line\n")
    src = "sh -c \"cat '~/app.log'\""
    [d] = [d for d in found.diagnostics(src) if d.message.kind == "tilde-quoted-there"]
    assert src[d.span[0]:d.span[1]] == "'~/app.log'"
    assert "`~/'app.log'`" in d.text
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def run(inner: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["dash", "-c", inner], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=10, check=False)

    assert run("cat '~/app.log'").returncode != 0
    assert run("cat ~/'app.log'").stdout == "line\n"
    assert not [d for d in found.diagnostics("sh -c \"cat ~/'app.log'\"")
                if d.message.kind == "tilde-quoted-there"]


@pytest.mark.parametrize("src", [
    "ssh web1 \"cat '~/app/log'\"",
    'ssh web1 \'tail -f "~/app/log"\'',
])
def test_a_quoted_tilde_in_a_remote_command(src: str) -> None:
    [d] = [d for d in found.diagnostics(src) if d.message.kind == "tilde-quoted-there"]
    assert d.severity == "warning" and "remote" in d.text


@pytest.mark.parametrize("src", [
    "ssh web1 \"echo '~/x is the home'\"",  # a message
    "ssh web1 'ls ~/\"my dir\"'",
    "ssh web1 \"grep -F '~' notes.txt\"",  # not a path: no `~/`, and more than the `~`
])
def test_tildes_that_are_not_quoted_paths(src: str) -> None:
    assert not [d for d in found.diagnostics(src) if d.message.kind == "tilde-quoted-there"]


@pytest.mark.parametrize("option, effect", [("nullglob", "dropped"), ("failglob", "not run")])
def test_a_remote_path_pattern_under_nullglob_or_failglob(option: str, effect: str,
                                                           tmp_path: Path) -> None:
    """A stub `scp` records its argv: real bash drops (nullglob) the unmatched `HOST:PATH`
    word, or refuses to run the command (failglob)."""
    src = f'shopt -s {option}\nr=web1\nscp "$r":logs/*.html {tmp_path}/out/\n'
    [(_, _, d)] = found(src)
    assert d.severity == "warning" and effect in d.text
    stub = tmp_path / "bin" / "scp"
    stub.parent.mkdir()
    record = tmp_path / "argv"
    stub.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n')
    stub.chmod(0o755)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin"}
    subprocess.run(["bash", "-c", src], env=env, cwd=tmp_path, capture_output=True, timeout=10)
    got = record.read_text().split() if record.exists() else None
    assert got in ([f"{tmp_path}/out/"], None)  # the source is gone, or nothing ran
    fixed = src.replace("logs/*.html", "logs/\\*.html")
    subprocess.run(["bash", "-c", fixed], env=env, cwd=tmp_path, check=True, timeout=10)
    assert record.read_text().split() == ["web1:logs/*.html", f"{tmp_path}/out/"]
    assert not found(fixed)


def test_a_remote_path_pattern_bash_passes_on() -> None:
    assert not found("scp web1:logs/*.html /tmp/out/")  # no match: passed on as is
    assert not found("shopt -s nullglob\nscp ./*.html web1:logs/")  # local files


def test_the_callers_home_handed_to_a_user_switcher(tmp_path: Path) -> None:
    """`setuser consul consul agent -data-dir=$HOME/data`: a `setuser` stub that sets HOME for
    the user, as phusion's does, shows which home the program gets."""
    src = 'setuser consul printf "%s\\n" "$HOME/data"'
    [(_, _, d)] = found(src)
    assert d.severity == "warning" and "before setuser switches to `consul`" in d.text
    stub = tmp_path / "bin" / "setuser"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\nshift\nHOME=/var/lib/consul exec "$@"\n')
    stub.chmod(0o755)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "HOME": "/root"}
    out = subprocess.run(["bash", "-c", src], env=env, capture_output=True, text=True,
                         check=True, timeout=10).stdout
    assert out == "/root/data\n"
    advised = "setuser consul sh -c 'printf \"%s\\n\" \"$HOME/data\"'"
    out = subprocess.run(["bash", "-c", advised], env=env, capture_output=True, text=True,
                         check=True, timeout=10).stdout
    assert out == "/var/lib/consul/data\n"
    assert not found(advised)
    assert not found('sudo cp x "$HOME/"')  # root: your own home, as written
    assert not found('HOME=/srv/app\ngosu app ls "$HOME"')  # a HOME the script sets


# netdata/netdata, src/go/tools/functions-validation/e2e/mssql.sh line 202 (GPL-3.0-or-later):
# `-?` is sqlcmd's help option; the pattern is the program's, not a path in the container.
@pytest.mark.parametrize("src", [
    'help="$(docker exec -i "$cid" "$MSSQL_SQLCMD_PATH" -? 2>&1)"',
    "ssh h rsync -a --exclude=*.log src/ dst/",
])
def test_a_pattern_in_an_option_word_is_the_program_s(src: str) -> None:
    assert found(src) == []


def test_real_bash_passes_an_option_pattern_on_as_written(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    out = subprocess.run(["bash", "-c", "printf '%s\\n' -? --exclude=*.log"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=10, check=True).stdout
    assert out.split() == ["-?", "--exclude=*.log"]
