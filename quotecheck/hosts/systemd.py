"""A systemd unit as a host: the argv of each ``Exec*=`` line. No shell reads them.

What systemd does (systemd.service(5) "Command lines", systemd.syntax(7), systemd.unit(5)
"Specifiers", quoted in tests/hosts/test_systemd.py; no systemd runs on the test machines):

* a line ending in a backslash goes on on the next one, the backslash becoming a blank;
* the value may start with the prefixes ``@``, ``-``, ``:``, ``+``, ``!``, ``!!`` (with ``@``
  the second word is ``argv[0]``, the first the program to run);
* words are split at blanks; double and single quotes group them, and C-style escapes
  (``\\n``, ``\\t``, ``\\\\``, ``\\"``, ``\\s`` for a blank, ``\\x41``...) are read;
* ``${NAME}`` is the variable's value as one word, ``$NAME`` alone as a word is its value split
  at blanks, ``$$`` is ``$`` (none of that with the ``:`` prefix);
* ``%`` specifiers (``%h``, ``%n``, ``%i``...) are the unit's values, ``%%`` is ``%``.

Redirections, pipes and ``&&`` are no syntax here: they are arguments like any other.
"""

from __future__ import annotations

from quotecheck.hosts.model import HostFile, HostText, Launch, stand_in
from quotecheck.lazy_regex import lazy_compile

EXEC_KEYS = frozenset({"ExecStart", "ExecStartPre", "ExecStartPost", "ExecCondition",
                       "ExecReload", "ExecStop", "ExecStopPost"})
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", '"': '"', "'": "'", "s": " "}
_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _logical_lines(source: str) -> list[tuple[str, list[int]]]:
    out: list[tuple[str, list[int]]] = []
    chars: list[str] = []
    offsets: list[int] = []
    at = 0
    for line in source.split("\n"):
        start, at = at, at + len(line) + 1
        text = line.rstrip("\r")
        if not chars and text.lstrip().startswith(("#", ";")):
            continue
        if text.endswith("\\"):
            chars.extend(text[:-1] + " ")
            offsets.extend(range(start, start + len(text)))
            continue
        chars.extend(text)
        offsets.extend(range(start, start + len(text)))
        out.append(("".join(chars), offsets))
        chars, offsets = [], []
    if chars:
        out.append(("".join(chars), offsets))
    return out


class _Word:
    def __init__(self) -> None:
        self.text = HostText("", ())
        self.started = False

    def add(self, piece: HostText) -> None:
        self.text = self.text + piece
        self.started = True


def split_command(value: str, offsets: list[int], expand: bool
                  ) -> tuple[list[HostText], bool, bool]:
    """The argv of an Exec line's command; whether a `$NAME` word may be any number of words;
    whether the quoting was unbalanced (systemd then refuses the line)."""
    words: list[HostText] = []
    word = _Word()
    partial = False
    i, n = 0, len(value)
    quote: str | None = None
    while i < n:
        ch = value[i]
        if quote is None and ch in " \t":
            if word.started:
                words.append(word.text)
                word = _Word()
            i += 1
            continue
        if ch in "'\"" and (quote is None or quote == ch):
            quote = None if quote == ch else ch
            word.started = True
            i += 1
            continue
        if ch == "\\" and i + 1 < n:
            nxt = value[i + 1]
            if nxt in _ESCAPES:
                word.add(HostText(_ESCAPES[nxt], [offsets[i]]))
                i += 2
                continue
            if nxt == "x" and i + 3 < n + 1:
                digits = value[i + 2:i + 4]
                if len(digits) == 2 and all(c in "0123456789abcdefABCDEF" for c in digits):
                    word.add(HostText(chr(int(digits, 16)), [offsets[i]]))
                    i += 4
                    continue
            word.add(HostText(nxt, [offsets[i]]))
            i += 2
            continue
        if ch == "%" and i + 1 < n:
            if value[i + 1] == "%":
                word.add(HostText("%", [offsets[i]]))
            else:
                shown, _ = stand_in("%" + value[i + 1], 0)
                word.add(HostText(shown, [offsets[i]] + [offsets[i + 1]] * (len(shown) - 1),
                                  ((0, len(shown)),)))
            i += 2
            continue
        if ch == "$" and expand and i + 1 < n:
            if value[i + 1] == "$":
                word.add(HostText("$", [offsets[i]]))
                i += 2
                continue
            braced = value[i + 1] == "{"
            m = _NAME.match(value, i + 2 if braced else i + 1)
            if m is not None and (not braced or value.startswith("}", m.end())):
                end = m.end() + (1 if braced else 0)
                shown, _ = stand_in("{" + m.group() + "}", 0)
                places = [offsets[min(i + k, end - 1)] for k in range(len(shown))]
                if not braced and not word.started and quote is None and \
                        (end >= n or value[end] in " \t"):
                    partial = True  # `$NAME` alone: split at blanks, zero or more words
                word.add(HostText(shown, places, ((0, len(shown)),)))
                i = end
                continue
        word.add(HostText(ch, [offsets[i]]))
        i += 1
    if word.started:
        words.append(word.text)
    return words, partial, quote is not None


def read_unit(source: str) -> HostFile:
    launches: list[Launch] = []
    for line, offsets in _logical_lines(source):
        key, eq, value = line.partition("=")
        key = key.strip()
        if not eq or key not in EXEC_KEYS:
            continue
        at = len(line) - len(value)
        at += len(value) - len(value.lstrip())
        value = value.strip()
        places = offsets[at:at + len(value)]
        k = 0
        while k < len(value) and value[k] in "@-:+!":
            k += 1
        prefixes = value[:k]
        words, partial, unbalanced = split_command(value[k:], places[k:], ":" not in prefixes)
        if unbalanced or not words:
            continue  # systemd refuses the line; it runs nothing
        if "@" in prefixes and len(words) > 1:
            words = words[1:]  # the second word is argv[0]
        span = (offsets[0], offsets[-1] + 1) if offsets else (0, 0)
        launches.append(Launch(key, span, argv=tuple(words), partial=partial))
    return HostFile("systemd", tuple(launches))
