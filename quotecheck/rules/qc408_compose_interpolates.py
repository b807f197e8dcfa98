"""QC408 compose-interpolates: a `$VAR` in a Compose command that the container's shell was
meant to expand, which Compose replaces first with a value of the machine it runs on.

Compose interpolates every value of the file when it loads it: `$VAR` and `${VAR}` become the
value of the variable where `docker compose` runs (or of `.env`), or nothing, with only a
warning at `up`. In `command: sh -c 'echo "$OUT_DIR"'` the container's shell never sees
`$OUT_DIR`: it gets the host's value. `$$OUT_DIR` passes `$OUT_DIR` on.
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
    "nothing){own}. Write `{escaped}` to leave the `$` to the container's shell.")


def check(ctx: CheckContext) -> Iterator[Finding]:
    host = ctx.trace.host
    if host is None or host.format != "compose":
        return
    for ref in host.references:
        if not _PLAIN.fullmatch(ref.written):
            continue  # `${TAG:-dev}`, `${X:?}`: Compose's own syntax, Compose's value meant
        reader = next((x for x in shells_over(ctx, ref.span[0]) if x.origin is not None
                       and x.origin.index_of(ref.span[0]) is not None), None)
        if reader is None:
            continue  # an argv word: Compose's value may be the one meant
        own = ""
        source = ctx.trace.source
        if f"{ref.name}:" in source or f"{ref.name}=" in source:
            own = (f", not the `{ref.name}` the container itself may have from "
                   "`environment:`")
        fix = Fix("Escape the `$` for Compose", (Edit((ref.span[0], ref.span[0]), "$"),),
                  "safe")
        yield Finding(ref.span, _TOO_EARLY(written=ref.written, own=own,
                                           escaped="$" + ref.written),
                      reader, (), (fix,), "warning")


RULE = Rule("QC408", "compose-interpolates",
            "Compose expands a `$VAR` meant for the container's shell, with the host's value",
            "warning", check, fix="safe", tags=("host",),
            trigger=Trigger(formats=frozenset({"compose"})))
