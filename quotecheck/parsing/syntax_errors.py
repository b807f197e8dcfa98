"""Syntax errors said in the user's words: the token as written, the construct left open.

bashlex reports an error on the *masked* text (quotes and expansions filled with dots) and in
its own terms (``unexpected token '.....'``, ``unexpected EOF``). The messages here name the
token as the file spells it, or the compound command that never ends and the word that would
end it, with a hint for the usual causes (an extglob pattern with extglob off).
"""

from __future__ import annotations

from quotecheck.lazy_regex import lazy_compile

_OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", "<<<", "<<-", "<<", ">>", "<&", ">&", "<>",
              ">|", ";", "&", "|", "(", ")", "<", ">")
_REDIRECTIONS = ("<<<", "<<-", "<<", ">>", "<&", ">&", "<>", ">|", "<", ">")
_WORD_END = frozenset(" \t\n;&|<>()")
_SHOWN = 40  # characters of a long token shown in a message
# The compound command a line opens, and the word that closes it.
_CLOSER = {"if": "fi", "for": "done", "while": "done", "until": "done", "select": "done",
           "case": "esac", "{": "}", "(": ")"}
_FUNCTION = lazy_compile(
    r"[ \t]*(?:function[ \t]+([^\s()]+)(?:[ \t]*\(\))?|([^\s()=]+)[ \t]*\(\))[ \t]*([{(])?")


# Every message for a construct left open at the end of the text says this: the error is
# found only there (see reached_end).
NEVER_ENDS = "never ends"


def is_grammar_error(message: str) -> bool:
    """Whether a QC001 message is the parser's (made here), not the scanner's (a quote, a
    ``${``, a heredoc left open)."""
    return message.startswith("syntax error")


def reached_end(message: str) -> bool:
    """Whether a message made here is for a construct still open at the end of the text."""
    return NEVER_ENDS in message


# The words that close a compound command, in the order a parse tries them in place of a wrong
# one (parse._closed).
CLOSING_WORDS = ("fi", "done", "esac", "}", ")")


def closes_line(masked: str, at: int) -> bool:
    """Whether the token at ``at`` is a closing word (`}`, `fi`, `done`, `esac`, `)`) that
    starts its line."""
    line_start = masked.rfind("\n", 0, at) + 1
    if masked[line_start:at].strip():
        return False
    return token_at(masked, masked, at) in CLOSING_WORDS


def token_at(text: str, masked: str, at: int) -> str:
    """The token at ``at`` as ``text`` spells it (quotes and expansions whole: the mask says
    where a word ends); a long one shortened."""
    for op in _OPERATORS:
        if masked.startswith(op, at):
            return op
    end = at
    while end < len(masked) and masked[end] not in _WORD_END:
        end += 1
    token = text[at:max(end, at + 1)]
    return token if len(token) <= _SHOWN else token[:_SHOWN] + "..."


def near_token(text: str, masked: str, at: int, extglob: bool, dialect: str) -> str:
    """The message for an unexpected token at ``at``."""
    while at < len(masked) and masked[at] in " \t":
        at += 1
    if at >= len(masked):
        return f"syntax error: the text {NEVER_ENDS} (unexpected end of text)"
    token = token_at(text, masked, at)
    before = masked[:at].rstrip(" \t")
    redirect = next((op for op in _REDIRECTIONS if before.endswith(op)), None)
    if redirect is not None and (token in _OPERATORS or token == "\n"):
        # `X=<PLACEHOLDER>`: a redirection of `PLACEHOLDER`, then a `>` with no file name
        return f"syntax error: `{redirect}` is not followed by a file name"
    if token == "\n":
        return "syntax error: unexpected end of the line"
    message = f"syntax error near `{token}`"
    if token == "(" and at > 0 and text[at - 1] in "?*+@!" and not text[:at].endswith("$" +
                                                                                   text[at - 1]):
        pattern = text[at - 1] + "("
        if dialect == "bash" and not extglob:
            message += (f": `{pattern}...)` is an extglob pattern, which bash parses only with "
                        "extglob on (`shopt -s extglob` in the file, or `bash -O extglob`)")
        elif dialect != "bash":
            message += f": `{pattern}...)` is a bash extglob pattern, which this shell lacks"
    return message


def open_construct(masked: str, at: int) -> tuple[int, str]:
    """Where the command starting at ``at`` opens a compound command that does not end, and
    the message saying so: (offset of its opening word, message)."""
    line_end = masked.find("\n", at)
    line = masked[at:len(masked) if line_end < 0 else line_end]
    stripped = line.lstrip()
    lead = len(line) - len(stripped)
    words = stripped.split(None, 1)
    word = words[0] if words else ""
    if word in _CLOSER:
        return at + lead, (f"syntax error: this `{word}` {NEVER_ENDS} (its `{_CLOSER[word]}` "
                           "is missing, or something inside it is left open)")
    m = _FUNCTION.match(line)
    if m:
        name = m.group(1) or m.group(2)
        closer = _CLOSER.get(m.group(3) or "{", "}")
        return at + lead, (f"syntax error: the body of function `{name}` {NEVER_ENDS} (its "
                           f"`{closer}` is missing, or something inside it is left open)")
    return at + lead, f"syntax error: this command {NEVER_ENDS} (unexpected end of text)"
