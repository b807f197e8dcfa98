"""Ansible playbooks and task files as a host: the `shell`, `command` and `raw` tasks.

What the modules do (docs.ansible.com, `ansible.builtin.shell`, `.command`, `.raw`; quoted
in tests/hosts/test_ansible.py; no Ansible here):

* `shell` runs the command "through a shell (`/bin/sh`) on the remote node", or through its
  `executable`;
* `command` does not: operations like `"*"`, `"<"`, `">"`, `"|"`, `";"` and `"&"` will not
  work; its string is split into words (quotes group), or `argv:` is the argv; then
  "environment variables are resolved via Python, not shell, see expand_argument_vars and are
  left unchanged if not matched" (ansible-core's run_command applies `os.path.expandvars`
  and `os.path.expanduser` to each word, on the target): `$NAME`, `${NAME}` and a leading `~`
  are values known when the task runs, unless `expand_argument_vars: false`;
* `raw` sends the command over ssh as it is: the remote login shell parses it;
* `cron` writes its `job` ("The command to execute") into the target's crontab as it is, after
  the time fields ("When using symbols such as %, they must be properly escaped"): cron runs
  it with `/bin/sh -c`, and an unescaped `%` ends the command there (crontab(5): the rest is
  its standard input); `\\%` is a `%`. Not with `env: true` (the job is a variable's value),
  `state: absent` or `disabled: true` (no entry runs);
* Jinja `{{ ... }}` is rendered into the text first: a value known only when the play runs;
  `{{ x | quote }}` is quoted for POSIX sh once.

A free-form command's trailing `chdir=`, `creates=`, `removes=`, `executable=` words are the
module's parameters, not the command's.
"""

from __future__ import annotations

import re
from typing import Any

from quotecheck.hosts.compose import split_words
from quotecheck.hosts.model import (
    HostFile,
    HostReference,
    HostText,
    HostValue,
    Launch,
    cut,
    run_time_part,
    splice,
)
from quotecheck.hosts.yaml_scalars import (
    compose_documents,
    mapping_value,
    scalar_text,
    sequence_items,
)
from quotecheck.lazy_regex import lazy_compile
from quotecheck.records import replace

_get = mapping_value
# What posixpath.expandvars replaces (CPython's Lib/posixpath.py: `$` and a word, or `${...}`).
_PYTHON_VARIABLE = lazy_compile(r"\$(\w+|\{[^}]*\})", re.ASCII)
_items = sequence_items

_MODULES = {name: kind for kind in ("shell", "command", "raw", "cron")
            for name in (kind, f"ansible.builtin.{kind}", f"ansible.legacy.{kind}")}
_FALSE = ("false", "no", "off", "0")
_TRUE = ("true", "yes", "on", "1")
_PLAY_LISTS = ("tasks", "pre_tasks", "post_tasks", "handlers")
_QUOTE_FILTER = lazy_compile(r"\|\s*quote\s*(?:\}\}|$)")
_JINJA_STATEMENT = lazy_compile(r"\{%.*?%\}|\{#.*?#\}", re.S)
_PARAMETER = lazy_compile(r"\s+(?:chdir|creates|removes|executable|warn|stdin)=\S+\s*\Z")


def rendered(text: HostText, source: str, values: list[HostValue]) -> HostText:
    """``text`` with each Jinja expression a value known only when the play runs."""
    pieces: list[tuple[int, int, HostText]] = []
    for a, b in jinja_spans(text.value):
        inner = text.value[a + 2:b - 2]
        quoted = bool(_QUOTE_FILTER.search(inner + "}}"))
        places = [o for o in text.offsets[a:b] if o is not None]
        if places:
            values.append(HostValue((places[0], places[-1] + 1),
                                    source[places[0]:places[-1] + 1], quoted, False))
        pieces.append((a, b, run_time_part(text, a, b, inner.split("|")[0].strip(),
                                           quoted=quoted)))
    return splice(text, pieces)


def jinja_spans(value: str) -> list[tuple[int, int]]:
    """The `{{ ... }}` expressions of ``value``: a `}}` inside a quoted string of the
    expression (`{{ '{{ .Image }}' }}`) does not end it."""
    spans: list[tuple[int, int]] = []
    at = value.find("{{")
    while at >= 0:
        i, quote = at + 2, None
        while i < len(value):
            ch = value[i]
            if quote is not None:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif value.startswith("}}", i):
                break
            i += 1
        if i >= len(value):
            break  # not closed: no expression
        spans.append((at, i + 2))
        at = value.find("{{", i + 2)
    return spans


def _without_parameters(text: HostText) -> HostText:
    while (m := _PARAMETER.search(text.value)) is not None:
        text = cut(text, 0, m.start())
    return text


class _Found:
    """What the tasks of a file hand on, gathered as they are read."""

    def __init__(self) -> None:
        self.launches: list[Launch] = []
        self.values: list[HostValue] = []
        self.percents: list[HostReference] = []  # where cron ends a `cron` task's job


def read_ansible(source: str) -> HostFile:
    documents = compose_documents(source, "ansible")
    if isinstance(documents, HostFile):
        return documents
    found = _Found()
    for document in documents:
        for item in _items(document):
            hosts = getattr(_get(item, "hosts"), "value", None)
            where = f"remote:{hosts}" if isinstance(hosts, str) else "remote:?"
            if hosts is None and _get(item, "tasks") is None:
                _tasks([item], source, where, found)  # a task file's task
                continue
            for key in _PLAY_LISTS:
                _tasks(_items(_get(item, key)), source, where, found)
    return HostFile("ansible", tuple(sorted(found.launches, key=lambda x: x.span)),
                    references=tuple(found.percents), values=tuple(found.values))


def _tasks(tasks: list[Any], source: str, where: str, found: _Found) -> None:
    values = found.values
    for task in tasks:
        for key in ("block", "rescue", "always"):
            _tasks(_items(_get(task, key)), source, where, found)
        pairs = task.value if isinstance(getattr(task, "value", None), list) else []
        for k, v in (p for p in pairs if isinstance(p, tuple)):
            kind = _MODULES.get(str(getattr(k, "value", "")))
            if kind is None:
                continue
            if kind == "cron":
                launch = _cron(v, source, where, found)
                if launch is not None:
                    found.launches.append(launch)
                continue
            launch = _module(kind, v, _get(task, "args"), source, where, values)
            if launch is not None:
                if _ignores_status(task):
                    launch = replace(launch, status_ignored=True)
                found.launches.append(launch)


def _ignores_status(task: Any) -> bool:
    """`ignore_errors: true` (yes, on...) or `failed_when: false`: the play goes on whatever
    the task returns."""
    ignore = str(getattr(_get(task, "ignore_errors"), "value", "")).strip().lower()
    failed = str(getattr(_get(task, "failed_when"), "value", "")).strip().lower()
    return ignore in _TRUE or failed in _FALSE


def _module(kind: str, node: Any, args: Any, source: str, where: str,
            values: list[HostValue]) -> Launch | None:
    text_node = node if isinstance(getattr(node, "value", None), str) else \
        _get(node, "cmd") or _get(node, "_raw_params")
    executable = getattr(_get(node, "executable") or _get(args, "executable"), "value", None)
    span = (node.start_mark.index, node.end_mark.index)
    api = f"ansible {kind}"
    argv_node = _get(node, "argv")
    expands = str(getattr(_get(node, "expand_argument_vars") or
                          _get(args, "expand_argument_vars"), "value", "true")).lower() \
        not in ("false", "no", "off", "0")
    if kind == "command" and argv_node is not None:
        words = [rendered(scalar_text(source, x), source, values) for x in _items(argv_node)
                 if isinstance(x.value, str)]
        if expands:
            words = [_python_expanded(w) for w in words]
        return Launch(api, span, argv=tuple(words), where=where) if words else None
    if text_node is None or not isinstance(text_node.value, str):
        return None
    text = rendered(scalar_text(source, text_node), source, values)
    if kind != "raw":
        text = _without_parameters(text)
    if not text.value.strip():
        return None
    if kind == "shell":
        shell = executable if isinstance(executable, str) else "/bin/sh"
        return Launch(api, span, shell=(shell, "-c"), text=text, where=where)
    if kind == "raw":
        destination = where.partition(":")[2]
        return Launch(api, span, text=text, ssh=True, destination=destination)
    words = split_words(text)
    if expands:
        words = [_python_expanded(w) for w in words]
    return Launch(api, span, argv=tuple(words), where=where)


def _cron(node: Any, source: str, where: str, found: _Found) -> Launch | None:
    """The command cron runs for a `cron` task's `job`: up to its first unescaped `%`, each
    `\\%` a `%`. Every unescaped `%` is recorded in ``found.percents`` (cron's: the first ends
    the command, each further one is a line break of its standard input)."""
    def flag(name: str) -> str:
        return str(getattr(_get(node, name), "value", "")).strip().lower()

    job = _get(node, "job")
    if job is None or not isinstance(job.value, str) or flag("env") in _TRUE or \
            flag("disabled") in _TRUE or flag("state") == "absent":
        return None
    text = scalar_text(source, job)
    value = text.value
    # (Jinja's own `%`: `{% ... %}`, and what `{{ ... }}` holds, is gone when cron reads it)
    jinja = [*jinja_spans(value), *((m.start(), m.end()) for m in _JINJA_STATEMENT.finditer(value))]
    keep: list[tuple[int, int, HostText]] = []
    end = len(value)
    k = 0
    while k < len(value):
        if any(a <= k < b for a, b in jinja):
            k += 1
            continue
        if value[k] == "\\" and value.startswith("%", k + 1):
            keep.append((k, k + 1, HostText("", ())))  # `\%` is a `%`
            k += 2
            continue
        if value[k] == "%":
            at = text.offsets[k]
            if at is not None:
                found.percents.append(HostReference((at, at + 1), "%", "%", False))
            end = min(end, k)
        k += 1
    keep = [x for x in keep if x[0] < end]
    command = rendered(cut(splice(text, keep), 0, end - len(keep)), source, found.values)
    if not command.value.strip():
        return None
    return Launch("ansible cron job", (job.start_mark.index, job.end_mark.index),
                  shell=("/bin/sh", "-c"), text=command, where=where)


def _python_expanded(word: HostText) -> HostText:
    """``word`` after `os.path.expandvars` and `os.path.expanduser` on the target: each
    `$NAME`/`${NAME}` and a leading `~user` is a value known only when the task runs (a
    name the environment lacks stays as written, which is also known only then)."""
    pieces = [(m.start(), m.end(), run_time_part(word, m.start(), m.end(), m.group().strip("${}")))
              for m in _PYTHON_VARIABLE.finditer(word.value)]
    text = splice(word, pieces)
    if text.value.startswith("~"):
        end = text.value.find("/")
        end = len(text.value) if end < 0 else end
        text = splice(text, [(0, end, run_time_part(text, 0, end, "home"))])
    return text
