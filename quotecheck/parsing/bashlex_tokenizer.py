"""Our subclass of bashlex's tokenizer: its decisions corrected where they differ from bash's,
and short cuts through the work it does for every character and token.

``bashlex_adapter`` builds it once, from the ``bashlex.tokenizer`` module it has imported (this
module imports no bashlex of its own), and parses every text with it.
"""

from __future__ import annotations

from typing import Any

from quotecheck.lazy_regex import lazy_compile

_RPAREN_AHEAD = lazy_compile(r"[ \t]*\)")
# A word that is filler only: what the scanner leaves of `((...))` (a loop's name never is).
_MASKED_WORD = lazy_compile(r"\.+")

# A word the tokenizer can read in one step: characters that are neither a break (blank,
# newline, `()<>;&|`) nor start a quote, an escape or an expansion (`\\ ' " ` $`).
_PLAIN_WORD = lazy_compile(r"[^\s()<>;&|\\'\"`$]+")
_BREAKS_AFTER_PLAIN = frozenset(" \t\n();&|")


def make_tokenizer_class(tok: Any, fast: bool = True) -> Any:
    """A subclass of bashlex's tokenizer with its decisions corrected where they differ from
    bash's parse.y (each found by parsing real scripts or by comparing with ``bash -n``):

    * inside a case pattern list, reserved words other than ``esac`` are plain words
      (``done)``/``in)``/``time)`` are valid patterns);
    * ``;&`` starts a new pattern list like ``;;`` does, ``case x<newline>in`` enters the pattern
      list too, and ``esac`` right after such an ``in`` ends the case;
    * ``time`` is a keyword only where bash's ``time_command_acceptable`` allows it (bashlex's
      check is a stub, so ``a | time b`` failed);
    * ``time``/``!`` with nothing after them get their terminator repeated, as bash does;
    * a word spelled ``{`` or ``}`` does not make the next word a keyword (``echo } fi``);
    * ``function f ( body )`` reads the parenthesis as a subshell body;
    * every EOF token is a fresh object, so "unexpected EOF" errors quote the right text.

    With ``fast`` (the default) it also takes short cuts through what bashlex does for every
    character and token, deciding the same (the tests compare both ways): a plain word is read
    in one step, a word that cannot be one of bashlex's special cases skips their checks, the
    parser state answers ``state & FLAG`` with one membership test, and a token's grammar type
    is worked out once, not each time the parser looks at it.
    """
    tt = tok.tokentype
    casepat = tok.parserflags.CASEPAT
    keyword_types = frozenset(tok.valid_reserved_first_command.values())
    time_after = frozenset(
        {
            None,
            tt.SEMICOLON,
            tt.NEWLINE,
            tt.AND_AND,
            tt.OR_OR,
            tt.AMPERSAND,
            tt.WHILE,
            tt.DO,
            tt.UNTIL,
            tt.IF,
            tt.THEN,
            tt.ELIF,
            tt.ELSE,
            tt.LEFT_CURLY,
            tt.LEFT_PAREN,
            tt.RIGHT_PAREN,
            tt.BANG,
            tt.TIME,
            tt.TIMEOPT,
            tt.TIMEIGN,
        }
    )
    pipe_types = frozenset({tt.BAR, tt.BAR_AND})
    bare_prefix = frozenset({tt.TIME, tt.TIMEOPT, tt.TIMEIGN, tt.BANG})
    word_types = frozenset({tt.WORD, tt.ASSIGNMENT_WORD})
    eof_singleton = tok.eoftoken
    base = tok.tokenizer

    def retype(self: Any, current: Any, kind: Any, value: Any = None) -> Any:
        flags = tok.utils.typedset(tok.wordflags) if kind is tt.WORD else None
        value = current.value if value is None else value
        replaced = tok.token(kind, value, (current.lexpos, current.endlexpos), flags)
        self._current_token = replaced  # the next token's look-behind must see the new type
        return replaced

    def as_word(self: Any, current: Any) -> Any:
        return retype(self, current, tt.WORD)

    def reserved_word_acceptable(self: Any, previous: Any) -> bool:
        # bashlex decides from the previous token's *spelling* too, so after a plain word
        # spelled `{` or `}` (`echo }`) the next word became a keyword (`echo } fi` failed).
        if previous and previous.ttype in word_types and previous.value in ("{", "}"):
            return bool(
                self._last_read_token.ttype is tt.WORD
                and self._token_before_that.ttype is tt.FUNCTION
            )
        return bool(base._reserved_word_acceptable(self, previous))

    def next_is_rparen(self: Any) -> bool:
        return bool(_RPAREN_AHEAD.match(self._shell_input_line, self._shell_input_line_index))

    def time_acceptable(self: Any) -> bool:
        last = self._last_read_token.ttype
        if last in (None, tt.SEMICOLON, tt.NEWLINE) and self._token_before_that.ttype in pipe_types:
            return False
        return last in time_after

    def decide(self: Any) -> Any:
        state = self._parserstate
        in_patterns = bool(state & casepat)  # before reading: the header's own `in` sets it
        current = base.token(self)
        if current is eof_singleton:
            # bashlex returns one module-level EOF token object, and its parser records the
            # tokenizer on it only once: a later "unexpected EOF" error would quote the text
            # of whichever parse hit EOF first.  A token of our own carries our tokenizer.
            current = self._current_token = tok.token(tt.EOF, None)
        kind = current.ttype
        if kind is tt.CASE:
            self._qc_case_header = True
        elif kind is tt.IN and self._qc_case_header:
            self._qc_case_header = False
            state.add(casepat)
        elif kind not in (tt.WORD, tt.NEWLINE):
            self._qc_case_header = False
        last = self._last_read_token.ttype
        if kind in (tt.NEWLINE, tt.SEMICOLON) and last in bare_prefix:
            # `time` or `!` with nothing after it: `timespec list_terminator` eats the `;` or
            # newline, and the list around it then wants one of its own.  bash's parse.y
            # pushes the terminator back for this; so do we (the action drops the first copy).
            self._token_to_read = tok.token(
                kind, current.value, (current.lexpos, current.endlexpos)
            )
        elif kind is tt.SEMI_AND:
            state.add(casepat)
        elif kind is tt.WORD and current.value == "esac" and in_patterns and last is tt.IN:
            # `case x<newline>in esac`: bashlex only expects this esac when `in` was on the
            # `case` line.
            state.discard(casepat)
            state.discard(tok.parserflags.CASESTMT)
            return retype(self, current, tt.ESAC)
        elif (
            kind is tt.WORD
            and current.value == "{"
            and last is tt.WORD
            and self._token_before_that.ttype is tt.FOR
            and _MASKED_WORD.fullmatch(self._last_read_token.value or "")
        ):
            # `for ((i = 0; i < n; i++)) {`: after the (masked) arithmetic header bash reads
            # `{` as the body's brace (parse.y's special case for ARITH_FOR_EXPRS).
            return retype(self, current, tt.LEFT_CURLY)
        elif (
            kind is tt.LEFT_PAREN
            and last is tt.WORD
            and self._token_before_that.ttype is tt.FUNCTION
            and not next_is_rparen(self)
        ):
            # `function f ( body )`: the grammar's conflict resolution reads `(` as the start
            # of `()`; an (invisible) newline first steers it to `FUNCTION WORD newline_list
            # function_body`.
            self._token_to_read = current
            return retype(self, current, tt.NEWLINE, "\n")
        elif (
            in_patterns
            and kind in keyword_types
            and kind is not tt.ESAC
            and isinstance(current.value, str)
        ) or (kind is tt.TIME and not time_acceptable(self)):
            return as_word(self, current)
        return current

    # A token's grammar type, keyed by identity: hashing an enum member is a Python call.
    type_names = {id(kind): kind.name for kind in tt}
    type_names[id(tt.EOF)] = "$end"  # yacc's name for the end of input, as bashlex's type gives
    base_token = tok.token

    class TypedToken(tok.token):  # type: ignore[misc]
        """A token as the parser gets it: ``type`` is a plain attribute, set once. (bashlex's
        is a property, computed each of the three or four times the parser looks.)"""

        type: Any = None  # shadows the property; set by `token` below

    # Where a compound command has ended, a word is no argument: `{ ...; } {fd}>&1` is bash's
    # REDIR_WORD, a redirection that stores the fd it opens in `fd` (bash -n accepts it); the
    # scanner's mask fills its braces (`.fd.`).
    # bashlex's grammar has no such token; its NUMBER stands in, as fd 10, the first fd bash
    # gives such a variable.
    compound_ends = frozenset({tt.RIGHT_CURLY, tt.RIGHT_PAREN, tt.FI, tt.DONE, tt.ESAC})

    def redirect_word(self: Any, previous: Any, current: Any) -> Any:
        value = current.value
        if current.ttype is tt.WORD and previous is not None and \
                previous.ttype in compound_ends and isinstance(value, str) and \
                len(value) > 2 and value[0] in "{." and value[-1] in "}." and \
                (value[1] == "_" or value[1].isalpha()) and \
                value[1:-1].replace("_", "a").isalnum():
            line, at = self._shell_input_line, self._shell_input_line_index
            if at < len(line) and line[at] in "<>":
                current.ttype = tt.NUMBER  # (the same token: its position stays)
                current.value = 10
        return current

    def token(self: Any) -> Any:
        current = redirect_word(self, getattr(self, "_qc_previous", None), decide(self))
        self._qc_previous = current
        # The tokenizer is done with it (nothing changes a token's ttype once it is handed
        # out), so its type can be fixed now.
        if current.__class__ is base_token and current.ttype is not None:
            current.__class__ = TypedToken
            current.type = type_names[id(current.ttype)]
        return current

    flag_type = tok.parserflags

    class ParserState(tok.utils.typedset):  # type: ignore[misc]
        """bashlex's parser state, a set of flags. The tokenizer asks ``state & FLAG`` about
        every character it reads; bashlex answers with a new set, only ever tested for truth."""

        def __init__(self) -> None:
            super().__init__(flag_type)
            self.discard = self._s.discard  # asked for every token: no Python call in between

        def __and__(self, value: Any) -> Any:
            if isinstance(value, flag_type):
                return value in self._s
            return self._s & value

    # bashlex's special cases (`in` after `for x`, `{` where a brace may open, `]]` in `[[ ]]`,
    # ...) are these words, or hang on a count or flag it keeps; any other word is none of
    # them and changes nothing there.
    special_words = frozenset({"in", "do", "esac", "{", "}", "-p", "--", "]]"})
    allow_brace = tok.parserflags.ALLOWOPNBRC
    base_special = base._specialcasetokens

    def special_case(self: Any, word: str) -> Any:
        if word in special_words or self._esacs_needed_count or \
                self._parserstate & allow_brace:
            return base_special(self, word)
        return None

    ps_flags = tok.parserflags
    word_flags = tok.wordflags
    reserved = dict(tok.valid_reserved_first_command)  # a plain dict: bashlex's .get raises inside
    number_after = frozenset({tt.LESS_AND, tt.GREATER_AND})
    slow_read_word = base._readtokenword

    def read_word(self: Any, c: Any) -> Any:
        """bashlex's ``_readtokenword`` for a word of plain characters, read with one match.

        bashlex reads a word a character at a time through half a dozen method calls per
        character: a fifth of the parse. For a word that is all plain characters followed by a
        break, what it decides is re-expressed below from the word and what follows it; any
        other word (quotes, escapes, `$`, `<(`, open delimiters, the end of the text) takes
        bashlex's own path. tests/test_bashlex_adapter.py compares both on real and generated
        text."""
        line = self._shell_input_line
        start = self._shell_input_line_index  # just after `c`
        if self._dstack or self._eol_ungetc_lookahead is not None or \
                not _PLAIN_WORD.match(c or "\\"):
            return slow_read_word(self, c)
        found = _PLAIN_WORD.match(line, start)
        end = found.end() if found else start
        if end >= len(line) or line[end] not in _BREAKS_AFTER_PLAIN:
            return slow_read_word(self, c)
        # bashlex would read the break after the word and push it back.
        self._shell_input_line_index = end
        self._recordpos()
        value = c + line[start:end]
        last = self._last_read_token
        state = self._parserstate
        if value.isdigit() and last.ttype in number_after and tok.shutils.legal_number(value):
            return self._createtoken(tt.NUMBER, int(value))
        special = self._specialcasetokens(value)
        if special:
            return self._createtoken(special, value)
        kind = reserved.get(value)
        # A reserved word where one may stand: but in a case pattern only `esac` is one, and
        # `time` only where a pipeline may start.
        if kind is not None and self._reserved_word_acceptable(last) and not (
                (state & casepat and kind is not tt.ESAC)
                or (kind is tt.TIME and not self._time_command_acceptable())):
            if kind is tt.ESAC:
                state.discard(casepat)
                state.discard(ps_flags.CASESTMT)
            elif kind is tt.CASE:
                state.add(ps_flags.CASESTMT)
            elif kind is tt.COND_END:
                state.discard(ps_flags.CONDCMD)
                state.discard(ps_flags.CONDEXPR)
            elif kind is tt.COND_START:
                state.add(ps_flags.CONDCMD)
            elif kind is tt.LEFT_CURLY:
                self._open_brace_count += 1
            elif kind is tt.RIGHT_CURLY and self._open_brace_count:
                self._open_brace_count -= 1
            return self._createtoken(kind, value)
        word = self._createtoken(tt.WORD, value, tok.utils.typedset(word_flags))
        if self._is_assignment(value, bool(state & ps_flags.COMPASSIGN)):
            word.flags.add(word_flags.ASSIGNMENT)
            if self._assignment_acceptable(last):
                word.flags.add(word_flags.NOSPLIT)
                if state & ps_flags.COMPASSIGN:
                    word.flags.add(word_flags.NOGLOB)
        # (bashlex's `{var}>file` check is not needed: `<` or `>` after a word takes its path)
        if word_flags.ASSIGNMENT in word.flags and word_flags.NOSPLIT in word.flags:
            word.ttype = tt.ASSIGNMENT_WORD
        if last.ttype is tt.FUNCTION:
            state.add(ps_flags.ALLOWOPNBRC)
            self._function_dstart = self._line_number
        return word

    members: dict[str, Any] = {
        "token": decide,
        "_qc_case_header": False,
        "_time_command_acceptable": time_acceptable,
        "_reserved_word_acceptable": reserved_word_acceptable,
        "new_state": staticmethod(tok.state.parserstate),
    }
    if fast:
        members.update(token=token, _readtokenword=read_word, _specialcasetokens=special_case,
                       new_state=ParserState)
    return type("QuotecheckTokenizer", (base,), members)
