"""The layering of docs/architecture.md, enforced: no module imports upward.

    isa <- dialects <- passes / executor <- tools
    executor: engine <- upstream <- ascend / tcgen05 <- runner / reference

Every `.py` module under isa/, dialects/, passes/, executor/ and tools/ is parsed with `ast`; every
import is checked, wherever it is (module level, inside a function, under `TYPE_CHECKING`):
`import x.y`, `from x import y` (`y` counts as the module `x.y` when that module exists),
relative imports, and `importlib.import_module` of a literal name (an f-string counts as the
package its literal prefix names). Also: every package's `__init__.py` has a docstring.
"""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parents[3]
LAYERS = ("isa", "dialects", "passes", "executor", "tools")
EXECUTOR_ROOTS = {"mmair.executor", "mmair.executor.runner", "mmair.executor.reference",
                  "mmair.executor.tile_args"}
"""The composition roots of the executor (and its package docstring): may import any of it."""
EXECUTOR_PACKAGES: dict[str, tuple[str, ...]] = {
    "engine": ("engine",),
    "upstream": ("engine", "upstream"),
    "ascend": ("engine", "upstream", "ascend"),
    "tcgen05": ("engine", "upstream", "tcgen05"),
}
"""executor package -> the executor packages its modules may import."""


def module_name(path: pathlib.Path, root: pathlib.Path = ROOT) -> str:
    """`mmair.executor.engine.hb` for executor/engine/hb.py (the repository root is `mmair`)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["mmair", *parts])


def _is_module(name: str, root: pathlib.Path) -> bool:
    rel = pathlib.Path(*name.split(".")[1:])
    return (root / rel).with_suffix(".py").is_file() or (root / rel / "__init__.py").is_file()


def imports_of(source: str, module: str, *, package: bool = False,
               root: pathlib.Path = ROOT) -> Iterator[tuple[int, str, str]]:
    """(line, imported module, the import as written) for every import of `source`, the text of
    `module` (`package`: the text is its `__init__.py`, so relative imports start there)."""
    base = module.split(".") if package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[:len(base) - node.level + 1]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            written = (f"from {'.' * node.level}{node.module or ''} import "
                       + ", ".join(a.name for a in node.names))
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield node.lineno, sub if _is_module(sub, root) else target, written
        elif (isinstance(node, ast.Call) and node.args
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"):
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                yield node.lineno, arg.value, f"import_module({arg.value!r})"
            elif (isinstance(arg, ast.JoinedStr) and arg.values
                  and isinstance(arg.values[0], ast.Constant)):
                prefix = str(arg.values[0].value)
                yield node.lineno, prefix.rsplit(".", 1)[0], f"import_module(f{prefix!r}...)"


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def allowed(importer: str, imported: str) -> bool:
    """May module `importer` import module `imported`? Both are `mmair.` names of modules."""
    if not _inside(imported, "mmair"):
        return True  # xDSL, numpy, the standard library
    layer = importer.split(".")[1]
    if layer == "tools":
        return True
    permitted = {"isa": ["isa"], "dialects": ["isa", "dialects"],
                 "passes": ["isa", "dialects", "passes", "executor.engine"],
                 "executor": ["isa", "dialects"]}[layer]
    if any(_inside(imported, f"mmair.{p}") for p in permitted):
        return True
    if layer != "executor" or not _inside(imported, "mmair.executor"):
        return False
    if importer in EXECUTOR_ROOTS:
        return True
    inner = EXECUTOR_PACKAGES[importer.split(".")[2]]
    return any(_inside(imported, f"mmair.executor.{p}") for p in inner)


def violations(source: str, module: str, *, package: bool = False,
               root: pathlib.Path = ROOT, where: str = "") -> list[str]:
    """`where:line: module imports X (the import as written)` for every upward import."""
    return [f"{where or module}:{line}: {module} imports {imported} ({written})"
            for line, imported, written in sorted(imports_of(source, module, package=package,
                                                             root=root))
            if not allowed(module, imported)]


def _modules() -> list[pathlib.Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py")
                  if "__pycache__" not in p.parts)


def test_no_module_imports_upward():
    paths = _modules()
    assert len(paths) > 100 and ROOT / "executor" / "engine" / "hb.py" in paths
    found = []
    for path in paths:
        found += violations(path.read_text(encoding="utf-8"), module_name(path),
                            package=path.name == "__init__.py",
                            where=str(path.relative_to(ROOT)))
    assert not found, "upward imports (docs/architecture.md, Import rules):\n" + "\n".join(found)


def test_every_package_init_has_a_docstring():
    inits = [p for p in _modules() if p.name == "__init__.py"] + [ROOT / "__init__.py"]
    assert len(inits) >= 11
    missing = [str(p.relative_to(ROOT)) for p in inits
               if ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None]
    assert not missing, f"package __init__.py without a docstring: {missing}"


def test_the_checker_reports_an_upward_import(tmp_path):
    """A fake module tree: the checker names the module, the line and the import."""
    for package in ("isa", "dialects", "executor/engine", "executor/upstream",
                    "executor/ascend", "executor/tcgen05", "passes"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text('"""x"""\n')
    (tmp_path / "executor" / "runner.py").write_text("")
    (tmp_path / "executor" / "ascend" / "kernels.py").write_text("")
    source = (
        "import numpy\n"
        "from mmair.isa import targets\n"
        "def f():\n"
        "    from mmair.executor import runner\n"  # line 4: engine imports the composition root
        "    import mmair.executor.ascend.kernels\n"  # line 5: engine imports ascend
        "    from .. import upstream\n"  # line 6: relative, engine -> upstream
        "    from . import events\n"  # same package: allowed
        "    import_module('mmair.tools.run')\n"  # line 8
    )
    found = violations(source, "mmair.executor.engine.hb", root=tmp_path,
                       where="executor/engine/hb.py")
    assert found == [
        "executor/engine/hb.py:4: mmair.executor.engine.hb imports mmair.executor.runner "
        "(from mmair.executor import runner)",
        "executor/engine/hb.py:5: mmair.executor.engine.hb imports mmair.executor.ascend.kernels "
        "(import mmair.executor.ascend.kernels)",
        "executor/engine/hb.py:6: mmair.executor.engine.hb imports mmair.executor.upstream "
        "(from .. import upstream)",
        "executor/engine/hb.py:8: mmair.executor.engine.hb imports mmair.tools.run "
        "(import_module('mmair.tools.run'))",
    ]
    # The rules of the other layers, one upward import each:
    assert violations("from mmair.dialects import pto\n", "mmair.isa.ascend.targets", root=tmp_path)
    assert violations("import mmair.passes\n", "mmair.dialects.pto.cube", root=tmp_path)
    assert violations("from mmair.executor.ascend import kernels\n", "mmair.passes.x",
                      root=tmp_path)
    assert not violations("from mmair.executor.engine import hb\n", "mmair.passes.x",
                          root=tmp_path)
    assert violations("from mmair.executor.tcgen05 import x\n", "mmair.executor.ascend.kernels",
                      root=tmp_path)
    assert violations("from mmair.passes import x\n", "mmair.executor.runner", root=tmp_path)
    assert not violations("from mmair.executor.ascend import kernels\n", "mmair.executor.runner",
                          root=tmp_path)
    assert not violations("from mmair.passes import x\n", "mmair.tools.run", root=tmp_path)
