"""Fail when brson's modules import each other in a circle at module level.

The rule: an edge ``a -> b`` is an import statement in module ``a`` that runs when ``a`` is
imported (at the top level, or inside a top-level ``if``/``try``/``with`` or class body) and
names brson module ``b``: ``import brson.x.y`` and ``from brson.x import y`` (``y`` a module)
give ``brson.x.y``, ``from brson.x import name`` gives ``brson.x``.  Not edges: imports inside
a function (they run when it is called, after every module involved has loaded) and imports
under ``if TYPE_CHECKING:`` (they never run).  A package's ``__init__`` that its own submodule
reaches only as the parent of what it imports is not an edge either (Python runs it first, so
no circle can form through it).  Any strongly connected group of two or more modules, or a
module importing itself, is reported, and the exit code is 1.

The layers contract (import-linter, pyproject.toml) sees every import, wherever it is; this
check adds what it cannot say: no circle even inside one layer.

Usage: ``python scripts/check_import_cycles.py [PACKAGE_DIR]`` (default ``brson``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name: its Python modules, and its
    compiled ones by their stubs (``.pyi``; they import nothing of brson)."""
    names: dict[str, Path] = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        if path.suffix == ".pyi" and path.with_suffix(".py").exists():
            continue
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_at_import(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``body`` that run when the module is imported."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _run_at_import(node.body)
            yield from _run_at_import(node.orelse)
        elif isinstance(node, ast.Try | ast.TryStar):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _run_at_import(block)
            for handler in node.handlers:
                yield from _run_at_import(handler.body)
        elif isinstance(node, ast.With | ast.ClassDef):
            yield from _run_at_import(node.body)


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def edges(names: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's module-level imports of other modules in ``names``."""
    graph: dict[str, set[str]] = {name: set() for name in names}
    for module, path in names.items():
        if path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in _run_at_import(tree.body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(module, is_package, node)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in names else base
                    for alias in node.names
                ]
            graph[module].update(t for t in targets if t in names)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups that form a circle (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph[node]:
                    found.append(sorted(group))
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "brson").resolve()
    names = module_names(root)
    graph = edges(names)
    found = cycles(graph)
    for group in found:
        members = set(group)
        links = [f"{a} -> {b}" for a in group for b in sorted(graph[a] & members)]
        print(f"import cycle among {len(group)} modules: {'; '.join(links)}", file=sys.stderr)
    if found:
        return 1
    print(f"no module-level import cycle among {len(names)} modules of {root.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
