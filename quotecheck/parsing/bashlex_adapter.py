"""The one place that talks to bashlex: parse already-masked shell text into bashlex trees.

The project's scanner masks a script before it gets here (quoted text, expansions, ``[[ ]]``,
``(( ))``, arrays and escapes become ``_``; heredoc operators become plain redirects; comments and
heredoc bodies become blanks), keeping every offset.  bashlex then only has to get the command
*structure* right, which it does not do out of the box: ``case``, ``select`` and ``time`` raise,
``while cmd`` with ``do`` on the next line fails an assertion, and ``elif``/``else`` after the first
``elif`` are hidden inside a list stored as a word.  This module swaps in our own grammar actions
(on a private copy of bashlex's production table, so plain ``bashlex.parse`` elsewhere is
untouched), fixes a few tokenizer decisions (``bashlex_tokenizer``), drives the parser itself
so every position is an offset into the caller's text, checks each tree before handing it
out, and caches bashlex's LALR tables on disk because rebuilding them is most of bashlex's
import time.

Importing this module does not import bashlex; the first call to :func:`parse_masked` does.

Node shapes added or changed here (all ``bashlex.ast.node`` objects, ``pos`` half-open):

* ``compound(list=[case], redirects=[...])`` around
  ``case(parts=[reservedword 'case', word, reservedword 'in', pattern..., reservedword 'esac'])``;
  ``pattern(parts=[reservedword '('?, word, (reservedword '|', word)..., reservedword ')',
  body?, reservedword ';;'|';&'|';;&'?])`` where ``body`` is one list/pipeline/command/compound.
* ``compound(list=[if])`` with ``if.parts`` flat in textual order: ``if`` cond ``then`` body
  (``elif`` cond ``then`` body)... (``else`` body)? ``fi``: every keyword a reservedword node.
* ``while``/``until``: ``parts=[kw, cond, 'do', body, 'done']`` whatever the newlines.
* ``for``/``select``: ``parts=[kw, word, ('in', word...)?, ';'?, 'do'|'{', body, 'done'|'}']``.
* ``time [-p [--]]`` and ``!``: reservedword nodes at the front of a ``pipeline`` node (a bare
  ``time`` or ``!`` is a pipeline of reservedwords only).

``coproc`` raises a ``ParsingError`` saying it is unsupported, as do the grammar's rules for
``[[ ]]``, ``(( ))`` and ``for ((;;))`` should bashlex's tokenizer ever produce them (the scanner
masks those constructs before they get here).
"""

from __future__ import annotations

import copy
import importlib
import os
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.bashlex_tokenizer import make_tokenizer_class
from quotecheck.records import FrozenRecord, Record

if TYPE_CHECKING:
    from pathlib import Path

# json, tempfile, zlib, pathlib and importlib.util are imported where they are used: only the
# first parse of a process needs them, and a linter's start-up time is felt on every commit.

__all__ = [
    "PATCH_VERSION",
    "ParseOutcome",
    "child_nodes",
    "iter_nodes",
    "parse_masked",
    "safe_parse",
    "table_cache_dir",
    "table_source",
    "validate",
]

#: Bump whenever the grammar actions or tokenizer fixes below change; part of the cache key.
PATCH_VERSION = "1"

# Layout of the cached table file; bump if its shape changes. The file is this header, the
# CRC-32 of the rest in hex and a newline, then the tables as ``marshal`` data (read in well
# under a millisecond, where JSON and a check of every entry took ~5 ms of every start).
_CACHE_FORMAT = 2
_CACHE_MAGIC = b"quotecheck bashlex tables 2 "

# Blanks separate tokens (` \t\n`); every other character must lie inside some leaf node.
_NON_BLANK = lazy_compile(r"[^ \t\n]")

# Node kinds whose span is text the parser consumed (so together they must cover the input).
_LEAF_KINDS = frozenset(
    {"word", "assignment", "reservedword", "operator", "pipe", "redirect", "heredoc"}
)
# Every node kind a tree from this module can contain.
_KNOWN_KINDS = _LEAF_KINDS | frozenset(
    {
        "command",
        "list",
        "pipeline",
        "compound",
        "if",
        "for",
        "select",
        "while",
        "until",
        "case",
        "pattern",
        "function",
        "parameter",
        "tilde",
        "commandsubstitution",
        "processsubstitution",
    }
)


# --------------------------------------------------------------------------------------------
# Outcome type and tree helpers (no bashlex needed)
# --------------------------------------------------------------------------------------------


class ParseOutcome(FrozenRecord):
    """What :func:`safe_parse` found: either ``nodes`` or an ``error`` (never both)."""

    nodes: list[Any] | None
    error: str | None = None
    error_offset: int | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.nodes is not None


def child_nodes(node: Any) -> list[Any]:
    """The child nodes of ``node`` in textual order (the walk bashlex's visitor does, plus
    ``case``/``pattern``/``select``); ``function.name``/``.body`` are reached through ``parts``."""
    kind = getattr(node, "kind", None)
    if kind == "compound":
        return [*node.list, *node.redirects]
    if kind == "redirect":
        found = []
        if _is_node(node.output):
            found.append(node.output)
        if _is_node(getattr(node, "heredoc", None)):
            found.append(node.heredoc)
        return found
    if kind in ("commandsubstitution", "processsubstitution"):
        return [node.command] if _is_node(getattr(node, "command", None)) else []
    parts = getattr(node, "parts", None)
    return list(parts) if isinstance(parts, list) else []


def iter_nodes(nodes: list[Any]) -> Iterator[Any]:
    """Every node of the trees in ``nodes``, parents before children, in textual order.

    Iterative, so deeply nested scripts cannot hit the recursion limit."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(child_nodes(node)))


def _is_node(value: Any) -> bool:
    return isinstance(getattr(value, "kind", None), str)


def validate(nodes: list[Any], text: str) -> str | None:
    """Return ``None`` if the trees are trustworthy for ``text``, else what is wrong.

    Checks: every node has a known kind and a ``pos`` within ``[0, len(text)]``; children lie
    inside their parent and siblings do not overlap or go backwards; keyword/operator leaves spell
    what the text says at their position; every non-blank character is covered by a leaf."""
    found = _check_tree(nodes, text)
    return None if found is None else found[0]


def _check_tree(nodes: Any, text: str) -> tuple[str, int | None] | None:
    try:
        return _check_tree_unsafe(nodes, text)
    except Exception as exc:  # a malformed tree must read as "invalid", never crash the caller
        return f"malformed tree ({type(exc).__name__}: {exc})", None


def _span(node: Any, size: int) -> tuple[int, int] | str:
    pos = getattr(node, "pos", None)
    if not isinstance(pos, (tuple, list)) or len(pos) != 2:
        return f"{getattr(node, 'kind', '?')} node without a (start, end) pos: {pos!r}"
    start, end = pos
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        return f"{node.kind} node with non-integer pos {pos!r}"
    if not 0 <= start <= end <= size:
        return f"{node.kind} node pos {start}-{end} outside the text (0-{size})"
    return start, end


def _span_fast(node: Any, size: int) -> tuple[int, int] | str:
    """``_span``, without its type checks for the usual well-formed ``pos``."""
    pos = getattr(node, "pos", None)
    if type(pos) is tuple and len(pos) == 2:
        start, end = pos
        if type(start) is int and type(end) is int and 0 <= start <= end <= size:
            return start, end
    return _span(node, size)


_SPELLED = {"reservedword": "word", "operator": "op", "pipe": "pipe"}


def _check_tree_unsafe(nodes: Any, text: str) -> tuple[str, int | None] | None:
    if not isinstance(nodes, list):
        return f"expected a list of nodes, got {type(nodes).__name__}", None
    size = len(text)
    covered: list[tuple[int, int]] = []
    # (node, its span, parent start, parent end); top-level nodes are bounded by the text only.
    # Each span is read once, when the node is met as a child.
    stack: list[tuple[Any, tuple[int, int], int, int]] = []
    prev_end = 0
    for node in nodes:
        if not _is_node(node):
            return f"top-level item is not a node: {node!r}", None
        span = _span_fast(node, size)
        if isinstance(span, str):
            return span, None
        if span[0] < prev_end:
            return f"top-level {node.kind} at {span[0]} overlaps the previous one", span[0]
        prev_end = span[1]
        stack.append((node, span, 0, size))
    stack.reverse()
    while stack:
        node, (start, end), lo, hi = stack.pop()
        kind = node.kind
        if kind not in _KNOWN_KINDS:
            return f"unknown node kind {kind!r}", None
        if start < lo or end > hi:
            return f"{kind} node at {start}-{end} is outside its parent ({lo}-{hi})", start
        if kind in _LEAF_KINDS:
            covered.append((start, end))
            spelled = _SPELLED.get(kind)
            if spelled is not None and text[start:end] != getattr(node, spelled, None):
                return (
                    f"{kind} {getattr(node, spelled, None)!r} at {start}-{end} "
                    f"but the text there is {text[start:end]!r}",
                    start,
                )
        children = child_nodes(node)
        if not children:
            continue
        last = start
        found: list[tuple[Any, tuple[int, int], int, int]] = []
        for child in children:
            if not _is_node(child):
                return f"{kind} node has a child that is not a node: {child!r}", start
            child_span = _span_fast(child, size)
            if isinstance(child_span, str):
                return child_span, None
            if child_span[0] < last:
                return (
                    f"{child.kind} at {child_span[0]}-{child_span[1]} is out of order inside "
                    f"{kind} at {start}-{end}",
                    child_span[0],
                )
            last = child_span[1]
            found.append((child, child_span, start, end))
        found.reverse()
        stack.extend(found)
    gap = _first_uncovered(text, covered)
    if gap is not None:
        return f"text at offset {gap} ({text[gap]!r}) is not covered by any node", gap
    return None


def _first_uncovered(text: str, spans: list[tuple[int, int]]) -> int | None:
    cursor = 0
    for start, end in sorted(spans):
        if start > cursor:
            hit = _NON_BLANK.search(text, cursor, start)
            if hit:
                return hit.start()
        cursor = max(cursor, end)
    hit = _NON_BLANK.search(text, cursor)
    return hit.start() if hit else None


# --------------------------------------------------------------------------------------------
# Loading bashlex, with its LALR tables cached on disk
# --------------------------------------------------------------------------------------------


class _Bashlex(Record):
    parser: Any  # the bashlex.parser module
    tokenizer: Any  # the bashlex.tokenizer module
    errors: Any  # the bashlex.errors module
    ast: Any  # the bashlex.ast module
    state: Any  # the bashlex.state module
    productions: tuple[Any, ...]  # private copy of the production table, our actions bound
    tokenizer_class: Any  # our tokenizer subclass
    table_source: str  # "cache", "built", "built+cached" or "preloaded"
    engine: dict[str, Any]  # what each parse's copy of bashlex's LR engine starts with

    def __init__(
        self,
        parser: Any,
        tokenizer: Any,
        errors: Any,
        ast: Any,
        state: Any,
        productions: tuple[Any, ...],
        tokenizer_class: Any,
        table_source: str,
        engine: dict[str, Any] | None = None,
    ) -> None:
        self.parser = parser
        self.tokenizer = tokenizer
        self.errors = errors
        self.ast = ast
        self.state = state
        self.productions = productions
        self.tokenizer_class = tokenizer_class
        self.table_source = table_source
        self.engine = engine or {}


_LOCK = threading.Lock()
_LOADED: _Bashlex | None = None


def table_cache_dir() -> Path | None:
    """Where the LALR tables are cached, or ``None`` if caching is off.

    ``QUOTECHECK_CACHE_DIR`` overrides the location; setting it to an empty string turns the cache
    off.  Default: ``$XDG_CACHE_HOME/quotecheck`` or ``~/.cache/quotecheck``."""
    from pathlib import Path

    override = os.environ.get("QUOTECHECK_CACHE_DIR")
    if override is not None:
        return Path(override) if override.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "quotecheck"


def table_source() -> str | None:
    """How bashlex's tables were obtained in this process (``None`` before the first parse)."""
    return None if _LOADED is None else _LOADED.table_source


class ParserUnavailable(RuntimeError):
    """bashlex cannot be loaded: nothing can be parsed, which is an installation error, never a
    syntax error of the text (that would call every script broken)."""


def _bashlex() -> _Bashlex:
    global _LOADED
    if _LOADED is None:
        with _LOCK:
            if _LOADED is None:
                try:
                    _LOADED = _load()
                except Exception as exc:
                    raise ParserUnavailable(f"cannot load bashlex ({type(exc).__name__}: "
                                            f"{exc}): reinstall quotecheck") from exc
    return _LOADED


def _load() -> _Bashlex:
    parser_mod, source = _import_bashlex_parser()
    tok = importlib.import_module("bashlex.tokenizer")
    loaded = _Bashlex(
        parser=parser_mod,
        tokenizer=tok,
        errors=importlib.import_module("bashlex.errors"),
        ast=importlib.import_module("bashlex.ast"),
        state=importlib.import_module("bashlex.state"),
        productions=(),
        tokenizer_class=None,
        table_source=source,
    )
    loaded.tokenizer_class = make_tokenizer_class(tok)
    loaded.productions = _patched_productions(loaded)
    engine = parser_mod.yaccparser
    # The tables as plain dicts: bashlex keeps them in a Mapping of its own, whose lookups are
    # Python calls, made for every token and every reduction.
    loaded.engine = {**engine.__dict__, "productions": loaded.productions,
                     "action": dict(engine.action), "goto": dict(engine.goto)}
    return loaded


def _import_bashlex_parser() -> tuple[Any, str]:
    """Import ``bashlex.parser``, serving its ``yacc.yacc()`` call from the table cache.

    bashlex builds its parser at import time (``yaccparser = yacc.yacc(...)`` at module level) and
    its vendored PLY never reads a table module, so the only way to skip the build is to hand
    bashlex a replacement ``yacc.yacc`` for the duration of its import.  We import the package
    module without running its ``__init__`` (which imports the parser), import ``bashlex.yacc``,
    swap ``yacc.yacc``, then run the package ``__init__``.  Any failure falls back to a plain
    import."""
    if "bashlex.parser" in sys.modules or "bashlex" in sys.modules:
        return importlib.import_module("bashlex.parser"), "preloaded"
    from importlib.util import find_spec, module_from_spec
    from pathlib import Path

    cache_dir = table_cache_dir()
    spec = find_spec("bashlex")
    if (
        cache_dir is None
        or spec is None
        or spec.loader is None
        or not spec.submodule_search_locations
    ):
        return importlib.import_module("bashlex.parser"), "built"
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    outcome: list[str] = []
    try:
        package = module_from_spec(spec)
        sys.modules["bashlex"] = package
        yacc_mod: Any = _import_without_inspect("bashlex.yacc")
        plain_yacc = yacc_mod.yacc

        def original(*args: Any, **kwargs: Any) -> Any:
            yacc_mod.inspect = importlib.import_module("inspect")  # a real table build
            return plain_yacc(*args, **kwargs)

        def cached_yacc(*args: Any, **kwargs: Any) -> Any:
            module = sys.modules["bashlex.parser"]  # the module being executed right now
            return _yacc_via_cache(
                yacc_mod, original, module, package_dir, cache_dir, outcome, args, kwargs
            )

        yacc_mod.yacc = cached_yacc
        try:
            spec.loader.exec_module(package)
        finally:
            yacc_mod.yacc = plain_yacc
        return sys.modules["bashlex.parser"], (outcome[0] if outcome else "built")
    except BaseException as exc:
        # Never leave a half-imported bashlex behind (an interrupt included).
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        if not isinstance(exc, Exception):
            raise
        return importlib.import_module("bashlex.parser"), "built"


def _import_without_inspect(name: str) -> Any:
    """Import ``name`` (``bashlex.yacc``) with a placeholder for ``inspect`` (~5 ms with
    ``dis``, ``ast`` and ``tokenize``): PLY uses it only to build tables, which the cache
    skips, and ``original`` above puts the real module in before a build."""
    if "inspect" in sys.modules:
        return importlib.import_module(name)
    placeholder = types.ModuleType("inspect")
    sys.modules["inspect"] = placeholder
    try:
        return importlib.import_module(name)
    finally:
        if sys.modules.get("inspect") is placeholder:
            del sys.modules["inspect"]


def _cache_key(package_dir: Path) -> str:
    import zlib

    # The tables depend on the grammar (parser.py) and the table builder (yacc.py): key on their
    # exact bytes, plus bashlex's declared version, our patch version and the cache layout.
    version = "unknown"
    try:
        for entry in os.listdir(package_dir.parent):
            if entry.startswith("bashlex-") and entry.endswith((".dist-info", ".egg-info")):
                version = entry[len("bashlex-") :].rsplit(".", 1)[0]
                break
    except OSError:
        pass
    parts = [f"format={_CACHE_FORMAT}", f"patch={PATCH_VERSION}", f"bashlex={version}"]
    for name in ("parser.py", "yacc.py"):
        data = (package_dir / name).read_bytes()
        parts.append(f"{name}={len(data)}:{zlib.crc32(data):08x}:{zlib.adler32(data):08x}")
    return "|".join(parts)


def _yacc_via_cache(
    yacc_mod: Any,
    original: Callable[..., Any],
    module: types.ModuleType,
    package_dir: Path,
    cache_dir: Path,
    outcome: list[str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    import zlib

    try:
        key = _cache_key(package_dir)
    except OSError:
        outcome.append("built")
        return original(*args, module=module, **kwargs)
    path = cache_dir / f"bashlex-tables-{zlib.crc32(key.encode()):08x}.bin"
    try:
        parser = _parser_from_tables(yacc_mod, module, _read_tables(path), key)
        outcome.append("cache")
        return parser
    except Exception:  # missing, unreadable, stale or corrupt: build instead
        pass
    parser = original(*args, module=module, **kwargs)
    outcome.append("built+cached" if _write_tables(parser, path, key) else "built")
    return parser


def _read_tables(path: Path) -> Any:
    """The tables of a cache file; ValueError unless its checksum is that of its contents (a
    file cut short or damaged is rebuilt; the checksum also stands for a check of every entry,
    as only ``_write_tables`` writes these files, from tables yacc has just built)."""
    import marshal
    import zlib

    with open(path, "rb") as handle:
        blob = handle.read()
    head, newline, payload = blob.partition(b"\n")
    if not newline or head != _CACHE_MAGIC + b"%08x" % zlib.crc32(payload):
        raise ValueError("damaged table cache")
    return marshal.loads(payload)


def _parser_from_tables(yacc_mod: Any, module: Any, data: Any, key: str) -> Any:
    if not isinstance(data, dict) or data.get("key") != key:
        raise ValueError("stale table cache")
    action, goto = data["action"], data["goto"]
    if not (isinstance(action, dict) and isinstance(goto, dict)):
        raise ValueError("bad tables")
    productions = []
    declared: dict[str, str] = {}  # grammar function -> its docstring, whitespace collapsed
    for number, (name, symbols, func) in enumerate(data["productions"]):
        if not isinstance(name, str) or not _all_of(symbols, str):
            raise ValueError("bad production")
        production = yacc_mod.Production(number, name, symbols, func=func)
        if func is not None:
            # the rule must be one its grammar function declares (whitespace-insensitive)
            if func not in declared:
                declared[func] = " ".join((getattr(module, func).__doc__ or "").split())
            if name not in declared[func] or " ".join(symbols) not in declared[func]:
                raise ValueError(f"cached rule {production.str!r} not declared by {func}")
            production.callable = getattr(module, func)
        productions.append(production)
    tables = types.SimpleNamespace(lr_productions=productions, lr_action=action, lr_goto=goto)
    # Built through LRParser itself so its derived state (defaulted states) is computed exactly
    # as in a fresh build, before bashlex applies its own table corrections after yacc() returns.
    return yacc_mod.LRParser(tables, module.p_error)


def _all_of(values: Any, kind: type) -> bool:
    """Every one of ``values`` is an instance of ``kind`` (the loop runs in C: the cached
    tables have thousands of entries, checked on every start)."""
    return all(map(kind.__instancecheck__, values))


def _write_tables(parser: Any, path: Path, key: str) -> bool:
    import marshal
    import tempfile
    import zlib

    try:
        data = {
            "key": key,
            "productions": [(p.name, tuple(p.prod), p.func) for p in parser.productions],
            "action": {int(state): dict(row) for state, row in parser.action.items()},
            "goto": {int(state): dict(row) for state, row in parser.goto.items()},
        }
        payload = marshal.dumps(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tables-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(_CACHE_MAGIC + b"%08x" % zlib.crc32(payload) + b"\n" + payload)
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
        except BaseException:
            os.unlink(tmp)
            raise
        return True
    except Exception:  # read-only home, full disk...: caching is only an optimisation
        return False


# --------------------------------------------------------------------------------------------
# Grammar actions (our own; bound to a private copy of bashlex's production table)
# --------------------------------------------------------------------------------------------


def _patched_productions(bl: _Bashlex) -> tuple[Any, ...]:
    tt = bl.tokenizer.tokentype
    node = bl.ast.node
    expandword = bl.parser._expandword  # bashlex's word expansion (quote removal, parts)

    def is_token(p: Any, i: int) -> bool:
        return isinstance(p.slice[i], bl.tokenizer.token)

    def keyword(p: Any, i: int) -> Any:
        return node(kind="reservedword", word=p[i], pos=p.lexspan(i))

    def span(parts: list[Any]) -> tuple[int, int]:
        return parts[0].pos[0], parts[-1].pos[1]

    def collect(p: Any, start: int = 1) -> list[Any]:
        """Symbols start..end as nodes in textual order: WORD tokens as word nodes, other tokens
        as reservedwords, sub-results (nodes or lists of nodes) as they are, empty ones skipped."""
        parts: list[Any] = []
        for i in range(start, len(p)):
            if is_token(p, i):
                if p.slice[i].ttype is tt.WORD:
                    parts.append(expandword(p.context, p.slice[i]))
                else:
                    parts.append(keyword(p, i))
            elif isinstance(p[i], list):
                parts.extend(p[i])
            elif _is_node(p[i]):
                parts.append(p[i])
        return parts

    def compound(kind: str, parts: list[Any]) -> Any:
        inner = node(kind=kind, parts=parts, pos=span(parts))
        return node(kind="compound", list=[inner], redirects=[], pos=inner.pos)

    def unsupported(p: Any, what: str) -> NoReturn:
        source = p.lexer.source
        raise bl.errors.ParsingError(
            f"{what} is not supported", source, min(p.lexpos(1), len(source))
        )

    def loop_action(p: Any) -> None:  # WHILE/UNTIL compound_list DO compound_list DONE
        # bashlex asserts the condition is a 'list' node, which fails when it is a single command
        # followed by a newline (`while cmd<newline>do`); any node is fine.
        parts = collect(p)
        p[0] = compound(parts[0].word, parts)

    def for_like(kind: str) -> Callable[[Any], None]:
        def action(p: Any) -> None:
            parts = collect(p)
            for i, part in enumerate(parts):
                if part.kind == "operator":  # the `;` of the header belongs to the loop syntax
                    parts[i] = node(kind="reservedword", word=part.op, pos=part.pos)
            p[0] = compound(kind, parts)

        return action

    def if_action(p: Any) -> None:  # elif_clause results arrive as flat lists: splice them in
        p[0] = compound("if", collect(p))

    def elif_action(p: Any) -> None:
        p[0] = collect(p)

    def pattern_action(p: Any) -> None:  # pattern : WORD | pattern BAR WORD
        p[0] = collect(p)

    def pattern_list_action(p: Any) -> None:  # newline_list '('? pattern ')' body-or-newlines
        parts = collect(p, 2)
        p[0] = node(kind="pattern", parts=parts, pos=span(parts))

    def clause_sequence_action(p: Any) -> None:  # (sequence)? pattern_list ;;|;&|;;&
        clause = p[len(p) - 2]
        clause.parts.append(keyword(p, len(p) - 1))
        clause.pos = span(clause.parts)
        p[0] = [*p[1], clause] if len(p) == 4 else [clause]

    def case_clause_action(p: Any) -> None:  # last clause, no terminator
        p[0] = [p[1]] if len(p) == 2 else [*p[1], p[2]]

    def case_action(p: Any) -> None:
        p[0] = compound("case", collect(p))

    def timespec_action(p: Any) -> None:  # TIME (TIMEOPT (TIMEIGN)?)?
        p[0] = [keyword(p, i) for i in range(1, len(p))]

    def pipeline_command_action(p: Any) -> None:
        if len(p) == 2:  # pipeline: a single command stays as it is
            items = p[1]
            p[0] = (
                items[0] if len(items) == 1 else node(kind="pipeline", parts=items, pos=span(items))
            )
            return
        prefix = p[1] if isinstance(p[1], list) else [keyword(p, 1)]  # timespec or `!`
        rest = p[2]
        if p.slice[2].type == "list_terminator":
            # `time;` / `!<newline>`: our tokenizer repeats the terminator for the enclosing
            # list, which makes the node for it; this first copy is dropped.
            parts = prefix
        elif rest.kind == "pipeline":
            parts = [*prefix, *rest.parts]
        else:
            parts = [*prefix, rest]
        p[0] = node(kind="pipeline", parts=parts, pos=span(parts))

    def unsupported_action(what: str) -> Callable[[Any], None]:
        def action(p: Any) -> None:
            unsupported(p, what)

        return action

    by_name: dict[str, Callable[[Any], None]] = {
        "for_command": for_like("for"),
        "select_command": for_like("select"),
        "if_command": if_action,
        "elif_clause": elif_action,
        "case_command": case_action,
        "case_clause": case_clause_action,
        "case_clause_sequence": clause_sequence_action,
        "pattern_list": pattern_list_action,
        "pattern": pattern_action,
        "timespec": timespec_action,
        "pipeline_command": pipeline_command_action,
        "coproc": unsupported_action("coproc"),
        "arith_command": unsupported_action("(( )) arithmetic command"),
        "cond_command": unsupported_action("[[ ]] conditional command"),
        "arith_for_command": unsupported_action("for (( ;; )) loop"),
    }
    table = []
    for production in bl.parser.yaccparser.productions:
        action = by_name.get(production.name)
        if production.name == "shell_command" and production.prod[0] in ("WHILE", "UNTIL"):
            action = loop_action
        if action is not None:
            production = copy.copy(production)
            production.callable = action
        table.append(production)
    return tuple(table)


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


def parse_masked(text: str, *, expand: bool = True) -> list[Any]:
    """Parse masked shell text; return bashlex's top-level nodes (one per complete command line).

    Every ``pos`` is an offset into ``text``.  Raises whatever bashlex raises (``ParsingError``
    positions are offsets into ``text`` as well); use :func:`safe_parse` to get an outcome.

    ``expand=False`` leaves words unexpanded: their nodes have no parts, and their ``word`` is
    bashlex's token rather than the expanded string. A scanner's mask has no quotes or
    expansions left to find (words.py reads every word from the text itself), and expanding
    each word for nothing cost about 6 % of a check's CPU."""
    bl = _bashlex()
    nodes: list[Any] = []
    # bashlex's tokenizer copies its input to append a newline unless there is one already:
    # append it once here, not once per top-level command (that made long scripts quadratic).
    padded = text if text.endswith("\n") else text + "\n"
    engine_class = type(bl.parser.yaccparser)
    index = 0
    while _NON_BLANK.search(text, index):
        # The context bashlex's grammar actions expect (`p.context`), built without the
        # tokenizer its constructor would make only for us to replace it.
        context = object.__new__(bl.parser._parser)
        context.s = padded
        context._strictmode = True
        context._expansionlimit = None if expand else -1  # -1: bashlex does not expand
        context.parserstate = bl.tokenizer_class.new_state()
        lexer = bl.tokenizer_class(padded, parserstate=context.parserstate)
        # Start the tokenizer at `index` of the whole text rather than parsing text[index:] as
        # bashlex.parse does: positions (and error positions) stay offsets into `text`.
        lexer._shell_input_line_index = index
        context.tok = lexer
        context.redirstack = lexer.redirstack
        # A fresh engine for each parse: it keeps per-parse state on itself.
        engine = object.__new__(engine_class)
        engine.__dict__.update(bl.engine)
        tree = engine.parse(lexer=lexer, context=context)
        if tree is None:
            raise bl.errors.ParsingError("no command found", text, index)
        nodes.append(tree)
        # The parser stops right after the newline (or end) that terminated this command.
        after = lexer._shell_input_line_index
        if after <= index:
            raise bl.errors.ParsingError("parser made no progress", text, index)
        index = after
    return nodes


class _Timeout(BaseException):
    """Raised by our SIGALRM handler; a BaseException so no `except Exception` swallows it."""


def safe_parse(
    text: str,
    time_limit: float | None = 2.0,
    *,
    parser: Callable[[str], list[Any]] | None = None,
    expand: bool = True,
) -> ParseOutcome:
    """Parse ``text`` with :func:`parse_masked` (or ``parser``) and never raise.

    Every exception becomes an outcome with ``error`` set; a tree that fails :func:`validate` is
    reported the same way; a parse running longer than ``time_limit`` seconds (``None``: no limit)
    is abandoned with ``timed_out=True``.  In the main thread the limit is a SIGALRM timer (the
    previous handler is restored afterwards); outside it, or when the caller has an alarm timer
    of its own running, the parse runs in a daemon thread which is interrupted with an
    asynchronous exception when the time is up.  KeyboardInterrupt and SystemExit propagate."""
    def attempt() -> ParseOutcome:
        try:
            nodes = parser(text) if parser is not None else parse_masked(text, expand=expand)
        except (_Timeout, ParserUnavailable):
            raise
        except Exception as exc:
            return _failure(exc, text)
        problem = _check_tree(nodes, text)
        if problem is not None:
            return ParseOutcome(None, f"invalid tree: {problem[0]}", problem[1])
        return ParseOutcome(nodes)

    if time_limit is None:
        return _guarded(attempt)
    if time_limit <= 0:
        return _timed_out(time_limit)
    if parser is None:
        # Load bashlex before the clock starts: an import cut off by the time limit would leave
        # a half-initialised `bashlex` in sys.modules (and on a loaded machine the first load,
        # tables included, can take longer than a short limit).
        _bashlex()  # ParserUnavailable if it cannot be loaded
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        outcome = _with_alarm(attempt, time_limit, _parse_places(parser))
        if outcome is not None:
            return outcome
    return _with_thread(attempt, time_limit)


def _guarded(attempt: Callable[[], ParseOutcome]) -> ParseOutcome:
    try:
        return attempt()
    except ParserUnavailable:
        raise
    except Exception as exc:  # only _failure/_check_tree themselves failing could get here
        return ParseOutcome(None, f"internal error: {type(exc).__name__}: {exc}")


def _timed_out(limit: float) -> ParseOutcome:
    return ParseOutcome(None, f"parse did not finish within {limit:g} s", None, True)


# After the time limit the alarm fires again at this interval until the parse has stopped: a
# _Timeout raised while a gc callback or a __del__ runs is swallowed ("unraisable"), and the
# bashlex loop it was meant to end goes on allocating (~70 MB/s) until the process is killed.
_REFIRE = 0.05
_REFIRE_TRIES = 100


def _with_alarm(attempt: Callable[[], ParseOutcome], limit: float,
                places: tuple[str, ...] | None = None) -> ParseOutcome | None:
    """Run ``attempt`` under a SIGALRM timer; ``None`` if the alarm is not ours to use.
    ``places``: the directories whose code the timeout may be raised in (None: any)."""
    armed = [False]

    def on_alarm(signum: int, frame: Any) -> None:
        # Only while our timer runs, and only into the parse's own code: raised in a gc
        # callback or an unraisable-exception hook (hypothesis and pytest install both) the
        # exception is swallowed there or breaks that hook; the next alarm comes in _REFIRE s.
        if armed[0] and frame is not None and frame.f_code not in _NOT_HERE and \
                _in_parse(frame, places):
            raise _Timeout

    try:
        # A caller's running timer or C-level handler is left alone (the thread fallback is
        # used instead), so their alarm still fires on time and nothing needs re-arming.
        if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
            return None
        previous = signal.getsignal(signal.SIGALRM)
        if previous is None:
            return None
        signal.signal(signal.SIGALRM, on_alarm)
    except (ValueError, OSError):  # no signals here after all (e.g. a sub-interpreter)
        return None
    box: list[ParseOutcome] = []
    try:
        try:
            try:
                armed[0] = True
                signal.setitimer(signal.ITIMER_REAL, limit, _REFIRE)
                box.append(_guarded(attempt))
            except _Timeout:
                pass
            finally:
                _disarm(armed)
        except _Timeout:
            # A repeated alarm that landed while the first was being handled; none can come
            # after _disarm.
            pass
    finally:
        signal.signal(signal.SIGALRM, previous)
    return box[0] if box else _timed_out(limit)


def _in_parse(frame: Any, places: tuple[str, ...] | None) -> bool:
    """Whether ``frame`` runs the parse's own code (bashlex's, this package's, a given
    parser's), not a hook that happened to be running when the signal arrived."""
    if places is None:
        return True
    name = getattr(getattr(frame, "f_code", None), "co_filename", "")
    return isinstance(name, str) and name.startswith(places)


def _parse_places(parser: Callable[[str], list[Any]] | None) -> tuple[str, ...] | None:
    """The directories of the code a parse runs; None when a given parser's is unknown."""
    places = [os.path.dirname(os.path.abspath(__file__)) + os.sep]
    if parser is not None:
        code = getattr(parser, "__code__", None)
        if code is None:
            return None
        places.append(os.path.dirname(os.path.abspath(code.co_filename)) + os.sep)
    bashlex = sys.modules.get("bashlex.parser")
    where = getattr(bashlex, "__file__", None)
    if where:
        places.append(os.path.dirname(os.path.abspath(where)) + os.sep)
    elif parser is not None:
        return None  # e.g. bashlex.parse not loaded through here yet: raise anywhere
    return tuple(places)


def _disarm(armed: list[bool]) -> None:
    """Stop our timer; a _Timeout from it arriving meanwhile cannot cut this short."""
    while True:
        try:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        except _Timeout:
            continue


# Never raised into these: a timeout landing in _with_alarm's own except or finally clause
# (before it has called _disarm) would skip the disarming and leave the timer re-firing.
_NOT_HERE = frozenset({_with_alarm.__code__, _disarm.__code__})


def _with_thread(attempt: Callable[[], ParseOutcome], limit: float) -> ParseOutcome:
    box: list[ParseOutcome] = []

    def target() -> None:
        try:
            box.append(_guarded(attempt))
        except BaseException as exc:  # nothing may escape into threading.excepthook
            box.append(ParseOutcome(None, f"internal error: {type(exc).__name__}: {exc}"))

    worker = threading.Thread(target=target, name="quotecheck-parse", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive() or not box:
        _interrupt(worker)
        # Again while it runs: the exception may land in a gc callback and be swallowed.
        for _ in range(_REFIRE_TRIES):
            worker.join(_REFIRE)
            if not worker.is_alive():
                break
            _interrupt(worker)
        return _timed_out(limit)
    return box[0]


def _interrupt(worker: threading.Thread) -> None:
    """Ask a runaway parse thread to stop by raising _Timeout in it asynchronously.

    bashlex's endless loops are pure Python, so CPython delivers the exception at the thread's
    next bytecode and the thread ends instead of spinning for the rest of the process.  Without
    ``ctypes.pythonapi`` (not CPython) the thread is left running."""
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
        if worker.ident is not None:
            set_async_exc(ctypes.c_ulong(worker.ident), ctypes.py_object(_Timeout))
    except Exception:
        pass


def _failure(exc: BaseException, text: str) -> ParseOutcome:
    message = getattr(exc, "message", None)
    if not isinstance(message, str) or not message:
        message = str(exc) or "(no message)"
    if isinstance(exc, RecursionError):
        message = "input nested too deeply for bashlex"
    return ParseOutcome(None, f"{type(exc).__name__}: {message}", _error_offset(exc, text))


def _error_offset(exc: BaseException, text: str) -> int | None:
    """Map a bashlex ``ParsingError`` position to an offset into ``text``.

    ``position`` is relative to the string in ``exc.s``: our own parse loop hands bashlex the
    whole text (sometimes with the newline bashlex appends), but errors raised while expanding a
    word carry only that word; map those when the string occurs exactly once, else give up."""
    position = getattr(exc, "position", None)
    source = getattr(exc, "s", None)
    if not isinstance(position, int) or not isinstance(source, str):
        return None
    if source in (text, text + "\n"):
        return min(max(position, 0), len(text))
    if source and text.count(source) == 1:
        return min(text.index(source) + max(position, 0), len(text))
    return None
