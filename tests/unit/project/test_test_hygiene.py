"""The test suite's own rules (issue 18, docs/mutation.md): a test that cannot fail is worse than
no test. An AST lint over tests/unit:

- every `pytest.raises(...)` has `match=` on the message that names the rule, so an unrelated
  error of the same class does not pass the test (asserts on the caught error may add to it);
- every test function asserts something: an `assert`, `pytest.raises`/`pytest.warns`, or a call of
  a helper that does (defined in the same file or in a shared test module);
- every hypothesis search tries at least MIN_EXAMPLES examples (`max_examples` a literal): a
  search of 2-12 examples finds little (a small domain is better swept exhaustively with
  `parametrize`);
- no `except` that swallows: no bare `except:` / `except Exception` / `except BaseException`, and
  no handler whose body only passes, continues or returns.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[1]
FILES = sorted(UNIT.rglob("*.py"))
_BROAD = {"Exception", "BaseException"}
MIN_EXAMPLES = 20


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _name(node.value) + "." + node.attr
    return ""


def _is_raises(call: ast.AST, kinds: tuple[str, ...] = ("raises",)) -> bool:
    return isinstance(call, ast.Call) and _name(call.func) in {f"pytest.{k}" for k in kinds}


def _asserting_functions(trees: list[ast.Module]) -> set[str]:
    """Names of functions that assert (directly or through another asserting function)."""
    funcs: dict[str, ast.FunctionDef] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                funcs.setdefault(node.name, node)
    asserting: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, fn in funcs.items():
            if name not in asserting and _asserts(fn, asserting):
                asserting.add(name)
                changed = True
    return asserting


def _asserts(fn: ast.AST, asserting: set[str]) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = _name(node.func)
            short = name.rsplit(".", 1)[-1]
            if _is_raises(node, ("raises", "warns", "fail")) or short in asserting \
                    or short.startswith("assert_") or name.startswith("np.testing."):
                return True
    return False


def _problems(path: Path, tree: ast.Module, asserting: set[str]) -> list[str]:
    out = []
    where = path.name
    for node in ast.walk(tree):
        if _is_raises(node) and not any(k.arg == "match" for k in node.keywords):
            out.append(f"{where}:{node.lineno}: pytest.raises without match=")
        if isinstance(node, ast.Call) and _name(node.func).rsplit(".", 1)[-1] == "settings":
            for k in node.keywords:
                if k.arg == "max_examples" and not (
                        isinstance(k.value, ast.Constant) and isinstance(k.value.value, int)
                        and k.value.value >= MIN_EXAMPLES):
                    out.append(f"{where}:{node.lineno}: max_examples is not a literal >= {MIN_EXAMPLES}")
        if isinstance(node, ast.ExceptHandler):
            kinds = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            if node.type is None or any(_name(k) in _BROAD for k in kinds):
                out.append(f"{where}:{node.lineno}: broad except")
            elif all(isinstance(s, ast.Pass | ast.Continue | ast.Return) for s in node.body):
                out.append(f"{where}:{node.lineno}: except that swallows the error")
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") \
                and not _asserts(node, asserting):
            out.append(f"{where}:{node.lineno}: {node.name} asserts nothing")
    return sorted(out, key=lambda p: int(p.split(":")[1]))


TREES = {p: ast.parse(p.read_text(), str(p)) for p in FILES}
ASSERTING = _asserting_functions(list(TREES.values()))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_tests_are_falsifiable(path: Path) -> None:
    assert _problems(path, TREES[path], ASSERTING) == []


def test_the_lint_flags_weak_tests() -> None:
    # A second formulation of each rule on a hand-written module: the lint must flag all six.
    weak = ast.parse(
        "import pytest\n"
        "def test_a():\n    with pytest.raises(ValueError):\n        f()\n"
        "def test_b():\n    f()\n"
        "def test_c():\n    try:\n        f()\n    except Exception:\n        assert True\n"
        "def test_d():\n    try:\n        f()\n    except ValueError:\n        pass\n    assert 1\n"
        "def test_e():\n    with pytest.raises(ValueError) as err:\n        f()\n"
        "    assert err.value\n"
        "@settings(max_examples=12)\ndef test_f(x):\n    assert x\n"
    )
    problems = _problems(Path("weak.py"), weak, set())
    assert problems == [
        "weak.py:3: pytest.raises without match=",
        "weak.py:5: test_b asserts nothing",
        "weak.py:10: broad except",
        "weak.py:15: except that swallows the error",
        "weak.py:19: pytest.raises without match=",  # an assert on the error does not replace it
        "weak.py:22: max_examples is not a literal >= 20",
    ]
