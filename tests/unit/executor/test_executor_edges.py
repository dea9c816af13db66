"""Numeric edges of the executor that a plausible wrong implementation gets right on random data
(issue 18): rounding ties, a negative scale under ReLU, integer sums past 2^24, junk high bits of
narrow float containers, unaligned source starts, every transpose path of L1 -> L0 and nz2dn into
a tile, Fixpipe's per-column QUANT_PRE vector, its f32 datapath and the conversions it refuses.
Expected values are literals worked out by hand from the format definitions, or an
independent numpy formulation (the reference index formulas written out here, int64 matmul).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.executor.ascend import kernels as K
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory
from mmair.executor.runner import run_module
from mmair.executor.tcgen05.elements import decode_elements
from mmair.tools.diagnostics import LocatingParser, verify_module

SENTINEL = 99


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def offsets(layout: str, rows: int, cols: int, fr: int, fc: int) -> np.ndarray:
    """Flat element offset of padded-logical (r, c) for fractals of fr x fc elements: nz = column
    of fractals major, zz = row of fractals major, zn = zz with each fractal stored transposed
    (reference formulas: Ascend C "ND2NZ"/LoadData data layouts)."""
    R1, C1 = _ceil(rows, fr), _ceil(cols, fc)
    r, c = np.indices((R1 * fr, C1 * fc))
    inner = (r % fr) * fc + c % fc
    if layout == "nz":
        return (c // fc) * R1 * fr * fc + (r // fr) * fr * fc + inner
    if layout == "zz":
        return (r // fr) * C1 * fr * fc + (c // fc) * fr * fc + inner
    if layout == "zn":
        return (r // fr) * C1 * fr * fc + (c // fc) * fr * fc + (c % fc) * fr + r % fr
    raise ValueError(layout)


def _distinct_l1(mem: Memory, shape, layout: str, elem: str):
    t = mem.place("l1", shape, layout, elem)
    t.physical.reshape(-1)[:] = (np.arange(t.physical.size) % 113 + 1).astype(t.physical.dtype)
    return t


def _sentinel(mem: Memory, space: str, shape, layout: str, elem: str):
    t = mem.place(space, shape, layout, elem)
    t.physical[...] = SENTINEL
    return t


# ------------------------------------------------------------------------------------------------
# Rounding ties
# ------------------------------------------------------------------------------------------------


def _word(scale: float, offset: int = 0, signed: bool = True) -> int:
    # QUANT_PRE word: f32 scale bits 0-31, shift-1 bits 32-35, offset bits 37-45, sign bit 46
    return int(np.float32(scale).view(np.uint32)) | ((offset & 0x1FF) << 37) | (int(signed) << 46)


def test_quant_to_8_bits_rounds_ties_to_even() -> None:
    acc = np.array([[0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 126.5]], np.float32)
    got = K.quantize(acc, "qf322b8_pre", np.dtype(np.int8), word=_word(1.0))
    # half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2 (half up would give 1, 2, 3, 4, 0, -1, -2, 127)
    assert got.tolist() == [[0, 2, 2, 4, 0, -2, -2, 126]]


def test_quant_product_is_rounded_to_f32_before_the_8_bit_rounding() -> None:
    # x = 0x401fd80a (2.4975610...), M1 = 1 + 2^-10: the exact product is 2.50000000233, which
    # rounds to exactly 2.5 in f32 (the datapath's precision), a tie that goes to even: 2. A wider
    # product would round up to 3.
    x = np.array([[0x401FD80A]], np.uint32).view(np.float32)
    got = K.quantize(x, "qf322b8_pre", np.dtype(np.int8), word=_word(1 + 2.0**-10))
    assert got.tolist() == [[2]]


def test_req8_rounds_the_scaled_integer_ties_to_even() -> None:
    acc = np.array([[5, 15, 25, -5, -15]], np.int32)  # x 0.5 = 2.5, 7.5, 12.5, -2.5, -7.5
    got = K.quantize(acc, "req8", np.dtype(np.int8), word=_word(0.5))
    assert got.tolist() == [[2, 8, 12, -2, -8]]


def test_deqf16_rounds_ties_to_even() -> None:
    # f16 spacing is 2 in [2048, 4096): 2049 and 2051 are ties, 2050 is exact
    got = K.quantize(np.array([[2049, 2051, 2050, -2049]], np.int32), "deqf16",
                     np.dtype(np.float16), word=_word(1.0))
    assert got.astype(np.float32).tolist() == [[2048.0, 2052.0, 2050.0, -2048.0]]


def test_f32_to_f16_and_bf16_round_ties_to_even() -> None:
    u = 2.0**-11  # half an f16 ulp at 1.0
    acc = np.array([[1 + u, 1 + 3 * u, -(1 + u), 1 + 1.5 * u]], np.float32)
    f16 = K.quantize(acc, "f322f16", np.dtype(np.float16))
    assert f16.astype(np.float32).tolist() == [[1.0, 1 + 4 * u, -1.0, 1 + 2 * u]]
    v = 2.0**-8  # half a bf16 ulp at 1.0
    acc = np.array([[1 + v, 1 + 3 * v, -(1 + 3 * v), 1 + 0.5 * v]], np.float32)
    bf16 = K.quantize(acc, "f322bf16", np.dtype(ml_dtypes.bfloat16))
    assert bf16.astype(np.float32).tolist() == [[1.0, 1 + 4 * v, -(1 + 4 * v), 1.0]]


# ------------------------------------------------------------------------------------------------
# ReLU with a negative scale: the sign of the accumulator decides, not the sign of the product
# ------------------------------------------------------------------------------------------------


def test_relu_with_a_negative_scale_zeroes_negative_inputs_only() -> None:
    acc = np.array([[4.0, -4.0, 6.0, 0.0]], np.float32)
    got = K.quantize(acc, "qf322b8_pre", np.dtype(np.int8), relu=True, word=_word(-0.5))
    # M1 = -0.5 for x >= 0, M2 = 0 for x < 0 (ReLU): [-2, 0, -3, 0]
    assert got.tolist() == [[-2, 0, -3, 0]]
    got = K.quantize(acc, "qf322b8_pre", np.dtype(np.int8), relu=False, word=_word(-0.5))
    assert got.tolist() == [[-2, 2, -3, 0]]
    got = K.quantize(acc.astype(np.int32), "deqf16", np.dtype(np.float16), relu=True,
                     word=_word(-0.5))
    assert got.astype(np.float32).tolist() == [[-2.0, 0.0, -3.0, 0.0]]


# ------------------------------------------------------------------------------------------------
# Integer Mmad: exact past 2^24 (f32 would round odd sums)
# ------------------------------------------------------------------------------------------------


def test_integer_mad_is_exact_past_2_pow_24() -> None:
    mem = Memory("a2")
    M, N, Kd = 16, 16, 2048
    a = np.full((M, Kd), 127, np.int8)
    b = np.full((Kd, N), 127, np.int8)
    b[0, :] = 127 - np.arange(N)  # sums 127 * (127 * 2048 - j): odd for odd j, all > 2^24
    A = _sentinel(mem, "l0a", (M, Kd), "zz", "s8")
    B = _sentinel(mem, "l0b", (Kd, N), "zn", "s8")
    A.physical.reshape(-1)[offsets("zz", M, Kd, 16, 32)[:M, :Kd].ravel()] = a.ravel()
    B.physical.reshape(-1)[offsets("zn", Kd, N, 32, 16)[:Kd, :N].ravel()] = b.ravel()
    C = _sentinel(mem, "l0c", (M, N), "nz", "s32")
    K.mad(A, B, C, M, N, Kd)
    ref = a.astype(np.int64) @ b.astype(np.int64)
    assert ref.min() > 2**24 and (ref[0, 1::2] % 2 == 1).all()
    got = C.physical.reshape(-1)[offsets("nz", M, N, 16, 16)[:M, :N]]
    assert np.array_equal(got, ref)


# ------------------------------------------------------------------------------------------------
# fp6 / fp4 in byte containers: the unused high bits are not part of the value
# ------------------------------------------------------------------------------------------------


def _minifloat(code: int, e_bits: int, m_bits: int, bias: int) -> float:
    """Value of a finite-only (fn) sign/exponent/mantissa code, from the OCP MX definitions."""
    sign = -1.0 if code >> (e_bits + m_bits) & 1 else 1.0
    e = code >> m_bits & ((1 << e_bits) - 1)
    m = code & ((1 << m_bits) - 1)
    if e == 0:
        return sign * m / (1 << m_bits) * 2.0 ** (1 - bias)
    return sign * (1 + m / (1 << m_bits)) * 2.0 ** (e - bias)


@pytest.mark.parametrize(("type_name", "e_bits", "m_bits", "bias"),
                         [("e2m3", 2, 3, 1), ("e3m2", 3, 2, 3), ("e2m1", 2, 1, 1)])
def test_narrow_float_containers_ignore_junk_high_bits(type_name, e_bits, m_bits, bias) -> None:
    width = 1 + e_bits + m_bits
    codes = np.arange(1 << width)
    expected = [_minifloat(int(c), e_bits, m_bits, bias) for c in codes]
    for junk in range(1 << (8 - width)):
        raw = (codes | (junk << width)).astype(np.uint8)
        assert decode_elements(raw, type_name).tolist() == expected


# ------------------------------------------------------------------------------------------------
# L1 -> L0: every transpose path and unaligned starts
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elem", "space", "src_layout", "dst_layout", "fr", "fc", "dfr", "dfc", "rows", "cols",
     "row", "col", "transpose"),
    [
        # f16 16x16 fractals on both sides: whole fractals -> fast path, unaligned -> slow path
        ("f16", "l0a", "nz", "zz", 16, 16, 16, 16, 32, 48, 0, 0, True),
        ("f16", "l0a", "nz", "zz", 16, 16, 16, 16, 32, 48, 3, 16, True),
        ("f16", "l0a", "nz", "zz", 16, 16, 16, 16, 32, 48, 5, 16, False),
        ("f16", "l0a", "nz", "zz", 16, 16, 16, 16, 32, 32, 16, 3, False),
        # s8: L1 fractal 16x32, L0B fractal 32x16: transposed whole fractals -> fast path
        ("s8", "l0b", "nz", "zn", 16, 32, 32, 16, 64, 32, 0, 0, True),
        ("s8", "l0b", "nz", "zn", 16, 32, 32, 16, 64, 32, 0, 7, True),
        # s8 into L0A (16x32 both sides) transposed: fractal shapes differ -> slow path
        ("s8", "l0a", "nz", "zz", 16, 32, 16, 32, 32, 64, 0, 0, True),
        ("s8", "l0a", "nz", "zz", 16, 32, 16, 32, 32, 64, 0, 0, False),
    ],
)
def test_l1_to_l0_paths(elem, space, src_layout, dst_layout, fr, fc, dfr, dfc, rows, cols, row,
                        col, transpose) -> None:
    mem = Memory("a2")
    src_shape = (row + cols, col + rows) if transpose else (row + rows, col + cols)
    src_shape = (_ceil(src_shape[0], 16) * 16 + 16, _ceil(src_shape[1], 32) * 32)
    src = _distinct_l1(mem, src_shape, src_layout, elem)
    dst = _sentinel(mem, space, (rows, cols), dst_layout, elem)
    K.mte_l1_l0(src, dst, rows, cols, row, col, transpose)
    s_off = offsets(src_layout, *src_shape, fr, fc)
    logical_src = src.physical.reshape(-1)[s_off]  # padded-logical source
    if transpose:
        want = logical_src[row : row + cols, col : col + rows].T
    else:
        want = logical_src[row : row + rows, col : col + cols]
    d_off = offsets(dst_layout, rows, cols, dfr, dfc)
    assert np.array_equal(dst.physical.reshape(-1)[d_off[:rows, :cols]], want)


# ------------------------------------------------------------------------------------------------
# Fixpipe nz2dn into a tile
# ------------------------------------------------------------------------------------------------


def test_fixpipe_nz2dn_into_an_nd_tile_writes_the_transpose() -> None:
    mem = Memory("a2")
    M, N = 16, 32
    c = np.arange(M * N, dtype=np.float32).reshape(M, N)
    C = _sentinel(mem, "l0c", (M, N), "nz", "f32")
    C.physical.reshape(-1)[offsets("nz", M, N, 16, 16)[:M, :N].ravel()] = c.ravel()
    ub = _sentinel(mem, "ub", (N, M), "nd", "f32")
    K.fixpipe(C, ub, M, N, layout="nz2dn")
    assert np.array_equal(ub.physical.reshape(N, M), c.T)
    nd = _sentinel(mem, "ub", (M, N), "nd", "f32")
    K.fixpipe(C, nd, M, N, layout="nz2nd")
    assert np.array_equal(nd.physical.reshape(M, N), c)
    # read_logical defaults to the whole logical tile
    assert np.array_equal(K.read_logical(ub), c.T) and np.array_equal(K.read_logical(C, 3, 5), c[:3, :5])


# ------------------------------------------------------------------------------------------------
# Through the IR: a runtime source start with row != col, not fractal aligned
# ------------------------------------------------------------------------------------------------

_START_KERNEL = """builtin.module {
  func.func @k(%a: memref<64x64xf16>, %eye: memref<32x32xf16>, %out: memref<32x32xf32>,
               %r: index, %c: index) {
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %l1a = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
    %l1b = pto.alloc : !pto.tile<l1, 32x32xf16, zz>
    %l0a = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 32x32xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
    pto.mte_gm_l1 %a, %l1a, %c64, %c64 : memref<64x64xf16>, !pto.tile<l1, 64x64xf16, nz>
    pto.mte_gm_l1 %eye, %l1b, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, zz>
    pto.mte_l1_l0a %l1a[%r, %c], %l0a, %c32, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_l1_l0b %l1b, %l0b, %c32, %c32 : !pto.tile<l1, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.mad %l0a, %l0b, %acc, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe %acc, %out, %c32, %c32 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize(("r", "c"), [(5, 16), (16, 3), (7, 29)])
def test_runtime_unaligned_source_start_through_the_ir(r: int, c: int) -> None:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, _START_KERNEL, "start.mlir").parse_module()
    verify_module(module)
    a = np.arange(64 * 64).reshape(64, 64) % 251
    a = a.astype(np.float16)
    out = run_module(module, inputs={"a": a, "eye": np.eye(32, dtype=np.float16), "r": r, "c": c})
    # A window times the identity: the window itself, exactly (integers < 2048 are exact in f16)
    assert np.array_equal(out.outputs["out"], a[r : r + 32, c : c + 32].astype(np.float32))


# ------------------------------------------------------------------------------------------------
# Runtime faults of the GM <-> tile moves, each with its own message
# ------------------------------------------------------------------------------------------------


def test_gm_moves_check_sizes_and_ranks() -> None:
    from mmair.executor.engine.errors import ExecutionError

    mem = Memory("a2")
    t = mem.place("l1", (16, 32), "nz", "f16")
    gm = np.zeros((32, 64), np.float16)
    with pytest.raises(ExecutionError, match=r"requires cols in \[0, 32\] \(columns of the destination"):
        K.mte_gm_l1(gm, t, 16, 48)
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 16\] \(rows of the destination"):
        K.mte_gm_l1(gm, t, 20, 16)
    l0a = mem.place("l0a", (16, 16), "zz", "f16")
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 16\] \(rows of the destination"):
        K.mte_l1_l0(t, l0a, 17, 16)
    C = _sentinel(mem, "l0c", (16, 16), "nz", "f32")
    with pytest.raises(ExecutionError, match=r"requires a 1-D or 2-D GM memref, got shape \(2, 16, 16\)"):
        K.fixpipe(C, np.zeros((2, 16, 16), np.float32), 16, 16)
    src = mem.place("l1", (1, 64), "nd", "f32")
    bt = mem.place("bt", (1, 32), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"requires n in \[0, 32\] \(columns of the destination"):
        K.mte_l1_bt(src, bt, 48)
    ub = mem.place("ub", (1, 16), "nd", "f16")
    with pytest.raises(ExecutionError, match="copies 32 GM elements into the 16-element"):
        K.copy_gm_to_tile(np.zeros(32, np.float16), ub)
    with pytest.raises(ExecutionError, match="fills 32 GM elements from the 16-element"):
        K.copy_tile_to_gm(ub, np.zeros(32, np.float16))
    # the GEMV rule at run time: m = 1 reads L0A as an nd vector, so a zz lhs is refused
    a = mem.place("l0a", (16, 16), "zz", "f16")
    b = mem.place("l0b", (16, 16), "zn", "f16")
    with pytest.raises(ExecutionError, match="m = 1 with a zz lhs"):
        K.mad(a, b, C, 1, 16, 16)
    row = np.zeros(16, np.float32)  # a 1-D GM memref is one row
    K.fixpipe(C, row, 1, 16)
    assert (row == SENTINEL).all()


# Fixpipe quantization: the per-column QUANT_PRE vector, the f32 datapath, refused conversions


def _module(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return LocatingParser(ctx, text, "k.mlir").parse_module()


@pytest.mark.parametrize("form", ["fixpipe_copy", "fixpipe"])
def test_fixpipe_applies_the_per_column_quant_vector(form):
    # The raw kernel of test_pto_expand_params (a5: A^T and B through load_2d_v2, mmad, then
    # fixpipe_copy, or the tile-level fixpipe), quantized to s8 by a vector of QUANT_PRE words,
    # one per output column. The u64 words reach L1 through a u32 tile at the same address
    # (GM -> L1 moves no u64).
    from tests.unit.passes.test_pto_expand_params import LOAD2D_V2_KERNEL

    text = LOAD2D_V2_KERNEL.replace(
        "%c: memref<40x50xf32>)", "%c: memref<40x50xi8>, %v: memref<128xui32>)"
    ).replace("    %c1o = pto.alloc", """    %c128 = arith.constant 128 : index
    %v32 = pto.alloc {offset = 131072 : i64} : !pto.tile<l1, 1x128xui32, nd>
    %v64 = pto.alloc {offset = 131072 : i64} : !pto.tile<l1, 1x64xui64, nd>
    pto.mte_gm_l1 %v, %v32, %c1, %c128 : memref<128xui32>, !pto.tile<l1, 1x128xui32, nd>
    %c1o = pto.alloc""").replace(
        "dst_nd_stride %c0 : !pto.tile<l0c, 48x64xf32, nz>, memref<40x50xf32>",
        'dst_nd_stride %c0 vector %v64 : !pto.tile<l1, 1x64xui64, nd> {quant = "vqf322b8_pre"} : '
        "!pto.tile<l0c, 48x64xf32, nz>, memref<40x50xi8>")
    if form == "fixpipe":
        raw = next(line for line in text.splitlines() if "pto.fixpipe_copy" in line)
        text = text.replace(raw, '    pto.fixpipe %c1o, %c, %c40, %c50 vector %v64 : '
                                 '!pto.tile<l1, 1x64xui64, nd> {quant = "vqf322b8_pre"} : '
                                 '!pto.tile<l0c, 48x64xf32, nz>, memref<40x50xi8>')
    assert "vector %v64" in text
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, (40, 70)).astype(np.float16)
    b = rng.integers(-4, 5, (70, 50)).astype(np.float16)
    # Powers of two: exact although the hardware drops the scale's low 13 bits; bit 46 = signed
    # (s8) output, shift field 0, offset 0 (the QUANT_PRE layout in docs/ascend.md).
    scales = np.array([0.5, 0.25, 2.0, 1.0] * 16, np.float32)
    words = scales.view(np.uint32).astype(np.uint64) | np.uint64(1 << 46)
    out = run_module(_module(text), inputs={"at": np.ascontiguousarray(a.T), "b": b,
                                            "v": words.view(np.uint32)}).outputs["c"]
    # Integer products: the f32 sums are exact; odd sums x 0.5 / 0.25 are ties (to even).
    product = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64) * scales[None, :50]
    expected = np.clip(np.rint(product), -128, 127).astype(np.int8)
    assert np.array_equal(out, expected)


def _quant_word(scale: float, signed: bool = True) -> int:
    # QUANT_PRE (docs/ascend.md): f32 scale bits 0-31, shift - 1 in bits 32-35 (0 here), offset
    # bits 37-45 (0), bit 46 = signed output
    return int(np.float32(scale).view(np.uint32)) | int(signed) << 46


def test_quant_converts_the_s32_accumulator_to_f32_before_scaling():
    # The fixpipe datapath is f32 (docs/executor.md): x = 2^24 + 1 becomes 2^24 in f32, so
    # x * 2^-25 is the tie 0.5, which rounds to even 0 (an f64 product would give 0.5 + 2^-25 -> 1).
    acc = np.array([[2**24 + 1, -(2**24 + 1), 2**24 + 3]], np.int32)
    got = K.quantize(acc, "req8", np.dtype(np.int8), word=_quant_word(2.0**-25))
    # 2^24 + 3 is 2^24 + 4 in f32 (ties to even): x 2^-25 = 0.5 + 2^-23 -> 1
    assert got.tolist() == [[0, 0, 1]]


@pytest.mark.parametrize(("mode", "kwargs", "dtype", "message"), [
    ("vreq8", {}, np.int8, r"^quant vreq8 requires a vector operand$"),
    ("req8", {}, np.int8, r"^quant req8 requires a scalar operand$"),
    ("vqf322bf16_pre", {"words": np.zeros(16, np.uint64)}, ml_dtypes.bfloat16,
     r"^quant mode vqf322bf16_pre is not supported by the executor$"),
    ("req8", {"word": _quant_word(1.0)}, np.int16,
     r"^quant req8 requires an s8 or u8 destination, got int16$"),
])
def test_quant_refuses_what_it_cannot_convert(mode, kwargs, dtype, message):
    with pytest.raises(ExecutionError, match=message):
        K.quantize(np.zeros((16, 16), np.int32), mode, np.dtype(dtype), **kwargs)
