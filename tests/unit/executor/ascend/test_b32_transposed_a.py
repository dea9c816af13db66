"""A b32 (f32) A given transposed, before Ascend 950: the hardware form and the tile-level rule.

LoadData's ifTranspose is b16 only; LoadDataWithTranspose takes b32 from L1 to L0A on A2/A3/200I-A2
as squares of two 16 x 8 fractals side by side (Ascend C `LoadDataWithTranspose.md`: "fp32场景下，
源操作数2个连续的16*8分形将被合并为1个16*16的方块矩阵 ... 要求L1 Buffer上的A矩阵满足ZZ或ZN排布";
the float "A、B矩阵需要转置的场景示例", `A矩阵LoadDataWithTranspose: Zz -> Zz`, and the
`load_data_l12l0` sample's SplitATransposeForB32). So A^T must sit in L1 as zz: pto-tile-matmul
stages it so, pto-expand-params turns the move into those squares, and a b32 A^T in an nz tile,
which no load can transpose into L0A, is a verifier error.
"""

from __future__ import annotations

import numpy as np
import pytest
from pto_testing import matmul_text, parse

from mmair.dialects import pto
from mmair.executor.ascend import raw_kernels as rk
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import TARGET_NAMES, get_target
from mmair.tools.diagnostics import OpVerifyError
from tests.unit.passes.test_pto_expand_params import lowered, run, synced


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def zz(x: np.ndarray, c0: int, row_pad: int = 16, col_pad: int | None = None) -> np.ndarray:
    """Zz of X[R, C] with fractals 16 x c0: rows padded to `row_pad`, columns to `col_pad`."""
    r, c = x.shape
    col_pad = col_pad or c0
    rp, cp = cdiv(r, row_pad) * row_pad, cdiv(c, col_pad) * col_pad
    p = np.zeros((rp, cp), x.dtype)
    p[:r, :c] = x
    return p.reshape(rp // 16, 16, cp // c0, c0).transpose(0, 2, 1, 3).reshape(-1)


def test_float_a_transpose_doc_example():
    """LoadDataWithTranspose.md, "float数据类型，A、B矩阵需要转置的场景示例" (m = 40, k = 70): A^T
    [70, 40] Zz in L1 (M padded to 48: 3 squares per row); for i < ceil(m/16): {startIndex 0,
    repeatTimes ceil(k/16), srcStride ceil(m/16), dstGap 1, dstFracGap 0} from square i to
    fractal i*ceil(k/16)*2 gives Zz of A with K padded to 16, which Mmad reads with
    kDirectionAlign (the sample sets it for a transposed float A)."""
    m, k, n = 40, 70, 50
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k)).astype(np.float32)
    l1 = zz(a.T, 8, col_pad=16)  # A^T [k, m], fractal rows of 48 columns
    l0a = np.full(cdiv(m, 16) * cdiv(k, 16) * 2 * 128, np.nan, np.float32)
    for i in range(cdiv(m, 16)):
        rk.load2d_transpose(l1.view(np.uint8)[i * 1024:], l0a.view(np.uint8)[i * cdiv(k, 16) * 1024:],
                            rk.Load2DTranspose(0, cdiv(k, 16), cdiv(m, 16), 1, 0), "f32")
    np.testing.assert_array_equal(l0a, zz(a, 8, col_pad=16))
    b = rng.standard_normal((k, n)).astype(np.float32)
    l0b = np.zeros(cdiv(k, 8) * cdiv(n, 16) * 128, np.float32)
    kb, nb = np.arange(k)[:, None], np.arange(n)[None, :]  # Zn of B (K0 = 8)
    l0b[((kb // 8) * cdiv(n, 16) + nb // 16) * 128 + (nb % 16) * 8 + kb % 8] = b
    c = np.zeros(cdiv(m, 16) * cdiv(n, 16) * 256, np.float32)
    rk.mmad(l0a, l0b, c, m, n, k, lhs="f32", rhs="f32", l0a_layout="zz", gemv=False,
            init_zero=True, k_align16=True, compute_dtype=np.float64)
    mm, nn = np.arange(m)[:, None], np.arange(n)[None, :]
    got = c[((nn // 16) * cdiv(m, 16) + mm // 16) * 256 + (mm % 16) * 16 + nn % 16]
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["a2", "a3"])
@pytest.mark.parametrize("m, n, k, tiles", [
    (40, 50, 70, ""),  # the doc example's sizes; K1 = 9 is odd: one barrier per m row
    (33, 17, 40, ""),  # K1 = 5, three m rows
    (100, 48, 72, "tile-m=32 tile-n=32 tile-k=48"),  # k tail of 24 (K1 3), m tail of 4
    (40, 50, 32, ""),  # K1 = 4, even: no overhang, no barrier
])
def test_f32_transposed_a_expands_to_square_loads(target, m, n, k, tiles):
    """pto-tile-matmul stages the f32 A^T zz in L1; pto-expand-params moves it with one
    LoadDataWithTranspose per 16 rows of m, runs with the sync checker on, and computes what the
    tile-level kernel computes (A x B)."""
    text = matmul_text(m, n, k, "f32", "f32", "f32", target, True, False)
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    inputs = {"a": np.ascontiguousarray(a.T), "b": b}
    tile_level = lowered(text, tiles, False)
    (a_l1,) = {op.src.type for op in tile_level.walk() if isinstance(op, pto.MteL1L0AOp)}
    assert a_l1.layout_name == "zz"
    base = run(tile_level, inputs).outputs["c"]
    module = lowered(text, tiles, True)
    assert not [op for op in module.walk() if isinstance(op, pto.MteL1L0AOp | pto.MadOp)]
    squares = [op for op in module.walk() if isinstance(op, pto.Load2DTransposeOp)
               and op.dst.type.space_name == "l0a"]
    assert squares
    barriers = [op for op in module.walk() if isinstance(op, pto.PipeBarrierOp)
                and op.pipe.data == "mte1"]
    assert bool(barriers) == (cdiv(k, 8) % 2 == 1 or "tile-k" in tiles)
    got = run(module, inputs).outputs["c"]
    np.testing.assert_allclose(got, base, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


KERNEL = """builtin.module attributes {pto.target = "TARGET"} {
  func.func @k() {
    %c32 = arith.constant 32 : index
    %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xELEM, LAYOUT>, !pto.tile<l0a, 32x32xELEM, L0A>)
    pto.mte_l1_l0a %l1, %l0a, %c32, %c32 transpose : !pto.tile<l1, 32x32xELEM, LAYOUT>, !pto.tile<l0a, 32x32xELEM, L0A>
    func.return
  }
}
"""


def kernel(target: str, elem: str, layout: str) -> str:
    l0a = get_target(target).l0a_layout
    return (KERNEL.replace("TARGET", target).replace("ELEM", elem).replace("LAYOUT", layout)
            .replace("L0A", l0a))


@pytest.mark.parametrize("target", ["a2", "a3", "200i_a2"])
@pytest.mark.parametrize("elem, bad", [("f32", "nz"), ("i8", "zz")])
def test_transposed_a_from_a_layout_no_load_reads_is_an_error(target, elem, bad):
    with pytest.raises(OpVerifyError, match=(
            rf"'pto.mte_l1_l0a' op requires src layout in \[{'zz' if elem == 'f32' else 'nz'}\] "
            rf"for a transposed {32 if elem == 'f32' else 8}-bit A moved to zz on target "
            rf"{target} .*got {bad}")):
        parse(kernel(target, elem, bad))


def test_legal_transposed_a_layouts():
    for name in TARGET_NAMES:
        target = get_target(name)
        for elem, good in (("f16", "nz"), ("f16", "zz"), ("f32", "zz"), ("i8", "nz")):
            if 8 * (2 if elem == "f16" else 4 if elem == "f32" else 1) not in target.transpose_bits:
                continue  # 310p / 910 transpose b16 only (test_pto_dialect)
            _ctx, module = parse(kernel(name, elem, good))
            assert [op for op in module.walk() if isinstance(op, pto.MteL1L0AOp)]
    # a5: LoadData2DParamsV2 transposes an Nz window; the tile-level rule is unchanged there
    assert isa_params.a_l1_layouts_for_transpose("f32", get_target("a5")) == ("nz", "zz")
    parse(kernel("a5", "f32", "nz"))


HAND = """builtin.module attributes {pto.target = "TARGET"} {
  func.func @k(%at: memref<48x32xELEM>, %b: memref<32x32xELEM>, %c: memref<48x32xf32>) {
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %a1 = pto.alloc : !pto.tile<l1, SRCxELEM, zz>
    %b1 = pto.alloc : !pto.tile<l1, 32x32xELEM, zz>
    %a2 = pto.alloc : !pto.tile<l0a, 48x32xELEM, L0A>
    %b2 = pto.alloc : !pto.tile<l0b, 32x32xELEM, zn>
    %acc = pto.alloc : !pto.tile<l0c, 48x32xf32, nz>
    pto.mte_gm_l1 %at, %a1, ROWS, COLS : memref<48x32xELEM>, !pto.tile<l1, SRCxELEM, zz>
    pto.mte_gm_l1 %b, %b1, %c32, %c32 : memref<32x32xELEM>, !pto.tile<l1, 32x32xELEM, zz>
    pto.mte_l1_l0a %a1, %a2, %c48, %c32 FLAG: !pto.tile<l1, SRCxELEM, zz>, !pto.tile<l0a, 48x32xELEM, L0A>
    pto.mte_l1_l0b %b1, %b2, %c32, %c32 : !pto.tile<l1, 32x32xELEM, zz>, !pto.tile<l0b, 32x32xELEM, zn>
    pto.mad %a2, %b2, %acc, %c48, %c32, %c32 : !pto.tile<l0a, 48x32xELEM, L0A>, !pto.tile<l0b, 32x32xELEM, zn>, !pto.tile<l0c, 48x32xf32, nz>
    pto.fixpipe %acc, %c, %c48, %c32 : !pto.tile<l0c, 48x32xf32, nz>, memref<48x32xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize("target", ["a2", "a5"])
@pytest.mark.parametrize(("elem", "transpose"), [("f16", True), ("f16", False), ("f32", False)])
def test_a_from_a_zz_tile_expands(target, elem, transpose):
    """A (or, b16, A^T) in a zz L1 tile: the SplitA loops read its fractals row by row (fractal
    (r1, c1) at r1*C1 + c1). Such a hand-written kernel used to be expanded as if the tile were nz
    (other fractals, a wrong C); it now expands with the zz strides and computes A x B."""
    mlir, dtype = elem, {"f16": np.float16, "f32": np.float32}[elem]
    text = (HAND.replace("TARGET", target).replace("ELEM", mlir)
            .replace("L0A", get_target(target).l0a_layout)
            .replace("SRC", "32x48" if transpose else "48x32")
            .replace("ROWS, COLS", "%c32, %c48" if transpose else "%c48, %c32")
            .replace("FLAG", "transpose " if transpose else "")
            .replace("%at: memref<48x32x", "%at: memref<32x48x" if transpose else "%at: memref<48x32x")
            .replace(": memref<48x32x" + mlir + ">, !pto.tile<l1, 32x48",
                     ": memref<32x48x" + mlir + ">, !pto.tile<l1, 32x48"))
    ctx, module = parse(text)
    synced(ctx, module, "pto-expand-params")
    assert not [op for op in module.walk() if isinstance(op, pto.MteL1L0AOp | pto.MadOp)]
    rng = np.random.default_rng(4)
    a = rng.standard_normal((48, 32)).astype(dtype)
    b = rng.standard_normal((32, 32)).astype(dtype)
    given = np.ascontiguousarray(a.T) if transpose else a  # %at holds A^T when the move transposes
    got = run(module, {"at": given, "b": b}).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3,
                               atol=1e-3)


START8 = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%at: memref<32x48xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %a1 = pto.alloc : !pto.tile<l1, 32x48xf32, zz>
    %b1 = pto.alloc : !pto.tile<l1, 32x32xf32, zz>
    %a2 = pto.alloc : !pto.tile<l0a, 32x32xf32, zz>
    %b2 = pto.alloc : !pto.tile<l0b, 32x32xf32, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
    pto.mte_gm_l1 %at, %a1, %c32, %c48 : memref<32x48xf32>, !pto.tile<l1, 32x48xf32, zz>
    pto.mte_gm_l1 %b, %b1, %c32, %c32 : memref<32x32xf32>, !pto.tile<l1, 32x32xf32, zz>
    pto.mte_l1_l0a %a1[%c0, %START], %a2, %c32, %c32 transpose : !pto.tile<l1, 32x48xf32, zz>, !pto.tile<l0a, 32x32xf32, zz>
    pto.mte_l1_l0b %b1, %b2, %c32, %c32 : !pto.tile<l1, 32x32xf32, zz>, !pto.tile<l0b, 32x32xf32, zn>
    pto.mad %a2, %b2, %acc, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf32, zz>, !pto.tile<l0b, 32x32xf32, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe %acc, %c, %c32, %c32 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize(("start", "squares"), [("c0", True), ("c8", False)])
def test_b32_square_loads_need_a_start_on_a_square(start, squares):
    """A^T's columns (m) start at 8: inside a 16-column square, which no LoadDataWithTranspose
    start reaches (startIndex counts squares), so the move stays tile-level; from 0 it expands.
    Both compute A x B for the m window."""
    ctx, module = parse(START8.replace("%START", "%" + start))
    synced(ctx, module, "pto-expand-params")
    loads = [op for op in module.walk() if isinstance(op, pto.Load2DTransposeOp)
             and op.dst.type.space_name == "l0a"]
    assert bool(loads) == squares
    assert bool([op for op in module.walk() if isinstance(op, pto.MteL1L0AOp)]) != squares
    rng = np.random.default_rng(6)
    at = rng.standard_normal((32, 48)).astype(np.float32)
    b = rng.standard_normal((32, 32)).astype(np.float32)
    m0 = int(start[1:])
    got = run(module, {"at": at, "b": b}).outputs["c"]
    np.testing.assert_allclose(got, at[:, m0:m0 + 32].T.astype(np.float64) @ b, rtol=1e-4,
                               atol=1e-4)


KERNEL_200I = """builtin.module attributes {pto.target = "200i_a2"} {
  func.func @k(%at: memref<FRxf32>, %b: memref<FRxf32>, %c: memref<40x40xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %frac = arith.constant FRACS : index
    %c40 = arith.constant 40 : index
    %ck = arith.constant K : index
    %a1 = pto.alloc : !pto.tile<l1, KPx48xf32, zz>
    %b1 = pto.alloc : !pto.tile<l1, KPx48xf32, zz>
    %a2 = pto.alloc : !pto.tile<l0a, 48xKPxf32, zz>
    %b2 = pto.alloc : !pto.tile<l0b, KPx48xf32, zn>
    %acc = pto.alloc : !pto.tile<l0c, 48x48xf32, nz>
    pto.load_2d_gm %at[%c0], %a1[%c0] start_index %c0 repeat_times %frac src_stride %c1 dst_gap %c0 : memref<FRxf32>, !pto.tile<l1, KPx48xf32, zz>
    pto.load_2d_gm %b[%c0], %b1[%c0] start_index %c0 repeat_times %frac src_stride %c1 dst_gap %c0 : memref<FRxf32>, !pto.tile<l1, KPx48xf32, zz>
    pto.mte_l1_l0a %a1, %a2, %c40, %ck transpose : !pto.tile<l1, KPx48xf32, zz>, !pto.tile<l0a, 48xKPxf32, zz>
    pto.mte_l1_l0b %b1, %b2, %ck, %c40 : !pto.tile<l1, KPx48xf32, zz>, !pto.tile<l0b, KPx48xf32, zn>
    pto.mad %a2, %b2, %acc, %c40, %c40, %ck : !pto.tile<l0a, 48xKPxf32, zz>, !pto.tile<l0b, KPx48xf32, zn>, !pto.tile<l0c, 48x48xf32, nz>
    pto.fixpipe %acc, %c, %c40, %c40 : !pto.tile<l0c, 48x48xf32, nz>, memref<40x40xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize("k", [32, 40])
def test_200i_a2_b32_transposed_a_from_gm_fractals(k):
    """200I/500 A2 has LoadDataWithTranspose but neither ND2NZ nor kDirectionAlign: A^T and B come
    from GM already in Zz fractals by LoadData GM -> L1 (`load_2d_gm`), and the transposed f32 A
    expands to the square loads on the Mmad's own K grid (K1 = 5 is odd for k = 40: the overhang
    and its pipe_barrier). The kernel computes A x B and passes --check-numpy."""
    kp = cdiv(k, 16) * 16
    fracs = kp * 48 // 128
    text = (KERNEL_200I.replace("FRACS", str(fracs)).replace("FR", str(fracs * 128))
            .replace("KP", str(kp)).replace("%ck = arith.constant K", f"%ck = arith.constant {k}"))
    ctx, module = parse(text)
    synced(ctx, module, "pto-expand-params")
    assert not [op for op in module.walk() if isinstance(op, pto.MteL1L0AOp | pto.MadOp)]
    assert all(op.k_direction_align is None for op in module.walk() if isinstance(op, pto.MmadOp))
    barriers = [op for op in module.walk() if isinstance(op, pto.PipeBarrierOp)
                and op.pipe.data == "mte1"]
    assert bool(barriers) == (cdiv(k, 8) % 2 == 1)
    rng = np.random.default_rng(k)
    a = rng.standard_normal((40, k)).astype(np.float32)
    b = rng.standard_normal((k, 40)).astype(np.float32)
    inputs = {"at": zz(a.T, 8, col_pad=16), "b": zz(b, 8, col_pad=16)}
    got = run(module, inputs).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    from mmair.executor.reference import reference_outputs
    from mmair.executor.runner import run_module

    result = run_module(module, inputs=inputs)
    entry = next(op for op in module.walk() if op.name == "func.func")
    (ref,), _ = reference_outputs(module, entry, inputs, result, None)
    np.testing.assert_allclose(ref.values, got, rtol=1e-5, atol=1e-5)
