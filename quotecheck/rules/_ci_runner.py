"""Which shell a repository's CI files run a script file with (for QC207).

A `#!/bin/sh` script that the repository's CI runs by name with bash
(``/bin/bash -x .ci/community-jenkins/pr-builder.sh`` in a Jenkinsfile) never meets its `#!`
line there. The CI files looked at are ``Jenkinsfile*``, ``.gitlab-ci.yml``, ``.travis.yml``,
``azure-pipelines.yml``, ``.cirrus.yml`` in the script's folder and its parents up to the
repository root (the folder holding ``.git``), and ``.github/workflows/*.yml`` at the root.
A mention of the script's path (relative to the root or to the CI file's folder, also under a
checkout folder such as ``ompi-source/`` or ``$WORKSPACE/``, or its name from its own folder)
counts; the evidence holds only when every mention is an argument of
``bash`` (``bash script``, ``/bin/bash -x script``, ``bash -e ./script``; a comment line does
not count): one run by its own name (``./script``) or by ``sh`` leaves its `#!` line in force.
Read as text, never run.
"""

from __future__ import annotations

import contextlib
import os
import re

from quotecheck.rules._script_image import folders_up

_CI_NAMES = re.compile(r"Jenkinsfile[\w.-]*|\.gitlab-ci\.ya?ml|\.travis\.ya?ml|"
                       r"azure-pipelines\.ya?ml|\.cirrus\.ya?ml")
MAX_CI = 1 << 18
WORKFLOWS = (".github", "workflows")  # under the repository root: every *.yml / *.yaml in it
_BASH = re.compile(r"(?:^|[\s'\"`;&|(])(?:/usr)?(?:/bin/)?(?:env\s+)?bash(?:\s+-[A-Za-z]+)*\s+$")


def bash_runs(path: str | None) -> str | None:
    """The CI file (relative to the script's folder) that runs the script at ``path`` with
    bash, when every CI file that names it does so; else None."""
    if not path:
        return None
    script = os.path.normpath(os.path.abspath(path))
    folders = folders_up(os.path.dirname(script))
    root = folders[-1]
    files: list[str] = []
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        files.extend(os.path.join(folder, n) for n in names if is_ci_name(n))
    workflows = os.path.join(root, *WORKFLOWS)
    with contextlib.suppress(OSError):
        files.extend(os.path.join(workflows, n) for n in sorted(os.listdir(workflows))
                     if is_workflow_name(n))
    found: str | None = None
    for ci in files:
        verdict = _runs_with_bash(ci, script, root)
        if verdict is False:
            return None
        if verdict and found is None:
            found = os.path.relpath(ci, folders[0])
    return found


def is_ci_name(name: str) -> bool:
    """Is a file of this name, in the script's folder or a parent up to the root, a CI file
    read here? (Also what the precision corpus copies beside a script.)"""
    return bool(_CI_NAMES.fullmatch(name))


def is_workflow_name(name: str) -> bool:
    """Is a file of this name in the root's ``.github/workflows`` a workflow read here?"""
    return name.endswith((".yml", ".yaml"))


def _runs_with_bash(ci: str, script: str, root: str) -> bool | None:
    """True: the CI file names the script only after `bash`; False: it names it otherwise;
    None: it does not name it."""
    try:
        with open(ci, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_CI)
    except OSError:
        return None
    names = {os.path.relpath(script, root), os.path.relpath(script, os.path.dirname(ci))}
    seen = False
    for name in names:
        if name.startswith(".."):
            continue
        # A path with folders may sit under the job's checkout folder (`ompi-source/.ci/x.sh`,
        # `$WORKSPACE/.ci/x.sh`); a bare file name may not (it could be another folder's).
        checkout = r"(?:/?(?:[\w.-]|\$\{?\w+\}?)+/)*" if os.sep in name else ""
        pattern = re.compile(r"(?<![\w/.$-])" + checkout + r"(?:\./)?" + re.escape(name)
                             + r"(?![\w/.-])")
        for m in pattern.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            before = text[line_start:m.start()]
            if before.lstrip().startswith(("#", "//", "*", "/*")):
                continue  # a comment
            if not _BASH.search(before):
                return False
            seen = True
    return True if seen else None
