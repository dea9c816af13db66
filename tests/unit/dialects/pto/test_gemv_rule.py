"""The GEMV rule (issue 15): with m = 1 the cube reads L0A as an nd vector unless the target has
`disable_gemv` (a5) and the op sets it. Verifier (static m), executor (runtime m) and
pto-tile-matmul (every M with M mod tile-m = 1, on every target with a cube path)."""

from __future__ import annotations

import numpy as np
import pytest
from pto_testing import check_matmul, lower, matmul_text, parse  # noqa: F401

from mmair.dialects import pto
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.runner import run_module
from mmair.isa.ascend import targets as isa

KERNEL = """builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @k(%m: index) {{
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %a = pto.alloc : !pto.tile<l0a, 16x32xf16, {layout}>
    %b = pto.alloc : !pto.tile<l0b, 32x16xf16, zn>
    %c = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.mad %a, %b, %c, {m}, %c16, %c32{flag} : !pto.tile<l0a, 16x32xf16, {layout}>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    func.return
  }}
}}"""


def kernel(target: str, m: str = "%c1", flag: str = "") -> str:
    layout = isa.get_target(target).l0a_layout
    return KERNEL.format(target=target, layout=layout, m=m, flag=flag)


@pytest.mark.parametrize("target", ["a2", "a3", "310p", "200i_a2", "910"])
def test_static_m1_on_zz_is_the_gemv_error(target):
    with pytest.raises(Exception, match=r"requires an nd lhs for m = 1 \(GEMV rule: .*got a zz lhs"):
        parse(kernel(target))


def test_a5_static_m1_on_nz_needs_nd_or_disable_gemv():
    with pytest.raises(Exception, match=r"requires an nd lhs or disable_gemv for m = 1 .*got a nz lhs"):
        parse(kernel("a5"))
    _, module = parse(kernel("a5", flag=" disable_gemv"))
    assert "disable_gemv" in str(module)


def test_disable_gemv_only_on_a5():
    with pytest.raises(Exception, match="disable_gemv is not supported on target a2"):
        parse(kernel("a2", m="%c16", flag=" disable_gemv"))


@pytest.mark.parametrize("target,ok", [("a2", False), ("a5", False), ("a5", True)])
def test_runtime_m1_is_checked_by_the_executor(target, ok):
    _, module = parse(kernel(target, m="%m", flag=" disable_gemv" if ok else ""))
    if ok:
        run_module(module, "k", {"m": 1})
        return
    with pytest.raises(ExecutionError, match=r"m = 1 with a (zz|nz) lhs .*GEMV rule"):
        run_module(module, "k", {"m": 1})
    run_module(module, "k", {"m": 2})  # m != 1 is a plain matmul


def _mads(module) -> list:
    return [op for op in module.walk() if isinstance(op, pto.MadOp | pto.MadAccOp | pto.MadBiasOp)]


@pytest.mark.parametrize("target", ["a2", "a5"])  # the targets with a matmul lowering path
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("m,tm", [(1, 16), (17, 16), (33, 32), (49, 16), (129, 128), (65, 0)])
def test_one_row_panels_follow_the_gemv_rule(target, ta, m, tm):
    """Every M with M mod tile-m = 1 (tile-m 0 = automatic 128 clamps to 80 for M = 65: no one-row
    panel): the lowered kernel verifies (no zz/nz L0A with m = 1), equals numpy, and a one-row
    panel runs either with an nd L0A (GEMV path) or with disable_gemv (a5)."""
    lhs, rhs, out = ("f16", "f16", "f32")
    t = isa.get_target(target)
    pipeline = f"pto-tile-matmul{{tile-m={tm} tile-n=32 tile-k=32}},pto-assign-addresses"
    if ta and m > 1 and tm and m % tm == 1 and not t.gemv_disable:
        with pytest.raises(Exception, match="leaves a one-row panel of the transposed A"):
            lower(matmul_text(m, 40, 48, lhs, rhs, out, target, ta, False), pipeline)
        pipeline = "pto-tile-matmul{tile-n=32 tile-k=32},pto-assign-addresses"  # automatic tile-m
    result = check_matmul(m, 40, 48, lhs, rhs, out, target, ta, False, seed=m, pipeline=pipeline)
    module = lower(matmul_text(m, 40, 48, lhs, rhs, out, target, ta, False), pipeline)
    l0a_layouts = {op.lhs.type.layout_name for op in _mads(module)}
    one_row = m == 1 or (tm and m % tm == 1 and not (ta and not t.gemv_disable))
    if one_row and not t.gemv_disable:
        assert "nd" in l0a_layouts
    if one_row and t.gemv_disable:
        assert all(op.disable_gemv is not None for op in _mads(module))
        assert l0a_layouts == {t.l0a_layout}
    assert result.op_counts["pto.mad"] >= 1


def test_an_nz_vector_read_as_gemv_differs():
    """Why: the bytes of a 1-row Nz tile are not the nd vector GEMV reads (C0 chunks 512 B
    apart), so computing a plain matmul there (the old behaviour) models wrong hardware output."""
    from mmair.isa.ascend import layouts

    row = np.arange(1, 33, dtype=np.float16).reshape(1, 32)
    nz = layouts.pack(row, "nz", "f16", "l1").reshape(-1)
    assert not np.array_equal(nz[:32], row.reshape(-1))
