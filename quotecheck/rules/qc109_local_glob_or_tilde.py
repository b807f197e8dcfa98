"""QC109 local-glob-or-tilde: an unquoted glob or `~` meant for another machine or user is
expanded by the shell that runs the command.

`ssh h ls ~/x *.log`: bash replaces `~/x` with the local home (`/home/me/x`) and `*.log` with
the local files that match (or, when none match, leaves the pattern as is) before ssh runs;
ssh then sends the result. The same happens to the argv of `docker exec`/`kubectl exec`/
`chroot` (host paths, not the container's) and to `sudo -u USER` (your `~`, not USER's).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from quotecheck.diagnostics import Edit, Fix, Severity
from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.words import Part
from quotecheck.programs import CONTAINER_RUNNERS, USER_SWITCHERS, WORD_PRINTERS
from quotecheck.rules._handoffs import code, descendants, part_span, where_label
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_ROOTS = frozenset({"root", "0", "#0"})


def _words(h: ho.Handoff) -> tuple[str, tuple[int, ...]] | None:
    """(kind of context, argv indices whose expansion belongs to that context)."""
    if isinstance(h, ho.SshHandoff):
        return ("ssh", h.command) if not h.no_command else None
    if isinstance(h, ho.ExecHandoff):
        if h.wrapper in CONTAINER_RUNNERS:
            return "container", h.words
        if h.wrapper == "chroot":
            return "chroot", h.words
        if h.wrapper in USER_SWITCHERS:
            return "user", h.words
    if isinstance(h, ho.ShellHandoff) and h.script_words and h.wrapper in ("sudo",):
        return "user", h.script_words
    return None


def _runs_as(h: ho.Handoff) -> str | None:
    if isinstance(h, ho.ExecHandoff | ho.ShellHandoff):
        return h.runs_as
    return None


def check(ctx: CheckContext) -> Iterator[Finding]:
    for layer, view in ctx.commands():
        seen: set[int] = set()
        own = {id(w) for w in view.command.words}  # a list scan per word was O(n^2)
        for h in view.handoffs:
            found = _words(h)
            if found is None:
                continue
            context, indices = found
            for i in indices:
                if i in seen or not 0 <= i < len(view.argv):
                    continue
                arg = view.argv[i]
                if arg.word is None or (id(arg.word) not in own
                                        and arg.word not in view.command.words):
                    continue
                for part in arg.word.parts:
                    if context == "user" and part.kind == "parameter" and \
                            part.name == "HOME" and part.quoting != "single":
                        finding = _home_of_caller(ctx, layer, view, h, part)
                        if finding is not None:
                            seen.add(i)
                            yield finding
                            break
                        continue
                    if part.quoting != "none" or part.kind not in ("glob", "tilde"):
                        continue
                    if part.kind == "glob" and arg.value.startswith("-"):
                        # (`sqlcmd -?`, `--exclude=*.log`: an option of the program; the local
                        # shell would match it only against files named like options)
                        continue
                    finding = _judge(ctx, layer, view, h, context, arg, part)
                    if finding is not None:
                        seen.add(i)
                        yield finding
                        break
    yield from _quoted_there(ctx)
    yield from _remote_path_globs(ctx)


# Copy programs whose `HOST:PATH` operands the other side expands (its shell globs the path).
_REMOTE_PATH_PROGRAMS = frozenset({"scp", "rsync", "sftp"})
# Options under which bash does not pass an unmatched pattern on: it drops the word or aborts.
_GLOB_DROPPERS = lazy_compile(r"\bshopt\s+-s\s+(?:\w+\s+)*?(nullglob|failglob)\b")
_REMOTE_PATH_GLOB = Template(
    "remote-path-glob",
    "the pattern in the remote path {shown} is matched by {shell} here, where {option} is on",
    "no local file matches `HOST:PATH`, so {effect} instead of passing the pattern on for the "
    "other side to expand. Escape it so that only the remote side reads it: {fixed}.",
    ";")


def _remote_path_globs(ctx: CheckContext) -> Iterator[Finding]:
    """`scp host:dir/*.html .` where the script turned on nullglob or failglob: the local shell
    drops the source (or aborts the command) instead of passing the pattern on."""
    for layer, view in ctx.commands():
        eff = view.effective
        text = layer.text or ""
        if eff is None or eff.name not in _REMOTE_PATH_PROGRAMS or layer.dialect == "sh":
            continue
        option = None
        for m in _GLOB_DROPPERS.finditer(text, 0, view.command.span[0]):
            option = m.group(1)
        if option is None:
            continue
        for word in view.command.words[1:]:
            before = ""
            for part in word.parts:
                if part.kind == "glob" and part.quoting == "none" and ":" in before and \
                        "/" not in before.split(":", 1)[0]:
                    span = part_span(view, part) or view.source_span or (0, 0)
                    effect = ("the argument is dropped and the copy runs without its source"
                              if option == "nullglob" else "the command is not run at all")
                    fixed = code(word.raw.replace(part.value, "\\" + part.value, 1))
                    yield Finding(span, _REMOTE_PATH_GLOB(
                        shown=code(word.raw), shell=where_label(layer), option=option,
                        effect=effect, fixed=fixed), layer, severity="warning")
                    break
                before += part.value
            else:
                continue
            break


_HOME_OF_CALLER = Template(
    "home-of-caller",
    "`$HOME` is your home directory, expanded by {shell} before {wrapper} switches to `{user}`",
    "the command gets this user's path, not `{user}`'s home, which {wrapper} sets for it. Let a "
    "shell of `{user}` expand it: {inner}.",
    ";")


def _home_of_caller(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.Handoff,
                    part: Part) -> Finding | None:
    """`setuser consul consul agent -data-dir=$HOME/data`: `$HOME` is the caller's."""
    user = _runs_as(h)
    if user is None or user in _ROOTS or "HOME=" in (layer.text or ""):
        return None  # root's own home as written, or a HOME the script sets itself
    span = part_span(view, part) or view.source_span or (0, 0)
    return Finding(span, _HOME_OF_CALLER(shell=where_label(layer), wrapper=_wrapper(h),
                                         user=user, inner=_shell_form(view, h)), layer)


_QUOTED_THERE = Template(
    "tilde-quoted-there",
    "the `~` of {shown} is quoted in the text {shell} reads, so no shell expands it",
    "the command there gets a path that starts with a directory named `~`, not the home "
    "directory. Leave `~/` outside the quotes in that text: {fixed}.",
    ";")


def _quoted_there(ctx: CheckContext) -> Iterator[Finding]:
    """`ssh web1 "cat '~/app/log'"`: the quotes written for the inner shell keep its `~`
    from being expanded there (and the outer shell never saw a `~` to expand)."""
    for layer in ctx.layers:
        if layer.kind != "shell" or layer.parent is None or layer.script is None:
            continue
        for view in layer.commands:
            eff = view.effective
            if eff is None or eff.name in WORD_PRINTERS:
                continue  # a message, not a path
            for word in view.command.words[1:]:
                first = word.parts[0] if word.parts else None
                # A path under `~/` (a lone `~` is as often a pattern or a word).
                if first is None or first.quoting not in ("single", "double") or \
                        first.kind != "literal" or not first.value.startswith("~/") or \
                        layer.in_dynamic_range(word.span[0]):
                    continue
                span = ctx.span_in_source(layer, word.span[0], word.span[1])
                fixed = code("~/" + word.raw[0] + word.raw[1:].replace("~/", "", 1))
                yield Finding(span, _QUOTED_THERE(shown=code(word.raw), shell=where_label(layer),
                                                  fixed=fixed), layer)


# What expands where, then (after `;` or `:`) what the other side gets, and the remedy.
_EXPANDED_HERE = Template("expanded-here", "{what}", "{why}. To expand it {there}, {instead}.",
                          ";")
_MATCHED_HERE = Template("matched-here", "{what}", "{why}. To expand it {there}, {instead}.")


def _judge(ctx: CheckContext, layer: Layer, view: CommandView, h: ho.Handoff, context: str,
           arg: Arg, part: Part) -> Finding | None:
    span = part_span(view, part) or view.source_span or (0, 0)
    shell = where_label(layer)
    severity: Severity = "warning"
    tilde = part.kind == "tilde"
    shown = code(_unquoted_run(arg, part))
    inner = _shell_form(view, h)
    if context == "ssh":
        assert isinstance(h, ho.SshHandoff)
        dest = h.argv[h.destination] if h.destination is not None else "the host"
        if tilde:
            message = _EXPANDED_HERE
            what = (f"the `~` in {shown} is replaced by {shell} with the home directory "
                    f"of this machine (`$HOME` here) before ssh runs")
            why = f"{dest} gets that path, which may not exist there or belong to another user"
        else:
            message = _MATCHED_HERE
            what = (f"the pattern {shown} is matched by {shell} against the files here, before "
                    f"ssh runs")
            why = (f"if it matches, ssh sends the local names to {dest}; if not, bash passes "
                   f"the pattern on unchanged (nullglob drops it, failglob aborts) and only "
                   f"then the remote shell expands it")
        instead = f"quote it so the remote shell expands it: {inner}"
    elif context in ("container", "chroot"):
        where = ("the container" if context == "container" else "the new root")
        if tilde:
            message = _EXPANDED_HERE
            what = f"the `~` in {shown} is replaced by {shell} with a home directory of this host"
            why = f"{where} gets a host path"
        else:
            message = _EXPANDED_HERE
            what = (f"the pattern {shown} is matched by {shell} against the host's files, not "
                    f"those in {where}")
            why = (f"with no match here the pattern is passed on and nothing expands it (no "
                   f"shell runs in {where})")
        instead = f"run a shell in {where}: {inner}"
    else:
        user = _runs_as(h)
        if tilde:
            if user is None or user in _ROOTS:
                return None  # `sudo cat ~/x` means your own home, as written
            message = _EXPANDED_HERE
            what = (f"the `~` in {shown} is your home directory, expanded by {shell} before "
                    f"{_wrapper(h)} switches to `{user}`")
            why = f"it is not `{user}`'s home"
            instead = f"write `~{user}/...`, or let a shell of `{user}` expand it: {inner}"
        else:
            severity = "info"
            who = f"`{user}`" if user else "the target user"
            message = _MATCHED_HERE
            what = (f"the pattern {shown} is expanded by {shell} with your permissions before "
                    f"{_wrapper(h)} runs the command as {who}")
            why = ("in a directory you cannot read, nothing matches and the pattern is passed on "
                   "literally")
            instead = f"let the privileged shell expand it: {inner}"
    fixes: tuple[Fix, ...] = ()
    if context == "ssh":
        fixes = _quote_fix(ctx, layer, arg)
    target = layer
    for x in descendants(ctx, view):
        target = x
        break
    return Finding(span, message(what=what, why=why, there=_there(context), instead=instead),
                   target, fixes=fixes, severity=severity)


def _unquoted_run(arg: Arg, part: Part) -> str:
    """The unquoted stretch of the word around ``part`` (`*.log` of `'ls '*.log`)."""
    if arg.word is None:
        return arg.value
    parts = arg.word.parts
    k = parts.index(part) if part in parts else -1
    if k < 0:
        return part.value
    lo = k
    while lo > 0 and parts[lo - 1].quoting == "none" and parts[lo - 1].span[1] == parts[lo].span[0]:
        lo -= 1
    hi = k
    while (hi + 1 < len(parts) and parts[hi + 1].quoting == "none"
           and parts[hi + 1].span[0] == parts[hi].span[1]):
        hi += 1
    if lo == 0 and hi == len(parts) - 1:
        return arg.word.raw
    return "".join(p.value for p in parts[lo:hi + 1])


_SHOWN = 200  # characters of the rewritten command a message shows


def _joined_head(words: Iterable[str]) -> str:
    """The words joined with spaces, as far as a message can show them: past _SHOWN
    characters the rest is cut anyway, and joining all of a long line for each of its
    findings was quadratic."""
    out: list[str] = []
    size = 0
    for w in words:
        out.append(w)
        size += len(w) + 1
        if size > _SHOWN + 2:
            break
    return " ".join(out)


def _shell_form(view: CommandView, h: ho.Handoff) -> str:
    """The command rewritten so the inner side expands the words: `ssh h 'ls *.log'`,
    `docker exec c sh -c 'ls /x/*'`."""
    values = view.values
    if isinstance(h, ho.SshHandoff):
        head = values[: h.command[0]] if h.command else values
        inner = _joined_head(values[i] for i in h.command)
        return code(" ".join(head) + " " + sh_quote_always(inner), _SHOWN)
    if isinstance(h, ho.ExecHandoff) and h.words:
        head = values[: h.words[0]]
        inner = _joined_head(values[i] for i in h.words)
        return code(" ".join([*head, "sh", "-c", sh_quote_always(inner)]), _SHOWN)
    if isinstance(h, ho.ShellHandoff) and h.script_words:
        head = [v for i, v in enumerate(values[: h.script_words[0]])
                if v not in ("-s", "-i") or i == 0]
        inner = _joined_head(values[i] for i in h.script_words)
        return code(" ".join([*head, "sh", "-c", sh_quote_always(inner)]), _SHOWN)
    return "a shell on the other side (`sh -c '...'`)"


def sh_quote_always(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _wrapper(h: ho.Handoff) -> str:
    if isinstance(h, ho.ExecHandoff):
        return h.wrapper
    if isinstance(h, ho.ShellHandoff) and h.wrapper:
        return h.wrapper
    return "the wrapper"


def _there(context: str) -> str:
    return {"ssh": "on the remote host", "container": "inside the container",
            "chroot": "inside the new root"}.get(context, "for the target user")


def _quote_fix(ctx: CheckContext, layer: Layer, arg: Arg) -> tuple[Fix, ...]:
    """Single-quote a plain word (only literal, glob and tilde parts) at the top layer."""
    if layer.parent is not None or arg.word is None or arg.source_span is None:
        return ()
    word = arg.word
    if any(p.quoting != "none" or p.kind not in ("literal", "glob", "tilde")
           for p in word.parts):
        return ()
    a, b = arg.source_span
    if ctx.source[a:b] != word.raw or "'" in word.raw or "\\" in word.raw:
        return ()
    return (Fix("quote it so the remote shell expands it",
                (Edit((a, b), f"'{word.raw}'"),), "unsafe"),)


RULE = Rule("QC109", "local-glob-or-tilde",
            "An unquoted glob or ~ meant for another host, container or user is expanded locally",
            "warning", check, fix="unsafe",
            # (scp/rsync/sftp `HOST:PATH` operands hand a path on without opening a layer)
            trigger=Trigger(handoffs=True, programs=frozenset({"scp", "rsync", "sftp"})))
