"""Every rule has a document, and every document's examples do what they say.

A document's fenced blocks tagged ```` ```sh bad L:C ```` must make the rule fire with a finding
starting at line L, column C (1-based, in characters); blocks tagged ```` ```sh good ```` must
produce no finding of that rule. Extra ``key=value`` words set options: ``remote-shell=dash``.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from host_fixtures import DOC_BLOCK

from quotecheck.checker import Options, check_source
from quotecheck.positions import LineIndex
from quotecheck.rules.registry import all_rules

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
SECTIONS = ["What it finds", "Why it breaks", "Example", "Use instead", "Exceptions",
            "Fix safety"]
_BLOCK = DOC_BLOCK


@dataclass(frozen=True)
class Example:
    code: str
    kind: str
    where: tuple[int, int] | None
    options: dict[str, str]
    text: str

    def __str__(self) -> str:
        return f"{self.code}-{self.kind}-{zlib.crc32(self.text.encode()):08x}"


def examples() -> list[Example]:
    out: list[Example] = []
    for doc in sorted(RULES_DIR.glob("QC*.md")):
        code = doc.stem
        for m in _BLOCK.finditer(doc.read_text()):
            language, kind, rest, text = m.group(1), m.group(2), m.group(3).split(), m.group(4)
            where = None
            options: dict[str, str] = {} if language == "sh" else {"host": language}
            for token in rest:
                if re.fullmatch(r"\d+:\d+", token):
                    line, col = token.split(":")
                    where = (int(line), int(col))
                elif "=" in token:
                    k, _, v = token.partition("=")
                    options[k] = v
            out.append(Example(code, kind, where, options, text))
    return out


def test_registry_matches_documents_one_to_one() -> None:
    documented = sorted(p.stem for p in RULES_DIR.glob("QC*.md"))
    assert documented == list(all_rules())


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_document_has_the_fixed_sections_and_examples(code: str) -> None:
    text = (RULES_DIR / f"{code}.md").read_text()
    rule = all_rules()[code]
    assert text.startswith(f"# {code} {rule.name}\n")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == SECTIONS
    kinds = {e.kind for e in examples() if e.code == code}
    assert kinds == {"bad", "good"}, "each rule needs at least one bad and one good example"


@pytest.mark.parametrize("example", examples(), ids=str)
def test_example(example: Example) -> None:
    options = Options(remote_shell=example.options.get("remote-shell"),
                      dialect=example.options.get("shell", "bash"),
                      host=example.options.get("host"))
    result = check_source(example.text, options, path=example.options.get("path"))
    found = [d for d in result.diagnostics if d.code == example.code]
    index = LineIndex(example.text)
    positions = [(index.position(d.span[0])[0] + 1, index.position(d.span[0])[1] + 1)
                 for d in found]
    if example.kind == "good":
        assert not found, [f"{p}: {d.text}" for p, d in zip(positions, found, strict=True)]
    else:
        assert example.where in positions, (
            f"expected {example.code} at {example.where}, got "
            f"{[f'{p}: {d.text}' for p, d in zip(positions, found, strict=True)]}")
