"""`quotecheck fix --write` never loses data: atomic replacement, no symbolic link followed,
no FIFO touched, original bytes kept, limits applied, a file that cannot be written is an input
error while the others are fixed; and the patches of `--diff` apply with the real tools."""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quotecheck.cli import main
from quotecheck.safe_write import NotWritten, read_snapshot, replace_contents

HOSTKEY = 'ssh -o StrictHostKeyChecking=no h "ls"'
FIXED = 'ssh -o StrictHostKeyChecking=accept-new h "ls"'
FIX = ["fix", "--unsafe-fixes", "--select", "QC301"]
ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*FIX, *args])
    out, err = capsys.readouterr()
    return code, out, err


def quotecheck(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "quotecheck", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            **kwargs)  # type: ignore[call-overload]


def test_bytes_that_are_not_utf8_survive_on_untouched_lines(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    script = tmp_path / "a.sh"
    original = b"#!/bin/bash\necho caf\xe9 \xff\xfe\n" + HOSTKEY.encode() + b"\n# \xc3(\n"
    script.write_bytes(original)
    code, _, err = run(capsys, "--write", str(script))
    assert code == 0, err
    assert script.read_bytes() == original.replace(HOSTKEY.encode(), FIXED.encode())


def test_a_fixed_line_keeps_its_bytes_that_are_not_utf8(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    script = tmp_path / "a.sh"
    line = b'ssh -o StrictHostKeyChecking=no h "ls \xe9"\n'
    script.write_bytes(b"#!/bin/bash\n" + line)
    code, _, err = run(capsys, "--write", str(script))
    assert code == 0, err
    assert script.read_bytes() == b"#!/bin/bash\n" + line.replace(b"=no", b"=accept-new")


def test_mode_bits_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "a.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    script.chmod(0o751)
    assert run(capsys, "--write", str(script))[0] == 0
    assert script.read_text() == f"#!/bin/bash\n{FIXED}\n"
    assert script.stat().st_mode & 0o7777 == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["a.sh"]  # no temporary file left


def test_a_walk_does_not_follow_a_symlink_out_of_the_tree(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.sh").symlink_to(outside)
    (tree / "own.sh").write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    code, _, err = run(capsys, "--write", str(tree))
    assert code == 0, err
    assert outside.read_text() == f"#!/bin/bash\n{HOSTKEY}\n"
    assert (tree / "own.sh").read_text() == f"#!/bin/bash\n{FIXED}\n"
    assert (tree / "link.sh").is_symlink()


def test_a_symlink_given_is_not_written_through(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "target.sh"
    target.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    (tmp_path / "link.sh").symlink_to(target)
    other = tmp_path / "other.sh"
    other.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    code, _, err = run(capsys, "--write", str(tmp_path / "link.sh"), str(other))
    assert code == 2 and "link.sh: is a symbolic link" in err
    assert target.read_text() == f"#!/bin/bash\n{HOSTKEY}\n"
    assert other.read_text() == f"#!/bin/bash\n{FIXED}\n"  # the other files go on


def test_a_fifo_is_neither_read_nor_written(tmp_path: Path) -> None:
    fifo = tmp_path / "p.sh"
    os.mkfifo(fifo)
    proc = quotecheck(*FIX, "--write", str(fifo))
    # A writer that would block for ever if quotecheck opened the FIFO to write into it, and
    # whose text quotecheck would have fixed if it read the FIFO.
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        os.write(writer, f"#!/bin/bash\n{HOSTKEY}\n".encode())
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and b"not a regular file" in err
        assert os.read(writer, 1000) == f"#!/bin/bash\n{HOSTKEY}\n".encode()
    finally:
        os.close(writer)
        proc.kill()


def test_max_file_size_applies_to_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".quotecheck.toml").write_text("[limits]\nmax-file-size = 20\n")
    script = tmp_path / "a.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    code, _, err = run(capsys, "--write", "a.sh")
    assert code == 2 and "too large" in err
    assert script.read_text() == f"#!/bin/bash\n{HOSTKEY}\n"


def test_a_file_size_limit_leaves_the_original_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.sh"
    original = (f"#!/bin/bash\n{HOSTKEY}\n" + "echo filler line\n" * 8000).encode()
    big.write_bytes(original)
    small = tmp_path / "small.sh"
    small.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    limit = 40 * 1024  # the small file fits, the big one (136 KB) does not

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = quotecheck(*FIX, "--write", str(big), str(small), preexec_fn=cap)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, err
    assert b"big.sh" in err
    assert big.read_bytes() == original
    assert small.read_text() == f"#!/bin/bash\n{FIXED}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.sh", "small.sh"]


def test_a_killed_run_leaves_each_file_original_or_wholly_fixed(tmp_path: Path) -> None:
    body = f"#!/bin/bash\n{HOSTKEY}\n" + "".join(f"echo line {i}\n" for i in range(300))
    expected = body.replace(HOSTKEY, FIXED).encode()
    rng = random.Random(15)
    for attempt in range(4):
        tree = tmp_path / f"run{attempt}"
        tree.mkdir()
        for i in range(40):
            (tree / f"s{i:02}.sh").write_text(body)
        proc = quotecheck(*FIX, "--write", str(tree))
        time.sleep(rng.uniform(1.0, 4.0))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        for i in range(40):
            data = (tree / f"s{i:02}.sh").read_bytes()
            assert data in (body.encode(), expected), f"s{i:02}.sh damaged"
        leftovers = [p for p in tree.iterdir() if not p.name.endswith(".sh")]
        assert all(p.name.endswith(".quotecheck-tmp") for p in leftovers)


def test_a_file_swapped_for_a_symlink_is_not_written_through(tmp_path: Path) -> None:
    script = tmp_path / "a.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    snapshot = read_snapshot(script, 1 << 20)
    target = tmp_path / "target.sh"
    target.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    script.unlink()
    script.symlink_to(target)
    with pytest.raises(NotWritten, match="changed while"):
        replace_contents(snapshot, f"#!/bin/bash\n{FIXED}\n".encode())
    assert target.read_text() == f"#!/bin/bash\n{HOSTKEY}\n"
    assert script.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sh", "target.sh"]


def test_a_file_swapped_for_a_symlink_during_a_run(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    body = f"#!/bin/bash\n{HOSTKEY}\n" + "echo x\n" * 200
    for i in range(20):
        (tree / f"s{i:02}.sh").write_text(body)
    target = tmp_path / "target.sh"
    target.write_text(body)
    proc = quotecheck(*FIX, "--write", str(tree))
    victim = tree / "s19.sh"  # the last one: swapped before or while it is fixed
    time.sleep(0.5)
    swap = tree / "swap"
    swap.symlink_to(target)
    os.replace(swap, victim)
    proc.communicate(timeout=300)
    assert target.read_text() == body
    assert (tree / "s00.sh").read_text() == body.replace(HOSTKEY, FIXED)


def test_a_line_added_meanwhile_is_not_lost(tmp_path: Path) -> None:
    script = tmp_path / "a.sh"
    script.write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    snapshot = read_snapshot(script, 1 << 20)
    with script.open("a") as f:
        f.write("echo added\n")
    with pytest.raises(NotWritten):
        replace_contents(snapshot, f"#!/bin/bash\n{FIXED}\n".encode())
    assert script.read_text() == f"#!/bin/bash\n{HOSTKEY}\necho added\n"


# --diff, --write --diff, binary files, the closing line


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_a_diff_without_final_newline_applies(tool: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name, text in (("last.sh", f"#!/bin/bash\necho a\n{HOSTKEY}"),
                       ("context.sh", f"#!/bin/bash\n{HOSTKEY}\necho end")):
        (tmp_path / name).write_text(text)
        code, out, _ = run(capsys, "--diff", name)
        assert code == 0 and out
        (tmp_path / "fix.patch").write_text(out)
        if tool == "git":
            check = ["git", "apply", "--check", "fix.patch"]
            apply = ["git", "apply", "fix.patch"]
        else:
            check = ["patch", "-p1", "--dry-run", "-i", "fix.patch"]
            apply = ["patch", "-p1", "-i", "fix.patch"]
        for cmd in (check, apply):
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            assert res.returncode == 0, res.stdout + res.stderr
        assert (tmp_path / name).read_text() == text.replace(HOSTKEY, FIXED)


def test_write_and_diff_together(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.sh").write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    code, out, err = run(capsys, "--write", "--diff", "a.sh")
    assert code == 0, err
    assert f"-{HOSTKEY}\n" in out and f"+{FIXED}\n" in out
    assert (tmp_path / "a.sh").read_text() == f"#!/bin/bash\n{FIXED}\n"


def test_fix_and_check_agree_on_a_binary_file(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "b.sh"
    binary.write_bytes(b"echo a\0b\n" + HOSTKEY.encode() + b"\n")
    check = main(["check", str(binary)])
    check_out, _ = capsys.readouterr()
    code, _, err = run(capsys, "--write", str(binary))
    assert check == code == 1
    assert "QC002" in check_out and "QC002" in err and "binary" in err
    assert binary.read_bytes() == b"echo a\0b\n" + HOSTKEY.encode() + b"\n"


def test_fix_closes_with_what_it_did(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    (tmp_path / "a.sh").write_text(f"#!/bin/bash\n{HOSTKEY}\n{HOSTKEY}\n")
    (tmp_path / "b.sh").write_text("#!/bin/bash\necho fine\n")
    (tmp_path / "c.sh").write_text(f"#!/bin/bash\n{HOSTKEY}\n")
    code = main(["fix", "--write", "--select", "QC301", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.splitlines()[-1] == ("quotecheck: 0 files fixed, 0 fixes applied, "
                                    "3 fixes left as suggestions")
    code, _, err = run(capsys, "--write", str(tmp_path))
    assert code == 0
    assert err.splitlines()[-1] == ("quotecheck: 2 files fixed, 3 fixes applied, "
                                    "0 fixes left as suggestions")
