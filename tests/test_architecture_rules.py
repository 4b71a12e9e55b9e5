"""The rules package is pure (issue 10, item 4; DESIGN.md "the engine never touches the
store"): no module of ``pbp.rules``, nor anything it imports from the project, reads a
file, opens a socket or reaches into the store, rounds, panel, sources, workers or parser.

Why by walking the source (the AST) rather than importing: an import inside a function
counts too, and nothing has to run for the test to see it. The walk covers every module
``pbp.rules`` reaches inside ``pbp`` (``pbp.dice``, ``pbp.errors``), because an I/O import
one step away is still I/O in the engine.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: imports that do I/O, or belong to a layer above the rules
FORBIDDEN_MODULES = (
    "os", "io", "pathlib", "shutil", "tempfile", "glob", "socket", "ssl", "http", "urllib",
    "subprocess", "sqlite3", "tomllib", "yaml", "json", "pickle", "shelve", "logging",
    "time", "datetime", "requests", "sqlalchemy", "celery", "flask", "redis", "praw", "bs4",
    "pbp.store", "pbp.rounds", "pbp.panel", "pbp.sources", "pbp.workers", "workers",
    "pbp.parse", "pbp.render", "pbp.cli", "pbp.settings", "pbp.scenario_files",
    "pbp.houserule_files",
)
#: calls that read or write files whatever the import
FORBIDDEN_CALLS = ("open", "read_text", "read_bytes", "write_text", "write_bytes")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import anywhere in *tree*."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:  # ``from . import conditions`` imports a module
                yield node.lineno, f"{target}.{alias.name}"


def offences(source: str, module: str, is_package: bool = False) -> list[str]:
    """What in *source* breaks the purity rule, one line per offence."""
    tree = ast.parse(source)
    out = []
    for line, name in _imports(tree, module, is_package):
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_MODULES):
            out.append(f"{module}:{line} imports {name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            called = fn.id if isinstance(fn, ast.Name) else \
                fn.attr if isinstance(fn, ast.Attribute) else None
            if called in FORBIDDEN_CALLS:
                out.append(f"{module}:{node.lineno} calls {called}()")
    return out


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in (ROOT / "pbp").rglob("*.py")}


def reached_from_rules() -> list[str]:
    """``pbp.rules`` and every project module it imports, directly or not."""
    sources = _sources()
    todo = [m for m in sources if m == "pbp.rules" or m.startswith("pbp.rules.")]
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = sources[module]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _line, name in _imports(tree, module, path.name == "__init__.py"):
            if name in sources and name not in seen:
                todo.append(name)
    return sorted(seen)


def test_the_walk_covers_the_rules_package_and_what_it_uses() -> None:
    reached = reached_from_rules()
    assert {"pbp.rules.engine", "pbp.rules.scenario", "pbp.rules.houserules",
            "pbp.dice", "pbp.errors"} <= set(reached)


@pytest.mark.parametrize("module", reached_from_rules())
def test_rules_modules_do_no_io_and_import_no_upper_layer(module: str) -> None:
    path = _sources()[module]
    assert offences(path.read_text(encoding="utf-8"), module, path.name == "__init__.py") == []


@pytest.mark.parametrize(("source", "found"), [
    ("import yaml\n", "imports yaml"),
    ("from pathlib import Path\n", "imports pathlib"),
    ("def f():\n    import os\n", "imports os"),                      # inside a function too
    ("from ..store import models\n", "imports pbp.store"),             # relative, two up
    ("from ..rounds.policy import x\n", "imports pbp.rounds.policy"),
    ("from .. import sources\n", "imports pbp.sources"),
    ("def f(p):\n    return open(p).read()\n", "calls open()"),
    ("def f(p):\n    return p.read_text()\n", "calls read_text()"),
])
def test_the_check_catches_what_it_forbids(source: str, found: str) -> None:
    """The test can fail: each forbidden thing, put in a rules module, is reported."""
    got = offences(source, "pbp.rules.example")
    assert any(found in o for o in got), got


def test_the_check_lets_pure_imports_pass() -> None:
    source = ("from ..dice import DiceBox\nfrom ..errors import PbpError\n"
              "from . import conditions as C\nimport dataclasses\n")
    assert offences(source, "pbp.rules.example") == []


def _edges(modules: list[str]) -> dict[str, set[str]]:
    """Module -> the project modules it imports at its top level (``TYPE_CHECKING`` too)."""
    sources = _sources()
    out: dict[str, set[str]] = {}
    for module in modules:
        path = sources[module]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out[module] = {name for _line, name in _imports(tree, module, path.name == "__init__.py")
                       if name in sources and name != module}
    return out


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among *edges*, or None (depth-first search)."""
    state: dict[str, int] = {}   # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_cycle_in_the_rules_and_what_they_use() -> None:
    assert _cycle(_edges(reached_from_rules())) is None


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def inner_imports(source: str) -> list[int]:
    """Lines of imports that are not at a module's top (inside a function or class)."""
    tree = ast.parse(source)
    top = {id(n) for n in tree.body}
    top |= {id(n) for stmt in tree.body if isinstance(stmt, (ast.If, ast.Try))
            for n in ast.walk(stmt)}
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in top]


@pytest.mark.parametrize("module", reached_from_rules())
def test_rules_modules_import_at_their_top(module: str) -> None:
    """No import hidden inside a function (the way a cycle used to be dodged)."""
    assert inner_imports(_sources()[module].read_text(encoding="utf-8")) == []


def test_the_inner_import_check_sees_one() -> None:
    assert inner_imports("import re\n\ndef f():\n    from .x import y\n") == [4]
