"""The mutation harness's comparison operator keeps parenthesized operands (docs/mutation.md):
`(a is not None) != (b == c)` must become `(a is not None) == (b == c)`, not the chain
`a is not None == b == c` (which is always false and passed for a changed boundary)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "mmair_mutation_mutants", Path(__file__).resolve().parents[1] / "mutation" / "mutants.py")
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
