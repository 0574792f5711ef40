"""The house of rooms (docs/architecture.md): imports point down, and no module imports itself round a loop.

Every import of every module counts, those inside functions too: a lazy import still makes
the module depend on the other one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# physics <- rules <- agents <- envs <- training <- evaluation, play <- cli
RANKS = {
    "physics": 0,
    "rules": 1,
    "agents": 2,
    "envs": 3,
    "training": 4,
    "evaluation": 5,
    "play": 5,
    "cli": 6,
}


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (`piramida.rules.game`)."""
    out = {}
    for room in RANKS:
        for path in sorted((ROOT / room).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(("piramida", *parts))] = path
    return out


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The package's modules that `path` imports (a package's `__init__` for `from piramida.x import y`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import (the package imports absolutely)"
            base = node.module or ""
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        else:
            continue
        found |= {t for t in targets if t in known and t != name}
    return found


GRAPH = {name: imports(path, name, set(modules())) for name, path in modules().items()}


def room(module: str) -> str:
    return module.split(".")[1]


def test_every_import_points_down_the_house() -> None:
    upward = [
        f"{a} imports {b}"
        for a, targets in GRAPH.items()
        for b in targets
        if room(a) != room(b) and RANKS[room(b)] >= RANKS[room(a)]
    ]
    assert not upward, "\n".join(upward)


def test_no_module_imports_itself_round_a_loop() -> None:
    """Tarjan's strongly connected components: any of more than one module is a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in GRAPH[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    assert not loops, "\n".join(" <-> ".join(loop) for loop in loops)


@pytest.mark.parametrize(
    "module", ["piramida.physics.engine.loop", "piramida.rules.game", "piramida.cli.main"]
)
def test_the_graph_reads_the_package(module: str) -> None:
    assert GRAPH[module]  # each of these imports other modules of the package
