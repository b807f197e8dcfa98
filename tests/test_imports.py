"""The package's import graph: no circle, and no import running back up the layers.

Every module of the quotecheck package is read with `ast` (nothing is imported) and every
`import` / `from ... import` naming a quotecheck module counts, wherever it stands: at module
level, inside a function, under `if TYPE_CHECKING:`. An import inside a function still ties the
two modules together; it only hides the tie until the function runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Set
from pathlib import Path

import quotecheck

PACKAGE = Path(quotecheck.__file__).resolve().parent

# Lowest first. A module may import its own layer and the layers below it, never one above.
# Each entry is a module or subpackage directly under quotecheck/ ("quotecheck" is the package's
# own __init__). sourcemap sits at the bottom with the other modules that import nothing of
# quotecheck: the parser's words and tree build source maps, so it is below parsing.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("quotecheck", "summaries", "diagnostics", "positions", "sourcemap", "programs", "limits",
     "globs", "records", "lazy_regex"),
    ("parsing",),
    # Host files' readers (Python, make): what a file launches, in the file's own offsets.
    ("hosts",),
    ("values",),
    ("layers",),
    ("trace", "quoting"),
    ("rules",),
    ("checker", "directives", "watchdog", "fixer", "fixed_bytes", "analysis"),
    ("output",),
    # What the commands use to find, read and spread inputs; none of it reads the settings.
    ("inputs", "files", "walk", "gitignore", "parallel", "safe_write"),
    ("config",),
    ("commands", "lsp"),
    ("cli", "cli_app", "cli_options", "__main__"),
)

# Modules of one layer that must not import one another: what two commands share lives below
# both of them.
PEERS: tuple[frozenset[str], ...] = (
    frozenset({"quotecheck.commands.check", "quotecheck.commands.fix", "quotecheck.commands.lsp",
               "quotecheck.commands.explain", "quotecheck.commands.quote",
               "quotecheck.commands.rules", "quotecheck.commands.version"}),
)

# Circles and upward or sideways imports accepted for now (none). The tests below fail both on
# anything not listed here and on an entry that no longer exists, so nothing can hide in them.
PENDING_CIRCLES: frozenset[frozenset[str]] = frozenset()
PENDING_EDGES: frozenset[tuple[str, str]] = frozenset()

BASHLEX_ADAPTER = "quotecheck.parsing.bashlex_adapter"

Graph = Mapping[str, Set[str]]


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(name: str, modules: Mapping[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _resolve(node: ast.ImportFrom, importer: str, modules: Mapping[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    package = importer if _is_package(importer, modules) else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imported_names(tree: ast.AST, importer: str, modules: Mapping[str, Path]) -> Iterator[str]:
    """Every module name the code imports (of any package), resolved against `modules`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, importer, modules)
            for alias in node.names:
                # `from pkg import name`: a submodule when pkg has one of that name.
                submodule = f"{base}.{alias.name}"
                yield submodule if submodule in modules else base


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the quotecheck modules it imports (itself excluded)."""
    modules = module_files(package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[name] = {
            target for target in imported_names(tree, name, modules)
            if target in modules and target != name
        }
    return graph


def circles(graph: Graph) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str, layers: Iterable[Iterable[str]] = LAYERS) -> int | None:
    top = "quotecheck" if module == "quotecheck" else module.split(".")[1]
    for level, names in enumerate(layers):
        if top in names:
            return level
    return None


def bad_edges(
    graph: Graph,
    layers: Iterable[Iterable[str]] = LAYERS,
    peers: Iterable[Set[str]] = PEERS,
) -> set[tuple[str, str]]:
    """Imports of a higher layer, and imports between peers."""
    table = [tuple(names) for names in layers]
    groups = list(peers)

    def allowed(importer: str, target: str) -> bool:
        low, high = layer_of(importer, table), layer_of(target, table)
        if low is None or high is None or high > low:
            return False
        return not any(importer in group and target in group for group in groups)

    return {
        (importer, target)
        for importer, targets in graph.items() for target in targets
        if not allowed(importer, target)
    }


def _show(item: Iterable[str]) -> str:
    if isinstance(item, tuple):
        return " -> ".join(item)
    return "circle: " + " <-> ".join(sorted(item))


def _explain(found: Set[Iterable[str]], pending: Set[Iterable[str]]) -> str:
    new = sorted(_show(item) for item in found - pending)
    gone = sorted(_show(item) for item in pending - found)
    return f"not allowed: {new}; listed in PENDING but gone (remove them): {gone}"


# -- the package ---------------------------------------------------------------------------------


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(m for m in import_graph() if layer_of(m) is None)
    assert not unplaced, f"add these to LAYERS: {unplaced}"


def test_no_import_circle() -> None:
    found = circles(import_graph())
    assert found == PENDING_CIRCLES, _explain(found, PENDING_CIRCLES)


def test_no_import_runs_up_the_layers() -> None:
    found = bad_edges(import_graph())
    assert found == PENDING_EDGES, _explain(found, PENDING_EDGES)


def test_hand_off_kinds_are_below_every_program_parser() -> None:
    # Only the dispatcher imports all the programs' parsers; they and the kinds never import it.
    graph = import_graph()
    programs = {f"quotecheck.layers.{name}" for name in ("ssh", "wrappers", "shells", "joins",
                                                        "awk")}
    assert programs <= graph["quotecheck.layers.dispatch"]
    assert not graph["quotecheck.layers.handoff_types"] & (programs |
                                                          {"quotecheck.layers.dispatch"})
    for program in programs:
        assert "quotecheck.layers.dispatch" not in graph[program], program


def test_only_the_adapter_imports_bashlex() -> None:
    modules = module_files()
    users = set()
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        named = set(imported_names(tree, name, modules))
        loaded = {
            node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
        }
        if any(n == "bashlex" or n.startswith("bashlex.") for n in named | loaded):
            users.add(name)
    assert users == {BASHLEX_ADAPTER}


# -- the checks themselves -----------------------------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / "quotecheck" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "quotecheck"


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "__init__.py": "",
        "layers/__init__.py": "",
        "layers/kinds.py": "def f():\n    from quotecheck.layers import parser\n",
        "layers/parser.py": "from quotecheck.layers.kinds import f\n",
        "layers/alone.py": "from . import kinds\n",
    })
    graph = import_graph(package)
    assert graph["quotecheck.layers.kinds"] == {"quotecheck.layers.parser"}
    assert graph["quotecheck.layers.alone"] == {"quotecheck.layers.kinds"}
    assert circles(graph) == {frozenset({"quotecheck.layers.kinds", "quotecheck.layers.parser"})}


def test_an_upward_or_peer_import_is_found(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "__init__.py": "",
        "parsing/__init__.py": "",
        "parsing/words.py": "import typing\nif typing.TYPE_CHECKING:\n"
                            "    from quotecheck.trace import Trace\n",
        "trace.py": "from quotecheck.parsing.words import segment\n",
        "output.py": "from quotecheck.trace import Trace\n",
        "commands/__init__.py": "",
        "commands/check.py": "from quotecheck import trace\n",
        "commands/fix.py": "from quotecheck.commands.check import run\n",
    })
    graph = import_graph(package)
    assert circles(graph) == {frozenset({"quotecheck.parsing.words", "quotecheck.trace"})}
    assert bad_edges(graph) == {
        ("quotecheck.parsing.words", "quotecheck.trace"),
        ("quotecheck.commands.fix", "quotecheck.commands.check"),
    }
