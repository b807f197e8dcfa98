"""The pre-commit hook, installed by the real `pre-commit` into a throw-away repository.

pre-commit builds the hook's environment with pip from this checkout, so the first run takes a
while (the package registry must be reachable, as it is for `.ci/run`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SSH = "ssh -n -o BatchMode=yes -o ConnectTimeout=10 deploy@web1"
BAD = f"#!/bin/sh\n{SSH} 'echo \"restarting\n'\n"  # the remote shell cannot parse it
GOOD = f"#!/bin/sh\n{SSH} 'echo \"restarting\"'\n"
ZSH = "#!/bin/zsh\nfiles=(**/*.sh(N.))\nprint -l ${files:t}\n"  # a glob qualifier: not bash


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env,
                          check=check, timeout=600)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    exe = shutil.which("pre-commit")
    cmd = [exe] if exe else ["python3", "-m", "pre_commit"]
    return subprocess.run([*cmd, *args], cwd=repo, capture_output=True, text=True, env=env,
                          timeout=900, check=False)


def test_try_repo_reports_bad_script(tmp_path: Path, pre_commit_home: Path) -> None:
    repo = tmp_path / "ops"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "deploy.sh").write_text(BAD)
    (repo / "ok.sh").write_text(GOOD)
    git(repo, "add", ".")
    bad = pre_commit(repo, pre_commit_home, "try-repo", str(ROOT), "quotecheck", "--files",
                     "deploy.sh")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "deploy.sh:2:" in bad.stdout and "QC001" in bad.stdout
    # Valid zsh that quotecheck only notes it cannot analyse (an info finding) passes too:
    # the hook fails on warnings and errors.
    (repo / "notes.zsh").write_text(ZSH)
    git(repo, "add", ".")
    good = pre_commit(repo, pre_commit_home, "try-repo", str(ROOT), "quotecheck", "--files",
                      "ok.sh", "notes.zsh")
    assert good.returncode == 0, good.stdout + good.stderr


def test_try_repo_reads_python_and_makefiles(tmp_path: Path, pre_commit_home: Path) -> None:
    """pre-commit hands the hook Python files and Makefiles too (`types_or`), and the hook
    finds the seed's failure in a Python launch and a `$HOME` that make swallows."""
    repo = tmp_path / "ops"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text(
        'import subprocess\n'
        'subprocess.run(["ssh", "gpu1", "pkill -f train.py; nohup python3 train.py &"])\n')
    (repo / "Makefile").write_text("backup:\n\ttar czf $HOME/backup.tgz data\n")
    (repo / "README.md").write_text("ssh h 'echo \"x'\n")
    (repo / "Dockerfile").write_text("FROM python:3.11-slim\nCMD python3 train.py\n")
    (repo / "backup.cron").write_text("0 3 * * * tar czf /b/$(date +%F).tgz /srv\n")
    git(repo, "add", ".")
    run = pre_commit(repo, pre_commit_home, "try-repo", str(ROOT), "quotecheck", "--files",
                     "app.py", "Makefile", "README.md", "Dockerfile", "backup.cron")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "app.py:2:" in run.stdout and "QC201" in run.stdout
    assert "Makefile:2:10: error QC401" in run.stdout
    assert "Dockerfile:2:5: warning QC404" in run.stdout
    assert "README.md" not in run.stdout and "backup.cron" not in run.stdout
    # Crontabs and units have no pre-commit type: the second hook takes them by name.
    cron = pre_commit(repo, pre_commit_home, "try-repo", str(ROOT),
                      "quotecheck-config-files", "--files", "backup.cron", "README.md")
    assert cron.returncode == 1, cron.stdout + cron.stderr
    assert "backup.cron:1:30: error QC405" in cron.stdout and "README.md" not in cron.stdout


def test_installed_hook_blocks_a_bad_commit(tmp_path: Path, pre_commit_home: Path) -> None:
    head = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    listed = git(ROOT, "ls-tree", "--name-only", head).stdout.split()
    assert ".pre-commit-hooks.yaml" in listed, "commit the hook definition first"
    repo = tmp_path / "ops"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head}\n    hooks:\n      - id: quotecheck\n")
    installed = pre_commit(repo, pre_commit_home, "install")
    assert installed.returncode == 0, installed.stderr
    (repo / "deploy.sh").write_text(BAD)
    git(repo, "add", ".")
    blocked = git(repo, "commit", "-qm", "bad deploy script", check=False)
    assert blocked.returncode != 0
    assert "QC001" in blocked.stdout + blocked.stderr
    assert git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0
    (repo / "deploy.sh").write_text(GOOD)
    git(repo, "add", ".")
    done = git(repo, "commit", "-qm", "good deploy script", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "log", "--oneline").stdout.count("\n") == 1
