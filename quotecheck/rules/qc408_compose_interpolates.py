"""QC408 compose-interpolates: a `$VAR` in a Compose command that the container's shell was
meant to expand, which Compose replaces first with a value of the machine it runs on.

Compose interpolates every value of the file when it loads it: `$VAR` and `${VAR}` become the
value of the variable where `docker compose` runs (or of `.env`), or nothing, with only a
warning at `up`. In `command: sh -c 'echo "$OUT_DIR"'` the container's shell never sees
`$OUT_DIR`: it gets the host's value. `$$OUT_DIR` passes `$OUT_DIR` on.

Where the service's own `environment:` sets the name, the text shows that the container's
value was meant, and two more places are reported: `${PORT:-3000}` read by the container's
shell (Compose's own syntax, but Compose puts in its value or the default, never the
service's `PORT`), and `$BACKUP_DIR` in words no shell reads (`command: tar czf
$BACKUP_DIR/x.tgz`), where `$$` alone would hand the program the text `$BACKUP_DIR`: the
command needs a shell.
"""

from __future__ import annotations

from collections.abc import Iterator

from quotecheck.diagnostics import Edit, Fix
from quotecheck.lazy_regex import lazy_compile
from quotecheck.rules._host_layers import shells_over
from quotecheck.rules.api import CheckContext, Finding, Rule, Template
from quotecheck.rules.triggers import Trigger

_PLAIN = lazy_compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")

_TOO_EARLY = Template(
    "compose-expands-it",
    "Compose replaces `{written}` with a value of the machine it runs on, before the "
    "container's shell reads the command",
    "Compose interpolates `$VAR` and `${{VAR}}` in every value when it loads the file, from "
    "its own environment or `.env`, so the shell in the container gets that value (or "
    "{otherwise}){own}. Write `{escaped}` to leave the `$` to the container's shell.")


_NO_SHELL = Template(
    "compose-expands-an-argv-word",
    "Compose puts in `{written}` from the machine it runs on, not the container's own "
    "`{name}`",
    "Compose interpolates `$VAR` and `${{VAR}}` in every value when it loads the file, from "
    "its own environment or `.env`, so the program gets that value (or nothing), not the "
    "one the service's `environment:` gives the container. No shell in the container reads "
    "these words: `{escaped}` alone would hand the program the text `{written}`. Run the "
    "command through a shell "
    "(`command: sh -c '... \"{escaped}\" ...'`), or write the value itself.")


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "compose":
        return
    for ref in host.references:
        plain = bool(_PLAIN.fullmatch(ref.written))
        if not plain and not ref.container_sets:
            continue  # `${TAG:-dev}`, `${X:?}`: Compose's own syntax, Compose's value meant
        reader = next((x for x in shells_over(ctx, ref.span[0]) if x.origin is not None
                       and x.origin.index_of(ref.span[0]) is not None), None)
        if reader is None:
            if ref.container_sets:
                # (whatever program the words go to, Compose has put its value in: the
                # finding stands on the file, not on the guess about an image's ENTRYPOINT)
                yield Finding(ref.span, _NO_SHELL(written=ref.written, name=ref.name,
                                                  escaped="$" + ref.written),
                              ctx.layers[ctx.trace.root.id], (), (), "warning")
            continue  # an argv word: Compose's value may be the one meant
        own = ""
        if ref.container_sets:
            own = f", not the `{ref.name}` the service's `environment:` gives the container"
        elif plain and (f"{ref.name}:" in ctx.trace.source or
                        f"{ref.name}=" in ctx.trace.source):
            own = (f", not the `{ref.name}` the container itself may have from "
                   "`environment:`")
        fix = Fix("Escape the `$` for Compose", (Edit((ref.span[0], ref.span[0]), "$"),),
                  "safe")
        otherwise = "nothing" if plain else "what the expression gives without one"
        yield Finding(ref.span, _TOO_EARLY(written=ref.written, own=own, otherwise=otherwise,
                                           escaped="$" + ref.written),
                      reader, (), (fix,), "warning")


RULE = Rule("QC408", "compose-interpolates",
            "Compose expands a `$VAR` meant for the container's shell, with the host's value",
            "warning", check, fix="safe", tags=("host",),
            trigger=Trigger(formats=frozenset({"compose"})))
