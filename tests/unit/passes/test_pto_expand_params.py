"""pto-expand-params: the tile-level kernels and their raw-form expansion compute the same
results (differential, on random pto-tile-matmul kernels over targets, types, shapes, tiles,
transposes, bias and GEMV rows), and the expansion really uses the raw forms.

Every kernel runs with the sync checker on (`run`), synchronised as `mmair-lower` does it
(`pto-insert-sync` last) before the expansion, so a footprint wider than the bytes a raw-form
instruction touches fails as a false race (the load_2d loop on L0A, issue 10)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pto_testing import matmul_text, parse, random_operand
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.passes import PassPipeline

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.passes import get_all_passes
from mmair.passes.pto_expand_params import _expandable

RAW = (pto.CopyNd2NzOp, pto.Load2DOp, pto.Load2DTransposeOp, pto.MmadOp, pto.FixpipeCopyOp,
       pto.CopyL1BtOp)
TILE_LEVEL = (pto.MteL1L0AOp, pto.MteL1L0BOp, pto.MadOp, pto.MadAccOp, pto.MadBiasOp, pto.FixpipeOp,
              pto.MteL1BtOp)


def run(module, inputs):
    """`run_module` with the sync checker on."""
    return run_module(module, inputs=inputs, sync_check=True)


def synced(ctx, module, then: str = "") -> None:
    """Synchronise a hand-written kernel without flags (`pto-insert-sync`), then apply `then`."""
    spec = "pto-insert-sync" + (f",{then}" if then else "")
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)


def lowered(text: str, tiles: str, expand: bool):
    """`pto-tile-matmul{tiles}` as `mmair-lower` (addresses, sync), then `pto-expand-params`."""
    ctx, module = parse(text)
    spec = f"pto-tile-matmul{{{tiles}}},pto-assign-addresses,pto-insert-sync" + \
        (",pto-expand-params" if expand else "")
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    from mmair.tools.diagnostics import verify_module

    verify_module(module)
    return module


COMBOS = [("a2", "f16", "f16", "f32"), ("a2", "bf16", "bf16", "f16"), ("a2", "f32", "f32", "f32"),
          ("a5", "f16", "f16", "f32"), ("a5", "s8", "s8", "s32"), ("a3", "f16", "f16", "bf16"),
          ("a2", "s8", "s8", "s32"), ("a2", "s4", "s4", "s32"), ("a3", "s4", "s4", "s32")]


def combo_constraints(lhs: str, tm: int, tk: int, ta: bool, tb: bool, bias: bool,
                      ) -> tuple[int, int, int, bool, bool, bool]:
    """(tile-m, tile-n, tile-k, transpose_a, transpose_b, bias) a combo's element type allows:
    s8 tiles of 32 (k 64); s4 tiles of 64, A as is (no target transposes a 4-bit fractal into
    L0A), no bias form."""
    if lhs == "s8":
        return (tm and 32), 32, (tk and 64), ta, tb, bias
    if lhs == "s4":
        return (tm and 64), 64, (tk and 64), False, tb, False
    return tm, 32, tk, ta, tb, bias


@settings(max_examples=60, deadline=None)
@given(
    combo=st.sampled_from(COMBOS),
    m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 90),
    tm=st.sampled_from([0, 16, 32]), tk=st.sampled_from([0, 32, 64]),
    ta=st.booleans(), tb=st.booleans(), bias=st.booleans(), seed=st.integers(0, 999),
)
def test_expanded_kernels_equal_tile_level(combo, m, n, k, tm, tk, ta, tb, bias, seed):
    target, lhs, rhs, out = combo
    from mmair.isa.ascend import targets as isa

    t = isa.get_target(target)
    acc = pto.matmul_accumulator(t, lhs, rhs)
    tm, tn, tk, ta, tb, bias = combo_constraints(lhs, tm, tk, ta, tb, bias)
    if ta and m > 1 and tm and m % tm == 1 and not t.gemv_disable:
        tm = 0  # a given one-row tile of a transposed A is refused (test_gemv_rule)
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None)
    tiles = f"tile-m={tm} tile-n={tn} tile-k={tk}"
    rng = np.random.default_rng(seed)
    inputs = {"a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
              "b": random_operand(rng, rhs, (n, k) if tb else (k, n))}
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,))
    base = run(lowered(text, tiles, False), inputs).outputs["c"]
    module = lowered(text, tiles, True)
    raw = run(module, inputs).outputs["c"]
    if raw.dtype.kind in "iu":
        np.testing.assert_array_equal(raw, base)
    else:  # same products; the f32 BLAS may sum the differently strided operands in another order,
        # and an f16/bf16 output rounds that f32 difference to at most one ulp of the output type
        eps = max(float(np.finfo(np.float32).eps) * 100, float(ml_dtypes.finfo(raw.dtype).eps))
        scale = float(np.abs(base.astype(np.float64)).max(initial=1.0))
        np.testing.assert_allclose(raw, base, rtol=eps, atol=eps * scale)
    kinds = {type(op) for op in module.walk()}
    assert pto.CopyNd2NzOp in kinds or (lhs == "s4" and k % 2)  # odd K: no whole-byte GM rows
    if ta and lhs == "f32" and not t.dn2nz and m > 1:  # A^T zz -> LoadDataWithTranspose squares
        assert any(isinstance(op, pto.Load2DTransposeOp) and op.dst.type.space_name == "l0a"
                   for op in module.walk())
    left = [op for op in module.walk() if isinstance(op, TILE_LEVEL)]
    if left:  # only a kernel with an L0 move the raw forms do not cover stays tile-level
        assert any(not _expandable(op, t) for op in left)
    else:
        assert pto.MmadOp in kinds and pto.FixpipeCopyOp in kinds


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_gemv_row_expands_to_a_vector_load(target):
    """M = 1: the row goes GM -> L1 as {nValue 1, dstNzC0Stride 1} and to L0A as whole fractals
    (the Ascend C GEMV sample), and the mmad runs as GEMV (a2) or with disable_gemv (a5)."""
    module = lowered(matmul_text(1, 32, 256, "f16", "f16", "f32", target), "", True)
    copies = [op for op in module.walk() if isinstance(op, pto.CopyNd2NzOp)]
    mmads = [op for op in module.walk() if isinstance(op, pto.MmadOp)]
    if target == "a2":
        row = next(op for op in copies if op.dst.type.layout_name == "nd")
        assert pto.static_value(row.n_value) == 1 and pto.static_value(row.dst_nz_c0_stride) == 1
        assert all(op.disable_gemv is None for op in mmads)
    else:
        assert all(op.disable_gemv is not None for op in mmads)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 256)).astype(np.float16)
    b = rng.standard_normal((256, 32)).astype(np.float16)
    got = run(module, {"a": a, "b": b}).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4,
                               atol=1e-3)


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_fixpipe_copy_channel_split_runs(target):
    """An expanded kernel whose Fixpipe is switched to the F32 Channel Split NZ output (as the
    Ascend C fixpipe_l0c2gm scenario 7: dstStride M * 8 * 4 / 32 on V220, M * 8 elements on a5)
    writes C as 16 x 8 blocks, the sample's golden C.reshape(M/16, 16, N/8, 8).transpose(2, 0, 1, 3)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, UnitAttr

    from mmair.tools.diagnostics import verify_module

    m, n, k = 32, 24, 16
    module = lowered(matmul_text(m, n, k, "f16", "f16", "f32", target), "", True)
    (fp,) = [op for op in module.walk() if isinstance(op, pto.FixpipeCopyOp)]
    fp.properties["layout"] = StringAttr("nz2nz")
    fp.properties["channel_split"] = UnitAttr()
    stride = m * 8 * 4 // 32 if target == "a2" else m * 8
    cst = arith.ConstantOp(IntegerAttr(stride, IndexType()))
    fp.parent_block().insert_op_before(cst, fp)
    fp.operands[6] = cst.result  # dst_stride
    verify_module(module)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    got = run(module, {"a": a, "b": b}).outputs["c"].reshape(-1)
    c = a.astype(np.float32) @ b.astype(np.float32)
    golden = c.reshape(m // 16, 16, n // 8, 8).transpose(2, 0, 1, 3).reshape(-1)
    np.testing.assert_allclose(got, golden, rtol=1e-5, atol=1e-5)


def nz2nz_kernel(target: str, elem: str, acc: str, out: str, quant: str, m: int, n: int, k: int,
                 c0: int, word: int = 0, nf: int | None = None) -> str:
    """A tile-level kernel whose Fixpipe writes the first `nf` (default n) columns of C as NZ
    blocks of `c0` channels to a GM memref (N1, M1, 16, c0); `word` is the QUANT_PRE scalar."""
    nf = n if nf is None else nf
    a, b = f"memref<{m}x{k}x{elem}>", f"memref<{k}x{n}x{elem}>"
    dst = f"memref<{-(-nf // c0)}x{-(-m // 16)}x16x{c0}x{out}>"
    scalar = " scalar %w" if quant != "none" else ""
    return f"""builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @k(%a: {a}, %b: {b}, %c: {dst}) {{
    %cm = arith.constant {m} : index
    %cn = arith.constant {n} : index
    %cnf = arith.constant {nf} : index
    %ck = arith.constant {k} : index
    %w = arith.constant {word} : i64
    %a_l1 = pto.alloc : !pto.tile<l1, {m}x{k}x{elem}, nz>
    %b_l1 = pto.alloc : !pto.tile<l1, {k}x{n}x{elem}, zz>
    %a_l0a = pto.alloc : !pto.tile<l0a, {m}x{k}x{elem}, {"nz" if target == "a5" else "zz"}>
    %b_l0b = pto.alloc : !pto.tile<l0b, {k}x{n}x{elem}, zn>
    %c_l0c = pto.alloc : !pto.tile<l0c, {m}x{n}x{acc}, nz>
    pto.mte_gm_l1 %a, %a_l1, %cm, %ck : {a}, !pto.tile<l1, {m}x{k}x{elem}, nz>
    pto.mte_l1_l0a %a_l1, %a_l0a, %cm, %ck : !pto.tile<l1, {m}x{k}x{elem}, nz>, !pto.tile<l0a, {m}x{k}x{elem}, {"nz" if target == "a5" else "zz"}>
    pto.mte_gm_l1 %b, %b_l1, %ck, %cn : {b}, !pto.tile<l1, {k}x{n}x{elem}, zz>
    pto.mte_l1_l0b %b_l1, %b_l0b, %ck, %cn : !pto.tile<l1, {k}x{n}x{elem}, zz>, !pto.tile<l0b, {k}x{n}x{elem}, zn>
    pto.mad %a_l0a, %b_l0b, %c_l0c, %cm, %cn, %ck : !pto.tile<l0a, {m}x{k}x{elem}, {"nz" if target == "a5" else "zz"}>, !pto.tile<l0b, {k}x{n}x{elem}, zn>, !pto.tile<l0c, {m}x{n}x{acc}, nz>
    pto.fixpipe %c_l0c, %c, %cm, %cnf{scalar} {{layout = "nz2nz", quant = "{quant}"}} : !pto.tile<l0c, {m}x{n}x{acc}, nz>, {dst}
    func.return
  }}
}}"""


@pytest.mark.parametrize("target", ["a2", "a5"])
@pytest.mark.parametrize("n, nf", [(32, 32), (64, 64)])
def test_b8_nz_fixpipe_expands_with_channel_merge(target, n, nf):
    """An s8 kernel with B staged Nz in L1 (SplitBTransposeForS4S8: LoadDataWithTranspose squares)
    and an NZ Fixpipe (REQ8, scale 1) into a (N1, M1, 16, 32) GM memref expands whole: the
    channel-merged output (16 x 32 blocks) is the same bytes as tile level. (n = 48, whose last
    16 channels the hardware writes as a 16-wide block, is a verifier error:
    test_b8_nz_fixpipe_with_a_half_block_is_rejected.)"""
    from mmair.tools.diagnostics import verify_module

    m, k = 32, 32
    from mmair.isa.ascend.quant import encode_quant_word

    word = encode_quant_word(1.0, signed_output=True)  # REQ8, scale 1, s8
    text = nz2nz_kernel(target, "i8", "i32", "i8", "req8", m, n, k, 32, word, nf).replace(
        f"l1, {k}x{n}xi8, zz>", f"l1, {k}x{n}xi8, nz>")
    ctx, module = parse(text)
    synced(ctx, module)
    base_module = module.clone()
    PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
    verify_module(module)
    kinds = {type(op) for op in module.walk()}
    assert (pto.FixpipeCopyOp in kinds) == (pto.Load2DTransposeOp in kinds) == (nf % 32 == 0)
    rng = np.random.default_rng(n)
    inputs = {"a": rng.integers(-3, 4, (m, k)).astype(np.int8),
              "b": rng.integers(-3, 4, (k, n)).astype(np.int8)}
    got = run(module, inputs).outputs["c"]
    base = run(base_module, inputs).outputs["c"]
    c = inputs["a"].astype(np.int32) @ inputs["b"].astype(np.int32)  # |c| <= 288: saturates
    expect = np.clip(c, -128, 127).astype(np.int8)[:, :nf]
    n1 = -(-nf // 32)  # the memref (N1, M1, 16, 32) read back as [m, N1 * 32]: C in its first nf
    np.testing.assert_array_equal(base.transpose(1, 2, 0, 3).reshape(m, n1 * 32)[:, :nf], expect)
    np.testing.assert_array_equal(got, base)


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_f16_nz_fixpipe_expands(target):
    """f32 -> f16 NZ Fixpipe into a (N1, M1, 16, 16) memref: expanded and equal to tile level."""
    m, n, k = 32, 48, 16
    ctx, module = parse(nz2nz_kernel(target, "f16", "f32", "f16", "f322f16", m, n, k, 16)
                        .replace(" scalar %w", ""))
    synced(ctx, module)
    base_module = module.clone()
    PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
    assert any(isinstance(op, pto.FixpipeCopyOp) for op in module.walk())
    rng = np.random.default_rng(3)
    inputs = {"a": rng.standard_normal((m, k)).astype(np.float16),
              "b": rng.standard_normal((k, n)).astype(np.float16)}
    got = run(module, inputs).outputs["c"]
    base = run(base_module, inputs).outputs["c"]
    c = (inputs["a"].astype(np.float32) @ inputs["b"].astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(base.astype(np.float32),
                               c.reshape(2, 16, 3, 16).transpose(2, 0, 1, 3).astype(np.float32),
                               rtol=2e-3, atol=2e-3)
    np.testing.assert_array_equal(got, base)


@pytest.mark.parametrize("m, n, k", [(40, 32, 56), (17, 20, 33)])
def test_dn2nz_load_expands_to_copy_dn2nz(m, n, k):
    """On a5 a transposed A comes to L1 by DN2NZ; the expansion writes it as copy_dn2nz (the
    transposed-A call of the Ascend C DN2NZ page) and the kernel still computes A x B."""
    text = matmul_text(m, n, k, "f16", "f16", "f32", "a5", transpose_a=True)
    module = lowered(text, "", True)
    copies = [op for op in module.walk() if isinstance(op, pto.CopyDn2NzOp)]
    assert copies and not any(isinstance(op, pto.MteGmL1Op) for op in module.walk())
    assert pto.static_value(copies[0].src_d_value) == m  # the GM row of A^T holds m elements
    rng = np.random.default_rng(m)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    got = run(module, {"a": np.ascontiguousarray(a.T), "b": b}).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4,
                               atol=1e-3)


LOAD2D_V2_KERNEL = """builtin.module attributes {pto.target = "a5"} {
  func.func @k(%at: memref<70x40xf16>, %b: memref<70x50xf16>, %c: memref<40x50xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c40 = arith.constant 40 : index
    %c48 = arith.constant 48 : index
    %c50 = arith.constant 50 : index
    %c70 = arith.constant 70 : index
    %c80 = arith.constant 80 : index
    %a1 = pto.alloc : !pto.tile<l1, 80x48xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 80x64xf16, nz>
    %a2 = pto.alloc : !pto.tile<l0a, 48x80xf16, nz>
    %b2 = pto.alloc : !pto.tile<l0b, 80x64xf16, zn>
    %c1o = pto.alloc : !pto.tile<l0c, 48x64xf32, nz>
    pto.copy_nd2nz %at, %a1[%c0] nd_num %c1 n_value %c70 d_value %c40 src_nd_matrix_stride %c0 src_d_value %c40 dst_nz_c0_stride %c80 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<70x40xf16>, !pto.tile<l1, 80x48xf16, nz>
    pto.copy_nd2nz %b, %b1[%c0] nd_num %c1 n_value %c70 d_value %c50 src_nd_matrix_stride %c0 src_d_value %c50 dst_nz_c0_stride %c80 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<70x50xf16>, !pto.tile<l1, 80x64xf16, nz>
    pto.load_2d_v2 %a1[%c0], %a2[%c0] m_start_position %c0 k_start_position %c0 m_step %c5 k_step %c3 src_stride %c5 dst_stride %c3 if_transpose : !pto.tile<l1, 80x48xf16, nz>, !pto.tile<l0a, 48x80xf16, nz>
    pto.load_2d_v2 %b1[%c0], %b2[%c0] m_start_position %c0 k_start_position %c0 m_step %c5 k_step %c4 src_stride %c5 dst_stride %c4 if_transpose : !pto.tile<l1, 80x64xf16, nz>, !pto.tile<l0b, 80x64xf16, zn>
    pto.mmad %a2, %b2, %c1o, %c40, %c50, %c70 : !pto.tile<l0a, 48x80xf16, nz>, !pto.tile<l0b, 80x64xf16, zn>, !pto.tile<l0c, 48x64xf32, nz>
    pto.fixpipe_copy %c1o[%c0], %c n_size %c50 m_size %c40 src_stride %c48 dst_stride %c50 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 48x64xf32, nz>, memref<40x50xf32>
    func.return
  }
}"""


def test_load2d_v2_kernel_runs():
    """The load_data_2dv2_l12l0 sample's scenario 4 written in raw forms (half, A given as
    [k, m] = 70 x 40, B as [k, n] = 70 x 50, both transposed by LoadData2DParamsV2 on the way
    to L0A Nz / L0B Zn) computes A x B through the IR executor."""
    ctx, module = parse(LOAD2D_V2_KERNEL)
    synced(ctx, module)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((40, 70)).astype(np.float16)
    b = rng.standard_normal((70, 50)).astype(np.float16)
    got = run(module, {"at": np.ascontiguousarray(a.T), "b": b}).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4,
                               atol=1e-3)


def test_sid_is_not_processed():
    """LoadData2DParams.sid / LoadData2DParamsV2.sid: "deprecated, not processed" - a kernel whose
    loads carry sid = 7 computes the same C."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    rng = np.random.default_rng(11)
    a = rng.standard_normal((20, 40)).astype(np.float16)
    b = rng.standard_normal((40, 24)).astype(np.float16)
    module = lowered(matmul_text(20, 24, 40, "f16", "f16", "f32", "a2"), "", True)
    base = run(module, {"a": a, "b": b}).outputs["c"]
    loads = [op for op in module.walk() if isinstance(op, pto.Load2DOp)]
    assert loads
    for op in loads:
        op.properties["sid"] = IntegerAttr(7, i64)
    from mmair.tools.diagnostics import verify_module

    verify_module(module)
    np.testing.assert_array_equal(run(module, {"a": a, "b": b}).outputs["c"], base)
    ctx, v2 = parse(LOAD2D_V2_KERNEL.replace("if_transpose :", "if_transpose {sid = 7 : i64} :"))
    synced(ctx, v2)
    at = rng.standard_normal((70, 40)).astype(np.float16)
    bb = rng.standard_normal((70, 50)).astype(np.float16)
    ctx, plain = parse(LOAD2D_V2_KERNEL)
    synced(ctx, plain)
    np.testing.assert_array_equal(run(v2, {"at": at, "b": bb}).outputs["c"],
                                  run(plain, {"at": at, "b": bb}).outputs["c"])


def test_zz_staging_beyond_the_matrix_stride_range_copies_the_partial_slab_first():
    """examples/matmul_f16.mlir: B (100 x 200 f16) is staged zz in L1 with 13 fractal columns, so
    one row of fractals is 13 * 16 * 16 = 3328 elements and the partial last slab (100 = 6 * 16 + 4
    rows) is 6 * 3328 = 19968 > 16384 elements from slab 0, past dstNzMatrixStride's range. The
    pass copies it first, as matrix 1 of a transfer based at slab 5 (one slab stride), then the six
    full slabs after a `pipe_barrier mte2`, rewriting slab 5. Same bytes as tile level, clean under
    the sync checker (which also catches the overlapping MTE2 writes if the barrier is missing)."""
    from pathlib import Path

    from mmair.executor.engine.errors import ExecutionError
    from mmair.tools.diagnostics import verify_module

    text = (Path(__file__).parents[3] / "examples" / "matmul_f16.mlir").read_text()
    rng = np.random.default_rng(7)
    inputs = {"a": random_operand(rng, "f16", (300, 100)), "b": random_operand(rng, "f16", (100, 200))}
    outputs = []
    for spec in ("mmair-lower", "mmair-lower,pto-expand-params"):
        ctx, module = parse(text)
        PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
        verify_module(module)
        outputs.append((module, run(module, inputs).outputs["c"]))
    (_, base), (module, raw) = outputs
    assert raw.tobytes() == base.tobytes()
    np.testing.assert_allclose(raw, inputs["a"].astype(np.float32) @ inputs["b"].astype(np.float32),
                               rtol=1e-5, atol=1e-3)
    assert not any(isinstance(op, pto.MteGmL1Op) for op in module.walk())
    b_copies = [op for op in module.walk()
                if isinstance(op, pto.CopyNd2NzOp) and op.dst.type.layout_name == "zz"]
    assert len(b_copies) == 2
    tail, whole = b_copies
    consts = {op.result: op.value.value.data for op in module.walk()
              if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr)}
    fields = ("nd_num", "n_value", "src_nd_matrix_stride", "dst_nz_matrix_stride")
    assert [consts[getattr(tail, f)] for f in fields] == [2, 4, 6 * 16 * 200, 3328]
    assert consts[tail.dst_offset] == 5 * 3328
    assert [consts[getattr(whole, f)] for f in fields] == [6, 16, 16 * 200, 3328]
    barrier = tail.next_op
    assert isinstance(barrier, pto.PipeBarrierOp) and barrier.pipe.data == "mte2"
    between = barrier.next_op
    while between is not whole:  # only the field constants of the second copy
        assert isinstance(between, arith.ConstantOp)
        between = between.next_op
    # without the barrier the two MTE2 transfers race on slab 5
    barrier.detach()
    barrier.erase()
    with pytest.raises(ExecutionError, match="race"):
        run(module, inputs)


@pytest.mark.parametrize("target", ["a2", "a3", "a5"])
@pytest.mark.parametrize("m, n, k, tiles, transpose_a, bias", [
    (33, 48, 64, "tile-n=32", False, False),  # dynamic ns: the L1 -> L0B move of the last tile
    (70, 70, 70, "", False, True),  # one tile each way, n = 70: 5 fractal columns (odd)
    (64, 96, 200, "tile-m=32 tile-n=64 tile-k=64", False, False),  # B whole in L1: [k, j] starts
    (40, 80, 100, "multi-buffer=2 tile-n=32 tile-k=64", False, True),  # unrolled ping-pong loops
    (1, 80, 100, "", False, False),  # the GEMV row
    (33, 48, 64, "tile-n=32", True, False),  # a5: DN2NZ for A^T
])
def test_s8_kernels_expand_end_to_end(target, m, n, k, tiles, transpose_a, bias):
    """pto-tile-matmul stages an s8 B Nz in L1 (ND2NZ), so every L1 -> L0B move is the
    SplitBTransposeForS4S8 loop (LoadDataWithTranspose squares) and the whole s8 function expands,
    also with dynamic n and loop-index source starts; C is the same bytes as tile level and
    equals the integer product. A transposed s8 A on a2 / a3 (Nz of A^T in L1) moves to the zz
    L0A as LoadDataWithTranspose squares too."""
    text = matmul_text(m, n, k, "s8", "s8", "s32", target, transpose_a, False,
                       "s32" if bias else None)
    rng = np.random.default_rng(m * n + k)
    a = random_operand(rng, "s8", (k, m) if transpose_a else (m, k))
    b = random_operand(rng, "s8", (k, n))
    inputs = {"a": a, "b": b}
    expect = (a.T if transpose_a else a).astype(np.int64) @ b.astype(np.int64)
    if bias:
        inputs["bias"] = random_operand(rng, "s32", (n,))
        expect += inputs["bias"]
    tile_module = lowered(text, tiles, False)
    assert all(op.src.type.layout_name == "nz" for op in tile_module.walk()
               if isinstance(op, pto.MteL1L0BOp))
    base = run(tile_module, inputs).outputs["c"]
    module = lowered(text, tiles, True)
    raw = run(module, inputs).outputs["c"]
    assert raw.tobytes() == base.tobytes()
    np.testing.assert_array_equal(base, expect.astype(np.int32))
    assert not {op.name for op in module.walk() if isinstance(op, TILE_LEVEL)}
    transposes = [op for op in module.walk() if isinstance(op, pto.Load2DTransposeOp)]
    assert any(op.dst.type.space_name == "l0b" for op in transposes)
    if transpose_a and target != "a5":  # A^T's squares into the zz L0A
        assert any(op.dst.type.space_name == "l0a" for op in transposes)


def test_b8_square_loads_need_a_known_multiple_start():
    """A b8 B move from nz whose source start is a function argument (not provably a multiple of
    32, the square edge) keeps the function tile-level; a start from a loop stepping by 32 or a
    constant 32 expands."""
    def kernel(start: str, arg: str) -> str:
        return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%b: memref<64x32xi8>{arg}) {{
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %b1 = pto.alloc : !pto.tile<l1, 64x32xi8, nz>
    %b0 = pto.alloc : !pto.tile<l0b, 32x32xi8, zn>
    pto.mte_gm_l1 %b, %b1, %c64, %c32 : memref<64x32xi8>, !pto.tile<l1, 64x32xi8, nz>
    scf.for %i = %c0 to %c64 step %c32 {{
      pto.mte_l1_l0b %b1[{start}, %c0], %b0, %c32, %c32 : !pto.tile<l1, 64x32xi8, nz>, !pto.tile<l0b, 32x32xi8, zn>
    }}
    func.return
  }}
}}"""
    from mmair.isa.ascend import targets as isa
    from mmair.passes.pto_expand_params import _b8_nz_b_square_loads

    for start, arg, expands in (("%i", "", True), ("%c32", "", True), ("%s", ", %s: index", False)):
        _ctx, module = parse(kernel(start, arg))
        (move,) = [op for op in module.walk() if isinstance(op, pto.MteL1L0BOp)]
        assert _b8_nz_b_square_loads(move, isa.get_target("a2")) is expands, start


@pytest.mark.parametrize("target", ["a2", "a5"])
@pytest.mark.parametrize("n, bt_cols, expands", [(40, 48, True), (40, 40, False), (16, 16, True)])
def test_mte_l1_bt_expands_to_copy_l1_bt(target, n, bt_cols, expands):
    """mte_l1_bt becomes copy_l1_bt {1, ceil(n*4/unit), 0, 0} (the pto-isa / vllm-ascend bias
    copy; unit 64 B, 32 B on a5) when both tiles hold n rounded up to whole units; a 1 x 40 f32 BT tile
    (160 B) cannot take the 192 bytes of three 64-byte units on a2 and stays tile-level there, while
    five 32-byte units fit on a5. The kernel computes A x B + bias either way."""
    m, k = 16, 32
    text = f"""builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @k(%a: memref<{m}x{k}xf16>, %b: memref<{k}x{n}xf16>, %bias: memref<{n}xf32>, %c: memref<{m}x{n}xf32>) {{
    %c1 = arith.constant 1 : index
    %cm = arith.constant {m} : index
    %cn = arith.constant {n} : index
    %ck = arith.constant {k} : index
    %a1 = pto.alloc : !pto.tile<l1, {m}x{k}xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, {k}x{n}xf16, zz>
    %s1 = pto.alloc : !pto.tile<l1, 1x{bt_cols}xf32, nd>
    %bt = pto.alloc : !pto.tile<bt, 1x{bt_cols}xf32, nd>
    %a0 = pto.alloc : !pto.tile<l0a, {m}x{k}xf16, {"nz" if target == "a5" else "zz"}>
    %b0 = pto.alloc : !pto.tile<l0b, {k}x{n}xf16, zn>
    %c0t = pto.alloc : !pto.tile<l0c, {m}x{n}xf32, nz>
    pto.mte_gm_l1 %a, %a1, %cm, %ck : memref<{m}x{k}xf16>, !pto.tile<l1, {m}x{k}xf16, nz>
    pto.mte_gm_l1 %b, %b1, %ck, %cn : memref<{k}x{n}xf16>, !pto.tile<l1, {k}x{n}xf16, zz>
    pto.mte_gm_l1 %bias, %s1, %c1, %cn : memref<{n}xf32>, !pto.tile<l1, 1x{bt_cols}xf32, nd>
    pto.mte_l1_bt %s1, %bt, %cn : !pto.tile<l1, 1x{bt_cols}xf32, nd>, !pto.tile<bt, 1x{bt_cols}xf32, nd>
    pto.mte_l1_l0a %a1, %a0, %cm, %ck : !pto.tile<l1, {m}x{k}xf16, nz>, !pto.tile<l0a, {m}x{k}xf16, {"nz" if target == "a5" else "zz"}>
    pto.mte_l1_l0b %b1, %b0, %ck, %cn : !pto.tile<l1, {k}x{n}xf16, zz>, !pto.tile<l0b, {k}x{n}xf16, zn>
    pto.mad_bias %a0, %b0, %c0t, %bt, %cm, %cn, %ck : !pto.tile<l0a, {m}x{k}xf16, {"nz" if target == "a5" else "zz"}>, !pto.tile<l0b, {k}x{n}xf16, zn>, !pto.tile<l0c, {m}x{n}xf32, nz>, !pto.tile<bt, 1x{bt_cols}xf32, nd>
    pto.fixpipe %c0t, %c, %cm, %cn : !pto.tile<l0c, {m}x{n}xf32, nz>, memref<{m}x{n}xf32>
    func.return
  }}
}}"""
    from mmair.isa.ascend import params as isa_params
    from mmair.isa.ascend import targets as isa
    from mmair.tools.diagnostics import verify_module

    ctx, module = parse(text)
    base_module = module.clone()
    PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
    verify_module(module)
    copies = [op for op in module.walk() if isinstance(op, pto.CopyL1BtOp)]
    unit = isa_params.l1_bt_unit_bytes(isa.get_target(target))
    fits = -(-n * 4 // unit) * unit <= bt_cols * 4
    assert fits == (expands or target == "a5")
    assert bool(copies) == fits
    if copies:
        assert pto.static_value(copies[0].block_len) == -(-n * 4 // unit)
    rng = np.random.default_rng(n)
    inputs = {"a": rng.standard_normal((m, k)).astype(np.float16),
              "b": rng.standard_normal((k, n)).astype(np.float16),
              "bias": rng.standard_normal(n).astype(np.float32)}
    got = run_module(module, inputs=inputs).outputs["c"]
    base = run_module(base_module, inputs=inputs).outputs["c"]
    np.testing.assert_allclose(got, base, rtol=1e-5, atol=1e-5)  # BLAS may sum in another order
    expect = inputs["a"].astype(np.float32) @ inputs["b"].astype(np.float32) + inputs["bias"]
    np.testing.assert_allclose(base, expect, rtol=1e-4, atol=1e-3)


def test_b8_nz_fixpipe_with_a_half_block_is_rejected():
    """Channel merge writes 16 x 32 blocks, and with n = 32q + 16 the last 16 channels a 16-wide
    block that the destination's 32-wide fractals do not hold: a static n is a verifier error, a
    dynamic one an execution error (tile level cannot say what the hardware writes)."""
    from mmair.executor.engine.errors import ExecutionError
    from mmair.isa.ascend.quant import encode_quant_word
    from mmair.tools.diagnostics import OpVerifyError

    word = encode_quant_word(1.0, signed_output=True)
    text = nz2nz_kernel("a2", "i8", "i32", "i8", "req8", 32, 64, 32, 32, word, 48).replace(
        "l1, 32x64xi8, zz>", "l1, 32x64xi8, nz>")
    with pytest.raises(OpVerifyError, match=r"requires n to be a multiple of 32 for nz2nz with s8 "
                                            r"output \(channel merge writes 16 x 32 blocks; the last "
                                            r"16 channels would form a narrower block"):
        parse(text)
    dynamic = text.replace("func.func @k(%a", "func.func @k(%nf: index, %a").replace(
        "%c, %cm, %cnf scalar", "%c, %cm, %nf scalar")
    _ctx, module = parse(dynamic)
    inputs = {"nf": 48, "a": np.ones((32, 32), np.int8), "b": np.ones((32, 64), np.int8)}
    with pytest.raises(ExecutionError, match=r"requires n to be a multiple of 32 for nz2nz with "
                                             r"8-bit output \(channel merge writes 16 x 32 blocks\), "
                                             r"got 48"):
        run_module(module, inputs=inputs)
    inputs["nf"] = 32
    got = run_module(module, inputs=inputs).outputs["c"]
    assert (got[0] == 32).all()  # C = 32 everywhere (REQ8 scale 1), block 0 holds channels 0-31


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_f32_nz_fixpipe_to_gm_c0_8_expands_with_channel_split(target):
    """An f32 NZ Fixpipe into a (N1, M1, 16, 8) GM memref: the hardware writes 16 x 8 blocks only
    with channel split (F32-Channel-Split), so the expansion sets it; same bytes as tile level,
    which is C.reshape(M1, 16, N1, 8).transpose(2, 0, 1, 3) (the fixpipe_l0c2gm scenario 7
    golden)."""
    m, n, k = 32, 48, 16
    ctx, module = parse(nz2nz_kernel(target, "f16", "f32", "f32", "none", m, n, k, 8)
                        .replace(" scalar %w", ""))
    base_module = module.clone()
    PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
    from mmair.tools.diagnostics import verify_module

    verify_module(module)
    (fp,) = [op for op in module.walk() if isinstance(op, pto.FixpipeCopyOp)]
    assert fp.channel_split is not None
    rng = np.random.default_rng(4)
    inputs = {"a": rng.standard_normal((m, k)).astype(np.float16),
              "b": rng.standard_normal((k, n)).astype(np.float16)}
    got = run_module(module, inputs=inputs).outputs["c"]
    base = run_module(base_module, inputs=inputs).outputs["c"]
    c = inputs["a"].astype(np.float32) @ inputs["b"].astype(np.float32)
    np.testing.assert_allclose(base, c.reshape(m // 16, 16, n // 8, 8).transpose(2, 0, 1, 3),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, base, rtol=1e-6, atol=1e-6)


def test_a_load3d_move_stays_tile_level_and_runs_as_before():
    """A `load3d` move (an f32 B staged Nz, PTOAS's TMOV form) has no raw expansion: the function
    keeps its tile-level L1 -> L0 and mad ops (its GM -> L1 loads still expand), and the result
    equals the unexpanded run's."""
    text = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
    %c16 = arith.constant 16 : index
    %a1 = pto.alloc : !pto.tile<l1, 16x16xf32, nz>
    %b1 = pto.alloc : !pto.tile<l1, 16x16xf32, nz>
    %a0 = pto.alloc : !pto.tile<l0a, 16x16xf32, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 16x16xf32, zn>
    %acc = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.mte_gm_l1 %a, %a1, %c16, %c16 : memref<16x16xf32>, !pto.tile<l1, 16x16xf32, nz>
    pto.mte_gm_l1 %b, %b1, %c16, %c16 : memref<16x16xf32>, !pto.tile<l1, 16x16xf32, nz>
    pto.mte_l1_l0a %a1, %a0, %c16, %c16 : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0a, 16x16xf32, zz>
    pto.mte_l1_l0b %b1, %b0, %c16, %c16 load3d : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>
    pto.mad %a0, %b0, %acc, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf32, zz>, !pto.tile<l0b, 16x16xf32, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.fixpipe %acc, %c, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    func.return
  }
}"""
    rng = np.random.default_rng(3)
    inputs = {"a": rng.standard_normal((16, 16), np.float32),
              "b": rng.standard_normal((16, 16), np.float32), "c": np.zeros((16, 16), np.float32)}
    results = []
    for then in ("", "pto-expand-params"):
        ctx, module = parse(text)
        synced(ctx, module, then)
        (move,) = [op for op in module.walk() if isinstance(op, pto.MteL1L0BOp)]
        assert not _expandable(move, pto.target_of(move))
        kinds = {type(op) for op in module.walk()}
        assert not kinds & {pto.Load2DOp, pto.Load2DTransposeOp, pto.MmadOp, pto.FixpipeCopyOp}
        assert (pto.CopyNd2NzOp in kinds) == bool(then)
        results.append(run(module, inputs).outputs["c"])
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], inputs["a"] @ inputs["b"], rtol=1e-5, atol=1e-5)
