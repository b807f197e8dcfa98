"""A fix of shell text, written into a host file: the host's own escaping put in.

A rule's edit replaces characters of a layer's text, placed in the host file by the layer's
source map. In a host file those characters sit inside the host's own syntax: a Python string
literal (where `"` and `\\` need a backslash), a make recipe (where `$` is `$$`), a crontab
command (where `%` is `\\%`), a YAML scalar (its style's escapes, and below them Compose's and
the kubelet's `$$`). An edit is written only where it stays inside one such piece of text and
its replacement can be spelled there; anything else (an edit reaching across a Python list's
items, into a make reference, a systemd line's own quoting, a GitHub expression) is not
offered. A YAML edit is read back with PyYAML before it is offered: the scalar must then hold
exactly the fixed value, of the same type (a plain `true` is no string), and every other
scalar of the file what it held.
"""

from __future__ import annotations

import io
import tokenize
from bisect import bisect_right
from functools import lru_cache

from quotecheck.diagnostics import Edit
from quotecheck.hosts.model import HostFile


def host_edit(host: HostFile, source: str, edit: Edit) -> Edit | None:
    """``edit`` with its text spelled for the host file, or None where it cannot be."""
    format = host.format
    a, b = edit.span
    if "\n" in edit.text or "\n" in source[a:b]:
        return None
    if format == "python":
        return _python(source, edit)
    if format == "make":
        if not _whole_dollar_pairs(source, a, b) or any(
                (r.span[0] < b and a < r.span[1]) or r.span[0] < a < r.span[1]
                for r in host.references):
            return None  # it would cut into a make reference
        return Edit(edit.span, edit.text.replace("$", "$$"))
    if format == "crontab":
        if "%" in source[a:b]:
            return None
        return Edit(edit.span, edit.text.replace("%", "\\%"))
    if format == "dockerfile":
        return edit
    if format in _YAML_LAYERS:
        return _yaml(host, source, edit)
    return None  # systemd: its own quoting and specifiers, not written here


def _whole_dollar_pairs(source: str, a: int, b: int) -> bool:
    """Every `$` in ``source[a:b]`` is one of a `$$` pair that lies wholly inside."""
    i = a
    while i < b:
        if source[i] == "$":
            if i + 1 >= b or source[i + 1] != "$":
                return False
            i += 2
            continue
        i += 1
    # (and the span does not start in the middle of a pair)
    return not (a > 0 and source[a - 1] == "$" and _odd_dollars_before(source, a))


def _odd_dollars_before(source: str, at: int) -> bool:
    n = 0
    while at - n - 1 >= 0 and source[at - n - 1] == "$":
        n += 1
    return n % 2 == 1


@lru_cache(maxsize=8)
def _strings(source: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, spelling) of every string literal token of a Python source."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out: list[tuple[int, int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.STRING:
                start = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                out.append((start, end, tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return ()
    return tuple(out)


def _python(source: str, edit: Edit) -> Edit | None:
    a, b = edit.span
    strings = _strings(source)
    k = bisect_right([s for s, _, _ in strings], a) - 1
    if k < 0:
        return None
    start, end, spelled = strings[k]
    prefix = ""
    while prefix.__len__() < len(spelled) and spelled[len(prefix)].isalpha():
        prefix += spelled[len(prefix)]
    rest = spelled[len(prefix):]
    quote = rest[:3] if rest[:3] in ('"""', "'''") else rest[:1]
    body_start, body_end = start + len(prefix) + len(quote), end - len(quote)
    if not (body_start <= a <= b <= body_end):
        return None
    if _odd_backslashes_before(source, a, body_start):
        return None  # it would split an escape sequence
    flags = prefix.lower()
    text = edit.text
    if "r" in flags:
        if "\\" in text or quote[0] in text:
            return None
    else:
        text = text.replace("\\", "\\\\").replace(quote[0], "\\" + quote[0])
    if "f" in flags:
        text = text.replace("{", "{{").replace("}", "}}")
    return Edit(edit.span, text)


def _odd_backslashes_before(source: str, at: int, floor: int) -> bool:
    n = 0
    while at - n - 1 >= floor and source[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1


# What each YAML host does to a scalar's value before a shell or program sees it, as far as an
# edit's text must be spelled for it: the characters it cannot take, and `$` doubled.
_YAML_LAYERS: dict[str, tuple[tuple[str, ...], str]] = {
    "github-actions": (("${{",), ""),
    "ansible": (("{{", "{%", "{#"), ""),
    "compose": ((), "all"),  # interpolation: `$$` is one `$`
    "kubernetes": ((), "before-paren"),  # the kubelet: `$$` is `$`, `$(NAME)` a variable
}


def _yaml(host: HostFile, source: str, edit: Edit) -> Edit | None:
    from quotecheck.hosts.yaml_scalars import scalar_nodes, scalar_tokens

    refused, dollars = _YAML_LAYERS[host.format]
    a, b = edit.span
    spans = [r.span for r in host.references] + [v.span for v in host.values]
    if any(x in edit.text for x in refused) or any(
            lo < max(a + 1, b) and a < hi for lo, hi in spans):
        return None
    documents = _yaml_documents(source)
    if documents is None:
        return None
    nodes = scalar_nodes(documents)
    inside = [k for k, n in enumerate(nodes)
              if n.start_mark.index <= a and b <= n.end_mark.index]
    if not inside:
        return None
    k = inside[-1]
    node = nodes[k]
    tokens = scalar_tokens(source, node)
    if tokens is None:
        return None
    starts = [t[1] for t in tokens]
    first = bisect_right(starts, a) - 1
    if first < 0 or tokens[first][1] != a:
        if a == b and tokens and a == tokens[-1][2]:
            first = len(tokens)
        else:
            return None  # it starts inside an escape or a folded line break
    last = first if a == b else bisect_right(starts, b - 1)
    covered = tokens[first:last]
    if any(t[0] != source[t[1]:t[2]] and t[0] in " \n" for t in covered):
        return None  # a folded line break
    end = covered[-1][2] if covered else a
    text = _kubelet_dollars(edit.text, source[end:end + 1]) if dollars == "before-paren" \
        else edit.text.replace("$", "$$") if dollars == "all" else edit.text
    spelled = _yaml_spelled(text, node.style)
    if spelled is None:
        return None
    value = node.value
    wanted = value[:first] + text + value[last:]
    after = _yaml_documents(source[:a] + spelled + source[end:])
    if after is None:
        return None
    again = scalar_nodes(after)
    if len(again) != len(nodes) or again[k].value != wanted or any(
            x.tag != y.tag or (i != k and x.value != y.value)
            for i, (x, y) in enumerate(zip(nodes, again, strict=True))):
        return None
    return Edit((a, end), spelled)


def _yaml_documents(source: str) -> list[object] | None:
    from quotecheck.hosts.yaml_scalars import compose_documents

    documents = compose_documents(source, "yaml")
    return documents if isinstance(documents, list) else None


def _kubelet_dollars(text: str, following: str) -> str:
    """``text`` with each `$` that the kubelet would read with the next character (`$$`,
    `$(`) doubled."""
    out = []
    for i, c in enumerate(text):
        after = text[i + 1] if i + 1 < len(text) else following
        out.append("$$" if c == "$" and after in ("$", "(") else c)
    return "".join(out)


def _yaml_spelled(text: str, style: str | None) -> str | None:
    """``text`` written inside a scalar of ``style``, or None where it cannot be."""
    if style == '"':
        out = []
        for c in text:
            if c in '\\"':
                out.append("\\" + c)
            elif c == "\t":
                out.append("\\t")
            elif ord(c) < 0x20 or c == "\x7f":
                out.append(f"\\x{ord(c):02x}")
            else:
                out.append(c)
        return "".join(out)
    if any(ord(c) < 0x20 and c != "\t" for c in text):
        return None
    if style == "'":
        return text.replace("'", "''")
    return text  # plain and block scalars: as written (read back before it is offered)
