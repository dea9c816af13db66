"""The benchmark modules form no import cycle: the scripts share `benchmarks/common.py`, which
imports no other benchmark module (they once imported each other in a circle: run.py imported
p1_cli.py, which imported run.py)."""

from __future__ import annotations

import ast
import pathlib

BENCHMARKS = pathlib.Path(__file__).resolve().parents[3] / "benchmarks"


def import_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """module -> the other modules of `sources` it imports (anywhere in its text; the scripts
    import each other by bare name, with benchmarks/ on sys.path)."""
    graph: dict[str, set[str]] = {}
    for name, source in sources.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
        graph[name] = (found & set(sources)) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (`[a, b, a]`) or None (depth-first search)."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def _benchmarks() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(BENCHMARKS.glob("*.py"))}


def test_the_benchmark_modules_import_no_cycle():
    graph = import_graph(_benchmarks())
    assert {"run", "p1_cli", "p2_tcgen05", "tcgen05_numerics", "common"} <= set(graph)
    assert "common" in graph["run"] and "common" in graph["p1_cli"]  # the graph is not empty
    assert find_cycle(graph) is None, f"benchmark import cycle: {' -> '.join(find_cycle(graph))}"


def test_the_shared_helpers_import_no_benchmark_module():
    assert import_graph(_benchmarks())["common"] == set()


def test_a_cycle_is_found():
    sources = {"run": "from common import Row\ndef f():\n    from p1_cli import load\n",
               "p1_cli": "import sys\nfrom run import Row\n", "common": "import numpy\n"}
    graph = import_graph(sources)
    assert graph == {"run": {"common", "p1_cli"}, "p1_cli": {"run"}, "common": set()}
    assert find_cycle(graph) == ["p1_cli", "run", "p1_cli"]
    del sources["p1_cli"]
    assert find_cycle(import_graph(sources)) is None
