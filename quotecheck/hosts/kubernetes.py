"""Kubernetes manifests as a host: the argv of each container of a pod spec (a Pod's `spec`,
and every pod template, `template: {spec: {containers: ...}}`, wherever a kind keeps it: Job,
CronJob, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, and custom
resources such as a RayCluster's or a PyTorchJob's; several documents in one file).

What the kubelet does (kubernetes.io, "Define a Command and Arguments for a Container" and the
`Container` API reference; quoted in tests/hosts/test_kubernetes.py):

* `command` replaces the image's ENTRYPOINT and `args` its CMD; the container runs
  `command + args` as its argv, with no shell;
* `$(VAR_NAME)` is replaced by the value of a variable the container defines (`env:`); a
  reference to an undefined variable stays as written; `$$` is one `$` ("Double $$ are
  reduced to a single $"), so `$$(VAR_NAME)` is the text `$(VAR_NAME)`. `$VAR` and `${VAR}`
  are not expanded: no shell reads the argv.
"""

from __future__ import annotations

from typing import Any

from quotecheck.hosts.model import HostFile, HostText, Launch, cut, run_time_part, splice
from quotecheck.hosts.yaml_scalars import (
    compose_documents,
    mapping_value,
    scalar_text,
    sequence_items,
)
from quotecheck.lazy_regex import lazy_compile

_get = mapping_value
_items = sequence_items

_REFERENCE = lazy_compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def _expanded(text: HostText, defined: set[str]) -> HostText:
    """The kubelet's `$(VAR)` expansion: a defined variable is a value known at run time,
    `$$` is `$`, anything else stays."""
    pieces: list[tuple[int, int, HostText]] = []
    for m in _REFERENCE.finditer(text.value):
        a, b = m.span()
        if m.group() == "$$":
            pieces.append((a, b, cut(text, a + 1, b)))
        elif m.group(1) in defined:
            pieces.append((a, b, run_time_part(text, a, b, m.group(1))))
    return splice(text, pieces)


def read_manifests(source: str) -> HostFile:
    documents = compose_documents(source, "kubernetes")
    if isinstance(documents, HostFile):
        return documents
    launches: list[Launch] = []
    for document in documents:
        kind = getattr(_get(document, "kind"), "value", None)
        for spec in _pod_specs(document):
            for field in ("initContainers", "containers"):
                for container in _items(_get(spec, field)):
                    launch = _container(source, container, kind)
                    if launch is not None:
                        launches.append(launch)
    return HostFile("kubernetes", tuple(sorted(launches, key=lambda x: x.span)))


def _pod_specs(document: Any) -> list[Any]:
    """The pod specs of a document: a Pod's `spec`, and the `spec` of each pod template
    (a mapping's `template:` holding `spec: {containers: ...}`) at any depth."""
    out: list[Any] = []
    if getattr(_get(document, "kind"), "value", None) == "Pod":
        out.append(_get(document, "spec"))
    stack = [document]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        value = getattr(node, "value", None)
        if id(node) in seen or not isinstance(value, list):
            continue
        seen.add(id(node))
        spec = _get(_get(node, "template"), "spec")
        if _get(spec, "containers") is not None:
            out.append(spec)
        for item in value:
            stack.extend(item if isinstance(item, tuple) else (item,))
    return [s for s in out if s is not None]


def _container(source: str, container: Any, kind: str | None) -> Launch | None:
    command = _items(_get(container, "command"))
    args = _items(_get(container, "args"))
    words = [*command, *args]
    if not command or not all(isinstance(getattr(w, "value", None), str) for w in words):
        return None  # no command: the image's ENTRYPOINT, which the manifest does not show
    defined = {getattr(_get(e, "name"), "value", "") for e in _items(_get(container, "env"))}
    argv = tuple(_expanded(scalar_text(source, w), defined) for w in words)
    name = getattr(_get(container, "name"), "value", None) or "?"
    span = (words[0].start_mark.index, words[-1].end_mark.index)
    return Launch(f"container {name} ({kind or 'manifest'})", span, argv=argv,
                  where=f"container:{name}")
