"""Docker Compose files as a host: each service's `command`, `entrypoint` and `healthcheck`.

What Compose does (docs.docker.com, "Compose file reference": services, interpolation;
quoted in tests/hosts/test_compose.py; no Docker here):

* every value is interpolated when the file is loaded: `$VAR` and `${VAR}` (and `${VAR:-x}`,
  `${VAR-x}`, `${VAR:?e}`, `${VAR?e}`, `${VAR:+x}`) take the value of the variable in the
  environment Compose runs in, or `.env`; `$$` is a `$`;
* a service's `environment:` (a mapping, or a list of `NAME=value`) sets the container's own
  variables; a name without a value (`NAME:` with nothing, a list item `NAME`) hands on the
  value of the environment Compose runs in;
* `command` and `entrypoint` are an argv: a list as it is, a string split into words the way a
  shell splits them (quotes group, no expansion); with `entrypoint` given, `command` is its
  arguments;
* `healthcheck.test` is `["CMD", prog, args...]` (an argv), `["CMD-SHELL", text]` or a string
  (`/bin/sh -c text` in the container), or `["NONE"]`.
"""

from __future__ import annotations

from typing import Any

from quotecheck.hosts.model import (
    HostFile,
    HostReference,
    HostText,
    Launch,
    placed,
    run_time_part,
    splice,
)
from quotecheck.hosts.yaml_scalars import (
    compose_documents,
    mapping_value,
    scalar_text,
)
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import SHELL_PROGRAMS

_get = mapping_value

_INTERPOLATION = lazy_compile(
    r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def interpolated(text: HostText, references: list[HostReference],
                 own: frozenset[str] = frozenset()) -> HostText:
    """Compose's interpolation of one value: each `$VAR`/`${VAR...}` becomes a value known
    only when Compose runs (recorded in ``references``, marked where ``own``, the names the
    service's `environment:` sets, holds it); `$$` is `$`."""
    pieces: list[tuple[int, int, HostText]] = []
    for m in _INTERPOLATION.finditer(text.value):
        a, b = m.span()
        if m.group() == "$$":
            pieces.append((a, b, placed(text, a, b, "$")))
            continue
        name = m.group(1) or m.group(2)
        places = [o for o in text.offsets[a:b] if o is not None]
        if places:
            references.append(HostReference((places[0], places[-1] + 1), name, m.group(),
                                            False, name in own))
        pieces.append((a, b, run_time_part(text, a, b, name)))
    return splice(text, pieces)


def split_words(text: HostText) -> list[HostText]:
    """A command string split as Compose splits it: blanks separate, quotes group, a
    backslash escapes the next character; nothing is expanded."""
    words: list[HostText] = []
    current: HostText | None = None
    quote: str | None = None
    value, offsets = text.value, text.offsets
    dynamic = [any(a <= i < b for a, b in text.dynamic_ranges) for i in range(len(value))]
    i = 0
    while i < len(value):
        ch = value[i]
        if quote is None and ch in " \t\n":
            if current is not None:
                words.append(current)
                current = None
            i += 1
            continue
        if current is None:
            current = HostText("", ())
        if not dynamic[i] and ch in "'\"" and quote in (None, ch):
            quote = None if quote == ch else ch
            i += 1
            continue
        if not dynamic[i] and ch == "\\" and quote != "'" and i + 1 < len(value):
            i += 1
            ch = value[i]
        piece = HostText(ch, (offsets[i],), ((0, 1),) if dynamic[i] else ())
        current = current + piece
        i += 1
    if current is not None:
        words.append(current)
    return [_merged(w) for w in words]


def _merged(word: HostText) -> HostText:
    ranges: list[tuple[int, int]] = []
    for a, b in word.dynamic_ranges:
        if ranges and ranges[-1][1] == a:
            ranges[-1] = (ranges[-1][0], b)
        else:
            ranges.append((a, b))
    return HostText(word.value, word.offsets, tuple(ranges))


def own_variables(service: Any) -> frozenset[str]:
    """The names the service's `environment:` gives the container a value of its own: not a
    name without a value, nor one whose value is Compose's value of that same name."""
    env = _get(service, "environment")
    pairs: list[tuple[str, Any]] = []
    if isinstance(getattr(env, "value", None), list):
        for item in env.value:
            if isinstance(item, tuple):
                key, value = item
                null = str(getattr(value, "tag", "")).endswith(":null")
                pairs.append((str(getattr(key, "value", "")),
                              None if null else getattr(value, "value", None)))
            elif isinstance(getattr(item, "value", None), str) and "=" in item.value:
                name, _, value = item.value.partition("=")
                pairs.append((name.strip(), value))
    own = set()
    for name, value in pairs:
        if value is None:
            continue  # handed on from where Compose runs
        if isinstance(value, str) and any(
                (m.group(1) or m.group(2)) == name for m in _INTERPOLATION.finditer(value)):
            continue  # `NAME: ${NAME:-x}`: Compose's own value again
        own.add(name)
    return frozenset(own)


def _argv(node: Any, source: str, references: list[HostReference],
          own: frozenset[str] = frozenset()) -> list[HostText] | None:
    if node is None:
        return None
    items = node.value if isinstance(node.value, list) else None
    if items is None:
        return split_words(interpolated(scalar_text(source, node), references, own))
    if not all(isinstance(getattr(x, "value", None), str) for x in items):
        return None
    return [interpolated(scalar_text(source, x), references, own) for x in items]


def read_compose(source: str) -> HostFile:
    documents = compose_documents(source, "compose")
    if isinstance(documents, HostFile):
        return documents
    launches: list[Launch] = []
    references: list[HostReference] = []
    for document in documents:
        services = _get(document, "services")
        for key, service in services.value if isinstance(getattr(services, "value", None),
                                                         list) else ():
            name = getattr(key, "value", "?")
            own = own_variables(service)
            entrypoint = _argv(_get(service, "entrypoint"), source, references, own)
            command = _argv(_get(service, "command"), source, references, own)
            argv = [*(entrypoint or []), *(command or [])] if entrypoint else command
            node = _get(service, "command") or _get(service, "entrypoint")
            if argv and node is not None:
                # `command:` alone replaces the image's CMD: an ENTRYPOINT of the image (which
                # the file does not show) gets these words as its arguments, if it has one.
                # (A command that starts a shell shows that the author relies on it running.)
                program = argv[0].value.rsplit("/", 1)[-1]
                uncertain = None if entrypoint or program in SHELL_PROGRAMS else (
                    "uncertain: with no `entrypoint:` the words go to the image's ENTRYPOINT, "
                    "which this file does not show, if it has one; they are read here as the "
                    "argv")
                launches.append(Launch(f"service {name}", (node.start_mark.index,
                                                            node.end_mark.index),
                                       argv=tuple(argv), where=f"container:{name}",
                                       uncertain=uncertain))
            test = _get(_get(service, "healthcheck"), "test")
            launch = _healthcheck(test, source, references, name, own)
            if launch is not None:
                launches.append(launch)
    return HostFile("compose", tuple(sorted(launches, key=lambda x: x.span)),
                    references=tuple(references))


def _healthcheck(test: Any, source: str, references: list[HostReference], name: str,
                 own: frozenset[str] = frozenset()) -> Launch | None:
    if test is None:
        return None
    span = (test.start_mark.index, test.end_mark.index)
    api = f"healthcheck of {name}"
    where = f"container:{name}"
    if isinstance(test.value, str):
        return Launch(api, span, shell=("/bin/sh", "-c"),
                      text=interpolated(scalar_text(source, test), references, own), where=where)
    items = [x for x in test.value if isinstance(getattr(x, "value", None), str)]
    if not items:
        return None
    kind = items[0].value
    rest = [interpolated(scalar_text(source, x), references, own) for x in items[1:]]
    if kind == "CMD-SHELL" and rest:
        return Launch(api, span, shell=("/bin/sh", "-c"), text=rest[0], where=where)
    if kind == "CMD" and rest:
        return Launch(api, span, argv=tuple(rest), where=where)
    return None
