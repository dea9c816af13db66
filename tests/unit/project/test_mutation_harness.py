"""The mutation harness (tests/mutation, docs/mutation.md): the comparison operator keeps
parenthesized operands (`(a is not None) != (b == c)` must become `(a is not None) == (b == c)`,
not the chain `a is not None == b == c`, which is always false and passed for a changed
boundary); test selection follows every import form transitively and picks the tests that run a
mutant's statement; without coverage.py the harness is one clear error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "mmair_mutation_mutants", Path(__file__).resolve().parents[2] / "mutation" / "mutants.py")
assert _SPEC is not None and _SPEC.loader is not None
_MUTANTS = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = _MUTANTS  # dataclasses look their module up
_SPEC.loader.exec_module(_MUTANTS)
mutants_of = _MUTANTS.mutants_of

SOURCE = b'''def check(a, layout, n):
    if (a is not None) != (layout == "nz2dn"):
        raise ValueError("requires a exactly with nz2dn")
    if n not in (1, 2):
        raise ValueError("requires n in 1, 2")
'''


def test_comparison_mutants_keep_parentheses():
    edits = sorted(m.apply(SOURCE).decode().splitlines()[m.line - 1].strip()
                   for m in mutants_of("x.py", SOURCE, ("gcmp",)))
    assert edits == [
        'if (a is not None) != (layout != "nz2dn"):',
        'if (a is not None) == (layout == "nz2dn"):',
        "if n in (1, 2):",
    ]


_SEL_SPEC = importlib.util.spec_from_file_location(
    "mmair_mutation_selection", Path(__file__).resolve().parents[2] / "mutation" / "selection.py")
assert _SEL_SPEC is not None and _SEL_SPEC.loader is not None
_SEL = importlib.util.module_from_spec(_SEL_SPEC)
sys.modules[_SEL_SPEC.name] = _SEL
_SEL_SPEC.loader.exec_module(_SEL)


def test_dependents_follow_every_import_form_transitively():
    files = {
        "isa/a.py": "X = 1\n",
        "isa/__init__.py": "",
        "dialects/__init__.py": "",
        "dialects/b.py": "from mmair.isa import a\n",
        "dialects/c.py": "from .b import thing\n",
        "executor/__init__.py": "",
        "executor/d.py": "def f():\n    import mmair.dialects.c\n",
        "executor/e.py": "import numpy\n",
    }
    deps = _SEL.dependents(files)
    assert deps["mmair.isa.a"] == {"mmair.dialects.b", "mmair.dialects.c", "mmair.executor.d"}
    assert deps["mmair.dialects.c"] == {"mmair.executor.d"}
    assert deps["mmair.executor.e"] == set()


def test_a_mutant_selects_the_tests_that_run_its_statement():
    text = b"def f(a,\n      b):\n    if (a <\n            b):\n        raise ValueError('x')\n"
    import ast

    start = text.index(b"b):\n        raise")  # the second line of the condition
    lines = _SEL.statement_lines(ast.parse(text), text, start, start + 1)
    assert list(lines) == [3, 4]  # from the `if` (where coverage records it) to the mutant's end
    cov = _SEL.CoverageMap(
        lines={"m.py": {3: {"t.py::test_a", "lit:x.mlir"}, 5: {"t.py::test_b"}}},
        seconds={"t.py::test_a": 2.0, "lit:x.mlir": 1.0, "t.py::test_b": 0.5, "t.py::test_c": 0.1},
        shared={"t.py::test_a": ["t.py::test_c"]})
    chosen = _SEL.select(cov, "m.py", lines, ["t.py"], ["x.mlir"])
    # test_c shares test_a's module-scoped fixture: it may be the one that checks the value
    assert (chosen.pytest, chosen.lit, chosen.whole) == (["t.py::test_c", "t.py::test_a"],
                                                         ["x.mlir"], False)
    assert _SEL.select(cov, "m.py", [7], ["t.py"], []).pytest == []
    cov.lines["m.py"][7] = {_SEL.COLLECT}  # run while collecting: the whole subset
    whole = _SEL.select(cov, "m.py", [7], ["t.py"], ["x.mlir"])
    assert (whole.pytest, whole.lit, whole.whole) == (["t.py"], ["x.mlir"], True)


def test_harness_without_coverage_is_one_clear_error():
    # Without the `mutation` extra the coverage map cannot be made: one line and exit 2, not a
    # traceback from the coverage child.
    import subprocess

    run = Path(__file__).resolve().parents[2] / "mutation" / "run.py"
    script = ("import runpy, sys; sys.modules['coverage'] = None; "
              f"sys.argv = ['run.py', '--area', 'checkers']; runpy.run_path({str(run)!r}, "
              "run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr == ('error: the mutation harness needs coverage.py: '
                           'pip install -e ".[test,mutation]"\n')
