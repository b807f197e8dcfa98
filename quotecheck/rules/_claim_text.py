"""What the text of a script's message claims (for QC205): whether it reports an outcome at
all, read from the words alone.

A line claims nothing when it is a progress line ("Running tests..."), a prompt or an
instruction, a condition or a future ("when the build has finished"), a section header, a log
line about the job itself, shell code echoed into a file (`...; done`), or when its success word
sits in a clause of condition or time ("once the container is ready") or names a thing ("the
complete list"). Which step a message reports on is the rule's business, not this module's.
"""

from __future__ import annotations

import re

from quotecheck.lazy_regex import lazy_compile
from quotecheck.rules.runtime.script_messages import SUCCESS_WORDS

# A text that claims nothing: a progress line ("Running tests..."), a prompt or instruction
# ("Press any key when ... completed", "click Close to complete"), a condition or future
# ("when the build has finished", "you must have X installed"), a header ("Currently running").
_PROGRESS = lazy_compile(r"^[^A-Za-z]*[A-Za-z]+ing\b", re.IGNORECASE)

_INSTRUCTION = lazy_compile(
    r"\b(press|click|please|make sure|ensure|remember|you must|you need|you should|"
    r"currently|manual|manually)\b", re.IGNORECASE)

_NOT_YET = lazy_compile(
    r"\b(?:to|when|until|once|after|before)\s+$"
    r"|\b(?:must|should|will|would|need|needs|can)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)

# A clause of condition or time with a subject and verb of its own, ending at the success word:
# "after the install is complete", "once the DB is ready", "when this bundle was created". Its
# subject is a few words of the same sentence (no `,;:!?` or sentence end between, no success
# word, no "then"); the word follows a form of be or have, or one with an adverb ("is fully
# installed"). A claim after the clause ("after 3 tries, deployed") is no part of it.
_SUBORDINATOR = lazy_compile(r"\b(?:when|whenever|until|till|once|after|before|while"
                             r"|as\s+soon\s+as)\s+", re.IGNORECASE)

_CLAUSE_WORD = r"(?:[^\s,;:!?.()\[\]]|\.(?=[^\s.]))+"

_CLAUSE_REST = lazy_compile(
    rf"((?:{_CLAUSE_WORD}\s+){{0,3}}{_CLAUSE_WORD})"
    r"(?:\s+(?:is|are|was|were|be|been|being|has|have|had|gets|get|got)|'s|'re)\s+"
    r"(?:[A-Za-z]+ly\s+)?", re.IGNORECASE)

# A short label in front of a progress line: marks (`:::`, `-->`, `***`), a log level (`NOTE:`,
# `INFO -`, `[TRACE]`, `[i]`) or a variable that holds one or a colour (`${INFO}`, `${BLUE}`).
# Not a tick or an OK (`${TICK}`, `[ OK ]`): those say the step worked.
LABEL = lazy_compile(
    r"^(?:[^A-Za-z$]+"
    r"|(?:note|notice|info|debug|trace|log|i)(?=\s*[:\])>|-])"
    r"|\$\{?(?:[A-Za-z_]*_)?(?:INFO|NOTE|NOTICE|DEBUG|TRACE)\}?(?![A-Za-z_0-9])"
    r"|\$\{?[A-Za-z_]*(?:COLOU?R|RED|GREEN|YELLOW|BLUE|CYAN|MAGENTA|BOLD|NORMAL|RESET|NC)"
    r"[A-Za-z_]*\}?(?![A-Za-z_0-9]))*", re.IGNORECASE)

# A word of state used as an adjective before its noun, after an article: "the complete list
# of flaky tests", "a running cluster". The past forms ("the updated config") say something
# was done and stay claims.
_ATTRIBUTE = lazy_compile(r"\b(?:the|a|an)\s+$", re.IGNORECASE)

_STATE_ADJECTIVES = frozenset({"complete", "running"})

# A section header of a report: a title framed by a run of the same mark on both sides
# (`##### Docker Info #####`, `=== List installed packages ===`).
_FRAMED = lazy_compile(r"^\s*([#=*~+-])\1{2,}(.*?)([#=*~+-])\3{2,}\s*$")

# What follows a word that says how or where the step ended ("completed successfully",
# "deployed to prod", "done with"): after such a word the title is a claim, not a noun phrase.
_COMPLEMENT = lazy_compile(
    r"\s*(?:[A-Za-z]+ly|ok|okay|fine|now|with|without|in|at|on|to|into|for|from|and|as|by)\b",
    re.IGNORECASE)

# A success word that is shell syntax in the text, not a report: the `done` that closes a loop
# the text opens (`for f in *.sh; do . "$f"; done`), or the message of an `echo` the text joins
# with `&&` (`make && echo OK`). The line is code, written to a file or given to a shell; what
# it prints, if anything, the code decides when it runs.
_LOOP_OPENED = lazy_compile(r"(?:^|[;&|\n])\s*do\s", re.IGNORECASE)

_KEYWORD_PLACE = lazy_compile(r"(?:^|[;&\n])\s*$")

_JOINED_ECHO = lazy_compile(r"&&\s*(?:echo|printf)\b[^;&|\n]*$")

_LIFECYCLE = frozenset({"started", "stopped", "finished", "running"})

def claims(text: str) -> list[str]:
    return [m.group(0) for m in SUCCESS_WORDS.finditer(text)]

def _section_header(text: str) -> bool:
    """A framed title (`##### List installed packages #####`) whose success words only name
    what the section lists: each is inside the title, not its first word, and followed by a
    noun of it ("installed packages"), not ending it or followed by how or where ("Build
    completed", "completed successfully", "deployed to prod" stay claims)."""
    framed = _FRAMED.match(text)
    if framed is None:
        return False
    title = framed.group(2).strip()
    matches = list(SUCCESS_WORDS.finditer(title))
    if not matches:
        return False
    for m in matches:
        rest = title[m.end():]
        if m.start() == 0 or not re.match(r"\s+[A-Za-z]", rest) or _COMPLEMENT.match(rest):
            return False
    return True

def claims_nothing(text: str) -> bool:
    """Whether ``text`` reports no outcome: see ``_PROGRESS`` (after a ``LABEL`` too),
    ``_INSTRUCTION``, ``_NOT_YET``, ``_in_clause``, ``_attribute``, ``_code``,
    ``_section_header``.

    A log line naming the job's own start or end ("Job 42 started") also claims nothing about
    the step before it."""
    if _INSTRUCTION.search(text) or _section_header(text):
        return True
    first = SUCCESS_WORDS.search(text)
    if first is not None:
        head = text[:first.end()]
        label = LABEL.match(head)
        if _PROGRESS.match(head) or (label is not None and _PROGRESS.match(head[label.end():])):
            return True
    matches = list(SUCCESS_WORDS.finditer(text))
    if all(_NOT_YET.search(text[:m.start()]) or _in_clause(text[:m.start()])
           or _attribute(text, m) or _code(text, m) for m in matches):
        return True
    claims = {m.group(0).lower() for m in matches}
    return claims <= _LIFECYCLE and re.search(r"\bjob\b", text, re.IGNORECASE) is not None

def _in_clause(before: str) -> bool:
    """Whether the success word after ``before`` ends a clause of condition or time
    (``_CLAUSE_REST`` after a ``_SUBORDINATOR``): "run the following once the DB is ready"."""
    for sub in _SUBORDINATOR.finditer(before):
        rest = _CLAUSE_REST.fullmatch(before, sub.end())
        if rest is not None and SUCCESS_WORDS.search(rest.group(1)) is None and \
                re.search(r"\bthen\b", rest.group(1), re.IGNORECASE) is None:
            return True
    return False

def _code(text: str, m: re.Match[str]) -> bool:
    """Whether the success word ``m`` is shell syntax in ``text``: the keyword `done` in a
    keyword's place (after `;`, `&` or a newline) closing a loop the text opened with `do`, or
    in an `echo` or `printf` the text joins with `&&`."""
    before = text[:m.start()]
    if m.group(0) == "done" and _KEYWORD_PLACE.search(before) and _LOOP_OPENED.search(before):
        return True
    return _JOINED_ECHO.search(before) is not None

def _attribute(text: str, m: re.Match[str]) -> bool:
    """Whether the success word ``m`` is a word of state before its noun, after an article
    (``_ATTRIBUTE``): "For the complete list of flaky tests, see ..."."""
    return m.group(0).lower() in _STATE_ADJECTIVES and \
        _ATTRIBUTE.search(text[:m.start()]) is not None and \
        re.match(r"\s+[A-Za-z]", text[m.end():]) is not None and \
        _COMPLEMENT.match(text[m.end():]) is None
