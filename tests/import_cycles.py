"""Import cycles among our own modules, found by reading their source (no import runs).

Every import statement is an edge, wherever it stands: at the top of a module, inside a
function (a "lazy" import), inside ``if TYPE_CHECKING:``, or an
``importlib.import_module("a.literal.name")`` call. A lazy import only delays a cycle to
the first call, and a type-only one still makes the two modules know each other (and
becomes a real import as soon as something resolves the annotations, as pydantic does),
so neither is a way out of a cycle; see ``tests/test_import_cycles.py``.

What an import statement depends on:

- ``import a.b.c`` -> ``a.b.c`` (the module it names; the packages above it are run
  first by Python itself and are not read by this module unless it names them);
- ``from a.b import name`` -> ``a.b`` (its ``__init__`` runs and may re-export ``name``)
  and also ``a.b.name`` when that is a module of its own;
- relative imports (``from . import x``, ``from ..y import z``) the same, once resolved
  against the importing module's package.

An import of a name that resolves to none of the scanned modules (the standard library,
a third-party package) is no edge. Names only known at run time
(``importlib.import_module(variable)``: the game registry's plug-ins) cannot be read
from the source and are not edges.

Run ``python -m tests.import_cycles`` to print every cycle as a chain of modules.
"""

from __future__ import annotations

import ast
import itertools
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "ROOTS",
    "Edge",
    "ImportGraph",
    "cycles",
    "format_cycle",
    "module_files",
    "read_graph",
]

# The packages of ours that import each other; tests/ is not one (it imports them all).
ROOTS: tuple[str, ...] = ("bot", "engines", "renderers", "data")

Where = Literal["module", "function", "type-checking", "dynamic"]


@dataclass(frozen=True)
class Edge:
    """One import: ``source`` depends on ``target``, at ``line`` of ``path``."""

    source: str
    target: str
    path: Path
    line: int
    where: Where

    def describe(self, base: Path | None = None) -> str:
        path = self.path.relative_to(base) if base is not None else self.path
        place = {
            "module": "",
            "function": ", inside a function",
            "type-checking": ", under TYPE_CHECKING",
            "dynamic": ", importlib",
        }[self.where]
        return f"{path}:{self.line}{place}"


@dataclass(frozen=True)
class ImportGraph:
    modules: dict[str, Path]
    edges: tuple[Edge, ...]

    def targets(self, source: str) -> set[str]:
        return {e.target for e in self.edges if e.source == source}

    def edge(self, source: str, target: str) -> Edge:
        """The first import of ``target`` in ``source`` (by line)."""
        found = [e for e in self.edges if e.source == source and e.target == target]
        if not found:
            raise KeyError(f"{source} does not import {target}")
        return min(found, key=lambda e: e.line)


def module_files(base: Path, roots: Iterable[str] = ROOTS) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the packages ``roots``
    (a package is its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for root in roots:
        for path in sorted((base / root).rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(tree: ast.AST) -> Iterator[tuple[ast.AST, Where]]:
    """Every import node of ``tree`` with where it stands; the innermost of a function
    and an ``if TYPE_CHECKING:`` around it names it."""
    stack: list[tuple[ast.AST, Where]] = [(tree, "module")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, where
            continue
        if isinstance(node, ast.Call) and _literal_import(node) is not None:
            yield node, "dynamic"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner: Where = "function"
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((child, "type-checking") for child in node.body)
            stack.extend((child, where) for child in node.orelse)
        else:
            stack.extend((child, where) for child in ast.iter_child_nodes(node))


def _literal_import(call: ast.Call) -> str | None:
    """The module an ``importlib.import_module("x")`` or ``__import__("x")`` call names."""
    func = call.func
    named = (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id in {"import_module", "__import__"}
    )
    if not named or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve_from(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = _package_of(module, path).split(".")
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def _targets(module: str, path: Path, node: ast.AST, known: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in known]
    if isinstance(node, ast.ImportFrom):
        base = _resolve_from(module, path, node)
        found = [base] if base in known else []
        found += [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
        return found
    if isinstance(node, ast.Call):
        name = _literal_import(node)
        return [name] if name in known else []
    return []


def read_graph(base: Path, roots: Iterable[str] = ROOTS) -> ImportGraph:
    """The import graph of the packages ``roots`` under ``base``."""
    modules = module_files(base, roots)
    edges: list[Edge] = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, where in _imports(tree):
            for target in _targets(module, path, node, modules):
                if target != module:  # ``from . import x`` in a package's own __init__
                    line = getattr(node, "lineno", 0)
                    edges.append(Edge(module, target, path, line, where))
    edges.sort(key=lambda e: (e.source, e.line, e.target))
    return ImportGraph(modules, tuple(edges))


def _components(graph: ImportGraph) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    successors = {m: sorted(graph.targets(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(successors[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _shortest_path(graph: ImportGraph, start: str, goal: str, within: set[str]) -> list[str]:
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            break
        for child in sorted(graph.targets(node) & within):
            if child not in previous:
                previous[child] = node
                queue.append(child)
    path = [goal]
    while (step := previous[path[-1]]) is not None:
        path.append(step)
    return path[::-1]


def cycles(graph: ImportGraph) -> list[list[str]]:
    """Cycles that together use every import inside every cycle of the graph: for each
    such import ``a -> b``, the shortest way back from ``b`` to ``a``. Each cycle starts
    and ends at its alphabetically first module."""
    found: set[tuple[str, ...]] = set()
    for component in _components(graph):
        for source in sorted(component):
            for target in sorted(graph.targets(source) & component):
                loop = [source, *_shortest_path(graph, target, source, component)[:-1]]
                first = loop.index(min(loop))
                rotated = loop[first:] + loop[:first]
                found.add((*rotated, rotated[0]))
    return [list(c) for c in sorted(found, key=lambda c: (len(c), c))]


def format_cycle(graph: ImportGraph, cycle: Sequence[str], base: Path | None = None) -> str:
    """``a -> b -> a``, each arrow with the line of the import it stands for."""
    parts = [cycle[0]]
    for source, target in itertools.pairwise(cycle):
        parts.append(f"  -> {target}   ({graph.edge(source, target).describe(base)})")
    return "\n".join(parts)


def main(argv: Sequence[str] = ()) -> int:
    base = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    graph = read_graph(base)
    found = cycles(graph)
    for cycle in found:
        print(format_cycle(graph, cycle, base), end="\n\n")
    lazy = sum(e.where != "module" for e in graph.edges)
    print(
        f"{len(graph.modules)} modules, {len(graph.edges)} imports "
        f"({lazy} inside functions, under TYPE_CHECKING or by literal name): "
        f"{len(found)} cycles"
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
