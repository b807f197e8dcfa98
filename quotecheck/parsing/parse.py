"""Parse one shell text into a ``Script``: scan, mask, let bashlex find the structure, convert.

The division of labour: the scanner knows quoting and expansions, bashlex knows the grammar
(lists, pipelines, compound commands, redirections) of the masked text, and the word segmenter
gives each word its value. Nested scripts (``$( )``, backticks, ``<( )``) are parsed separately at
their own depth. A part that cannot be parsed becomes a problem (QC001/QC002) on the script; the
rest is still analysed.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from typing import Any

from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing import bashlex_adapter, splitter, syntax_errors
from quotecheck.parsing.scanner import HeredocSpec, NestedScript, Problem, Scan, scan
from quotecheck.parsing.shell_options import enables_extglob
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
from quotecheck.programs import Dialect
from quotecheck.sourcemap import SourceMap


class UnexpectedTree(Exception):
    """bashlex returned a node shape the converter does not know: treated as a parse failure."""


# What reading a bashlex node of an unexpected shape raises: the node is left out (QC002),
# its siblings are still converted.
_CONVERSION_ERRORS = (UnexpectedTree, AttributeError, TypeError, ValueError, IndexError,
                      KeyError)
_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


DEFAULT_MAX_DEPTH = 64
DEFAULT_TIME_LIMIT = 5.0
# All parser calls for one text together (a region that times out is retried in chunks, each
# with DEFAULT_TIME_LIMIT): past this the rest of the text is reported as not analysed.
DEFAULT_TOTAL_TIME_LIMIT = 60.0
MAX_CHUNK_LINES = 200
# Recovering from syntax errors re-parses growing chunks; the characters handed to the parser
# while doing so are capped at this multiple of the region's length (plus PIECEWISE_WORK_MIN)
# so a text of many unclosed constructs (`if x; then` on every line) costs linear time instead
# of 200 re-parses of up to 200 lines for every line (cubic: 200 such lines took 190 s).
PIECEWISE_WORK_FACTOR = 10
PIECEWISE_WORK_MIN = 200_000
# After a time-out on a whole region, chunks of about this many lines are tried first, ending
# where a new top-level command seems to start (growing line by line from every construct's
# first line took a minute for a valid 30,000-line script and still left most of it out).
CHUNK_LINES_AFTER_TIMEOUT = 256
# A text of more than twice this many lines is parsed in pieces of about this many lines.
PIECE_LINES = 500
MAX_MERGED_PIECES = 4
_CONTINUING = frozenset({"fi", "done", "esac", "else", "elif", "then", "do", "in", ";;", ";&",
                         ";;&", "}", ")", "|", "||", "&&", "&", ";"})


def parse_script(
    text: str,
    dialect: Dialect = "bash",
    origin: SourceMap | None = None,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    time_limit: float = DEFAULT_TIME_LIMIT,
    total_time_limit: float = DEFAULT_TOTAL_TIME_LIMIT,
    nesting: int = 0,
    max_nesting: int | None = None,
    deadline: float | None = None,
    extglob: bool | None = None,
) -> Script:
    """Parse ``text``; never raises for any input string.

    ``time_limit`` bounds each parser call, ``total_time_limit`` all of them for this text;
    compound commands and substitutions nested more than ``max_nesting`` (default ``max_depth``)
    deep are skipped; ``nesting`` (those around ``text``) and ``deadline`` (a
    ``time.monotonic()`` value) carry the limits into a backtick script parsed on its own.
    ``extglob``: whether bash's extglob patterns parse (default: when the text turns it on).
    """
    if extglob is None:
        extglob = dialect == "bash" and enables_extglob(text)
    result = scan(text, dialect, max_depth, extglob)
    script = Script(
        text=text,
        origin=origin if origin is not None else SourceMap.identity(len(text)),
        dialect=dialect,
        span=(0, len(text)),
        body=[],
        problems=list(result.problems),
        comments=list(result.comments),
    )
    if deadline is None:
        deadline = time.monotonic() + total_time_limit
    builder = _Builder(result, script, max_depth, time_limit, deadline, nesting,
                       max_depth if max_nesting is None else max_nesting, extglob)
    script.body = builder.region(0, len(text), 0)
    script.problems = _one_per_region(script.problems, len(result.problems),
                                      builder.open_problems, len(text))
    return script


def _one_per_region(problems: list[Problem], scanned: int, open_ones: set[int],
                    size: int) -> list[Problem]:
    """The problems without the ones a quote, ``${``, ``$(`` ... left open explains.

    Such a construct takes the rest of the text (the first ``scanned`` problems are the
    scanner's): of those nested in one another only the innermost is the cause (`"${x` leaves
    the quote open because the `${` is), and a parse error after it, or a compound command
    never closed (its closing word was taken in), follows from it."""
    endless = [k for k in range(scanned) if problems[k].code == "QC001" and
               problems[k].end >= size and problems[k].message.startswith("unterminated")]
    if not endless:
        return problems
    cause = max(endless, key=lambda k: problems[k].start)
    at = problems[cause].start
    kept: list[Problem] = []
    for k, p in enumerate(problems):
        if p.code == "QC001" and k != cause and (
                k in endless or k in open_ones or (k >= scanned and p.start >= at)):
            continue
        kept.append(p)
    return kept


_COMPOUND_KINDS = frozenset({"compound", "if", "for", "while", "until", "case", "select"})


def _too_deep(limit: int) -> str:
    return (f"compound commands and substitutions nested more than {limit} deep are not "
            "analysed (this one and everything in it)")


def _command_starts(masked: str, breaks: list[int]) -> list[int]:
    """Line starts where a top-level command plausibly starts: at column 0, after a line that
    does not go on, with a word that does not continue a construct (`fi`, `done`, `}`...)."""
    found: list[int] = []
    previous = 0
    for b in breaks:
        if b >= len(masked):
            break
        head = masked[b:b + 8].split(None, 1)
        tail = masked[previous:b].rstrip()
        previous = b
        if not head or masked[b] in " \t\n#" or head[0] in _CONTINUING or \
                head[0][:1] in "});|&":
            continue
        if tail.endswith(("\\", "|", "&&", "(", "{")) or (tail.endswith("&") and
                                                           not tail.endswith(" &")):
            continue
        found.append(b)
    return found


def _lines(text: str) -> str:
    n = text.count("\n") + (0 if text.endswith("\n") else 1)
    return "1 line" if n == 1 else f"{n:,} lines"


class _Recovery:
    """What recovering from syntax errors in one region has seen: where the last unparseable
    part ended (an offset in the text; -1: none yet)."""

    __slots__ = ("failed_to",)

    def __init__(self) -> None:
        self.failed_to = -1


class _Builder:
    def __init__(self, scanned: Scan, root: Script, max_depth: int, time_limit: float,
                 deadline: float, nesting: int = 0, max_nesting: int = DEFAULT_MAX_DEPTH,
                 extglob: bool = False) -> None:
        self.scan = scanned
        self.extglob = extglob
        # Indices in root.problems of the QC001s for a construct left open (a quote left open
        # after it explains them: see _one_per_region).
        self.open_problems: set[int] = set()
        self.root = root
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.deadline = deadline
        # Compound commands and substitutions enclosing the node being converted. bashlex's
        # parser is iterative, but this converter, tree.walk and the rules recurse: 400 nested
        # `if`s raised RecursionError. Past max_nesting levels a construct is skipped (QC002).
        self.nesting = nesting
        self.max_nesting = max_nesting
        self.deepest = nesting  # the deepest nesting reached in the region being converted
        self.heredocs: dict[int, HeredocSpec] = {h.operator[0]: h for h in scanned.heredocs}
        self.nested_by_depth: dict[int, list[NestedScript]] = {}
        for n in scanned.nested:
            self.nested_by_depth.setdefault(n.depth, []).append(n)
        self.nested_sorted: dict[int, tuple[list[NestedScript], list[int]]] = {}
        self.depth = 0
        self.bounds = (0, len(scanned.text))  # the region being converted

    def problem(self, code: str, start: int, end: int, message: str) -> None:
        self.root.problems.append(Problem("QC001" if code == "QC001" else "QC002", start, end,
                                          message))

    # -- regions ----------------------------------------------------------------------------

    def _limit(self) -> float:
        """The time limit of the next parser call: the per-call limit or what is left in all."""
        return min(self.time_limit, self.deadline - time.monotonic())

    def _gave_up(self, limit: float) -> str:
        if limit < self.time_limit:
            return "the time for parsing this text ran out"
        return f"the parser gave up after {self.time_limit:g} s"

    def region(self, start: int, end: int, depth: int) -> list[Node]:
        masked = self.scan.masked(start, end, depth)
        if not masked.strip():
            self._nested_in(start, end, depth)
            return []
        if masked.count("\n") <= 2 * PIECE_LINES:
            limit = self._limit()
            outcome = bashlex_adapter.safe_parse(masked, limit, expand=False)
            return self._parsed(start, end, depth, masked, outcome, limit, _Recovery())
        # A long text is parsed a few hundred lines at a time, cut between top-level commands
        # (splitter.py); a piece still open at its end (a wrong cut) is parsed again together
        # with the next one, a few at most.
        nodes: list[Node] = []
        recovery = _Recovery()  # (shared by the pieces: cut or not, the same findings)
        cuts = splitter.pieces(masked, PIECE_LINES)
        k = 0
        while k < len(cuts):
            a, b = cuts[k]
            limit = self._limit()
            merged = 1
            while limit > 0:
                outcome = bashlex_adapter.safe_parse(masked[a:b], limit, expand=False)
                at = outcome.error_offset
                if outcome.nodes is not None or outcome.timed_out or k + 1 == len(cuts) or \
                        merged == MAX_MERGED_PIECES or (at is not None and
                                                        at < len(masked[a:b].rstrip())):
                    break
                k += 1
                merged += 1
                b = cuts[k][1]
                limit = self._limit()
            if limit <= 0 or (outcome.timed_out and self._limit() <= 0):
                # Out of time: one finding for the rest of the text, not one for each piece.
                self.problem("QC002", start + a, end,
                             f"{self._gave_up(min(limit, 0))}: the rest of this text "
                             f"({_lines(masked[a:])}) is not analysed")
                break
            nodes.extend(self._parsed(start + a, start + b, depth, masked[a:b], outcome, limit,
                                      recovery))
            k += 1
        return nodes

    def _parsed(self, start: int, end: int, depth: int, masked: str,
                outcome: bashlex_adapter.ParseOutcome, limit: float,
                recovery: _Recovery) -> list[Node]:
        """The nodes of ``masked`` (the text from ``start`` to ``end``) given how its parse
        went: converted, or recovered a chunk at a time after an error or a time-out."""
        if outcome.nodes is None:
            if outcome.timed_out and "\n" not in masked.rstrip("\n"):
                self.problem("QC002", start, end,
                             f"{self._gave_up(limit)} on this line ({len(masked):,} characters); "
                             "it is not analysed")
                self._nested_in(start, end, depth)
                return []
            # Skipping a region that timed out would leave every script of more than a few
            # thousand lines unanalysed: parse it a chunk of lines at a time, each chunk with its
            # own time limit.
            return self.piecewise(start, end, depth, masked, after_timeout=outcome.timed_out,
                                  recovery=recovery)
        return self.convert(outcome.nodes, start, end, depth)

    def piecewise(self, start: int, end: int, depth: int, masked: str,
                  after_timeout: bool = False, recovery: _Recovery | None = None) -> list[Node]:
        """Parse what can be parsed around a syntax error, a chunk of whole lines at a time.

        A chunk grows line by line until it parses (a construct may span lines); a line no
        chunk of up to MAX_CHUNK_LINES lines can parse is reported and skipped. After a time-out
        on the whole region (``after_timeout``) a line that cannot be parsed in a chunk is not
        analysed (QC002) rather than a syntax error: it may be part of a longer construct.
        """
        if recovery is None:
            recovery = _Recovery()
        breaks = [i + 1 for i, c in enumerate(masked) if c == "\n"]
        if not breaks or breaks[-1] != len(masked):
            breaks.append(len(masked))
        nodes: list[Node] = []
        a = 0
        first = 0  # index in breaks of the first line end after `a`
        # (a valid text cut into chunks costs about its own length: the deadline bounds that)
        work = (PIECEWISE_WORK_FACTOR * len(masked) + PIECEWISE_WORK_MIN if not after_timeout
                else float("inf"))
        # After a syntax error the rest of that command is skipped, to the next line where a
        # top-level command seems to start: one finding for one unparseable region, not one
        # for every line of it (a broken function once cost a hundred).
        starts = _command_starts(masked, breaks)
        retry_at = 0
        while a < len(masked):
            while first < len(breaks) and breaks[first] <= a:
                first += 1
            limit = self._limit()
            if work <= 0 or limit <= 0:
                rest = masked[a:]
                if rest.strip():
                    why = (self._gave_up(limit) if limit <= 0 else
                           "recovering from the syntax errors above took too long")
                    self.problem("QC002", start + a, start + len(masked),
                                 f"{why}: the rest of this text ({_lines(rest)}) is not "
                                 "analysed")
                end = start + a  # nor are the substitutions in it
                break
            if after_timeout and a >= retry_at:
                b = self._large_chunk(masked, breaks, starts, a, first, start, depth, nodes)
                if b is not None:
                    a = b
                    continue
                # not again before the lines of that chunk are done (each would cost as much)
                retry_at = breaks[min(first + CHUNK_LINES_AFTER_TIMEOUT, len(breaks) - 1)]
            parsed = False
            first_error: bashlex_adapter.ParseOutcome | None = None
            token_error: tuple[bashlex_adapter.ParseOutcome, int] | None = None
            for k in range(first, min(first + MAX_CHUNK_LINES, len(breaks))):
                b = breaks[k]
                chunk = masked[a:b]
                if not chunk.strip():
                    parsed, a = True, b
                    break
                work -= len(chunk)
                limit = self._limit()
                outcome = bashlex_adapter.safe_parse(chunk, limit, expand=False)
                if outcome.nodes is not None:
                    nodes.extend(self.convert(outcome.nodes, start + a, start + b, depth))
                    parsed, a = True, b
                    break
                if first_error is None:
                    first_error = outcome
                if outcome.timed_out or work <= 0:
                    break
                # The LR parser stops at the first token no continuation can make valid: unless
                # the error is at the end of the chunk (a construct left open), more lines
                # cannot help, and trying up to MAX_CHUNK_LINES of them for every line is cubic.
                at = outcome.error_offset
                if at is not None and at < len(chunk.rstrip()):
                    token_error = (outcome, at)
                    break
                if at is not None and not _at_end_of_input(outcome):
                    token_error = (outcome, at)  # (the last line's newline: more cannot help)
            if not parsed:
                b = breaks[first] if first < len(breaks) else len(masked)
                err = first_error
                message = err.error if err and err.error else "syntax error"
                if err is not None and err.timed_out:
                    self.problem("QC002", start + a, start + b,
                                 f"{self._gave_up(limit)} on this line; it is not analysed")
                elif after_timeout:
                    self.problem("QC002", start + a, start + b,
                                 f"the parser gave up after {self.time_limit:g} s on the whole "
                                 "text, and this line "
                                 f"does not parse in a chunk of up to {MAX_CHUNK_LINES} lines "
                                 f"({message}); it is not analysed")
                else:
                    # The region goes on past the token the parser stopped at: starting again
                    # before it would meet it again.
                    at = a + token_error[1] if token_error is not None else a
                    skip = bisect_right(starts, at)
                    b = starts[skip] if skip < len(starts) else len(masked)
                    # Right after another such region it is the same one; so is a closing
                    # word alone at a line's start after one (the `}` of a broken function).
                    same = start + a == recovery.failed_to or (
                        recovery.failed_to >= 0 and token_error is not None and
                        syntax_errors.closes_line(masked, at))
                    if not same:
                        self._syntax_error(start, masked, a, token_error)
                    recovery.failed_to = start + b
                    if token_error is not None:
                        work -= self._around_token(start, depth, masked, a, at, nodes, work)
                a = b
        self._nested_in(start, end, depth)
        return nodes

    def _around_token(self, start: int, depth: int, masked: str, a: int, at: int,
                      nodes: list[Node], budget: float) -> int:
        """Add to ``nodes`` the commands on either side of the token at ``at`` that stopped
        the parse of the command from ``a``: the text before it, and the rest of its line after
        the next command separator, each where it parses whole; return the characters handed
        to the parser (``budget`` at most, give or take a piece).

        The shell runs none of them (it stops at the syntax error), but they are what the
        author wrote: `ssh h "kill $! ;;"` still hands `$!` to the wrong shell, and without
        them one stray token hides every finding of its line. A construct closed with the wrong
        word (`done` for `fi`) is read as closed there; what does not parse on its own even so
        stays unanalysed."""
        cost = 0
        token = syntax_errors.token_at(masked, masked, at)
        for lo, hi in ((a, at), (splitter.after_separator(masked, at), masked.find("\n", at))):
            hi = len(masked) if hi < 0 else hi
            piece = masked[lo:hi]
            limit = self._limit()
            if not piece.strip() or limit <= 0:
                continue
            cost += len(piece)
            outcome = bashlex_adapter.safe_parse(piece, limit, expand=False)
            found = outcome.nodes
            if found is None and lo == a and token in syntax_errors.CLOSING_WORDS and \
                    _at_end_of_input(outcome):
                # `if x; then echo $HOME; done`: the construct closed with the wrong word
                found, tried = self._closed(piece, at - a + len(token), budget - cost)
                cost += tried
                hi = at + len(token)
            if found is not None:
                nodes.extend(self.convert(found, start + lo, start + hi, depth))
        return cost

    def _closed(self, piece: str, end: int, budget: float) -> tuple[list[Any] | None, int]:
        """The parse of ``piece``, a command left open at its end where a closing word stood
        (the wrong one), with the closing words it lacks put there instead (two at most); its
        nodes end by ``end``, that word's end. Also the characters handed to the parser."""
        cost = 0
        for first in syntax_errors.CLOSING_WORDS:
            for second in ("", *syntax_errors.CLOSING_WORDS):
                limit = self._limit()
                if limit <= 0 or cost > budget:
                    return None, cost
                text = f"{piece}{first}; {second}" if second else f"{piece}{first}"
                cost += len(text)
                outcome = bashlex_adapter.safe_parse(text, limit, expand=False)
                if outcome.nodes is not None:
                    for n in bashlex_adapter.iter_nodes(outcome.nodes):
                        # (the closing words put in stand where the wrong one is)
                        n.pos = (min(n.pos[0], end), min(n.pos[1], end))
                    return outcome.nodes, cost
                if not second and not _at_end_of_input(outcome):
                    break  # not this word: no second one helps
        return None, cost

    def _syntax_error(self, start: int, masked: str, a: int,
                      token_error: tuple[bashlex_adapter.ParseOutcome, int] | None) -> None:
        """One QC001 for the command at ``a`` (of ``masked``, the text from ``start``) that
        does not parse: at the token the parser stopped at, or at the construct left open."""
        text = self.scan.text
        if token_error is not None:
            at = a + token_error[1]
            message = syntax_errors.near_token(text[start:start + len(masked)], masked, at,
                                               self.extglob, self.scan.dialect)
        else:
            at, message = syntax_errors.open_construct(masked, a)
            self.open_problems.add(len(self.root.problems))
        self.problem("QC001", start + at, start + at + 1, message)

    def _large_chunk(self, masked: str, breaks: list[int], starts: list[int], a: int,
                     first: int, start: int, depth: int, nodes: list[Node]) -> int | None:
        """Parse a chunk of CHUNK_LINES_AFTER_TIMEOUT lines or more from ``a``, ending where a
        command seems to start (twice as long again while a construct is still open there);
        return where it ended, or None to go on line by line."""
        lines = CHUNK_LINES_AFTER_TIMEOUT
        for _ in range(3):
            k = first + lines
            if k >= len(breaks):
                b = len(masked)
            else:
                i = bisect_left(starts, breaks[k])
                b = starts[i] if i < len(starts) else len(masked)
            chunk = masked[a:b]
            if b - a < 2 or chunk.count("\n") < 2:
                return None
            limit = self._limit()
            if limit <= 0:
                return None
            outcome = bashlex_adapter.safe_parse(chunk, limit, expand=False)
            if outcome.nodes is not None:
                nodes.extend(self.convert(outcome.nodes, start + a, start + b, depth))
                return b
            at = outcome.error_offset
            if outcome.timed_out or b == len(masked) or (at is not None and
                                                         at < len(chunk.rstrip())):
                return None
            lines *= 2
        return None

    def convert(self, parsed: list[Any], start: int, end: int, depth: int) -> list[Node]:
        saved, self.depth = self.depth, depth
        saved_bounds, self.bounds = self.bounds, (start, end)
        try:
            # node() leaves out only the smallest node it cannot read (one QC002 for it), so a
            # failure never costs the whole region (a whole file at times).
            nodes = [self.node(n, start) for n in parsed]
        finally:
            self.depth = saved
            self.bounds = saved_bounds
        # Substitutions inside [[ ]], (( )), ${...} and heredoc bodies are not reached through
        # words' parts; make sure every nested script of this region is parsed.
        self._nested_in(start, end, depth)
        return [n for n in nodes if n is not None]

    def _nested_in(self, start: int, end: int, depth: int) -> None:
        # Only the nested scripts starting in [start, end): a scan of all of them for every
        # chunk made a long text with a substitution on every line quadratic.
        nested, starts = self._nested_at(depth + 1)
        lo, hi = bisect_left(starts, start), bisect_left(starts, end)
        for k in range(lo, hi):
            if nested[k].start in self.root.substitutions:
                continue
            if time.monotonic() >= self.deadline:
                self._out_of_time(nested[k:hi])
                return
            self.nested_script(nested[k])

    def _out_of_time(self, rest: list[NestedScript]) -> None:
        """One QC002 for the substitutions left when time ran out (not one for each)."""
        subs = self.root.substitutions
        left = [n for n in rest if n.start not in subs]
        for n in left:
            subs[n.start] = Script(self.scan.text, self.root.origin, self.scan.dialect, n.inner,
                                   [], substitutions=subs, anchor=(n.start, n.end))
        if left:
            count = "1 substitution" if len(left) == 1 else f"{len(left):,} substitutions"
            self.problem("QC002", left[0].start, max(n.end for n in left),
                         f"the time for parsing this text ran out: {count} from here on "
                         f"{'is' if len(left) == 1 else 'are'} not analysed")

    def _nested_at(self, depth: int) -> tuple[list[NestedScript], list[int]]:
        found = self.nested_sorted.get(depth)
        if found is None:
            nested = sorted(self.nested_by_depth.get(depth, []), key=lambda n: n.start)
            found = self.nested_sorted[depth] = (nested, [n.start for n in nested])
        return found

    def nested_script(self, nested: NestedScript) -> None:
        subs = self.root.substitutions
        if nested.start in subs:
            return
        # A substitution counts as one more level of nesting, below the deepest construct of the
        # region it sits in (an over-estimate, which only matters for absurdly deep texts).
        saved = self.nesting, self.deepest
        self.nesting = self.deepest = self.deepest + 1
        try:
            self._nested_script(nested, subs)
        finally:
            self.nesting, self.deepest = saved

    def _nested_script(self, nested: NestedScript, subs: dict[int, Script]) -> None:
        if self.nesting > self.max_nesting:
            self.problem("QC002", nested.start, nested.end, _too_deep(self.max_nesting))
            subs[nested.start] = Script(self.scan.text, self.root.origin, self.scan.dialect,
                                        nested.inner, [], substitutions=subs,
                                        anchor=(nested.start, nested.end))
            return
        if nested.kind == "backtick":
            text, offs = backtick_script(self.scan.text, nested.inner)
            inner = parse_script(
                text,
                self.scan.dialect,
                self.root.origin.compose(offs),
                max_depth=max(self.max_depth - nested.depth, 1),
                time_limit=self.time_limit,
                nesting=self.nesting,
                max_nesting=self.max_nesting,
                deadline=self.deadline,
                extglob=self.extglob,
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
        """Convert one bashlex node; one of a shape we cannot read becomes an empty list that
        stands for it, with a QC002 on its span (a tree we cannot read is not guessed at)."""
        try:
            return self._node(n, base)
        except _CONVERSION_ERRORS as exc:
            start, end = self._span_or_region(n, base)
            self.problem("QC002", start, end,
                         f"not analysed: the parser returned an unexpected structure ({exc})")
            return CommandList((start, end), [], [])

    def _span_or_region(self, n: Any, base: int) -> tuple[int, int]:
        lo, hi = self.bounds
        try:
            start, end = self.span(n, base)
            if isinstance(start, int) and isinstance(end, int) and lo <= start <= end <= hi:
                return start, end
        except _CONVERSION_ERRORS:
            pass
        return lo, hi

    def _node(self, n: Any, base: int) -> Node:
        kind = n.kind
        if kind == "command":
            return self.command(n, base)
        if kind == "pipeline":
            return self.pipeline(n, base)
        if kind == "list":
            return self.command_list(n, base)
        if kind == "function":  # its body, a compound command, counts as the level
            return self.function(n, base)
        if kind not in _COMPOUND_KINDS:
            raise UnexpectedTree(f"unexpected node kind {kind!r}")
        if self.nesting >= self.max_nesting:
            start, end = self.span(n, base)
            self.problem("QC002", start, end, _too_deep(self.max_nesting))
            return CommandList((start, end), [], [])  # stands for the skipped construct
        self.nesting += 1
        self.deepest = max(self.deepest, self.nesting)
        try:
            if kind == "compound":
                return self.compound(n, base)
            return self.keyword_compound(n, base, [])
        finally:
            self.nesting -= 1

    def span(self, n: Any, base: int) -> tuple[int, int]:
        pos = n.pos
        # (the parser's own tuple when nothing is added: a trace holds a span per node)
        return (pos[0] + base, pos[1] + base) if base or type(pos) is not tuple else pos

    def word(self, n: Any, base: int, *, assignment_value_at: int | None = None) -> Word:
        start, end = self.span(n, base)
        if start - 1 in self.scan.glued_arithmetic:
            start -= 1  # the `((` whose first `(` the mask blanked
        return segment(self.scan, start, end, assignment_value_at=assignment_value_at)

    def command(self, n: Any, base: int) -> Node:
        assignments: list[Assignment] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        for part in n.parts:
            if part.kind == "assignment" and not words:
                assignments.append(self.assignment(part, base))
            elif part.kind == "word" and not words and (
                    element := self.element_assignment(part, base)) is not None:
                assignments.append(element)
            elif part.kind == "word" and not words and assignments and \
                    _ASSIGNMENT.match(self.scan.text, *self.span(part, base)):
                # After `a[1]=x` bashlex thinks the command name came: `b=2` is still a prefix.
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
        if words and words[0].span[0] < span[0]:
            span = (words[0].span[0], span[1])  # a glued `((` (see word())
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

    def element_assignment(self, n: Any, base: int) -> Assignment | None:
        """``name[sub]=value`` / ``name[sub]+=value`` before the command name (bashlex sees a
        word: the scanner masked the subscript): an assignment of array element ``sub``."""
        start, end = self.span(n, base)
        text = self.scan.text
        m = _NAME.match(text, start, end)
        if m is None or text[m.end():m.end() + 1] != "[":
            return None
        close = self.scan.subscripts.get(m.end())
        if close is None or close >= end:
            return None
        append = text.startswith("+=", close)
        if not append and text[close] != "=":
            return None
        at = close + (2 if append else 1)
        value = segment(self.scan, at, end, assignment_value_at=at)
        # The subscript is read like an assignment's value: no globbing, no brace expansion.
        subscript = segment(self.scan, m.end() + 1, close - 1, assignment_value_at=m.end() + 1)
        return Assignment((start, end), m.group(), value, append, subscript)

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
        if isinstance(out, str):
            # `n>&-` / `n<&-` (close descriptor n): bashlex gives the `-` as a plain string, not
            # a word node. Read as a node it raised, which made the whole text holding it (a
            # script with `exec 3>&-`) one QC001 "unexpected structure", and none of it analysed.
            at = end - len(out)
            target = segment(self.scan, at, end) if self.scan.text[at:end] == out else None
            return Redirect((start, end), op, fd, target)
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
                    if word.raw.startswith("(("):
                        # `for ((...))`: the expressions are a word too, so what runs in
                        # them (`$(cmd)`) is walked like any word's substitutions.
                        words.append(word)
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


def _at_end_of_input(outcome: bashlex_adapter.ParseOutcome) -> bool:
    """Whether a failed parse ran out of input (a construct left open), rather than meeting a
    token nothing can follow."""
    return outcome.error is not None and outcome.error.endswith("unexpected EOF")
