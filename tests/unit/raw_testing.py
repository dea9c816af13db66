"""Shared helpers of the raw parameter-form tests: the one op of a kernel whose sizes are runtime
values, its interpreter operands by name, the Nz image of a matrix."""

from __future__ import annotations

import numpy as np
from sync_testing import parse


def _op(target: str, args: str, body: str, kind: type):
    """The one `kind` op of a verified kernel whose operands are all function arguments, so that
    its sizes are runtime values the verifier cannot see."""
    module = parse(f'builtin.module attributes {{pto.target = "{target}"}} {{\n'
                   f"  func.func @k({args}) {{\n    {body}\n    func.return\n  }}\n}}")
    module.verify()
    return next(op for op in module.walk() if isinstance(op, kind))


def _args(op, **named) -> tuple:
    """The interpreter's operand values of `op` in its operand order, from their names (an
    absent optional operand has no value)."""
    return tuple(named[name] for name, _ in type(op).get_irdl_definition().operands
                 if name in named)


def _nz(x: np.ndarray) -> np.ndarray:
    """The Nz image of an f32 matrix X[R, C] (16 x 16 fractals, column blocks outermost):
    element (r, c) at ((c // 16) * R/16 + r // 16) * 256 + (r % 16) * 16 + c % 16."""
    r, c = x.shape
    return x.reshape(r // 16, 16, c // 16, 16).transpose(2, 0, 1, 3).reshape(-1)
