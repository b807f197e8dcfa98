"""Where a long text can be cut between top-level commands.

bashlex parses a whole text in one call. Handed a long script whole, past a few tens of
thousands of lines that call runs into the per-call time limit, and the recovery (chunks of
lines grown until they parse) costs more than the parse itself. Parsing a long text a few
hundred lines at a time, cut where one top-level command ends and the next begins, costs one
parse of each line.

The cuts are found on the scanner's mask (quotes, expansions, comments and heredoc bodies are
already blanked out there), by keeping a stack of the compound commands opened by reserved
words and parentheses. This is a guess, not a parse: a wrong cut makes the piece before it fail
at its end, and the caller then parses the two pieces as one.
"""

from __future__ import annotations

import re
from itertools import pairwise

from quotecheck.lazy_regex import lazy_compile

# One token of the mask: a line continuation (skipped), a newline, an operator, a word.
_TOKEN = lazy_compile(
    r"\\\n|\n|;;&|;;|;&|&&|\|\||\|&|<<-|<<<|<<|<&|>&|>>|<>|>\||[;&|()<>]|(?:[^\s;&|()<>\\]|\\.)+",
    re.DOTALL,
)
_OPENERS = frozenset({"if", "for", "select", "while", "until", "{"})
_CLOSERS = frozenset({"fi", "done", "}"})
_OPEN = _OPENERS | {"do", "loop-header"}
# Reserved words after which a command (and so another reserved word) may follow.
_KEEP_COMMAND_POSITION = frozenset(
    {"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time"}
)
_COMMAND_POSITION_AFTER = frozenset({";", "&", "|", "&&", "||", "|&", "(", ")", "\n"})
_REDIRECTIONS = frozenset({"<<-", "<<<", "<<", "<&", ">&", ">>", "<>", ">|", "<", ">"})
# An operator at the end of a line: the command goes on on the next line.
_CONTINUING = frozenset({"|", "&&", "||", "|&"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_PATTERN_MAY_FOLLOW = _CASE_ENDS | {"in"}


def top_level_breaks(masked: str) -> list[int]:
    """Offsets of line starts in ``masked`` where no command or construct is left open."""
    breaks: list[int] = []
    # The open constructs: a reserved word or "(" each; a `case` entry records whether the
    # next `)` ends a pattern ("pattern"), or whether its arms' commands are being read.
    stack: list[str] = []
    command_position = True
    skip_word = False  # the next word is a redirection's target or a function's name
    after_function = False
    body_pending = False  # `f()` or `function f` was read: the body may follow on a later line
    last = "\n"
    for m in _TOKEN.finditer(masked):
        token = m.group()
        if token == "\\\n":
            continue
        top = stack[-1] if stack else ""
        if top == "case-head":  # `case WORD in`: nothing counts until `in`
            if token == "in":
                stack[-1] = "case-pattern"
            last = token
            continue
        if top == "case-pattern":  # `(a|b)`, `a)`, or `esac` where a pattern would start
            if token == ")":
                stack[-1] = "case-body"
                command_position = True
            elif token == "esac" and last in _PATTERN_MAY_FOLLOW:
                stack.pop()
                command_position = False
            if token != "\n":
                last = token
            continue
        if token == "\n":
            if last in _CONTINUING or body_pending:
                continue  # blank lines after `&&` or `f()` do not end the command either
            if not stack:
                breaks.append(m.end())
            command_position = True
            skip_word = after_function = False
            last = token
            continue
        body_pending = False
        if token in _REDIRECTIONS:
            skip_word = True
        elif skip_word and token not in _COMMAND_POSITION_AFTER and token not in _CASE_ENDS:
            skip_word = False
            if after_function:  # `function name` may be followed by `{` or `(`
                after_function = False
                command_position = body_pending = True
            last = token
            continue
        elif token == "(":
            stack.append("(")
            command_position = True
        elif token == ")":
            if stack and stack[-1] == "(":
                stack.pop()
            command_position = True
            body_pending = last == "("
        elif token in _CASE_ENDS:
            if top == "case-body":
                stack[-1] = "case-pattern"
            command_position = True
        elif token in _COMMAND_POSITION_AFTER:
            command_position = True
        elif top in ("for", "select"):
            stack[-1] = "loop-header"  # the loop's name; its `in` list or `do` follows
            # (after `for ((...))`, masked to filler, `{` may open the body on the same line)
            command_position = not token.strip(".")
        elif top == "loop-header" and (token == "do" or (token == "{" and command_position)):
            # `for i do`, `for i in a; do`, or braces standing for do/done (`for i in a; {`)
            stack[-1] = token
            command_position = True
        elif command_position:
            if token == "case":
                stack.append("case-head")
            elif token in _OPENERS:
                stack.append(token)
            elif (token == "esac" and top == "case-body") or (
                    token in _CLOSERS and stack and stack[-1] in _OPEN):
                stack.pop()
            elif token == "function":
                skip_word = after_function = True
            command_position = token in _KEEP_COMMAND_POSITION
        last = token
    return breaks


def pieces(masked: str, lines: int) -> list[tuple[int, int]]:
    """``masked`` cut into pieces of about ``lines`` lines or more, at top-level breaks."""
    cuts = [0]
    seen = 0
    count_from = 0
    for b in top_level_breaks(masked):
        seen += masked.count("\n", count_from, b)
        count_from = b
        if seen >= lines and b < len(masked):
            cuts.append(b)
            seen = 0
    cuts.append(len(masked))
    return [(a, b) for a, b in pairwise(cuts) if a < b]


_SEPARATORS = frozenset({";", ";;", ";&", ";;&", "&", "&&", "||", "|", "|&"})


def after_separator(masked: str, at: int) -> int:
    """Where the next command of the line starts after the token at ``at``: past that token
    if it is a command separator (`;;`, `&&`, `|`...), else past the next one on its line;
    the line's end when there is none."""
    line_end = masked.find("\n", at)
    line_end = len(masked) if line_end < 0 else line_end
    for m in _TOKEN.finditer(masked, at, line_end):
        if m.group() in _SEPARATORS:
            return m.end()
    return line_end
