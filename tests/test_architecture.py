"""The house's shape, checked: one-way imports, no hidden cycles, small modules.

Why a test and not a review habit: the first floor was built in parallel and its joints
drifted (rounds/ modules importing each other from inside functions, a renderer importing
the rounds layer). These checks read the source with :mod:`ast` (nothing is imported or
run), so a cycle introduced anywhere in ``pbp/`` or ``workers/`` fails here, naming the
modules and lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pbp", "workers")
MAX_MODULE_LINES = 400
#: modules allowed past MAX_MODULE_LINES, each with the reason
LONG_MODULES = {
    # an Alembic migration is a frozen record of the schema as it was: splitting it
    # would rewrite history that databases in the field have already applied
    "pbp.store.migrations.versions.0001_initial_schema": "frozen migration",
}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    top_level: bool


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project's packages."""
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, Path]) -> list[str]:
    """The project modules an import statement loads (its module, and submodules named in it)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        names = [mod] + [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in modules]
    return [n for n in names if n in modules]


def imports(modules: dict[str, Path]) -> Iterator[Import]:
    """Every import of a project module, marked top-level (module body, or an if/try there)."""
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        top: set[int] = set()
        for stmt in tree.body:
            block = [stmt]
            if isinstance(stmt, ast.If | ast.Try):
                block += [*stmt.body, *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]
                for handler in getattr(stmt, "handlers", []):
                    block += handler.body
            top.update(id(s) for s in block)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _targets(node, package, modules):
                    if target != name:
                        yield Import(name, target, node.lineno, id(node) in top)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _is_package_reexport(imp: Import) -> bool:
    """A package's ``__init__`` importing its own submodule to re-export it is not an arrow
    back up: the submodule never needs the package body."""
    return imp.imported.startswith(imp.importer + ".")


@pytest.fixture(scope="module")
def graph() -> list[Import]:
    return list(imports(module_files()))


def test_cycles_are_found_when_there_are_some() -> None:
    """The checker itself can fail: a -> b -> c -> a is reported, a -> b alone is not."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_anywhere(graph: list[Import]) -> None:
    """No module-level (or hidden, function-level) import cycle in pbp/ or workers/."""
    edges: dict[str, set[str]] = {}
    for imp in graph:
        if not _is_package_reexport(imp):
            edges.setdefault(imp.importer, set()).add(imp.imported)
    assert cycles(edges) == []


def test_no_project_import_inside_a_function(graph: list[Import]) -> None:
    """An import inside a function hides an arrow from readers and from the cycle check."""
    hidden = sorted(f"{i.importer}:{i.line} imports {i.imported}" for i in graph if not i.top_level)
    assert hidden == []


def test_modules_stay_small() -> None:
    """No module over 400 lines but the named exceptions, each with its reason."""
    too_long = {name: n for name, path in module_files().items()
                if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
                and name not in LONG_MODULES}
    assert too_long == {}


def test_rounds_flow_one_way(graph: list[Import]) -> None:
    """Lower layers never import higher ones: the engine and the parser know nothing of the
    store, rounds, panel, sources or workers; render knows nothing of rounds, the panel or
    workers; the store knows nothing of rounds, the panel or workers."""
    above = {
        "pbp.rules": ("pbp.store", "pbp.rounds", "pbp.panel", "pbp.sources", "pbp.parse",
                      "pbp.render", "pbp.cli", "workers"),
        "pbp.dice": ("pbp.rules", "pbp.store", "pbp.rounds", "pbp.panel", "pbp.sources",
                     "pbp.parse", "pbp.render", "pbp.cli", "workers"),
        "pbp.parse": ("pbp.store", "pbp.rounds", "pbp.panel", "pbp.sources", "pbp.render",
                      "pbp.cli", "workers"),
        "pbp.render": ("pbp.store", "pbp.rounds", "pbp.panel", "pbp.sources", "pbp.cli", "workers"),
        "pbp.store": ("pbp.rounds", "pbp.panel", "pbp.sources", "pbp.cli", "workers"),
        "pbp.rounds": ("pbp.panel", "pbp.cli", "workers"),
        "pbp.sources": ("pbp.rounds", "pbp.panel", "pbp.cli", "workers"),
    }

    def inside(module: str, package: str) -> bool:
        return module == package or module.startswith(package + ".")

    wrong = sorted(
        f"{i.importer}:{i.line} imports {i.imported}"
        for i in graph for layer, forbidden in above.items()
        if inside(i.importer, layer) and any(inside(i.imported, f) for f in forbidden)
    )
    assert wrong == []
