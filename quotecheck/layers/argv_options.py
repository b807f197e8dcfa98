"""A getopt/getopt_long-style option scanner driven by small data tables.

Every hand-off layer (ssh, sudo, timeout, awk...) reads its own options before it hands the
rest of its argv on. The tables say which options exist and which take a value; this module
walks an argv window with those rules and reports where each option, value and operand is.

Facts the scanner relies on (glibc getopt_long, verified with the GNU tools installed here):
- a short option taking a value uses the rest of its word (`-p2222`) or else the next word;
  flags combine (`-nT`, `-tt`);
- an option whose value is optional (`::` in getopt) only takes an attached value;
- `--name=value` or `--name value` for long options with a required value, `--name=value`
  only for optional ones; unambiguous prefixes are accepted (`--sig=KILL` for `--signal`);
- `--` ends the options and is dropped; a lone `-` is an operand;
- with a leading `+` in the option string (most wrappers) scanning stops at the first operand,
  without it (util-linux su, runuser, script; cobra's kubectl) options may follow operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from quotecheck.lazy_regex import lazy_compile
from quotecheck.records import FrozenRecord

_NUMERIC_OPTION = lazy_compile(r"-[-+]?[0-9]+")


class Option(FrozenRecord):
    """One option found in an argv."""

    name: str
    """Canonical spelling: `-p` for a short option, `--port` for a long one (abbreviations and
    `-u=x` pflag forms are resolved)."""
    index: int
    """argv index of the word holding the option."""
    value: str | None = None
    """The value text (for an attached value, the part of the word after the option)."""
    value_index: int | None = None
    """argv index of the word holding the value; equal to `index` when attached."""

    @property
    def attached(self) -> bool:
        return self.value_index is not None and self.value_index == self.index


class Grammar(FrozenRecord):
    """Option table of one program (what getopt_long would be given)."""

    short_flags: str = ""
    short_values: str = ""
    """Short options that require a value (attached or in the next word)."""
    short_optional: str = ""
    """Short options whose value, if any, must be attached (`-i[R]` of xargs)."""
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    long_optional: frozenset[str] = frozenset()
    permute: bool = False
    """Options may follow operands (GNU getopt without `+`)."""
    abbreviations: bool = True
    """Unambiguous prefixes of long options are accepted (getopt_long, not Go's pflag)."""
    short_equals: bool = False
    """pflag (docker, kubectl) also reads `-u=root` as `-u root`."""
    numeric: bool = False
    """`-5`, `--5`, `-+5` are options (GNU nice's obsolete adjustment form)."""
    plus_options: bool = False
    """`+x` clusters are options too (shells: `sh +x`)."""


class Scan(FrozenRecord):
    """Where options, values and operands are in an argv window."""

    options: tuple[Option, ...]
    operands: tuple[int, ...]
    """Operand indices in order; without permutation a contiguous run up to the window end."""
    dashdash: int | None
    """Index of the `--` that ended the options."""
    unknown: tuple[int, ...]
    """Words holding an option the table does not know."""
    missing_value: Option | None
    """An option at the end of the window that lacks its required value."""
    uncertain: bool
    """A dynamic word sat where an option may be: the real split is unknowable statically."""

    def first(self, *names: str) -> Option | None:
        """The first option with one of these canonical names."""
        for opt in self.options:
            if opt.name in names:
                return opt
        return None

    def last(self, *names: str) -> Option | None:
        found: Option | None = None
        for opt in self.options:
            if opt.name in names:
                found = opt
        return found

    def has(self, *names: str) -> bool:
        return self.first(*names) is not None


def _resolve_long(grammar: Grammar, name: str) -> str | None:
    known = grammar.long_flags | grammar.long_values | grammar.long_optional
    if name in known:
        return name
    if not grammar.abbreviations or not name:
        return None
    matches = [n for n in known if n.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def looks_like_option(word: str, grammar: Grammar) -> bool:
    """True when getopt would treat this word as an option (or `--`)."""
    if len(word) < 2:
        return False
    if word[0] == "-":
        return True
    return grammar.plus_options and word[0] == "+"


def scan(
    argv: Sequence[str],
    grammar: Grammar,
    start: int,
    end: int | None = None,
    dynamic: AbstractSet[int] = frozenset(),
) -> Scan:
    """Scan argv[start:end] for options with `grammar`.

    A dynamic word that does not start with `-` may expand to options or to nothing: it is
    taken as an operand (the program, when one is expected) and the scan is marked uncertain.
    A dynamic word starting with `-` is scanned as the option its literal prefix names.
    """
    stop = len(argv) if end is None else end
    options: list[Option] = []
    operands: list[int] = []
    unknown: list[int] = []
    dashdash: int | None = None
    missing: Option | None = None
    uncertain = False
    i = start
    while i < stop:
        word = argv[i]
        if not looks_like_option(word, grammar):
            if i in dynamic:
                uncertain = True
            if grammar.permute:
                operands.append(i)
                i += 1
                continue
            operands.extend(range(i, stop))
            break
        if word == "--":
            dashdash = i
            operands.extend(range(i + 1, stop))
            break
        if grammar.numeric and _NUMERIC_OPTION.fullmatch(word):
            # nice's obsolete `-N` / `--N` / `-+N`: an adjustment of N, -N, +N.
            options.append(Option("-n", i, word[1:] if word[1] == "-" else word.lstrip("-"), i))
            i += 1
            continue
        if word.startswith("--"):
            body = word[2:]
            name, eq, attached = body.partition("=")
            canon = _resolve_long(grammar, name)
            if canon is None:
                unknown.append(i)
                options.append(Option("--" + name, i, attached if eq else None, i if eq else None))
                i += 1
                continue
            if canon in grammar.long_values:
                if eq:
                    options.append(Option("--" + canon, i, attached, i))
                elif i + 1 < stop:
                    options.append(Option("--" + canon, i, argv[i + 1], i + 1))
                    i += 1
                else:
                    missing = Option("--" + canon, i)
                    options.append(missing)
            elif canon in grammar.long_optional:
                options.append(Option("--" + canon, i, attached if eq else None, i if eq else None))
            else:
                options.append(Option("--" + canon, i, attached if eq else None, i if eq else None))
            i += 1
            continue
        # A cluster of short options: -abc, -p2222, +x.
        sign = word[0]
        j = 1
        consumed_next = False
        while j < len(word):
            letter = word[j]
            name = sign + letter
            rest = word[j + 1 :]
            if letter in grammar.short_values:
                if grammar.short_equals and rest.startswith("="):
                    rest = rest[1:]
                if rest:
                    options.append(Option(name, i, rest, i))
                elif i + 1 < stop:
                    options.append(Option(name, i, argv[i + 1], i + 1))
                    consumed_next = True
                else:
                    missing = Option(name, i)
                    options.append(missing)
                break
            if letter in grammar.short_optional:
                options.append(Option(name, i, rest or None, i if rest else None))
                break
            if letter not in grammar.short_flags:
                if i not in unknown:
                    unknown.append(i)
                if i in dynamic:
                    # `-$X`: the letters are unknowable; stop reading this word.
                    uncertain = True
                    options.append(Option(name, i))
                    break
            options.append(Option(name, i))
            j += 1
        i += 2 if consumed_next else 1
    return Scan(tuple(options), tuple(operands), dashdash, tuple(unknown), missing, uncertain)
