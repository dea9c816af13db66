"""Ascend 950 (a5): a b8 or b32 A given transposed (Nz of A^T in L1) into the Nz L0A.

Before a5 these moves are LoadDataWithTranspose squares (test_b32_transposed_a.py,
test_pto_expand_params.py::test_s8_kernels_expand_end_to_end); on a5 LoadDataWithTranspose does
not go to L0A and pto-tile-matmul loads A^T with DN2NZ, so only hand-written kernels move A^T
transposed. pto-expand-params lowers them to LoadData2DParamsV2 windows with ifTranspose
(`pto.load_2d_v2`; Ascend C `LoadData_2D_V2.md`: b8 mStep even, b32 kStep even), as the
`load_data_2dv2_l12l0` sample does for int8 and float A. Each kernel runs with the sync checker
on, gives the same C bytes tile level and expanded, equals the integer-valued product, and
equals the `--check-numpy` reference of the raw kernel.
"""

from __future__ import annotations

import numpy as np
import pytest
from pto_testing import parse

from mmair.dialects import pto
from mmair.executor.reference import reference_outputs
from mmair.executor.runner import run_module
from mmair.isa.ascend.targets import get_target
from mmair.passes.pto_expand_params import _expandable
from tests.unit.passes.test_pto_expand_params import run, synced

HAND = """builtin.module attributes {pto.target = "a5"} {
  func.func @k(%at: memref<KRxMCxE>, %bt: memref<NxKxE>, %c: memref<MxNxACC>) {
    %c0 = arith.constant 0 : index
    %cm = arith.constant M : index
    %cn = arith.constant N : index
    %ck = arith.constant K : index
    %row = arith.constant ROW : index
    %col = arith.constant COL : index
    %ckr = arith.constant KR : index
    %cmc = arith.constant MC : index
    %a1 = pto.alloc : !pto.tile<l1, KTxMTxE, nz>
    %b1 = pto.alloc : !pto.tile<l1, NTxKTxE, nz>
    %a2 = pto.alloc : !pto.tile<l0a, MTxKTxE, nz>
    %b2 = pto.alloc : !pto.tile<l0b, KTxNTxE, zn>
    %acc = pto.alloc : !pto.tile<l0c, MTxNTxACC, nz>
    pto.mte_gm_l1 %at, %a1, %ckr, %cmc : memref<KRxMCxE>, !pto.tile<l1, KTxMTxE, nz>
    pto.mte_gm_l1 %bt, %b1, %cn, %ck : memref<NxKxE>, !pto.tile<l1, NTxKTxE, nz>
    pto.mte_l1_l0a %a1[%row, %col], %a2, %cm, %ck transpose : !pto.tile<l1, KTxMTxE, nz>, !pto.tile<l0a, MTxKTxE, nz>
    pto.mte_l1_l0b %b1, %b2, %ck, %cn transpose : !pto.tile<l1, NTxKTxE, nz>, !pto.tile<l0b, KTxNTxE, zn>
    pto.mad %a2, %b2, %acc, %cm, %cn, %ck : !pto.tile<l0a, MTxKTxE, nz>, !pto.tile<l0b, KTxNTxE, zn>, !pto.tile<l0c, MTxNTxACC, nz>
    pto.fixpipe %acc, %c, %cm, %cn : !pto.tile<l0c, MTxNTxACC, nz>, memref<MxNxACC>
    func.return
  }
}
"""


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def hand(elem: str, m: int, n: int, k: int, row: int = 0, col: int = 0) -> str:
    """The kernel: GM [row + k, col + m] (A^T at (row, col)) into an nz L1 tile, A^T moved
    transposed from (row, col)."""
    pad = 32 if elem == "i8" else 16  # the transpose padding rule (TRANSPOSE_BLOCK_ELEMENTS)
    kt, mt, nt = (cdiv(x, pad) * pad for x in (row + k, col + m, n))
    subs = {"KR": row + k, "MC": col + m, "KT": kt, "MT": mt, "NT": nt, "ACC": "i32" if elem == "i8" else "f32", "E": elem,
            "ROW": row, "COL": col, "M": m, "N": n, "K": k}
    text = HAND
    for key, value in subs.items():  # longest keys first: KT before K
        text = text.replace(key, str(value))
    return text


def b_as_is(text: str, n: int, k: int) -> str:
    """The kernel with B [k, n] given as is: Nz in L1, moved to Zn without `transpose`."""
    nt, kt = (cdiv(x, 16) * 16 for x in (n, k))
    return (text.replace(f"%bt: memref<{n}x{k}xf32>", f"%bt: memref<{k}x{n}xf32>")
            .replace(f"%b1 = pto.alloc : !pto.tile<l1, {nt}x{kt}xf32, nz>",
                     f"%b1 = pto.alloc : !pto.tile<l1, {kt}x{nt}xf32, nz>")
            .replace(f"pto.mte_gm_l1 %bt, %b1, %cn, %ck : memref<{n}x{k}xf32>, "
                     f"!pto.tile<l1, {nt}x{kt}xf32, nz>",
                     f"pto.mte_gm_l1 %bt, %b1, %ck, %cn : memref<{k}x{n}xf32>, "
                     f"!pto.tile<l1, {kt}x{nt}xf32, nz>")
            .replace(f"pto.mte_l1_l0b %b1, %b2, %ck, %cn transpose : !pto.tile<l1, {nt}x{kt}xf32, nz>",
                     f"pto.mte_l1_l0b %b1, %b2, %ck, %cn : !pto.tile<l1, {kt}x{nt}xf32, nz>"))


CASES = [
    ("i8", 48, 32, 64, 0, 0),    # M1 = 3 odd: one window per 32 columns of k, barriers
    ("i8", 64, 32, 96, 0, 0),    # M1 = 4 even: one window
    ("i8", 40, 20, 70, 32, 32),  # M1 3, K1 3, source start (32, 32)
    ("f32", 40, 24, 40, 0, 0),   # K1 = 5 odd: the last column past the grid
    ("f32", 32, 16, 32, 16, 16),  # source start (16, 16)
]
B_AS_IS = [("f32", 40, 24, 40, 0, 0), ("f32", 24, 40, 56, 0, 0)]  # K1 5 and 7: odd


@pytest.mark.parametrize("elem, m, n, k, row, col, b_nz", [
    *(case + (False,) for case in CASES), *(case + (True,) for case in B_AS_IS)])
def test_a5_transposed_a_expands_to_v2_windows(elem, m, n, k, row, col, b_nz):
    """b_nz: an f32 B given as is, Nz in L1 (the sample's float B), moved to Zn by one V2 window
    with ifTranspose as well (Zn of B is Nz of B^T)."""
    text = hand(elem, m, n, k, row, col)
    if b_nz:
        text = b_as_is(text, n, k)
    rng = np.random.default_rng(m * n + k)
    dtype = np.int8 if elem == "i8" else np.float32
    a = rng.integers(-8, 8, (m, k)).astype(dtype)
    b = rng.integers(-8, 8, (k, n)).astype(dtype)
    at = rng.integers(-8, 8, (row + k, col + m)).astype(dtype)
    at[row:, col:] = a.T
    inputs = {"at": at, "bt": b if b_nz else np.ascontiguousarray(b.T)}
    expect = a.astype(np.int64) @ b.astype(np.int64)

    ctx, tile_level = parse(text)
    synced(ctx, tile_level)
    base = run(tile_level, inputs).outputs["c"]

    ctx, module = parse(text)
    synced(ctx, module, "pto-expand-params")
    assert not [op for op in module.walk()
                if isinstance(op, pto.MteL1L0AOp | pto.MteL1L0BOp | pto.MadOp)]
    windows = [op for op in module.walk() if isinstance(op, pto.Load2DV2Op)]
    assert windows and all(op.if_transpose is not None for op in windows)
    assert any(op.dst.type.space_name == "l0b" for op in windows) == b_nz
    odd_m1 = elem == "i8" and cdiv(m, 16) % 2 == 1
    barriers = [op for op in module.walk() if isinstance(op, pto.PipeBarrierOp)]
    assert bool(barriers) == odd_m1
    got = run(module, inputs).outputs["c"]
    assert got.tobytes() == base.tobytes()
    np.testing.assert_array_equal(got, expect.astype(got.dtype))
    result = run_module(module, inputs=inputs)  # the --check-numpy reference of the raw kernel
    entry = next(op for op in module.walk() if op.name == "func.func")
    (ref,), _ = reference_outputs(module, entry, inputs, result, None)
    np.testing.assert_array_equal(ref.values, got)


@pytest.mark.parametrize("elem, row, col, expands", [
    ("i8", 16, 32, False), ("i8", 32, 32, True), ("f32", 16, 8, False), ("f32", 16, 16, True)])
def test_a5_transposed_a_windows_need_a_start_on_a_window(elem, row, col, expands):
    """A source start inside a window's fractal pair (b8: the 32 rows of k a window's mStep pair
    holds; b32: the two 8-column fractals of m its kStep pair holds) is not a window start of
    the expansion: the move stays tile-level (the executor runs it)."""
    text = hand(elem, 32, 16, 32, row, col)
    _ctx, module = parse(text)
    (move,) = [op for op in module.walk() if isinstance(op, pto.MteL1L0AOp)]
    assert _expandable(move, get_target("a5")) == expands
