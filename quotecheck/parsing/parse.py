"""Parse one shell text into a ``Script``: scan, mask, let bashlex find the structure, convert.

The division of labour: the scanner knows quoting and expansions, bashlex knows the grammar
(lists, pipelines, compound commands, redirections) of the masked text, and the word segmenter
gives each word its value. Nested scripts (``$( )``, backticks, ``<( )``) are parsed separately at
their own depth. A part that cannot be parsed becomes a problem (QC001/QC002) on the script; the
rest is still analysed.
"""

from __future__ import annotations

from typing import Any

from quotecheck.parsing import grammar
from quotecheck.parsing.scanner import Dialect, HeredocSpec, NestedScript, Problem, Scan, scan
from quotecheck.parsing.tree import (
    Assignment,
    CommandList,
    Compound,
    Heredoc,
    Node,
    Pipeline,
    Redirect,
    Script,
    SimpleCommand,
)
from quotecheck.parsing.words import Word, backtick_script, heredoc_body, segment
from quotecheck.sourcemap import SourceMap


class UnexpectedTree(Exception):
    """bashlex returned a node shape the converter does not know: treated as a parse failure."""


DEFAULT_MAX_DEPTH = 64
DEFAULT_TIME_LIMIT = 5.0
MAX_CHUNK_LINES = 200


def parse_script(
    text: str,
    dialect: Dialect = "bash",
    origin: SourceMap | None = None,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Script:
    """Parse ``text``; never raises for any input string."""
    result = scan(text, dialect, max_depth)
    script = Script(
        text=text,
        origin=origin if origin is not None else SourceMap.identity(len(text)),
        dialect=dialect,
        span=(0, len(text)),
        body=[],
        problems=list(result.problems),
        comments=list(result.comments),
    )
    builder = _Builder(result, script, max_depth, time_limit)
    script.body = builder.region(0, len(text), 0)
    return script


class _Builder:
    def __init__(self, scanned: Scan, root: Script, max_depth: int, time_limit: float) -> None:
        self.scan = scanned
        self.root = root
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.heredocs: dict[int, HeredocSpec] = {h.operator[0]: h for h in scanned.heredocs}
        self.nested_by_depth: dict[int, list[NestedScript]] = {}
        for n in scanned.nested:
            self.nested_by_depth.setdefault(n.depth, []).append(n)
        self.depth = 0

    def problem(self, code: str, start: int, end: int, message: str) -> None:
        self.root.problems.append(Problem("QC001" if code == "QC001" else "QC002", start, end,
                                          message))

    # -- regions ----------------------------------------------------------------------------

    def region(self, start: int, end: int, depth: int) -> list[Node]:
        masked = self.scan.masked(start, end, depth)
        if not masked.strip():
            self._nested_in(start, end, depth)
            return []
        outcome = grammar.safe_parse(masked, self.time_limit)
        if outcome.nodes is None:
            if outcome.timed_out:
                self.problem("QC002", start, end,
                             f"the parser gave up after {self.time_limit:g} s; this part is "
                             "not analysed")
                self._nested_in(start, end, depth)
                return []
            return self.piecewise(start, end, depth, masked)
        return self.convert(outcome.nodes, start, end, depth)

    def piecewise(self, start: int, end: int, depth: int, masked: str) -> list[Node]:
        """Parse what can be parsed around a syntax error, a chunk of whole lines at a time.

        A chunk grows line by line until it parses (a construct may span lines); a line no
        chunk of up to MAX_CHUNK_LINES lines can parse is reported and skipped.
        """
        breaks = [i + 1 for i, c in enumerate(masked) if c == "\n"]
        if not breaks or breaks[-1] != len(masked):
            breaks.append(len(masked))
        nodes: list[Node] = []
        a = 0
        first = 0  # index in breaks of the first line end after `a`
        while a < len(masked):
            while first < len(breaks) and breaks[first] <= a:
                first += 1
            parsed = False
            first_error: grammar.ParseOutcome | None = None
            for k in range(first, min(first + MAX_CHUNK_LINES, len(breaks))):
                b = breaks[k]
                chunk = masked[a:b]
                if not chunk.strip():
                    parsed, a = True, b
                    break
                outcome = grammar.safe_parse(chunk, self.time_limit)
                if outcome.nodes is not None:
                    nodes.extend(self.convert(outcome.nodes, start + a, start + b, depth))
                    parsed, a = True, b
                    break
                if first_error is None:
                    first_error = outcome
                if outcome.timed_out:
                    break
            if not parsed:
                b = breaks[first] if first < len(breaks) else len(masked)
                err = first_error
                offset = start + a + (err.error_offset or 0 if err else 0)
                offset = min(max(offset, start + a), max(start + b - 1, start + a))
                message = err.error if err and err.error else "syntax error"
                if err is not None and err.timed_out:
                    self.problem("QC002", start + a, start + b,
                                 f"the parser gave up after {self.time_limit:g} s; this line "
                                 "is not analysed")
                else:
                    self.problem("QC001", offset, offset + 1, f"cannot parse: {message}")
                a = b
        self._nested_in(start, end, depth)
        return nodes

    def convert(self, parsed: list[Any], start: int, end: int, depth: int) -> list[Node]:
        saved, self.depth = self.depth, depth
        try:
            nodes = [self.node(n, start) for n in parsed]
        except (UnexpectedTree, AttributeError, TypeError, ValueError, IndexError,
                KeyError) as exc:
            # A tree we cannot read is no better than no tree: report, do not guess.
            self.problem("QC001", start, end, f"cannot parse: unexpected structure ({exc})")
            self._nested_in(start, end, depth)
            return []
        finally:
            self.depth = saved
        # Substitutions inside [[ ]], (( )), ${...} and heredoc bodies are not reached through
        # words' parts; make sure every nested script of this region is parsed.
        self._nested_in(start, end, depth)
        return [n for n in nodes if n is not None]

    def _nested_in(self, start: int, end: int, depth: int) -> None:
        for nested in self.nested_by_depth.get(depth + 1, []):
            if start <= nested.start < end and nested.start not in self.root.substitutions:
                self.nested_script(nested)

    def nested_script(self, nested: NestedScript) -> None:
        subs = self.root.substitutions
        if nested.start in subs:
            return
        if nested.kind == "backtick":
            text, offs = backtick_script(self.scan.text, nested.inner)
            inner = parse_script(
                text,
                self.scan.dialect,
                self.root.origin.compose(offs),
                max_depth=max(self.max_depth - nested.depth, 1),
                time_limit=self.time_limit,
            )
            for p in inner.problems:
                a = self.root.origin[offs[p.start]] if p.start < len(offs) else None
                if a is not None:
                    # Re-express the inner problem at the backtick's position in this text.
                    self.root.problems.append(Problem(p.code, nested.start, nested.end,
                                                      p.message))
            inner.anchor = (nested.start, nested.end)
            subs[nested.start] = inner
            return
        placeholder = Script(self.scan.text, self.root.origin, self.scan.dialect, nested.inner,
                             [], substitutions=subs, anchor=(nested.start, nested.end))
        subs[nested.start] = placeholder
        placeholder.body = self.region(nested.inner[0], nested.inner[1], nested.depth)

    # -- nodes --------------------------------------------------------------------------------

    def node(self, n: Any, base: int) -> Node:
        kind = n.kind
        if kind == "command":
            return self.command(n, base)
        if kind == "pipeline":
            return self.pipeline(n, base)
        if kind == "list":
            return self.command_list(n, base)
        if kind == "compound":
            return self.compound(n, base)
        if kind == "function":
            return self.function(n, base)
        if kind in ("if", "for", "while", "until", "case", "select"):
            return self.keyword_compound(n, base, [])
        raise UnexpectedTree(f"unexpected node kind {kind!r}")

    def span(self, n: Any, base: int) -> tuple[int, int]:
        return (base + n.pos[0], base + n.pos[1])

    def word(self, n: Any, base: int, *, assignment_value_at: int | None = None) -> Word:
        start, end = self.span(n, base)
        return segment(self.scan, start, end, assignment_value_at=assignment_value_at)

    def command(self, n: Any, base: int) -> Node:
        assignments: list[Assignment] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        for part in n.parts:
            if part.kind == "assignment" and not words:
                assignments.append(self.assignment(part, base))
            elif part.kind in ("word", "assignment"):
                words.append(self.word(part, base))
            elif part.kind == "redirect":
                redirects.append(self.redirect(part, base))
            elif part.kind in ("reservedword", "operator"):
                continue
            else:
                raise UnexpectedTree(f"unexpected command part {part.kind!r}")
        span = self.span(n, base)
        if len(words) == 1 and not assignments:
            raw = words[0].raw
            if raw.startswith("[[") and self.scan.ends.get(words[0].span[0]) == words[0].span[1]:
                return Compound("cond", span, [], self.split_words(words[0].span[0] + 2,
                                                                 words[0].span[1] - 2),
                                redirects)
            if raw.startswith("((") and self.scan.ends.get(words[0].span[0]) == words[0].span[1]:
                return Compound("arith", span, [], [words[0]], redirects)
        return SimpleCommand(span, assignments, words, redirects)

    def assignment(self, n: Any, base: int) -> Assignment:
        start, end = self.span(n, base)
        raw = self.scan.text[start:end]
        eq = raw.find("=")
        append = eq > 0 and raw[eq - 1] == "+"
        name = raw[: eq - 1] if append else raw[:eq]
        value = segment(self.scan, start + eq + 1, end, assignment_value_at=start + eq + 1)
        return Assignment((start, end), name, value, append)

    def redirect(self, n: Any, base: int) -> Redirect:
        start, end = self.span(n, base)
        fd = n.input if isinstance(getattr(n, "input", None), int) else None
        op = n.type
        out = n.output
        if op == "<":
            for at in range(start, end):
                spec = self.heredocs.get(at)
                if spec is not None:
                    body = heredoc_body(self.scan, spec.body[0], spec.body[1], spec.quoted,
                                        spec.strip_tabs)
                    return Redirect((start, end), "<<-" if spec.strip_tabs else "<<", fd, None,
                                    heredoc=Heredoc(spec, body))
        if isinstance(out, int):
            return Redirect((start, end), op, fd, None, dup_fd=out)
        target = self.word(out, base) if out is not None else None
        return Redirect((start, end), op, fd, target)

    def pipeline(self, n: Any, base: int) -> Node:
        commands: list[Node] = []
        operators: list[str] = []
        negated = False
        for part in n.parts:
            if part.kind == "reservedword":
                if part.word == "!":
                    negated = not negated
                continue
            if part.kind == "pipe":
                operators.append(part.pipe)
                continue
            commands.append(self.node(part, base))
        if len(commands) == 1 and not negated:
            return commands[0]
        return Pipeline(self.span(n, base), commands, negated, operators)

    def command_list(self, n: Any, base: int) -> Node:
        items: list[Node] = []
        ops: list[str | None] = []
        for part in n.parts:
            if part.kind == "operator":
                if items and len(ops) < len(items):
                    ops.append(part.op)
                continue
            if part.kind == "reservedword" and part.word in (";", "\n"):
                if items and len(ops) < len(items):
                    ops.append(";")
                continue
            items.append(self.node(part, base))
            if len(ops) < len(items) - 1:
                ops.append(";")
        while len(ops) < len(items):
            ops.append(None)
        return CommandList(self.span(n, base), items, ops)

    def body(self, n: Any, base: int) -> Node:
        return self.node(n, base)

    def compound(self, n: Any, base: int) -> Node:
        parts = list(n.list)
        redirects = [self.redirect(r, base) for r in getattr(n, "redirects", [])]
        span = self.span(n, base)
        if redirects:
            span = (span[0], max(span[1], redirects[-1].span[1]))
        first = parts[0]
        if first.kind == "reservedword" and first.word in ("{", "("):
            inner = [self.node(p, base) for p in parts[1:-1] if p.kind != "reservedword"]
            body: Node = inner[0] if len(inner) == 1 else CommandList(
                span, inner, [None] * len(inner))
            kind = "group" if first.word == "{" else "subshell"
            return Compound(kind, span, [("body", body)] if inner else [], [], redirects)
        if len(parts) == 1:
            return self.keyword_compound(first, base, redirects, span)
        raise UnexpectedTree("unexpected compound shape")

    def keyword_compound(self, n: Any, base: int, redirects: list[Redirect],
                         span: tuple[int, int] | None = None) -> Compound:
        kind = n.kind
        span = span or self.span(n, base)
        parts: list[tuple[str, Node]] = []
        words: list[Word] = []
        name: str | None = None
        role = "condition" if kind in ("if", "while", "until") else "body"
        if kind == "case":
            return self.case(n, base, redirects, span)
        for part in n.parts:
            if part.kind == "reservedword":
                w = part.word
                if w in ("if", "elif", "while", "until"):
                    role = "condition"
                elif w in ("then", "do"):
                    role = "body"
                elif w == "else":
                    role = "else"
                continue
            if part.kind == "word":
                word = self.word(part, base)
                if kind in ("for", "select") and name is None:
                    name = word.value
                else:
                    words.append(word)
                continue
            if part.kind == "operator":
                continue
            parts.append((role, self.node(part, base)))
        return Compound(kind, span, parts, words, redirects, name)

    def case(self, n: Any, base: int, redirects: list[Redirect],
             span: tuple[int, int]) -> Compound:
        words: list[Word] = []
        parts: list[tuple[str, Node]] = []
        for part in n.parts:
            if part.kind == "word":
                words.append(self.word(part, base))
            elif part.kind == "pattern":
                for sub in part.parts:
                    if sub.kind == "word":
                        words.append(self.word(sub, base))
                    elif sub.kind in ("reservedword", "operator", "pipe"):
                        continue
                    else:
                        parts.append(("pattern", self.node(sub, base)))
        return Compound("case", span, parts, words, redirects)

    def function(self, n: Any, base: int) -> Node:
        name = None
        body: list[tuple[str, Node]] = []
        for part in n.parts:
            if part.kind == "word" and name is None:
                name = self.word(part, base).value
            elif part.kind in ("compound", "if", "for", "while", "until", "case"):
                body.append(("body", self.node(part, base)))
        return Compound("function", self.span(n, base), body, [], [], name)

    def split_words(self, start: int, end: int) -> list[Word]:
        """Words of ``[[ ... ]]``: blank-separated, with quotes and expansions kept whole."""
        text, ends = self.scan.text, self.scan.ends
        words: list[Word] = []
        i = start
        while i < end:
            if text[i] in " \t\n":
                i += 1
                continue
            begin = i
            while i < end and text[i] not in " \t\n":
                i = ends[i] if i in ends and ends[i] > i else i + 2 if text[i] == "\\" else i + 1
            words.append(segment(self.scan, begin, min(i, end)))
        return words
