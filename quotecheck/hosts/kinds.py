"""Which host format a file is, by its name and its first line, and the reader of each.

Python: ``*.py``/``*.pyw`` and a ``#!`` line naming python; make: ``Makefile``,
``makefile``, ``GNUmakefile``, ``*.mk``; Dockerfile: ``Dockerfile``, ``Containerfile``,
``Dockerfile.*``, ``*.Dockerfile``, ``*.dockerfile``; crontab: ``crontab``, ``*.cron``,
``*.crontab`` and the files of a ``cron.d`` directory; systemd: ``*.service``, ``*.socket``.
YAML (``*.yml``, ``*.yaml``): GitHub Actions under ``.github/workflows/`` and ``action.yml``;
Compose as ``compose.yaml``, ``docker-compose*.yml`` or a top-level ``services:`` with an
``image:`` or ``build:``; Ansible role ``tasks/``/``handlers/`` and playbooks (a list of plays
with ``hosts:``); Kubernetes manifests (``apiVersion:`` and ``kind:`` at the top level).
A file that is neither shell nor one of these is not read (``files.py``)."""

from __future__ import annotations

from pathlib import PurePath

from quotecheck.hosts.model import HostFile
from quotecheck.lazy_regex import lazy_compile

HOST_FILE_NAMES = {"Makefile": "make", "makefile": "make", "GNUmakefile": "make",
                   "compose.yaml": "compose", "compose.yml": "compose",
                   "docker-compose.yaml": "compose", "docker-compose.yml": "compose",
                   "Dockerfile": "dockerfile", "Containerfile": "dockerfile",
                   "dockerfile": "dockerfile", "crontab": "crontab"}
HOST_EXTENSIONS = {".py": "python", ".pyw": "python", ".mk": "make",
                   ".dockerfile": "dockerfile", ".cron": "crontab", ".crontab": "crontab",
                   ".service": "systemd", ".socket": "systemd"}
HOST_FORMATS = ("python", "make", "dockerfile", "crontab", "systemd", "github-actions",
                "kubernetes", "compose", "ansible")
# cron reads only the files of cron.d named like this (crontab(5) on Debian: "they must consist
# solely of upper- and lower-case letters, digits, underscores, and hyphens").
_CRON_D_NAME = lazy_compile(r"[A-Za-z0-9_-]+")
# How much of a file's start ``host_format`` needs (a manifest's `kind:` may come after a
# licence header, or in its second document).
HEAD_CHARS = 4096
# A Kubernetes manifest's first lines (the head of the file is what is read here).
_API_VERSION = lazy_compile(r"(?m)^apiVersion:")
_KUBERNETES = lazy_compile(r"(?m)^kind:\s*[A-Z]\w*\s*$")
# A Compose file of another name (`stack.yml`, `docker/ml.yml`): services with images or builds.
_COMPOSE_SERVICES = lazy_compile(r"(?m)^services:\s*$")
_COMPOSE_SERVICE_KEYS = lazy_compile(r"(?m)^\s+(?:image|build):")
# An Ansible playbook: a list of plays, each with its hosts.
_PLAYBOOK = lazy_compile(r"(?m)^-\s+(?:name:.*\n\s+)?hosts:")
# A Python module launches nothing without one of these names: most are not parsed at all.
_PYTHON_LAUNCH_WORDS = ("subprocess", "system", "popen", "exec", "spawn", "fabric")


def host_format(path: PurePath | None, head: str) -> str | None:
    """The host format of a file named ``path`` whose text starts with ``head``, or None (a
    file with a shell's extension is a shell script first: ``files.host_file_format``)."""
    if path is not None:
        by_name = HOST_FILE_NAMES.get(path.name) or HOST_EXTENSIONS.get(path.suffix.lower())
        if by_name is not None:
            return by_name
        if path.name.startswith(("Dockerfile.", "Containerfile.")):
            return "dockerfile"  # Dockerfile.dev, Dockerfile.gpu
        if path.name.startswith(("docker-compose.", "compose.")) and \
                path.suffix in (".yml", ".yaml"):
            return "compose"  # docker-compose.override.yml, compose.gpu.yaml
        if path.parent.name == "cron.d" and _CRON_D_NAME.fullmatch(path.name):
            return "crontab"
        if path.suffix in (".yml", ".yaml") and (
                (path.parent.name == "workflows" and path.parent.parent.name == ".github")
                or path.stem == "action"):
            return "github-actions"  # a workflow, or an action's action.yml
        if path.suffix in (".yml", ".yaml") and (
                path.parent.name in ("tasks", "handlers") or _PLAYBOOK.search(head)):
            return "ansible"  # a role's tasks or handlers, or a playbook
        if path.suffix in (".yml", ".yaml") and _KUBERNETES.search(head) and \
                _API_VERSION.search(head) and "{{" not in head:
            # a manifest: `apiVersion:` and a `kind:` (its workloads may come in a later
            # document; a Helm or Jinja template is no YAML until it is rendered: not read)
            return "kubernetes"
        if path.suffix in (".yml", ".yaml") and _COMPOSE_SERVICES.search(head) and \
                _COMPOSE_SERVICE_KEYS.search(head):
            return "compose"
    from quotecheck.hosts.python import is_python_shebang

    first = head.split("\n", 1)[0]
    return "python" if is_python_shebang(first) else None


def read_host(format: str, source: str, path: PurePath | None = None) -> HostFile:
    if format == "python":
        if not any(word in source for word in _PYTHON_LAUNCH_WORDS):
            return HostFile("python", ())
        from quotecheck.hosts.python import read_python

        return read_python(source)
    if format == "make":
        from quotecheck.hosts.make import read_makefile

        return read_makefile(source)
    if format == "dockerfile":
        from quotecheck.hosts.dockerfile import read_dockerfile

        return read_dockerfile(source)
    if format == "crontab":
        from quotecheck.hosts.crontab import is_system_crontab, read_crontab

        return read_crontab(source, system=is_system_crontab(path))
    if format == "github-actions":
        from quotecheck.hosts.github_actions import read_workflow

        return read_workflow(source)
    if format == "ansible":
        from quotecheck.hosts.ansible import read_ansible

        return read_ansible(source)
    if format == "compose":
        from quotecheck.hosts.compose import read_compose

        return read_compose(source)
    if format == "kubernetes":
        from quotecheck.hosts.kubernetes import read_manifests

        return read_manifests(source)
    if format == "systemd":
        from quotecheck.hosts.systemd import read_unit

        return read_unit(source)
    raise ValueError(f"unknown host format: {format}")
