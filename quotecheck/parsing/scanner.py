"""Lexical scan of shell text: where every quote, expansion, nested script and heredoc is.

bashlex mis-parses quoted text and many expansions, so bashlex never sees them: the scanner
produces a *mask*, a copy of the text of the same length in which every quoted string,
expansion, escape and heredoc body is replaced by filler, while words, operators and reserved
words stay where they are. Offsets into the mask are offsets into the text.

The scanner also records, for every construct it passes, where it ends (``ends``), so the word
segmenter (``words.py``) never has to re-discover the extent of a ``$(...)`` or a quote, and the
nested scripts (``$(...)``, backticks, ``<(...)``) that must be parsed on their own.

The scan is iterative within one nesting level and recursive across levels; ``max_depth`` bounds
the recursion, and anything deeper is reported as a problem instead of analysed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Literal

from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import Dialect
from quotecheck.records import FrozenRecord, Record

# Filler for masked characters. '.' can never be part of a variable name, so a masked word such
# as `"X"=1` (-> `...=1`) is not mistaken for an assignment, and it is not special to bashlex.
FILL = "."

# Characters that end an unquoted word.
METACHARS = frozenset(" \t\n;&|<>()")
_PLAIN_RUN = lazy_compile(r"[A-Za-z0-9_./:,@%+=-]+")
_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAME_CHARS = lazy_compile(r"[A-Za-z0-9_]+")
_ASSIGNMENT_PREFIX = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_RESERVED_KEEP_COMMAND_POSITION = frozenset(
    {"if", "then", "elif", "else", "while", "until", "do", "!", "{", "time", "for", "select",
     "case", "in", "function", "-p"}
)
SPECIAL_PARAMETERS = frozenset("?!$#@*-0123456789")
# Read-ahead decisions (`((`: arithmetic or two subshells? `name[`: a subscript?) are taken by a
# throwaway scanner on a window of the text that grows by this factor until the construct ends
# inside it: what it registers (nested scripts, masks) must not stay behind when the answer is no.
_PROBE_WINDOW = 64
_PROBE_GROWTH = 4
# bash reads `name[...]` at a command's start as one word up to the matching `]`, blanks
# included (`a[i + 1]=x`); a bracket still open after this many characters is taken as text.
_MAX_SUBSCRIPT = 4096
_NOT_HERE = -1  # a probe's answer: the construct is not there at all (whatever comes after)

ProblemCode = Literal["QC001", "QC002"]


class Problem(FrozenRecord):
    """Something the scan could not take in: a parse error (QC001) or a skipped part (QC002)."""

    code: ProblemCode
    start: int
    end: int
    message: str


class NestedScript(FrozenRecord):
    """A script nested inside the text: ``$(...)``, a backtick string or ``<(...)``/``>(...)``.

    ``inner`` is the span of the script text itself (inside the delimiters). Backtick contents
    need their backslashes processed before they are parsed (``words.backtick_script``).
    """

    kind: Literal["command", "backtick", "process"]
    start: int
    end: int
    inner: tuple[int, int]
    depth: int
    in_heredoc: bool = False


class HeredocSpec(FrozenRecord):
    """One ``<<DELIM``/``<<-DELIM`` redirection and the body lines that belong to it."""

    operator: tuple[int, int]
    delimiter: str
    delimiter_span: tuple[int, int]
    quoted: bool
    strip_tabs: bool
    body: tuple[int, int]
    terminated: bool
    depth: int


class Scan(Record):
    """Everything the scanner learned about one text."""

    text: str
    dialect: Dialect
    mask: list[str]
    ends: dict[int, int]
    nested: list[NestedScript]
    heredocs: list[HeredocSpec]
    comments: list[tuple[int, int]]
    problems: list[Problem]
    # `name[...]` at a command's start: the offset of `[` -> the offset after its `]` (an
    # array-element assignment when `=` or `+=` follows).
    subscripts: dict[int, int]
    # `((` of an arithmetic command glued to the reserved word before it (`while((x))`): its
    # first `(` is masked as a blank so the parser sees two words (see _arithmetic_command).
    glued_arithmetic: set[int]

    def __init__(self, text: str, dialect: Dialect, mask: list[str],
                 ends: dict[int, int] | None = None, nested: list[NestedScript] | None = None,
                 heredocs: list[HeredocSpec] | None = None,
                 comments: list[tuple[int, int]] | None = None,
                 problems: list[Problem] | None = None,
                 subscripts: dict[int, int] | None = None,
                 glued_arithmetic: set[int] | None = None) -> None:
        self.text = text
        self.dialect = dialect
        self.mask = mask
        self.ends = {} if ends is None else ends
        self.nested = [] if nested is None else nested
        self.heredocs = [] if heredocs is None else heredocs
        self.comments = [] if comments is None else comments
        self.problems = [] if problems is None else problems
        self.subscripts = {} if subscripts is None else subscripts
        self.glued_arithmetic = set() if glued_arithmetic is None else glued_arithmetic
        # Caches, not fields (not compared, not shown): built from ``nested`` when asked.
        self._nested_starts: tuple[int, frozenset[int]] = (-1, frozenset())
        self._nested_levels: tuple[int, dict[int, tuple[list[NestedScript], list[int]]]] = (
            -1, {})

    def nested_starts(self) -> frozenset[int]:
        """The offsets where a nested script starts (built once, not once per word)."""
        count, starts = self._nested_starts
        if count != len(self.nested):
            starts = frozenset(s.start for s in self.nested)
            self._nested_starts = (len(self.nested), starts)
        return starts

    def _level(self, depth: int) -> tuple[list[NestedScript], list[int]]:
        """The nested scripts at ``depth`` sorted by start, and their ends (built once)."""
        count, levels = self._nested_levels
        if count != len(self.nested):
            levels = {}
            for script in sorted(self.nested, key=lambda n: n.start):
                levels.setdefault(script.depth, ([], []))[0].append(script)
            for scripts, ends in levels.values():
                ends.extend(n.end for n in scripts)
            self._nested_levels = (len(self.nested), levels)
        return levels.get(depth, ([], []))

    def masked(self, start: int, end: int, depth: int) -> str:
        """The mask of ``text[start:end]`` as seen by a parser working at nesting ``depth``.

        Nested scripts one level deeper are hollowed out entirely (they are parsed separately);
        inside heredoc bodies they become blanks so the body stays blank lines.
        """
        chunk = self.mask[start:end]
        scripts, ends = self._level(depth + 1)
        # Scripts of one level do not overlap, so sorted by start their ends are sorted too:
        # only those overlapping [start, end) are visited (every region visiting all of them
        # would be quadratic in the number of substitutions of a text).
        for k in range(bisect_right(ends, start), len(scripts)):
            script = scripts[k]
            if script.start >= end:
                break
            lo, hi = max(script.start, start), min(script.end, end)
            for i in range(lo, hi):
                if not script.in_heredoc:
                    # Newlines too: a blank would split the word the script stands in
                    # (`a$(\<newline>date\<newline>)b` and `$\<newline>(date)` are one word).
                    chunk[i - start] = FILL
                elif chunk[i - start] != "\n":
                    chunk[i - start] = " "
        return "".join(chunk)


def _construct_end(text: str, i: int) -> int:
    """Where the `"..."`, `${...}` or `$(...)` at ``i`` ends, found without recursion.

    Only for constructs nested too deep to scan properly: a stack of what is open (a double
    quote, a brace, a parenthesis), single quotes and backticks skipped whole, escapes skipped.
    The end of the text if it never closes."""
    n = len(text)
    stack: list[str] = []
    j = i
    while j < n:
        c = text[j]
        top = stack[-1] if stack else ""
        if c == "\\":
            j += 2
            continue
        if top == '"':
            if c == '"':
                stack.pop()
            elif c == "$" and text.startswith(("$(", "${"), j):
                stack.append(text[j + 1])
                j += 1
            elif c == "`":
                j = _past(text, j, "`")
                continue
        elif c == '"':
            stack.append('"')
        elif c == "'" and '"' not in stack:  # (inside double quotes it is a plain character)
            j = _past(text, j, "'")
            continue
        elif c == "`":
            j = _past(text, j, "`")
            continue
        elif c == "$" and text.startswith(("$(", "${"), j):
            stack.append(text[j + 1])
            j += 1
        elif c == "(" and top == "(":
            stack.append(c)
        elif (c == ")" and top == "(") or (c == "}" and top == "{"):
            stack.pop()
        j += 1
        if not stack:
            return j
    return n


def _past(text: str, j: int, quote: str) -> int:
    """Past the closing ``quote`` of the one at ``j`` (escapes skipped in backticks)."""
    k = j + 1
    while k < len(text) and text[k] != quote:
        k += 2 if quote == "`" and text[k] == "\\" else 1
    return min(k + 1, len(text))


def skip_line_continuations(text: str, i: int) -> int:
    """The index of the first character at or after ``i`` that is not a line continuation."""
    while text.startswith("\\\n", i):
        i += 2
    return i


class _TooDeep(Exception):
    """Quotes and ``${...}`` nested past ``max_depth``: unwinds to the outermost of them."""


class _WindowTooSmall(Exception):
    """A probe inside a probe ran into the end of its host's window: unwinds to the probe that
    can take a larger window (going on with a guess would only be thrown away later)."""


class Scanner:
    """Scan shell text once; see the module docstring."""

    def __init__(self, text: str, dialect: Dialect = "bash", max_depth: int = 64,
                 extglob: bool = False) -> None:
        self.text = text
        self.n = len(text)
        self.scan = Scan(text=text, dialect=dialect, mask=list(text))
        self.max_depth = max_depth
        self.ansi_c = dialect != "sh"
        # bash's extglob on: `+(...)`, `@(...)` ... inside a word are part of it (a pattern).
        self.extglob = extglob and dialect == "bash"
        # Open double quotes and `${` around the current position. They nest through recursion
        # like `$(...)` does, so they are bounded the same way (`"${x-"${x-...` would otherwise
        # exhaust Python's stack).
        self._quote_depth = 0
        # The insides of `$(...)`/`<(...)` scripts: they keep their own mask (what the parser
        # of their level sees) when the quote or `${...}` around them is filled.
        self._keep = bytearray(self.n)
        # Read-ahead probes (``_probe``) are scanners on a window of the text: where the window
        # starts in the whole text, whether it stops short of the text's end, and the answers
        # already known (shared by all probes of one scan: a probe inside a probe inside ...
        # for `(( $( (( $( ...` is exponential in the nesting without them).
        self._base = 0
        self._truncated = False
        self._is_probe = False
        self._probed: dict[tuple[str, int, int, int], int | None] = {}

    # -- entry point ---------------------------------------------------------------------

    def run(self) -> Scan:
        self._script(0, 0, None)
        return self.scan

    # -- helpers -------------------------------------------------------------------------

    def _fill(self, start: int, end: int, char: str = FILL) -> None:
        mask, keep = self.scan.mask, self._keep
        for i in range(start, min(end, self.n)):
            if keep[i]:
                continue  # `"$(ls -l)"`: the quote must not turn `ls -l` into one word
            if mask[i] != "\n" or char == FILL:
                mask[i] = char

    def _problem(self, code: ProblemCode, start: int, end: int, message: str) -> None:
        self.scan.problems.append(Problem(code, start, min(max(end, start), self.n), message))

    # -- one nesting level of script text ------------------------------------------------

    def _script(self, i: int, depth: int, closer: str | None) -> int:
        """Scan script text from ``i``; stop at an unmatched ``)`` when ``closer`` is ')'.

        Returns the index of the closer (or ``len(text)``).
        """
        text, n = self.text, self.n
        mask = self.scan.mask
        pending: list[tuple[int, int, str, tuple[int, int], bool, bool]] = []
        word_start = True  # the next character begins a word
        command_position = True  # a word here would be a command name or reserved word
        word_begin = -1  # where the current word began
        subscript_end = -1  # after the `]` of the current word's `name[...]`, if it has one
        last_word = ""  # the word before the current position (`for` makes `((` arithmetic)
        paren_depth = 0
        case_depth = 0
        while i < n:
            c = text[i]
            if c == "(" and word_begin >= 0 and _ASSIGNMENT_PREFIX.fullmatch(text[word_begin:i]):
                # `name=(...)`: an array value belongs to the assignment word.
                i = self._array_value(i, depth)
                continue
            if c == "(" and self.extglob and word_begin >= 0 and i > word_begin and \
                    text[i - 1] in "?*+@!" and self._extglob_prefix(i - 1):
                i = self._extglob(i, depth)  # the pattern goes on: the word is not ended
                word_start = False
                continue
            if c in " \t\n;&|<>()" or (c == "#" and word_start):
                if word_begin >= 0:
                    word = text[word_begin:i]
                    if word == "case":
                        case_depth += 1
                    elif word == "esac" and case_depth:
                        case_depth -= 1
                    command_position = (
                        word in _RESERVED_KEEP_COMMAND_POSITION
                        or bool(_ASSIGNMENT_PREFIX.match(word))
                        or (subscript_end >= 0 and text.startswith(("=", "+="), subscript_end))
                    )
                    last_word = word
                    word_begin = subscript_end = -1
                elif c not in " \t":
                    last_word = ""
            else:
                if word_begin < 0:
                    word_begin = i
            if c == "\n":
                i += 1
                if pending:
                    i = self._heredoc_bodies(i, pending, depth)
                    pending = []
                word_start = command_position = True
                continue
            if c in " \t":
                word_start = True
                i += 1
                continue
            if c == "#" and word_start:
                end = text.find("\n", i)
                end = n if end < 0 else end
                self.scan.comments.append((i, end))
                self._fill(i, end, " ")
                i = end
                continue
            if c == "\\":
                if i + 1 < n and text[i + 1] == "\n":
                    # A line continuation vanishes; between words it is blank, inside one filler.
                    joins = not word_start and i + 2 < n and text[i + 2] not in METACHARS
                    mask[i] = mask[i + 1] = FILL if joins else " "
                    if not joins and word_begin == i:
                        word_begin = -1
                    i += 2
                    continue
                mask[i] = FILL
                if i + 1 < n:
                    mask[i + 1] = FILL
                word_start = False
                i += 2
                continue
            if c == "'":
                i = self._single_quote(i)
                word_start = False
                continue
            if c == '"':
                i = self._double_quote(i, depth)
                word_start = False
                continue
            if c == "$":
                i = self._dollar(i, depth)
                word_start = False
                continue
            if c == "`":
                i = self._backtick(i, depth)
                word_start = False
                continue
            if c in "<>" and i + 1 < n and text[i + 1] == "(" and word_start:
                i = self._nested_parens(i, i + 2, depth, "process")
                word_start = False
                continue
            if c == "<" and text.startswith("<<<", i):
                # A herestring operator: its word follows; never a heredoc.
                i += 3
                word_start = True
                command_position = False
                continue
            if c == "<" and text.startswith("<<", i):
                i = self._heredoc_operator(i, pending, depth)
                word_start = True
                continue
            if c == "(":
                if command_position and text.startswith("((", i) and (
                        last_word == "for" or self._dparen_is_arithmetic(i, depth)):
                    i = self._arithmetic_command(i, depth)
                    word_start = False
                    command_position = False
                    continue
                # Otherwise `((a; b) | c)` is two subshells, as in bash: on to the next `(`.
                paren_depth += 1
                word_start = command_position = True
                i += 1
                continue
            if c == ")":
                if closer == ")" and paren_depth == 0 and case_depth == 0:
                    return i
                if paren_depth:
                    paren_depth -= 1
                word_start = True
                command_position = case_depth > 0
                i += 1
                continue
            if c in ";&|<>":
                word_start = True
                command_position = c in ";&|"
                i += 1
                continue
            if c == "[" and command_position and text.startswith("[[", i) and (
                i + 2 >= n or text[i + 2] in " \t\n"
            ):
                i = self._conditional(i, depth)
                word_start = False
                command_position = False
                continue
            if c == "[" and command_position and word_begin >= 0 and subscript_end < 0 and \
                    self.ansi_c and not self._is_probe and _NAME.fullmatch(text, word_begin, i):
                # (Not in sh: dash has no arrays, `a[1]=x` is a command name there. Not in a
                # probe: it only looks for the end of its construct, which subscripts do not
                # move.)
                closed = self._probe(i, depth, "subscript", _MAX_SUBSCRIPT)
                if closed is not None:
                    # bash's read_token_word: at a command's start `name[` reads to the
                    # matching `]` as part of the word (`a[i + 1]=x` is one word).
                    self._subscript(i, depth)
                    self._fill(i, closed)
                    self.scan.subscripts[i] = closed
                    i = subscript_end = closed
                    word_start = False
                    continue
            if c in "{}" and not (
                word_start and (i + 1 >= n or text[i + 1] in METACHARS)
            ):
                # Braces inside a word (brace expansion, `${` handled above) are not reserved.
                mask[i] = FILL
            m = _PLAIN_RUN.match(text, i)
            if m and c not in "{}":
                i = m.end()
            else:
                if c not in "{}!" and not c.isalnum():
                    mask[i] = FILL
                i += 1
            word_start = False
        if pending:
            # Heredoc operators with no newline after them: the body is missing.
            for op_start, _op_end, delim, _dspan, _q, _s in pending:
                self._problem("QC001", op_start, n, f"heredoc `{delim}` has no body")
        if closer == ")":
            return n
        return n

    def _extglob_prefix(self, at: int) -> bool:
        """Whether the `?*+@!` at ``at`` is a plain character of the word (not escaped, not the
        end of `$@`, `$*`, `$?`, `$!`)."""
        if at >= 1 and self.scan.ends.get(at - 1) == at + 1:
            return False  # `$@(`: the expansion, then a parenthesis
        backslashes = 0
        while at - 1 - backslashes >= 0 and self.text[at - 1 - backslashes] == "\\":
            backslashes += 1
        return backslashes % 2 == 0

    def _extglob(self, i: int, depth: int) -> int:
        """An extglob pattern's parenthesised list (``i`` at its `(`): part of the word, up to
        the matching `)`, quotes and substitutions inside taken whole (bash's
        parse_matched_pair)."""
        end = self._balanced(i + 1, 1, depth)
        if end is None:
            self._problem("QC001", i - 1, self.n,
                          f"unterminated extglob pattern `{self.text[i - 1]}(`")
            end = self.n
        self._fill(i, end)
        self.scan.ends[i] = end
        return end

    # -- quotes ----------------------------------------------------------------------------

    def _single_quote(self, i: int) -> int:
        end = self.text.find("'", i + 1)
        if end < 0:
            self._problem("QC001", i, self.n, "unterminated single quote")
            self._fill(i, self.n)
            self.scan.ends[i] = self.n
            return self.n
        self._fill(i, end + 1)
        self.scan.ends[i] = end + 1
        return end + 1

    def _ansi_c_quote(self, i: int, quote: int | None = None) -> int:
        """``$'...'``: ``i`` is at the ``$``, ``quote`` at the opening quote (default ``i + 1``).
        Backslash escapes the quote."""
        text, n = self.text, self.n
        j = (i + 1 if quote is None else quote) + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == "'":
                self._fill(i, j + 1)
                self.scan.ends[i] = j + 1
                return j + 1
            j += 1
        self._problem("QC001", i, n, "unterminated $'...' quote")
        self._fill(i, n)
        self.scan.ends[i] = n
        return n

    def _bounded(self, i: int, scan_it: Callable[[], int]) -> int:
        """Run ``scan_it`` (a quote or ``${`` at ``i``) one quoting level deeper.

        Past ``max_depth`` levels the outermost of them takes the rest of the text, reported as
        not analysed (QC002), instead of recursing without bound.
        """
        self._quote_depth += 1
        try:
            if self._quote_depth > self.max_depth:
                raise _TooDeep
            return scan_it()
        except _TooDeep:
            if self._quote_depth > 1:
                raise
            # The outermost of them is skipped whole, to where it closes, so that the lines
            # after it are still analysed.
            end = _construct_end(self.text, i)
            self._problem("QC002", i, end, f"quotes and expansions nested deeper than "
                          f"{self.max_depth} levels are not analysed")
            self._fill(i, end)
            self.scan.ends[i] = end
            return end
        finally:
            self._quote_depth -= 1

    def _double_quote(self, i: int, depth: int) -> int:
        """``"..."`` starting at ``i`` (the quote); ``$"..."`` callers pass the quote's index."""
        return self._bounded(i, lambda: self._double_quote_body(i, depth))

    def _double_quote_body(self, i: int, depth: int) -> int:
        text, n = self.text, self.n
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == '"':
                self._fill(i, j + 1)
                self.scan.ends[i] = j + 1
                return j + 1
            if c == "$":
                j = self._dollar(j, depth, in_quotes=True)
                continue
            if c == "`":
                j = self._backtick(j, depth)
                continue
            j += 1
        self._problem("QC001", i, n, "unterminated double quote")
        self._fill(i, n)
        self.scan.ends[i] = n
        return n

    # -- expansions ------------------------------------------------------------------------

    def _dollar(self, i: int, depth: int, in_quotes: bool = False) -> int:
        """An expansion (or a literal ``$``) at ``i``; returns where it ends.

        Inside double quotes ``$'`` and ``$"`` are a literal ``$`` followed by a quote.
        """
        text, n = self.text, self.n
        # Line continuations vanish before the shell reads on: `$\<newline>(cmd)` is `$(cmd)`.
        k = skip_line_continuations(text, i + 1)
        nxt = text[k] if k < n else ""
        if nxt == "'" and self.ansi_c and not in_quotes:
            return self._ansi_c_quote(i, k)
        if nxt == '"' and self.ansi_c and not in_quotes:
            end = self._double_quote(k, depth)
            self.scan.ends[i] = end
            self._fill(i, k)
            return end
        if nxt == "(":
            if text.startswith("((", k) and self._dparen_is_arithmetic(k, depth):
                end = self._arithmetic(i, k + 2, depth)
            else:
                # `$((cmd) | x)` is a command substitution starting with a subshell (bash).
                end = self._nested_parens(i, k + 1, depth, "command")
            return end
        if nxt == "{":
            end = self._braced_parameter(i, depth, k)
        elif nxt == "[" and self.ansi_c:
            # `$[...]`, bash's old arithmetic; in sh it is `$` and a bracket pattern. Command
            # substitutions inside run like in `$((...))`.
            found = self._balanced(k + 1, 1, depth, "[]")
            end = n if found is None else found
        elif nxt and (nxt in SPECIAL_PARAMETERS):
            end = k + 1
        else:
            m = _NAME.match(text, k)
            end = m.end() if m else i + 1
            while m and text.startswith("\\\n", end):
                # A name goes on after a line continuation: `$a\<newline>b` is `$ab`.
                m = _NAME_CHARS.match(text, skip_line_continuations(text, end))
                end = m.end() if m else end
        self._fill(i, end)
        self.scan.ends[i] = end
        return end

    def _braced_parameter(self, i: int, depth: int, brace: int | None = None) -> int:
        """``${...}`` with nested quotes, expansions and braces; ``brace`` is where the ``{``
        is (default ``i + 1``)."""
        at = i + 1 if brace is None else brace
        return self._bounded(i, lambda: self._braced_parameter_body(i, depth, at))

    def _braced_parameter_body(self, i: int, depth: int, brace: int) -> int:
        text, n = self.text, self.n
        j = brace + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == "'":
                # Inside ${...} (outside double quotes) single quotes quote; close enough anyway.
                close = text.find("'", j + 1)
                j = n if close < 0 else close + 1
                continue
            if c == '"':
                j = self._double_quote(j, depth)
                continue
            if c == "$":
                j = self._dollar(j, depth)
                continue
            if c == "`":
                j = self._backtick(j, depth)
                continue
            if c == "}":
                # A plain `{` does not nest (bash and dash): `${X:-{a}b}` is `{a` then `b}`,
                # and `"${X:-{\}}"` is `{}`; only a `${` inside opens a brace of its own.
                self._fill(i, j + 1)
                self.scan.ends[i] = j + 1
                return j + 1
            j += 1
        self._problem("QC001", i, n, "unterminated ${...}")
        self._fill(i, n)
        self.scan.ends[i] = n
        return n

    def _arithmetic(self, i: int, j: int, depth: int) -> int:
        """``$((...))`` (``j`` after the opening parentheses) or ``((...))``."""
        end = self._balanced(j, 2, depth)
        if end is None:
            self._problem("QC001", i, self.n, "unterminated arithmetic expression")
            end = self.n
        self._fill(i, end)
        self.scan.ends[i] = end
        return end

    def _arithmetic_command(self, i: int, depth: int) -> int:
        end = self._arithmetic(i, i + 2, depth)
        if i > 0 and self.text[i - 1] not in METACHARS and self.scan.mask[i - 1] != " ":
            # `while((x < 3))`, `if((n))`, `for((;;))`: bash ends the reserved word at `(`;
            # all filler, the mask would make one word of them.
            self.scan.mask[i] = " "
            self.scan.glued_arithmetic.add(i)
        return end

    def _probe(self, i: int, depth: int, kind: Literal["dparen", "subscript"],
               limit: int | None = None) -> int | None:
        """Where the construct at ``i`` ends, or None if it does not end (within ``limit``),
        found by a throwaway scanner on the text from ``i``: for ``dparen`` the parenthesis
        closing the second of `((`, for ``subscript`` the `]` of `name[`.

        The window grows until the construct ends inside it with a character to spare (what
        the scan decides at its end may look one character ahead)."""
        key = (kind, self._base + i, depth, self._quote_depth)
        if key in self._probed:
            found = self._probed[key]
            return None if found is None else found - self._base
        size = _PROBE_WINDOW
        while True:
            stop = min(self.n, i + size if limit is None else i + min(size, limit))
            capped = limit is not None and stop == i + limit  # no larger window allowed
            probe = Scanner(self.text[i:stop], self.scan.dialect, self.max_depth, self.extglob)
            probe._quote_depth = self._quote_depth
            probe._base, probe._probed = self._base + i, self._probed
            probe._truncated = self._truncated or stop < self.n
            probe._is_probe = True
            try:
                end = probe._balanced(2, 1, depth) if kind == "dparen" else \
                    probe._subscript(0, depth)
            except _TooDeep:
                return None
            except _WindowTooSmall:
                end = None
            else:
                if end == _NOT_HERE:
                    self._probed[key] = None
                    return None
                if end is not None and end < stop - i:
                    self._probed[key] = self._base + i + end
                    return i + end
            if capped:
                self._probed[key] = None
                return None
            if stop == self.n:
                if self._truncated:
                    raise _WindowTooSmall  # this scanner's own window is too small
                self._probed[key] = None if end is None else self._base + i + end
                return None if end is None else i + end
            size *= _PROBE_GROWTH

    def _dparen_is_arithmetic(self, i: int, depth: int) -> bool:
        """Whether `((` at ``i`` opens arithmetic (bash's ``parse_arith_cmd``): only when the
        parenthesis that closes the second `(` is followed at once by `)`. Otherwise bash
        reads two subshells (`((a; b) | c)`), or after `$` a command substitution."""
        inner = self._probe(i, depth, "dparen")
        if inner is None:
            return True  # unterminated: reported as an unterminated arithmetic expression
        return self.text[inner:inner + 1] in (")", "")

    def _balanced(self, j: int, opened: int, depth: int | None = None,
                  pair: str = "()") -> int | None:
        """Index after the parenthesis that closes ``opened`` open ones, skipping quotes.

        With ``depth`` (an arithmetic expression at that level), the command substitutions
        inside are nested scripts like anywhere else: `$(( $(rm -rf x) + 1 ))` runs `rm`.
        ``pair`` is the opening and closing character (`[]` for `$[...]`).
        """
        text, n = self.text, self.n
        opener, closer = pair[0], pair[1]
        level = opened
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if depth is not None and (c in '`"' or (c == "$" and text[j + 1:j + 2] in "({")):
                if c == "`":
                    j = self._backtick(j, depth)
                elif c == '"':
                    j = self._double_quote(j, depth)
                else:
                    # `$((` inside is counted by the parenthesis levels here.
                    if opener == "(" and text.startswith("$((", j):
                        level += 2
                        j += 3
                        continue
                    j = self._dollar(j, depth)
                continue
            if c in "'\"":
                close = text.find(c, j + 1)
                j = n if close < 0 else close + 1
                continue
            if c == opener:
                level += 1
            elif c == closer:
                level -= 1
                if level == 0:
                    return j + 1
            j += 1
        return None

    def _subscript(self, i: int, depth: int) -> int | None:
        """``[...]`` of ``name[...]`` at ``i``: index after the matching ``]``, None if the text
        ends first, ``_NOT_HERE`` if it cannot be one.

        bash reads to the matching `]` whatever comes first; here an unquoted newline or
        operator character first means no subscript (`a[x; b` is a command word, not an open
        subscript taking the rest of the file): it keeps every probe short, and real
        subscripts with those characters (`m[a;b]=1`) are rare."""
        text, n = self.text, self.n
        j = i + 1
        level = 1
        while j < n:
            c = text[j]
            if c in "\n;&|<>()":
                return _NOT_HERE
            past = self._past_quoted(j, depth)
            if past is not None:
                j = past
                continue
            if c == "[":
                level += 1
            elif c == "]":
                level -= 1
                if level == 0:
                    return j + 1
            j += 1
        return None

    def _nested_parens(
        self, i: int, inner_start: int, depth: int, kind: Literal["command", "process"]
    ) -> int:
        """``$(...)`` or ``<(...)``: a nested script, scanned as its own level."""
        if depth + 1 > self.max_depth:
            end = self._balanced(inner_start, 1)
            end = self.n if end is None else end
            self._problem(
                "QC002", i, end,
                f"nesting deeper than {self.max_depth} levels is not analysed",
            )
            self._fill(i, end)
            self.scan.ends[i] = end
            return end
        close = self._script(inner_start, depth + 1, ")")
        if close >= self.n:
            self._problem("QC001", i, self.n, "unterminated $( ... )" if kind == "command"
                          else "unterminated process substitution")
            end = self.n
        else:
            end = close + 1
        inner_end = min(close, self.n)
        self.scan.nested.append(NestedScript(kind, i, end, (inner_start, inner_end), depth + 1))
        self._keep[inner_start:inner_end] = b"\x01" * max(0, inner_end - inner_start)
        self.scan.ends[i] = end
        return end

    def _backtick(self, i: int, depth: int) -> int:
        text, n = self.text, self.n
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == "`":
                break
            j += 1
        if j >= n:
            self._problem("QC001", i, n, "unterminated backtick command substitution")
            self._fill(i, n)
            self.scan.ends[i] = n
            return n
        self._fill(i, j + 1)
        self.scan.ends[i] = j + 1
        if depth + 1 <= self.max_depth:
            self.scan.nested.append(NestedScript("backtick", i, j + 1, (i + 1, j), depth + 1))
        else:
            self._problem("QC002", i, j + 1,
                          f"nesting deeper than {self.max_depth} levels is not analysed")
        return j + 1

    def _past_quoted(self, j: int, depth: int) -> int | None:
        """Past the escape, quoted string or expansion starting at ``j``; None if none does."""
        c = self.text[j]
        if c == "\\":
            return j + 2
        if c == "'":
            return self._single_quote(j)
        if c == '"':
            return self._double_quote(j, depth)
        if c == "$":
            return self._dollar(j, depth)
        if c == "`":
            return self._backtick(j, depth)
        return None

    # -- compound words ---------------------------------------------------------------------

    def _conditional(self, i: int, depth: int) -> int:
        """``[[ ... ]]``: masked whole; its words are segmented later from the raw text."""
        text, n = self.text, self.n
        j = i + 2
        while j < n:
            c = text[j]
            past = self._past_quoted(j, depth)
            if past is not None:
                j = past
                continue
            if (
                c == "]"
                and text.startswith("]]", j)
                and text[j - 1] in " \t\n"
                and (j + 2 >= n or text[j + 2] in METACHARS)
            ):
                self._fill(i, j + 2)
                self.scan.ends[i] = j + 2
                return j + 2
            j += 1
        self._problem("QC001", i, n, "unterminated [[ ... ]]")
        self._fill(i, n)
        self.scan.ends[i] = n
        return n

    def _array_value(self, i: int, depth: int) -> int:
        """``name=( ... )``: the parenthesised list joins the assignment word."""
        text, n = self.text, self.n
        j = i + 1
        while j < n:
            c = text[j]
            past = self._past_quoted(j, depth)
            if past is not None:
                j = past
                continue
            if c in "<>" and text.startswith("(", j + 1) and text[j - 1] in " \t\n(":
                # `a=(<(ls))`: its `)` must not end the list.
                j = self._nested_parens(j, j + 2, depth, "process")
                continue
            if c == "#" and text[j - 1] in " \t\n(":
                # A comment inside the list (`a=(x # the ) here is not the end`).
                end = text.find("\n", j)
                j = n if end < 0 else end
                continue
            if c == ")":
                self._fill(i, j + 1)
                self.scan.ends[i] = j + 1
                return j + 1
            j += 1
        self._problem("QC001", i, n, "unterminated array assignment")
        self._fill(i, n)
        self.scan.ends[i] = n
        return n

    # -- heredocs ---------------------------------------------------------------------------

    def _heredoc_operator(
        self,
        i: int,
        pending: list[tuple[int, int, str, tuple[int, int], bool, bool]],
        depth: int,
    ) -> int:
        """``<<WORD`` / ``<<-WORD``: remember it; the body starts after the next newline."""
        text, n = self.text, self.n
        mask = self.scan.mask
        strip = text.startswith("<<-", i)
        op_end = i + (3 if strip else 2)
        mask[i + 1] = " "  # bashlex sees a plain `<` redirection
        if strip:
            mask[i + 2] = " "
        j = op_end
        while j < n and text[j] in " \t":
            j += 1
        word_start = j
        quoted = False
        value: list[str] = []
        while j < n and text[j] not in METACHARS:
            c = text[j]
            if c in "'\"":
                quoted = True
                close = text.find(c, j + 1)
                close = n if close < 0 else close
                value.append(text[j + 1:close])
                j = close + 1
                continue
            if c == "\\" and j + 1 < n:
                quoted = True
                value.append(text[j + 1])
                j += 2
                continue
            if c == "$" and j + 1 < n and text[j + 1] in "'\"" and self.ansi_c:
                j += 1  # `$'EOF'`/`$"EOF"` delimiters: the `$` goes, the quotes quote
                continue
            value.append(c)
            j += 1
        if j == word_start:
            self._problem("QC001", i, op_end, "heredoc operator without a delimiter word")
            return op_end
        self._fill(word_start, j)
        pending.append((i, op_end, "".join(value), (word_start, j), quoted, strip))
        return j

    def _heredoc_bodies(
        self,
        i: int,
        pending: list[tuple[int, int, str, tuple[int, int], bool, bool]],
        depth: int,
    ) -> int:
        """Read the bodies of ``pending`` heredocs starting at line start ``i``."""
        text, n = self.text, self.n
        for op_start, op_end, delim, dspan, quoted, strip in pending:
            body_start = i
            terminated = False
            while i < n:
                line_end = text.find("\n", i)
                line_end = n if line_end < 0 else line_end
                line = text[i:line_end]
                if (line.lstrip("\t") if strip else line) == delim:
                    if quoted:
                        # An unquoted body is blanked by _heredoc_expansions, after its
                        # `$(...)` scripts have been scanned from their own text.
                        self._fill(body_start, i, " ")
                    body = (body_start, i)
                    self._fill(i, line_end, " ")
                    i = min(line_end + 1, n)
                    terminated = True
                    break
                i = line_end + 1
            if not terminated:
                body = (body_start, n)
                if quoted:
                    self._fill(body_start, n, " ")
                i = n
                self._problem(
                    "QC001", op_start, op_end,
                    f"heredoc delimited by `{delim}` is not terminated (no line `{delim}`)",
                )
            if not quoted:
                self._heredoc_expansions(body[0], body[1], depth)
            self.scan.heredocs.append(
                HeredocSpec((op_start, op_end), delim, dspan, quoted, strip, body, terminated,
                            depth)
            )
        return i

    def _heredoc_expansions(self, start: int, end: int, depth: int) -> None:
        """Record the expansions of an unquoted heredoc body; the body itself stays blank."""
        text = self.text
        before = len(self.scan.nested)
        j = start
        while j < end:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == "$":
                j = self._dollar(j, depth, in_quotes=True)
                continue
            if c == "`":
                j = self._backtick(j, depth)
                continue
            j += 1
        for k in range(before, len(self.scan.nested)):
            script = self.scan.nested[k]
            if script.depth == depth + 1:
                self.scan.nested[k] = NestedScript(
                    script.kind, script.start, script.end, script.inner, script.depth, True
                )
        # _dollar filled expansion characters with FILL; the body must stay blank at this level.
        mask = self.scan.mask
        # Mark the nested scripts' insides once: testing every span for every body character
        # is quadratic (a body with thousands of `$(...)` takes seconds).
        keep = [False] * (end - start)
        for s in self.scan.nested[before:]:
            if s.depth == depth + 1:
                a, b = max(s.inner[0], start), min(s.inner[1], end)
                keep[a - start:b - start] = [True] * max(0, b - a)
        for k in range(start, end):
            if mask[k] != "\n" and not keep[k - start]:
                mask[k] = " "


def scan(text: str, dialect: Dialect = "bash", max_depth: int = 64,
         extglob: bool = False) -> Scan:
    """Scan ``text`` (see module docstring); ``extglob``: bash's option of that name is on."""
    return Scanner(text, dialect, max_depth, extglob).run()
