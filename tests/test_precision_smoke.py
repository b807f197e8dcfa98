"""benchmarks/precision.py: it runs, its table has its shape, and judgments are counted.

The corpus of the real benchmark is not in the repository (``--assemble`` builds it from local
copies of the projects), so these tests lay out a small corpus of their own the same way: a
manifest, files under ``<owner>__<repo>/``, a judgments file. One test also runs on real corpus
files when the corpus has been assembled on this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "precision.py"
REAL_CORPUS = ROOT / "benchmarks" / "precision" / "corpus"

STOP_REMOTE = """\
#!/bin/bash
# stop the daemon on every host listed in hosts.txt
pid_file=/var/run/app.pid
while read -r host; do
  pid=$(ssh -n "$host" cat "$pid_file")
  ssh "$host" "kill $pid" </dev/null
done < hosts.txt
"""

INSTALL = """\
#!/bin/sh
set -e
prefix=${PREFIX:-/usr/local}
mkdir -p "$prefix/bin"
cp tool "$prefix/bin/tool"
echo "installed"
"""

PLAIN = """\
#!/bin/bash
for f in "$@"; do
  printf '%s\\n' "$f"
done
"""

FILES = {"ops/stop-remote.sh": STOP_REMOTE, "install.sh": INSTALL, "list.sh": PLAIN}


def _blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _manifest(tmp: Path, commit: str = "0" * 40) -> Path:
    manifest = {"projects": [{
        "project": "example", "repo": "example/scripts", "commit": commit,
        "licence": "MIT", "licence_files": [], "kind": "test", "stored": False,
        "files": [{"path": p, "blob": _blob(t.encode())} for p, t in FILES.items()]}]}
    path = tmp / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def _corpus(tmp: Path) -> Path:
    corpus = tmp / "corpus"
    for rel, text in FILES.items():
        target = corpus / "example__scripts" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return corpus


def _commit_files(clone: Path, files: dict[str, str]) -> str:
    """Write ``files`` into a new git repository at ``clone``, commit them; the commit id."""
    for rel, text in files.items():
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "corpus"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=600, env=env, check=False)


def _table(markdown: str, header_start: str) -> list[list[str]]:
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_table_shape_judged_and_stale(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    manifest = _manifest(tmp_path)
    judgments = tmp_path / "judgments.txt"
    judgments.write_text(
        "# a comment, then a blank line\n\n"
        "example__scripts/ops/stop-remote.sh:6:QC103 true pid read from the remote file, "
        "pasted into remote code\n"
        "example__scripts/list.sh:2:QC103 false no such finding: stale\n"
        "example__scripts/list.sh:3 true malformed: no code\n",
        encoding="utf-8")
    out_json = tmp_path / "out.json"
    proc = _run("--corpus", corpus, "--manifest", manifest, "--judgments", judgments,
                "--json", out_json, "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    rules = _table(proc.stdout, "| rule |")
    assert rules[0][:8] == ["rule", "severity", "fired", "files", "judged", "true", "noise",
                            "false"]
    assert all(len(row) == len(rules[0]) for row in rules)
    by_code = {row[0]: row for row in rules[2:]}
    assert by_code["QC103"][4:8] == ["1", "1", "0", "0"]
    assert by_code["**all**"][4] == "1"
    severities = _table(proc.stdout, "| severity |")
    assert {row[0] for row in severities[2:]} <= {"error", "warning", "info", "hint"}
    assert "Stale judgments (no such finding now): 1" in proc.stdout
    assert "list.sh:2:QC103" in proc.stdout
    assert "list.sh:3 true malformed" in proc.stdout  # the unreadable line is shown

    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["files"] == 3
    assert data["rules"]["QC103"]["judged"] == 1 and data["rules"]["QC103"]["true"] == 1
    assert [j["line"] for j in data["stale_judgments"]] == [2]
    assert sum(r["fired"] for r in data["rules"].values()) == \
        sum(r["fired"] for r in data["severities"].values())
    if shutil.which("shellcheck"):
        assert data["shellcheck"]["ran"] and data["shellcheck"]["findings"] > 0
        # ShellCheck's SC2029 is on the judged ssh line too
        assert data["rules"]["QC103"]["shellcheck_on_judged_lines"] == 1


def test_parse_error_file_is_given_to_bash_n(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "example__scripts"
    corpus.mkdir(parents=True)
    (corpus / "broken.sh").write_text('#!/bin/bash\nif true; then\n  echo (\n', encoding="utf-8")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"projects": [{
        "project": "example", "repo": "example/scripts", "commit": "0" * 40, "licence": "MIT",
        "stored": False, "files": [{"path": "broken.sh", "blob": ""}]}]}), encoding="utf-8")
    out_json = tmp_path / "out.json"
    proc = _run("--corpus", tmp_path / "corpus", "--manifest", manifest, "--judgments",
                tmp_path / "none.txt", "--json", out_json, "--no-shellcheck", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out_json.read_text(encoding="utf-8"))
    [entry] = data["parse_errors"]
    assert entry["path"] == "example__scripts/broken.sh" and entry["qc001"] >= 1
    assert entry["bash_n"]["plain"] is False  # bash rejects it too
    assert "| example__scripts/broken.sh |" in proc.stdout


def test_assemble_reads_the_commit_and_checks_the_blob(tmp_path: Path) -> None:
    clone = tmp_path / "src" / "example__scripts"
    (clone / "ops").mkdir(parents=True)
    commit = _commit_files(clone, FILES)
    (clone / "install.sh").write_text("changed after the commit\n", encoding="utf-8")
    manifest = _manifest(tmp_path, commit)
    corpus = tmp_path / "corpus"
    proc = _run("--manifest", manifest, "--corpus", corpus, "--assemble", tmp_path / "src")
    assert proc.returncode == 0, proc.stderr
    for rel, text in FILES.items():  # the committed text, not the work tree's
        assert (corpus / "example__scripts" / rel).read_text(encoding="utf-8") == text

    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["projects"][0]["files"][0]["blob"] = "1" * 40
    manifest.write_text(json.dumps(data), encoding="utf-8")
    shutil.rmtree(corpus)
    proc = _run("--manifest", manifest, "--corpus", corpus, "--assemble", tmp_path / "src")
    assert proc.returncode == 1
    assert "differs from the manifest's blob" in proc.stderr


def test_assemble_adds_the_files_quotecheck_reads_beside_the_scripts(tmp_path: Path) -> None:
    clone = tmp_path / "src" / "example__scripts"
    beside = {  # Dockerfiles and CI files in a chosen script's folder or a parent; workflows
        "Jenkinsfile": "sh '/bin/bash -x ops/stop-remote.sh'\n",
        ".gitlab-ci.yml": "job:\n  script: bash install.sh\n",
        "ops/Dockerfile": "FROM alpine\nCOPY stop-remote.sh /\n",
        "ops/Containerfile.dev": "FROM fedora\n",
        ".github/workflows/ci.yml": "on: push\n",
    }
    elsewhere = {  # not read for any chosen script
        "other/Dockerfile": "FROM debian\n",
        "ops/sub/Jenkinsfile": "sh 'true'\n",
        ".github/workflows/README.md": "workflows\n",
        ".github/Dockerfile": "FROM busybox\n",
        "README": "docs\n",
    }
    commit = _commit_files(clone, {**FILES, **beside, **elsewhere})
    manifest = _manifest(tmp_path, commit)
    corpus = tmp_path / "corpus"
    proc = _run("--manifest", manifest, "--corpus", corpus, "--assemble", tmp_path / "src")
    assert proc.returncode == 0, proc.stderr
    root = corpus / "example__scripts"
    written = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
    assert written == set(FILES) | set(beside)
    assert (root / ".git").is_dir() and not any((root / ".git").iterdir())
    sys.path.insert(0, str(ROOT))
    try:
        from quotecheck.rules._script_image import folders_up
    finally:
        sys.path.pop(0)
    assert folders_up(str(root / "ops"))[-1] == str(root)  # the walk up stops at the project

    # only the manifest's scripts are checked and counted, not the files beside them
    out_json = tmp_path / "out.json"
    proc = _run("--corpus", corpus, "--manifest", manifest, "--judgments",
                tmp_path / "none.txt", "--json", out_json, "--no-shellcheck", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["files"] == len(FILES)
    assert data["lines"] == sum(t.count("\n") for t in FILES.values())


def test_real_corpus_files_when_assembled(tmp_path: Path) -> None:
    manifest = json.loads((ROOT / "benchmarks/precision/manifest.json").read_text("utf-8"))
    judged_files: dict[str, int] = {}
    for line in (ROOT / "benchmarks/precision/judgments.txt").read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            path = line.split(":", 1)[0]
            judged_files[path] = judged_files.get(path, 0) + 1
    known = {f"{p['repo'].replace('/', '__')}/{f['path']}"
             for p in manifest["projects"] for f in p["files"]}
    assert set(judged_files) <= known, "every judgment names a file of the manifest"
    picked = sorted(judged_files)[:3]
    if not picked:
        pytest.skip("no judgments yet")
    if not all((REAL_CORPUS / rel).is_file() for rel in picked):
        pytest.skip("the corpus is not assembled here (benchmarks/precision.py --assemble SRC)")
    out_json = tmp_path / "out.json"
    proc = _run(*picked, "--json", out_json, "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["files"] == len(picked)
    judged = sum(r["judged"] for r in data["rules"].values())
    # each judgment of these files either matches a finding or is listed as stale
    assert judged + len(data["stale_judgments"]) == sum(judged_files[p] for p in picked)


def test_select_chooses_by_the_rule_then_assemble_builds_it(tmp_path: Path) -> None:
    clone = tmp_path / "src" / "example__scripts"
    files = {
        **FILES,  # stop-remote.sh uses ssh and kill: a layered script
        "copy.sh": "#!/bin/sh\n# the same content as list.sh: counted once\n" + PLAIN,
        "twin.sh": "#!/bin/sh\n# the same content as list.sh: counted once\n" + PLAIN,
        "tool.zsh": "#!/bin/zsh\nprint -r -- $@\necho done\n",
        "vendor/lib.sh": "#!/bin/sh\necho vendored\necho code\n",
        "stub.sh": '#!/bin/sh\nexit "$1"\n',  # two lines: too short to say anything
        "notes.txt": "ssh host sudo kill\nnot a script\nat all\n",
        "bin/launch": "#!/usr/bin/env bash\nnohup ./server &\nsudo -u app ./setup\n",
        "bin/run.py": "#!/usr/bin/env python3\nimport os\nos.system('ssh x')\n",
    }
    commit = _commit_files(clone, files)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"projects": [{
        "project": "example", "repo": "example/scripts", "commit": commit, "licence": "MIT",
        "licence_files": [], "kind": "test", "stored": False, "files": []}]}), encoding="utf-8")
    proc = _run("--manifest", manifest, "--select", tmp_path / "src")
    assert proc.returncode == 0, proc.stderr
    chosen = [f["path"] for f in
              json.loads(manifest.read_text(encoding="utf-8"))["projects"][0]["files"]]
    assert chosen == sorted(chosen)
    assert {"ops/stop-remote.sh", "bin/launch", "install.sh", "list.sh"} <= set(chosen)
    assert len({"copy.sh", "twin.sh"} & set(chosen)) == 1
    assert not {"tool.zsh", "vendor/lib.sh", "stub.sh", "notes.txt", "bin/run.py"} & set(chosen)

    corpus = tmp_path / "corpus"
    proc = _run("--manifest", manifest, "--corpus", corpus, "--assemble", tmp_path / "src")
    assert proc.returncode == 0, proc.stderr
    for rel in chosen:
        assert (corpus / "example__scripts" / rel).read_text(encoding="utf-8") == files[rel]


def test_choose_files_caps_the_layered_share() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import precision
    finally:
        sys.path.pop(0)
    layered = [(f"l{i}.sh", f"{i:040x}", b"#!/bin/sh\nssh h true\nsudo kill 1\n")
               for i in range(30)]
    plain = [(f"p{i}.sh", f"{i + 100:040x}", b"#!/bin/sh\necho a\necho b\n") for i in range(3)]
    chosen = precision.choose_files(layered + plain)
    assert len(chosen) == precision.PER_PROJECT
    # three quarters layered (18), then every plain one (3), then layered again to fill up
    assert sum(p.startswith("p") for p, _ in chosen) == 3


def test_sets_have_their_own_manifest_judgments_and_corpus() -> None:
    for name in ("first", "unseen"):
        folder = ROOT / "benchmarks" / "precision" / ("" if name == "first" else name)
        manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
        assert manifest["projects"] and all(p["files"] for p in manifest["projects"])
        assert (folder / "judgments.txt").is_file()
    first = json.loads((ROOT / "benchmarks/precision/manifest.json").read_text("utf-8"))
    unseen = json.loads((ROOT / "benchmarks/precision/unseen/manifest.json").read_text("utf-8"))
    assert not {p["repo"] for p in first["projects"]} & {p["repo"] for p in unseen["projects"]}
    assert not ({f["blob"] for p in first["projects"] for f in p["files"]}
                & {f["blob"] for p in unseen["projects"] for f in p["files"]})
    known = {f"{p['repo'].replace('/', '__')}/{f['path']}"
             for p in unseen["projects"] for f in p["files"]}
    judged = [line.split(":", 1)[0] for line in
              (ROOT / "benchmarks/precision/unseen/judgments.txt").read_text("utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    assert judged and set(judged) <= known, "every unseen judgment names a file of its manifest"
