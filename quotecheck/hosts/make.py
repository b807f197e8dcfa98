"""GNU make as a host: each recipe line is a shell's script, after make's own expansion.

What make does with a recipe (checked against make 4.3 with a recording ``SHELL``, see
tests/hosts/test_make_oracle.py):

* a recipe line starts with a tab in a rule's context; a backslash-newline stays in the line,
  and the tab that starts the next physical line is removed;
* leading blanks and the prefixes ``@``, ``-``, ``+`` are removed;
* make expands ``$(NAME)``, ``${NAME}`` and ``$X`` (one character: ``$HOME`` is ``$H`` then
  ``OME``) and its functions, and turns ``$$`` into ``$``; a name make does not know expands
  to nothing;
* each line runs as ``$(SHELL) $(.SHELLFLAGS) LINE`` (``/bin/sh -c``; ``-ec`` after
  ``.POSIX:``), or with ``.ONESHELL:`` the whole recipe as one script (prefixes removed from
  every line when the shell is a POSIX one).

Variables the Makefile assigns are put in where their value is known from the file alone;
anything else (a variable from the environment, a function, most automatic variables) is
known only when make runs.
"""

from __future__ import annotations

from quotecheck.hosts.model import HostFile, HostReference, HostText, Launch, stand_in
from quotecheck.lazy_regex import lazy_compile
from quotecheck.programs import MAKE_POSIX_SHELLS

# make's built-in functions: `$(shell ...)`, `$(wildcard ...)`...
MAKE_FUNCTIONS = frozenset({
    "abspath", "addprefix", "addsuffix", "and", "basename", "call", "dir", "error", "eval",
    "file", "filter", "filter-out", "findstring", "firstword", "flavor", "foreach", "guile",
    "if", "info", "intcmp", "join", "lastword", "let", "notdir", "or", "origin", "patsubst",
    "realpath", "shell", "sort", "strip", "subst", "suffix", "value", "warning", "wildcard",
    "word", "wordlist", "words",
})
# Automatic variables: set by make for each rule (`$@` the target...).
AUTOMATIC = frozenset("@%<?^+|*")
# Variables make itself defines (or takes from its command line and environment) whatever the
# file says: a reference to one is no mistake.
MAKE_DEFINED = frozenset({
    "MAKE", "MAKEFLAGS", "MAKECMDGOALS", "CURDIR", "MAKEFILE_LIST", "MAKELEVEL", "SHELL",
    "MFLAGS", "MAKE_VERSION", "MAKE_HOST", ".SHELLFLAGS", ".DEFAULT_GOAL", ".RECIPEPREFIX",
    "CC", "CXX", "CPP", "AR", "AS", "LD", "LEX", "YACC", "RM", "FC", "PC", "M2C", "CO", "GET",
    "MAKEINFO", "TEX", "TEXI2DVI", "WEAVE", "CWEAVE", "TANGLE", "CTANGLE", "LINT", "ARFLAGS",
})
MAX_DEPTH = 12  # variables referring to variables, this deep
# The characters after `$` that make a shell's parameter (`$HOME`, `$1`, `$#`): there the
# author meant the shell's. After another character (`$\`, `$/` in a sed pattern) what was
# meant is not clear, and make puts nothing either way.
_SHELL_NAME_CHAR = lazy_compile(r"[A-Za-z0-9_#!-]\Z")

_ASSIGNMENT = lazy_compile(
    r"(?P<mods>(?:(?:override|export|private|unexport)\s+)*)"
    r"(?P<name>[^\s:#=!?+]+)\s*(?P<op>:::=|::=|:=|\?=|\+=|!=|=)(?P<value>.*)\Z", 0)
_EXPORTED_SHELLOPTS = lazy_compile(
    r"(?m)^[ \t]*(?:export[ \t]+(?:[^\n#=]*[ \t])?SHELLOPTS\b|\.EXPORT_ALL_VARIABLES[ \t]*:)")
_DIRECTIVE = lazy_compile(
    r"(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|vpath|export|unexport|"
    r"override|undefine|define|endef)(?:\s|\Z)")


class _Value:
    __slots__ = ("dynamic", "offset", "text")

    def __init__(self, text: str, offset: int, dynamic: bool) -> None:
        self.text = text
        self.offset = offset
        self.dynamic = dynamic  # set by `!=`, inside a conditional, or by a function call


class _Recipe:
    def __init__(self, targets: list[str], prerequisites: list[str]) -> None:
        self.targets = targets
        self.prerequisites = prerequisites
        # Each logical line: its characters and their offsets, as make passes them on (after
        # the tabs at continuation lines are removed).
        self.lines: list[tuple[str, list[int]]] = []


class _Lines:
    """Physical lines with their start offsets."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts: list[int] = []
        at = 0
        while at < len(source):
            self.starts.append(at)
            nl = source.find("\n", at)
            at = len(source) if nl < 0 else nl + 1

    def text(self, i: int) -> str:
        start = self.starts[i]
        end = self.source.find("\n", start)
        return self.source[start:end if end >= 0 else len(self.source)]


def _continues(line: str) -> bool:
    """The line ends with an odd number of backslashes: the next one continues it."""
    n = len(line) - len(line.rstrip("\\"))
    return n % 2 == 1


def _strip_comment(text: str) -> str:
    at = 0
    while True:
        hash_at = text.find("#", at)
        if hash_at < 0:
            return text
        if hash_at > 0 and text[hash_at - 1] == "\\":
            at = hash_at + 1
            continue
        return text[:hash_at]


class _Reader:
    def __init__(self, source: str) -> None:
        self.lines = _Lines(source)
        self.source = source
        self.vars: dict[str, _Value] = {}
        self.recipes: list[_Recipe] = []
        self.oneshell = False
        self.posix = False

    def read(self) -> None:
        lines = self.lines
        n = len(lines.starts)
        i = 0
        recipe: _Recipe | None = None
        conditional = 0
        while i < n:
            raw = lines.text(i)
            if raw.startswith("\t") and recipe is not None:
                chars: list[str] = []
                offsets: list[int] = []
                start = lines.starts[i]
                self._add(chars, offsets, raw[1:], start + 1)
                while _continues(raw) and i + 1 < n:
                    chars.append("\n")
                    offsets.append(lines.starts[i] + len(raw))
                    i += 1
                    raw = lines.text(i)
                    skip = 1 if raw.startswith("\t") else 0
                    self._add(chars, offsets, raw[skip:], lines.starts[i] + skip)
                recipe.lines.append(("".join(chars), offsets))
                i += 1
                continue
            # A logical line outside recipes: backslash-newlines join lines with one blank.
            start = lines.starts[i]
            logical = raw
            while _continues(raw) and i + 1 < n:
                i += 1
                raw = lines.text(i)
                logical = logical[:-1] + " " + raw.lstrip()
            i += 1
            stripped = logical.strip()
            if not stripped or stripped.startswith("#"):
                continue
            line = _strip_comment(logical)
            word = line.split(None, 1)[0] if line.split() else ""
            if word in ("ifeq", "ifneq", "ifdef", "ifndef"):
                conditional += 1
                continue
            if word == "endif":
                conditional = max(conditional - 1, 0)
                continue
            if word == "else":
                continue
            if word == "define":
                i = self._define(line, i, n, conditional)
                recipe = None
                continue
            m = _ASSIGNMENT.match(line.strip())
            if m is not None and not line.startswith("\t"):
                self._assign(m, start + logical.find(m.group("value").lstrip()) if m.group(
                    "value").strip() else start, conditional)
                recipe = None
                continue
            if _DIRECTIVE.match(stripped):
                continue
            recipe = self._rule(line, start)

    def _add(self, chars: list[str], offsets: list[int], text: str, start: int) -> None:
        chars.extend(text)
        offsets.extend(range(start, start + len(text)))

    def _define(self, line: str, i: int, n: int, conditional: int) -> int:
        parts = line.split()
        name = parts[1] if len(parts) > 1 else ""
        body: list[str] = []
        offset = self.lines.starts[i] if i < n else len(self.source)
        while i < n and self.lines.text(i).strip() != "endef":
            body.append(self.lines.text(i))
            i += 1
        if name:
            self.vars[name] = _Value("\n".join(body), offset, conditional > 0)
        return i + 1

    def _assign(self, m: object, offset: int, conditional: int) -> None:
        name = m.group("name")  # type: ignore[attr-defined]
        op = m.group("op")  # type: ignore[attr-defined]
        value = m.group("value").strip()  # type: ignore[attr-defined]
        old = self.vars.get(name)
        if op == "?=" and old is not None:
            return
        if op == "+=" and old is not None:
            self.vars[name] = _Value(f"{old.text} {value}" if old.text else value, old.offset,
                                     old.dynamic or conditional > 0)
            return
        self.vars[name] = _Value(value, offset, op == "!=" or conditional > 0)

    def _rule(self, line: str, start: int) -> _Recipe | None:
        colon = _rule_colon(line)
        if colon < 0:
            return None
        targets = line[:colon].split()
        rest = line[colon:].lstrip(":")
        rest_at = start + len(line) - len(rest)
        inline = None
        semi = rest.find(";")
        if semi >= 0:
            inline = (rest[semi + 1:], rest_at + semi + 1)
            rest = rest[:semi]
        if "=" in rest and inline is None:  # `target: VAR = value`
            return None
        if ".ONESHELL" in targets:
            self.oneshell = True
        if ".POSIX" in targets:
            self.posix = True
        recipe = _Recipe(targets, rest.split())
        self.recipes.append(recipe)
        if inline is not None:
            text, at = inline
            recipe.lines.append((text, list(range(at, at + len(text)))))
        return recipe


def _rule_colon(line: str) -> int:
    """Where the colon that ends a rule's targets is (not one inside `$(...)`), or -1."""
    depth = 0
    for i, ch in enumerate(line):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == ":" and depth == 0 and not line.startswith("=", i + 1):
            return i
    return -1


class _Expander:
    def __init__(self, reader: _Reader) -> None:
        self.vars = reader.vars
        self.references: list[HostReference] = []

    def expand(self, text: str, offsets: list[int], automatic: dict[str, str | None],
               depth: int = 0, record: bool = True) -> HostText:
        out_chars: list[str] = []
        out_offsets: list[int | None] = []
        ranges: list[tuple[int, int]] = []
        i = 0
        n = len(text)
        while i < n:
            ch = text[i]
            if ch != "$" or i + 1 >= n:
                out_chars.append(ch)
                out_offsets.append(offsets[i])
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out_chars.append("$")
                out_offsets.append(offsets[i])
                i += 2
                continue
            if nxt in "({":
                close = _closing(text, i + 1)
                end = n if close < 0 else close + 1
                inner = text[i + 2:end - 1] if close >= 0 else text[i + 2:]
                got = self._reference(inner, text[i:end], offsets[i], offsets[end - 1],
                                      automatic, depth, record)
                i = end
            else:
                got = self._reference(nxt, text[i:i + 2], offsets[i], offsets[i + 1],
                                      automatic, depth, record)
                i += 2
            at = len(out_chars)
            out_chars.extend(got.value)
            out_offsets.extend(got.offsets)
            ranges.extend((a + at, b + at) for a, b in got.dynamic_ranges)
        return HostText("".join(out_chars), out_offsets, tuple(ranges))

    def _reference(self, name: str, written: str, first: int, last: int,
                   automatic: dict[str, str | None], depth: int, record: bool) -> HostText:
        head = name.split(None, 1)[0] if name.split() else ""
        function = head in MAKE_FUNCTIONS and (len(name) > len(head) and
                                               name[len(head)].isspace())
        plain = name.strip()
        known = None
        defined = True
        parenthesised = written[1:2] in ("(", "{")
        if function or ":" in name or "$" in name:
            pass  # a function, a substitution reference, a computed name: run time
        elif plain in AUTOMATIC or (len(plain) == 2 and plain[0] in AUTOMATIC
                                    and plain[1] in "DF"):
            known = automatic.get(plain)
        elif plain in self.vars:
            value = self.vars[plain]
            if not value.dynamic and depth < MAX_DEPTH:
                inner = self.expand(value.text, [first] * len(value.text), automatic,
                                    depth + 1, record=False)
                if not inner.dynamic:
                    known = inner.value
        elif plain in MAKE_DEFINED:
            pass
        elif not parenthesised and name.isspace():
            # `$ ` (a sed address `3,$ p`, a prompt `"$ "`), a `$` before a tab, or one that
            # ends a line of a .ONESHELL recipe: make reads a variable named by that blank,
            # which no Makefile can set (`empty variable name`), and drops both characters.
            # A shell would have kept the `$`: that is what was meant.
            defined = False
            known = ""
        elif (len(plain) == 1 and not parenthesised) or any(c.isspace() for c in plain.strip()):
            # `$H` of `$HOME`, `$0`, `$(date +%s)`: names nobody sets (a one-letter variable
            # is written `$(O)`, and may come from the command line or an included file), and
            # make puts in nothing. Reported where a shell's parameter was meant.
            defined = len(plain) == 1 and not _SHELL_NAME_CHAR.match(plain)
            known = ""
        if record and depth == 0:
            self.references.append(HostReference((first, last + 1), plain, written, defined))
        if known is not None:
            span = max(last + 1 - first, 1)
            return HostText(known, [first + min(k, span - 1) for k in range(len(known))])
        shown, offsets = stand_in("{" + (head if function else plain) + "}", first)
        offsets = [min(first + k, last) for k in range(len(shown))]
        return HostText(shown, offsets, ((0, len(shown)),))


def _closing(text: str, at: int) -> int:
    """The offset of the bracket closing the one at ``at`` (make counts only its own kind)."""
    open_ = text[at]
    close = ")" if open_ == "(" else "}"
    depth = 0
    for i in range(at, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _strip_prefixes(text: str, offsets: list[int]) -> tuple[str, list[int]]:
    k = 0
    while k < len(text) and text[k] in " \t@-+":
        k += 1
    return text[k:], offsets[k:]


def read_makefile(source: str) -> HostFile:
    reader = _Reader(source)
    reader.read()
    expander = _Expander(reader)
    shell_value = reader.vars.get("SHELL")
    shell = ["/bin/sh"]
    if shell_value is not None and not shell_value.dynamic and "$" not in shell_value.text \
            and shell_value.text.strip():
        shell = shell_value.text.split()  # make splits it: `/usr/bin/env bash` is two words
    flags_value = reader.vars.get(".SHELLFLAGS")
    flags = ["-ec" if reader.posix else "-c"]
    if flags_value is not None and not flags_value.dynamic and "$" not in flags_value.text:
        flags = flags_value.text.split()
    posix_shell = shell[0].rsplit("/", 1)[-1] in MAKE_POSIX_SHELLS
    # bash turns on the options an exported SHELLOPTS lists when it starts (bash(1)), so
    # `SHELLOPTS := pipefail` + `export SHELLOPTS` gives every recipe line `-o pipefail`.
    shellopts = reader.vars.get("SHELLOPTS")
    if shellopts is not None and not shellopts.dynamic and "$" not in shellopts.text and \
            shell[-1].rsplit("/", 1)[-1] == "bash" and _EXPORTED_SHELLOPTS.search(source):
        given = [o for o in shellopts.text.strip().split(":") if o]
        flags = [*(w for o in given for w in ("-o", o)), *flags]
    launches: list[Launch] = []
    for number, recipe in enumerate(reader.recipes):
        if not recipe.lines:
            continue
        target = recipe.targets[0] if recipe.targets else ""
        prerequisites = [p for p in recipe.prerequisites if p != "|"]
        # Known when the rule names its target and prerequisites plainly (no pattern, no
        # reference of its own).
        plain_target = "%" not in target and "$" not in target
        plain_prerequisites = not any("%" in p or "$" in p for p in prerequisites)
        automatic: dict[str, str | None] = {
            "@": target if plain_target else None,
            "<": (prerequisites[0] if prerequisites else "") if plain_prerequisites else None,
            "^": " ".join(dict.fromkeys(prerequisites)) if plain_prerequisites else None,
        }
        pieces: list[tuple[str, list[int]]] = []
        if reader.oneshell:
            chars: list[str] = []
            offsets: list[int] = []
            for k, (text, offs) in enumerate(recipe.lines):
                # (the newline that ends the line before: make joins the lines with it)
                newline = source.rfind("\n", 0, offs[0]) if offs else -1
                if k == 0 or posix_shell:
                    text, offs = _strip_prefixes(text, offs)
                if k:
                    chars.append("\n")
                    offsets.append(max(newline, 0))
                chars.extend(text)
                offsets.extend(offs)
            pieces.append(("".join(chars), offsets))
        else:
            pieces.extend(_strip_prefixes(text, offs) for text, offs in recipe.lines)
        for text, offs in pieces:
            if not text.strip():
                continue
            got = expander.expand(text, offs, automatic)
            # A prefix that a variable put in front of the line is removed after expansion
            # too (`$(Q)echo` with Q = @).
            k = 0
            while k < len(got.value) and got.value[k] in " \t@-+" and not any(
                    a <= k < b for a, b in got.dynamic_ranges):
                k += 1
            if k:
                got = HostText(got.value[k:], tuple(got.offsets[k:]),
                               tuple((a - k, b - k) for a, b in got.dynamic_ranges))
            if not got.value.strip():
                continue  # make starts no shell for a line that expands to nothing
            span = (offs[0], offs[-1] + 1) if offs else (0, 0)
            launches.append(Launch(f"recipe for {target}", span, shell=(*shell, *flags),
                                   text=got, group=None if reader.oneshell else number))
    return HostFile("make", tuple(launches), (), tuple(expander.references))
