"""A host file's argv launch (`subprocess.run([...])`) as a command the trace and the rules read.

The trace (``trace._Builder.host_layers``) follows the argv as it follows a command's argv:
``ssh`` in it opens the ssh layer, ``sh -c`` a shell. The view is made of words whose
characters stand in the host file, in a script that is the host file itself, so every position
is the file's own; its words are quoted (no shell splits or expands them).
"""

from __future__ import annotations

import itertools

from quotecheck.hosts.model import HostText, Launch
from quotecheck.layers.model import Arg, CommandView
from quotecheck.parsing.tree import Context, Script, SimpleCommand
from quotecheck.parsing.words import Part, Word
from quotecheck.sourcemap import SourceMap


def host_arg(text: HostText) -> Arg:
    known = [o for o in text.offsets if o is not None]
    span = (min(known), max(known) + 1) if known else None
    return Arg(text.value, text.dynamic, None, span, tuple(text.offsets),
               tuple(text.dynamic_ranges))


def _word(text: HostText, anchor: int) -> Word:
    """A word whose parts are the literal and the run-time pieces of ``text``, placed in the
    host file (a character the host adds itself takes its neighbour's place)."""
    offsets: list[int] = []
    last = anchor
    for o in text.offsets:
        last = o if o is not None else last
        offsets.append(last)
    cuts = sorted({0, len(text.value), *(x for r in text.dynamic_ranges for x in r)})
    parts: list[Part] = []
    for a, b in itertools.pairwise(cuts):
        if a >= b:
            continue
        dynamic = any(s <= a and b <= e for s, e in text.dynamic_ranges)
        chunk = offsets[a:b]
        parts.append(Part("parameter" if dynamic else "literal",
                          "double" if dynamic else "single", (min(chunk), max(chunk) + 1),
                          text.value[a:b], chunk, name=text.value[a:b] if dynamic else None))
    if not parts:
        parts.append(Part("literal", "single", (anchor, anchor), "", ()))
    span = (min(p.span[0] for p in parts), max(p.span[1] for p in parts))
    return Word(span, text.value, tuple(parts))


def argv_view(source: str, launch: Launch) -> CommandView:
    """The command view of an argv launch: one simple command, in a script that is the host
    file (every position is the file's own)."""
    words = [_word(t, launch.span[0]) for t in launch.argv]
    command = SimpleCommand(launch.span, [], words, [])
    script = Script(source, SourceMap.identity(len(source)), "sh", launch.span, [command])
    context = Context(script, (), False, False, False, False, False, False)
    return CommandView([host_arg(t) for t in launch.argv], command, context, launch.span)
