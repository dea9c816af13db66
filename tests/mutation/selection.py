"""Which tests run for a mutant, and which modules a mutant makes stale (docs/mutation.md).

Test selection: the harness runs an area's whole test subset once under coverage.py, switching
the coverage *context* to each test's node id (and to `lit:FILE` for each in-process lit file),
so every source line maps to the tests that execute it. A mutant then runs only the tests that
execute one of its lines: a mutant no test executes cannot be killed by the subset (it survives
without a run); every other mutant pays for the few tests that reach it instead of the subset.

Warm children: the harness's parent imports all of mmair once; the child forked for a mutant
drops from `sys.modules` only the mutated module and the modules that import it (directly or
through others, `dependents`), and loads the mutated module from the worker's copy.
"""

from __future__ import annotations

import ast
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "mmair"
LIT_PREFIX = "lit:"
# Lines run while pytest collects (parametrize lists built by calling mmair): no single test owns
# them, so a mutant there runs the whole subset.
COLLECT = "collect"


def module_name(path: str) -> str | None:
    """`executor/ascend/kernels.py` -> `mmair.executor.ascend.kernels` (None for a non-module path)."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if any(not p.isidentifier() for p in parts):
        return None
    return ".".join([PACKAGE, *parts])


def imports_of(name: str, text: str, is_package: bool, modules: set[str]) -> set[str]:
    """The mmair modules a module imports anywhere in its text (function-level imports too:
    they are resolved through `sys.modules` when they run, so a stale entry would be reused)."""
    out: set[str] = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    # `import mmair.a.b` also imports mmair.a: keep only real mmair modules.
    closed: set[str] = set()
    for imported in out:
        parts = imported.split(".")
        closed.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return {m for m in closed if m in modules and m != name}


def dependents(files: dict[str, str]) -> dict[str, set[str]]:
    """module -> every module that imports it, directly or transitively (files: path -> text)."""
    names = {p: module_name(p) for p in files}
    modules = {n for n in names.values() if n}
    importers: dict[str, set[str]] = defaultdict(set)
    for path, text in files.items():
        name = names[path]
        if not name:
            continue
        try:
            deps = imports_of(name, text, path.endswith("__init__.py"), modules)
        except SyntaxError:
            continue
        for dep in deps:
            importers[dep].add(name)
    out: dict[str, set[str]] = {}
    for module in modules:
        seen: set[str] = set()
        todo = [module]
        while todo:
            for importer in importers.get(todo.pop(), ()):
                if importer not in seen:
                    seen.add(importer)
                    todo.append(importer)
        out[module] = seen
    return out


def statement_lines(tree: ast.Module, text: bytes, start: int, end: int) -> range:
    """The lines of a mutant's span, from the first line of the innermost statement around it
    (coverage records a multi-line statement at its first line)."""
    first = text[:start].count(b"\n") + 1
    last = text[:end].count(b"\n") + 1
    innermost = max((node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)
                     and node.lineno <= first <= (node.end_lineno or 0)), default=first)
    return range(innermost, last + 1)


@dataclass
class CoverageMap:
    """Per source file and line, the contexts (pytest node ids, `lit:FILE`) that execute it."""

    lines: dict[str, dict[int, set[str]]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # per context
    # pytest node id -> the other node ids of its file that share a module/session fixture
    # (a value made once by the first test and checked by the others)
    shared: dict[str, list[str]] = field(default_factory=dict)

    def contexts(self, path: str, lines: Iterable[int]) -> set[str]:
        by_line = self.lines.get(path, {})
        out: set[str] = set()
        for line in lines:
            out |= by_line.get(line, set())
        for ctx in list(out):
            out.update(self.shared.get(ctx, ()))
        return out

    def to_json(self) -> str:
        return json.dumps({
            "lines": {p: {str(n): sorted(c) for n, c in by.items()} for p, by in self.lines.items()},
            "seconds": self.seconds, "shared": self.shared})

    @classmethod
    def from_json(cls, text: str) -> CoverageMap:
        data = json.loads(text)
        return cls({p: {int(n): set(c) for n, c in by.items()} for p, by in data["lines"].items()},
                   data["seconds"], data["shared"])


@dataclass
class Selection:
    pytest: list[str]  # node ids, fastest first
    lit: list[str]  # lit files (repository-relative)
    seconds: float  # what they took in the coverage run
    whole: bool = False  # the whole subset (a line run at collection time)


def select(cov: CoverageMap, path: str, lines: Iterable[int], subset_pytest: list[str],
           subset_lit: list[str]) -> Selection:
    """The tests of an area's subset that execute one of `lines` of `path`."""
    contexts = cov.contexts(path, lines)
    if COLLECT in contexts:
        return Selection(list(subset_pytest), list(subset_lit),
                         sum(cov.seconds.values()), whole=True)
    lit = sorted(c[len(LIT_PREFIX):] for c in contexts if c.startswith(LIT_PREFIX))
    ids = sorted((c for c in contexts if not c.startswith(LIT_PREFIX) and "::" in c),
                 key=lambda c: (cov.seconds.get(c, 0.0), c))
    return Selection(ids, lit, sum(cov.seconds.get(c, 0.0) for c in contexts))


def read_sources(root: Path, paths: Iterable[str]) -> dict[str, str]:
    return {p: (root / p).read_text() for p in paths if p.endswith(".py")}
