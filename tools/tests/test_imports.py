"""The package's layering: no module of tools/ imports, directly or through
others, a module that imports it back (imports inside functions count), and
every module imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tools import ROOT

PACKAGE = ROOT / "tools"


def _module(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, set[str]]:
    """{module: the tools modules it imports}, from the source (every import
    statement, at any depth)."""
    paths = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # `from tools.vm import checks` names a module; `from tools.vm.prom
                # import one` names one of its functions
                targets = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
            else:
                continue
            deps |= {t for t in targets if t in paths and t != name}
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    # Packages (__init__) are left out: importing tools.vm.x imports tools.vm
    # first, which is no cycle of the code's making.
    packages = {_module(p) for p in PACKAGE.rglob("__init__.py")}
    graph = {m: deps - packages for m, deps in modules().items()}
    assert cycles(graph) == [], "modules that import each other"


def test_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(modules()))
def test_imports_alone(name):
    """Each module imports first, in a fresh interpreter, as its entry point
    would: a cycle shows as a half-initialised module there."""
    run = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr.strip().splitlines()[-1:]
