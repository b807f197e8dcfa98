"""Fixing text that came from bytes, and giving bytes back: every line no fix touched keeps its
exact original bytes (those that are not UTF-8 included), and a patch of the change.

The rules see the file as text with U+FFFD for each byte that is not UTF-8 (as ``check``
does); the bytes come back from the same file decoded with ``surrogateescape``, which has one
character per such byte, so both texts have the same lines and the same offsets.
"""

from __future__ import annotations

import difflib

from quotecheck.records import FrozenRecord

_REPLACEMENT = "\ufffd"
# surrogateescape decodes a byte that is not UTF-8 to one of these; the rules see U+FFFD.
_ESCAPES = {code: _REPLACEMENT for code in range(0xDC80, 0xDD00)}
_NO_NEWLINE = b"\\ No newline at end of file\n"


class DecodedBytes(FrozenRecord):
    data: bytes
    escaped: str  # decoded with surrogateescape: encodes back to ``data``
    text: str  # what the rules see: ``escaped`` with U+FFFD for each escaped byte

    @property
    def undecodable(self) -> bool:
        return self.escaped != self.text


def decode_bytes(data: bytes) -> DecodedBytes:
    escaped = data.decode("utf-8", errors="surrogateescape")
    return DecodedBytes(data, escaped, escaped.translate(_ESCAPES))


def split_lines(text: str) -> list[str]:
    """Lines split at ``\\n`` only (not at the other characters ``str.splitlines`` takes),
    each keeping its newline; the last may have none."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def split_byte_lines(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def encode_fixed(source: DecodedBytes, fixed: str) -> bytes:
    """The bytes of ``fixed`` (the rules' text after fixing): lines equal to a line of the
    source are its original bytes; a changed line gets back the original bytes behind its
    U+FFFD characters when the lines it replaces hold as many."""
    if fixed == source.text:
        return source.data
    old = split_lines(source.text)
    old_escaped = split_lines(source.escaped)
    new = split_lines(fixed)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(old_escaped[i1:i2])
            continue
        block = "".join(new[j1:j2])
        was = "".join(old[i1:i2])
        if _REPLACEMENT in block and block.count(_REPLACEMENT) == was.count(_REPLACEMENT):
            originals = iter(c for c, r in zip("".join(old_escaped[i1:i2]), was, strict=True)
                             if r == _REPLACEMENT)
            block = "".join(next(originals) if c == _REPLACEMENT else c for c in block)
        out.append(block)
    return "".join(out).encode("utf-8", errors="surrogateescape")


def unified_patch(name: str, old: bytes, new: bytes) -> bytes:
    """A unified diff from ``a/name`` to ``b/name`` that ``patch`` and ``git apply`` accept,
    a last line without a newline marked as diff(1) marks it."""
    label = name.encode("utf-8", errors="surrogateescape")
    out: list[bytes] = []
    for line in difflib.diff_bytes(difflib.unified_diff, split_byte_lines(old),
                                   split_byte_lines(new), b"a/" + label, b"b/" + label):
        out.append(line)
        if not line.endswith(b"\n"):
            out.append(b"\n" + _NO_NEWLINE)
    return b"".join(out)
