"""Never lose a file, never go quiet (issue 27): `check --output-file` never truncates an input
and writes its report only after every input is read; a report that cannot be written is one
line and status 2; `explain` calls a binary file binary as `check` does; `fix --write` keeps
every mode bit and refuses hard-linked files; `fix` takes `--quiet`, `--format`, `--exit-zero`
and `--stdin-filename` as `check` does.

Everything runs the real command line in a process of its own (or, where another user is
needed, the real functions in a forked child that drops root), on real files."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quotecheck.cli import main
from quotecheck.safe_write import NotWritten, read_snapshot, replace_contents

ROOT = Path(__file__).resolve().parent.parent
# Two warnings (QC103, QC205); QC205's fix needs --unsafe-fixes.
SCRIPT = ('#!/bin/bash\nread -rp "Release file: " release\n'
          'ssh -o BatchMode=yes -o ConnectTimeout=10 web1 "cd /srv/app && tar -xzf $release"\n'
          'echo "deployed"\n')
# QC301 alone, with --unsafe-fixes: one fix, applied.
HOSTKEY = 'ssh -o StrictHostKeyChecking=no h "ls"'
FIXED = 'ssh -o StrictHostKeyChecking=accept-new h "ls"'
FIX = ["fix", "--unsafe-fixes", "--select", "QC301"]
NOBODY = 65534


def qc(cwd: Path, *args: str, stdin: object = None, stdout: object = subprocess.PIPE
       ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quotecheck", *args], cwd=cwd, text=True,
                          stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=120,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})


def one_error(stderr: str) -> str:
    """The one line a failed run says: no traceback, no "internal error", nothing else."""
    assert stderr.count("\n") == 1 and stderr.startswith("quotecheck: error: "), stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    return stderr


# -- check --output-file: never an input, written last -----------------------------------------

@pytest.mark.parametrize("how", ["same name", "hard link", "symbolic link", "found in a walk",
                                 "standard input"])
def test_the_output_file_may_not_be_an_input(tmp_path: Path, how: str) -> None:
    script = tmp_path / "d.sh"
    script.write_text(SCRIPT)
    stdin = None
    if how == "same name":
        args = ["d.sh", "--output-file", "d.sh"]
    elif how == "hard link":
        os.link(script, tmp_path / "other.sh")
        args = ["--output-file", "other.sh", "d.sh"]
    elif how == "symbolic link":
        (tmp_path / "report").symlink_to("d.sh")
        args = ["--output-file", "report", "d.sh"]
    elif how == "found in a walk":
        (tmp_path / "dir").mkdir()
        script = tmp_path / "dir" / "a.sh"
        script.write_text(SCRIPT)
        args = ["--output-file", "dir/a.sh", "dir"]
    else:
        stdin = script.open()
        args = ["-", "--output-file", "d.sh"]
    proc = qc(tmp_path, "check", *args, stdin=stdin)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "is one of the inputs" in one_error(proc.stderr)
    assert script.read_text() == SCRIPT


def test_a_report_file_made_in_a_walked_directory_is_not_checked(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "a.sh").write_text(SCRIPT)
    proc = qc(tmp_path, "check", "--format", "concise", "--output-file", "dir/report.sh", "dir")
    assert proc.returncode == 1 and proc.stdout == ""
    report = (tmp_path / "dir" / "report.sh").read_text()
    assert report == qc(tmp_path, "check", "--format", "concise", "dir/a.sh").stdout
    assert report.endswith("1 file checked: 2 findings (2 warnings); fixable: 1 with "
                           "`quotecheck fix --unsafe-fixes`\n")


def test_the_report_replaces_the_old_contents_only_at_the_end(tmp_path: Path) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    old = "an older, longer report\n" * 500
    (tmp_path / "report.txt").write_text(old)
    # A run with nothing to check leaves the file alone...
    proc = qc(tmp_path, "check", "--output-file", "report.txt")
    assert proc.returncode == 2 and "nothing to check" in one_error(proc.stderr)
    assert (tmp_path / "report.txt").read_text() == old
    # ...and a run that checks replaces its contents, all of them.
    assert qc(tmp_path, "check", "--output-file", "report.txt", "d.sh").returncode == 1
    assert (tmp_path / "report.txt").read_text() == qc(tmp_path, "check", "d.sh").stdout


# -- a report that cannot be written: one line, status 2 ---------------------------------------

@pytest.mark.parametrize("target", ["/dev/full", "a directory", "in a missing directory",
                                    "under a file"])
def test_an_unwritable_output_file_is_one_line_and_status_2(tmp_path: Path,
                                                             target: str) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    (tmp_path / "dir").mkdir()
    path = {"/dev/full": "/dev/full", "a directory": "dir", "in a missing directory": "no/x",
            "under a file": "d.sh/x"}[target]
    proc = qc(tmp_path, "check", "--output-file", path, "d.sh")
    assert proc.returncode == 2 and proc.stdout == ""
    assert one_error(proc.stderr).startswith(f"quotecheck: error: --output-file {path}: ")
    assert (tmp_path / "d.sh").read_text() == SCRIPT


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory that nobody may search and read (pytest's own are root's alone)."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to become another user")
    made = Path(tempfile.mkdtemp(prefix="quotecheck-nobody-"))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made)


def _as_nobody(body: Callable[[], int]) -> tuple[int, str]:
    """Run ``body`` in a forked child that has dropped root for nobody: its return value and
    what it wrote on sys.stderr (status 99: it raised)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 99
        try:
            os.close(read)
            sys.stderr = io.StringIO()
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            try:
                status = body()
            except BaseException as exc:
                sys.stderr.write(f"raised {exc!r}\n")
            os.write(write, sys.stderr.getvalue().encode())
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        said = f.read().decode()
    _, waited = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(waited), said


def test_an_output_file_that_may_not_be_written_is_one_line_and_status_2(
        open_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (open_dir / "d.sh").write_text(SCRIPT)  # nobody may read here, not write
    assert main(["check", "--output-file", str(open_dir / "warm.txt"), str(open_dir / "d.sh")
                 ]) == 1  # every module the child needs is imported now
    capsys.readouterr()
    status, said = _as_nobody(lambda: main(
        ["check", "--output-file", str(open_dir / "report.txt"), str(open_dir / "d.sh")]))
    assert status == 2, said
    assert one_error(said) == (f"quotecheck: error: --output-file {open_dir / 'report.txt'}: "
                               "Permission denied\n")
    assert not (open_dir / "report.txt").exists()


def test_an_input_behind_a_directory_that_may_not_be_searched_is_an_input_error(
        open_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = open_dir / "locked"
    locked.mkdir(mode=0o700)
    (locked / "a.sh").write_text(SCRIPT)
    (open_dir / "d.sh").write_text(SCRIPT)
    for warm in (["check"], ["fix", "--diff"]):  # import all the child needs (typer too)
        assert main([*warm, str(locked / "a.sh"), str(open_dir / "d.sh")]) == 1
    capsys.readouterr()
    for args in (["check"], ["fix", "--diff"]):
        line = [*args, str(locked / "a.sh"), str(open_dir / "d.sh")]
        status, said = _as_nobody(lambda: main(line))  # noqa: B023  (called at once)
        assert status == 2, said
        assert f"quotecheck: error: {locked / 'a.sh'}: permission denied\n" in said, said
        assert "internal error" not in said


def test_a_directory_the_walk_cannot_list_is_an_input_error(
        open_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its scripts are not checked, so the run may not pass as if they were."""
    (open_dir / "ok.sh").write_text("echo ok\n")
    locked = open_dir / "locked"
    locked.mkdir(mode=0o700)
    (locked / "a.sh").write_text(SCRIPT)
    assert main(["check", str(open_dir)]) == 1  # as root: a.sh is found and has findings
    capsys.readouterr()
    status, said = _as_nobody(lambda: main(["check", str(open_dir)]))
    assert status == 2, said
    assert said == f"quotecheck: error: {locked}: permission denied (directory not walked)\n"


def test_a_parser_that_cannot_be_loaded_is_no_syntax_error(tmp_path: Path) -> None:
    """Without bashlex nothing parses: that is an installation error (status 2), never a QC001
    that calls a valid script broken."""
    (tmp_path / "ok.sh").write_text("echo ok\n")
    blocked = ("import sys; sys.modules['bashlex'] = None\n"  # import bashlex: ImportError
               "from quotecheck.cli import main; sys.exit(main(sys.argv[1:]))")
    for args in (["check", "ok.sh"], ["explain", "echo ok"]):
        proc = subprocess.run([sys.executable, "-c", blocked, *args], cwd=tmp_path, text=True,
                              capture_output=True, timeout=120, check=False,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 2, proc
        assert "cannot load bashlex" in proc.stderr and "Traceback" not in proc.stderr
        assert "QC001" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [["check", "d.sh"], ["check", "--format", "json", "d.sh"],
                                  ["explain", "--file", "d.sh"], ["fix", "d.sh"]])
def test_a_full_standard_output_is_one_line_and_status_2(tmp_path: Path,
                                                         args: list[str]) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    with open("/dev/full", "w") as full:
        proc = qc(tmp_path, *args, stdout=full)
    assert proc.returncode == 2
    # fix says what it did before its output fails: only its error line is asserted on
    err = proc.stderr.splitlines(keepends=True)[-1] if args[0] == "fix" else proc.stderr
    assert one_error(err) == ("quotecheck: error: standard output: cannot write the report "
                              "(No space left on device)\n")
    assert "Exception ignored" not in proc.stderr


# -- explain calls a binary file binary, as check does ----------------------------------------

def test_explain_calls_a_binary_file_binary_as_check_does(tmp_path: Path) -> None:
    (tmp_path / "b.sh").write_bytes(b"echo hi\0\0 $x\nssh h \"rm $f\"\n")
    check = qc(tmp_path, "check", "--format", "concise", "b.sh")
    assert check.returncode == 1
    note = check.stdout.splitlines()[0].partition(" QC002 ")[2]
    assert note.startswith("binary file")
    for args, stdin, name in (
            (["--file", "b.sh"], None, "b.sh"),
            (["--format", "json", "--file", "b.sh"], None, "b.sh"),
            (["-"], (tmp_path / "b.sh").open(), "standard input")):
        proc = qc(tmp_path, "explain", *args, stdin=stdin)
        assert proc.returncode == 2 and proc.stdout == ""
        assert one_error(proc.stderr).startswith(f"quotecheck: error: {name}: {note}")
    # Bytes that are not UTF-8 do not make a file binary, for either command.
    (tmp_path / "latin1.sh").write_bytes(b"echo caf\xe9 $x\n")
    assert "binary" not in qc(tmp_path, "check", "latin1.sh").stdout
    explained = qc(tmp_path, "explain", "--file", "latin1.sh")
    assert explained.returncode == 0 and "echo" in explained.stdout


# -- fix --write: every mode bit, no hard link broken -----------------------------------------

@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o1755, 0o7751, 0o6700], ids=oct)
def test_fix_write_keeps_every_mode_bit(tmp_path: Path, mode: int) -> None:
    script = tmp_path / "a.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    script.chmod(mode)
    proc = qc(tmp_path, *FIX, "--write", "a.sh")
    assert proc.returncode == 0, proc.stderr
    assert script.read_text() == f"#!/bin/bash\n{FIXED}\n"
    assert oct(stat.S_IMODE(script.stat().st_mode)) == oct(mode)
    assert [p.name for p in tmp_path.iterdir()] == ["a.sh"]


def test_fix_write_keeps_the_set_id_bits_of_a_users_own_file(open_dir: Path) -> None:
    """Not root: the owner, unchanged, keeps the set-user-ID and set-group-ID bits too."""
    work = open_dir / "work"
    work.mkdir()
    script = work / "a.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    os.chown(work, NOBODY, NOBODY)
    os.chown(script, NOBODY, NOBODY)
    script.chmod(0o6755)

    def fix() -> int:
        replace_contents(read_snapshot(script, 1 << 20), f"#!/bin/bash\n{FIXED}\n".encode())
        return 0

    status, said = _as_nobody(fix)
    assert status == 0, said
    st = script.stat()
    assert script.read_text() == f"#!/bin/bash\n{FIXED}\n"
    assert (oct(stat.S_IMODE(st.st_mode)), st.st_uid, st.st_gid) == (oct(0o6755), NOBODY,
                                                                     NOBODY)


def test_a_set_user_id_file_whose_owner_cannot_be_kept_is_not_fixed(open_dir: Path) -> None:
    """nobody may replace root's file in nobody's directory, but the new file would be
    nobody's: with the set-user-ID bit it would run as nobody, without it lose the bit."""
    work = open_dir / "work"
    work.mkdir()
    os.chown(work, NOBODY, NOBODY)
    script = work / "a.sh"
    original = f"#!/bin/bash\n{HOSTKEY}\n"
    script.write_text(original)
    script.chmod(0o4755)

    def fix() -> int:
        try:
            replace_contents(read_snapshot(script, 1 << 20), f"#!/bin/bash\n{FIXED}\n".encode())
        except NotWritten as exc:
            sys.stderr.write(f"{exc}\n")
            return 3
        return 0

    status, said = _as_nobody(fix)
    assert status == 3 and "set-user-ID" in said and "not fixed" in said
    st = script.stat()
    assert script.read_text() == original
    assert (oct(stat.S_IMODE(st.st_mode)), st.st_uid) == (oct(0o4755), 0)
    assert [p.name for p in work.iterdir()] == ["a.sh"]


def test_fix_write_refuses_a_file_with_several_hard_links(tmp_path: Path) -> None:
    original = f"#!/bin/bash\n{HOSTKEY}\n"
    (tmp_path / "a.sh").write_text(original)
    os.link(tmp_path / "a.sh", tmp_path / "b.sh")
    (tmp_path / "c.sh").write_text(original)
    proc = qc(tmp_path, *FIX, "--write", "a.sh", "c.sh")
    assert proc.returncode == 2
    assert ("quotecheck: error: a.sh: has 2 hard links: not fixed" in proc.stderr)
    assert (tmp_path / "a.sh").read_text() == (tmp_path / "b.sh").read_text() == original
    assert os.stat(tmp_path / "a.sh").st_ino == os.stat(tmp_path / "b.sh").st_ino
    assert (tmp_path / "c.sh").read_text() == f"#!/bin/bash\n{FIXED}\n"  # the others are fixed
    # Printing or diffing it writes nothing: no refusal.
    shown = qc(tmp_path, *FIX, "a.sh")
    assert shown.returncode == 0 and shown.stdout == f"#!/bin/bash\n{FIXED}\n"
    assert qc(tmp_path, *FIX, "--diff", "a.sh").returncode == 0


def test_a_hard_link_made_while_fixing_is_not_broken(tmp_path: Path) -> None:
    script = tmp_path / "a.sh"
    original = f"#!/bin/bash\n{HOSTKEY}\n".encode()
    script.write_bytes(original)
    snapshot = read_snapshot(script, 1 << 20)
    os.link(script, tmp_path / "b.sh")
    with pytest.raises(NotWritten, match="changed while it was being fixed"):
        replace_contents(snapshot, f"#!/bin/bash\n{FIXED}\n".encode())
    assert script.read_bytes() == (tmp_path / "b.sh").read_bytes() == original
    assert os.stat(script).st_ino == os.stat(tmp_path / "b.sh").st_ino


# -- fix takes check's --quiet, --format, --exit-zero, --stdin-filename -----------------------

def test_fix_quiet_leaves_only_the_suggestions(tmp_path: Path) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    loud = qc(tmp_path, "fix", "--write", "d.sh")
    quiet = qc(tmp_path, "fix", "--write", "-q", "d.sh")
    assert loud.returncode == quiet.returncode == 1
    assert loud.stderr.endswith("quotecheck: 0 files fixed, 0 fixes applied, 1 fix left as "
                                "suggestions\n")
    suggestion = "d.sh:4:1: suggestion QC205: stop with a message when the step fails " \
                 "(needs --unsafe-fixes)\n"
    assert suggestion in loud.stderr and quiet.stderr == suggestion
    (tmp_path / "a.sh").write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    proc = qc(tmp_path, *FIX, "--write", "--quiet", "a.sh")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert (tmp_path / "a.sh").read_text() == f"#!/bin/bash\n{FIXED}\n"


def test_fix_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    assert qc(tmp_path, "fix", "d.sh").returncode == 1
    proc = qc(tmp_path, "fix", "--exit-zero", "d.sh")
    assert proc.returncode == 0 and proc.stdout == SCRIPT
    assert qc(tmp_path, "fix", "--exit-zero", "missing.sh").returncode == 2  # 2 stays 2


@pytest.mark.parametrize("output_format", ["concise", "full", "github"])
def test_fix_format_reports_what_check_reports_of_the_fixed_file(tmp_path: Path,
                                                                 output_format: str) -> None:
    script = tmp_path / "a.sh"
    script.write_text(SCRIPT + HOSTKEY + "\n")
    proc = qc(tmp_path, "fix", "--select", "QC103,QC301", "--unsafe-fixes", "--write",
              "--format", output_format, "a.sh")
    assert proc.returncode == 1
    assert script.read_text() == SCRIPT + FIXED + "\n"
    check = qc(tmp_path, "check", "--select", "QC103,QC301", "--format", output_format,
               "a.sh").stdout
    findings = check.rpartition("1 file checked")[0] if output_format != "github" else check
    assert findings and "QC103" in findings and "QC301" not in findings
    assert proc.stderr.startswith("fixed a.sh (1 fix)\n" + findings)


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_fix_format_json_and_sarif_is_that_document_alone(tmp_path: Path,
                                                          output_format: str) -> None:
    script = tmp_path / "a.sh"
    script.write_text(SCRIPT)
    proc = qc(tmp_path, "fix", "--format", output_format, "a.sh")
    assert proc.returncode == 1 and proc.stdout == SCRIPT
    check = qc(tmp_path, "check", "--format", output_format, "a.sh")
    assert json.loads(proc.stderr) == json.loads(check.stdout)


def test_fix_format_reports_a_binary_file_as_check_does(tmp_path: Path) -> None:
    (tmp_path / "b.sh").write_bytes(b"echo a\0b\n")
    fixed = qc(tmp_path, "fix", "--write", "--format", "concise", "b.sh")
    checked = qc(tmp_path, "check", "--format", "concise", "b.sh")
    assert fixed.returncode == checked.returncode == 1
    assert fixed.stderr.splitlines()[0] == checked.stdout.splitlines()[0]
    assert "QC002 binary file" in fixed.stderr


def test_fix_stdin_filename_names_standard_input(tmp_path: Path) -> None:
    (tmp_path / "d.sh").write_text(SCRIPT)
    proc = qc(tmp_path, "fix", "--stdin-filename", "ci/deploy.sh", stdin=(tmp_path / "d.sh").open())
    assert proc.returncode == 1 and proc.stdout == SCRIPT
    assert "ci/deploy.sh:4:1: suggestion QC205" in proc.stderr
    # its per-path ignores apply to the name given; another name's do not
    (tmp_path / ".quotecheck.toml").write_text('[per-path-ignores]\n"ci/*" = ["QC1", "QC2"]\n')
    proc = qc(tmp_path, "fix", "--stdin-filename", "ci/deploy.sh", "-",
              stdin=(tmp_path / "d.sh").open())
    assert proc.returncode == 0 and "suggestion QC" not in proc.stderr
    assert qc(tmp_path, "fix", "--stdin-filename", "other/deploy.sh",
              stdin=(tmp_path / "d.sh").open()).returncode == 1
    # and with paths, it is a usage error
    proc = qc(tmp_path, "fix", "--stdin-filename", "x.sh", "d.sh")
    assert proc.returncode == 2 and "--stdin-filename names standard input" in proc.stderr


# -- explain lists the findings check reports ---------------------------------------------------

@pytest.mark.parametrize("shell", [[], ["--shell", "dash"]], ids=["own shell", "dash"])
def test_explain_lists_the_findings_check_reports(tmp_path: Path, shell: list[str]) -> None:
    """As the README says: those of `check --severity info` on the same input, configuration
    included (explain reads the configuration check reads)."""
    (tmp_path / "d.sh").write_text(SCRIPT + "# quotecheck: disable=QC205\necho done\n")
    (tmp_path / ".quotecheck.toml").write_text('ignore = ["QC103"]\n')
    for path in (tmp_path / "d.sh", ROOT / "fixtures" / "dflash" / "restart.sh"):
        explained = json.loads(qc(tmp_path, "explain", "--format", "json", *shell, "--file",
                                  str(path)).stdout)["diagnostics"]
        checked = json.loads(qc(tmp_path, "check", "--format", "json", "--severity", "info",
                                *shell, str(path)).stdout)["files"][0]
        assert explained, path
        assert explained == checked["diagnostics"]
        text = qc(tmp_path, "explain", *shell, "--file", str(path)).stdout
        for d in explained:
            start = d["range"]["start"]
            assert f"{start['line'] + 1}:{start['character'] + 1}: " \
                   f"{['', 'error', 'warning', 'info', 'hint'][d['severity']]} {d['code']} " in text


@pytest.mark.parametrize("args", [["rules"], ["rule", "QC201"], ["quote", "--", "echo", "hi"],
                                  ["--help"], ["--version"]])
def test_every_command_says_a_full_standard_output_in_one_line(tmp_path: Path,
                                                               args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = qc(tmp_path, *args, stdout=full)
    assert proc.returncode == 2
    assert one_error(proc.stderr) == ("quotecheck: error: standard output: cannot write "
                                      "(No space left on device)\n")
