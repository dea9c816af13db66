"""pto op kernels against independent numpy formulations; the f16 -> f32 conversion table holds
every half-precision value.

The expected arrangements are built from the explicit index formulas of docs/ascend.md ("Fractal layouts",
§6.2, §8.2) with np.indices, not with the layout helpers the executor uses.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.executor.ascend import kernels as K
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory

SENTINEL = 99


def ceil(a, b):
    return -(-a // b)


def frac_offsets(layout: str, rows: int, cols: int, c0: int) -> np.ndarray:
    """Flat element offset of padded-logical (r, c), the Nz/Zz formulas of docs/ascend.md."""
    if layout in ("nz", "zz"):
        R1, C1 = ceil(rows, 16), ceil(cols, c0)
        r, c = np.indices((R1 * 16, C1 * c0))
        if layout == "nz":
            return (c // c0) * R1 * 16 * c0 + (r // 16) * 16 * c0 + (r % 16) * c0 + c % c0
        return (r // 16) * C1 * 16 * c0 + (c // c0) * 16 * c0 + (r % 16) * c0 + c % c0
    if layout == "zn":  # B[K, N]: fractals K0 x 16, K innermost
        K1, N1 = ceil(rows, c0), ceil(cols, 16)
        k, n = np.indices((K1 * c0, N1 * 16))
        return (k // c0) * N1 * 16 * c0 + (n // 16) * 16 * c0 + (n % 16) * c0 + k % c0
    raise ValueError(layout)


def place(mem, space, shape, layout, elem, fill=SENTINEL):
    t = mem.place(space, shape, layout, elem)
    t.physical[...] = fill
    return t


C0 = {"f16": 16, "bf16": 16, "f32": 8, "s8": 32, "u16": 16}
DT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "s8": np.int8,
      "s32": np.int32}


# ------------------------------------------------------------------------------------------------
# GM -> L1
# ------------------------------------------------------------------------------------------------


def test_nd2nz_asc_example_20x28():
    mem = Memory("a2")
    x = np.arange(20 * 28).reshape(20, 28).astype(np.float16)
    t = place(mem, "l1", (20, 28), "nz", "f16")
    K.mte_gm_l1(x, t, 20, 28)
    assert t.physical.shape == (2, 2, 16, 16)
    assert list(t.physical[1, 0, 0]) == list(range(16, 28)) + [0, 0, 0, 0]


@pytest.mark.parametrize("elem", ["f16", "f32", "s8"])
@pytest.mark.parametrize("layout", ["nz", "zz"])
@pytest.mark.parametrize("shape,rows,cols", [((30, 70), 30, 70), ((48, 80), 20, 37), ((16, 32), 16, 32)])
def test_nd2nz_places_elements_zero_fills_the_c0_tail_and_keeps_other_rows(elem, layout, shape, rows, cols):
    mem = Memory("a2")
    rng = np.random.default_rng(1)
    src = rng.integers(1, 50, size=(rows + 3, cols + 5)).astype(DT[elem])
    t = place(mem, "l1", shape, layout, elem)
    K.mte_gm_l1(src, t, rows, cols)
    c0 = C0[elem]
    off = frac_offsets(layout, shape[0], shape[1], c0)
    flat = t.physical.reshape(-1)
    fill = min(ceil(cols, c0) * c0, off.shape[1])
    expected = np.full(flat.size, SENTINEL, dtype=flat.dtype)
    expected[off[:rows, :cols].ravel()] = src[:rows, :cols].ravel()
    expected[off[:rows, cols:fill].ravel()] = 0
    assert np.array_equal(flat, expected)


def test_nd2zz_seed_staging_of_b():
    # Zn (docs/ascend.md): element (k, n) of B lands at k1*N1*256 + n1*256 + k0*16 + n0
    mem = Memory("a2")
    Kd, N = 48, 40
    b = np.arange(Kd * N).reshape(Kd, N).astype(np.float32).astype(np.float16)
    t = place(mem, "l1", (Kd, N), "zz", "f16")
    K.mte_gm_l1(b, t, Kd, N)
    k, n = np.indices((Kd, N))
    N1 = ceil(N, 16)
    pos = (k // 16) * N1 * 256 + (n // 16) * 256 + (k % 16) * 16 + n % 16
    assert np.array_equal(t.physical.reshape(-1)[pos], b)


def test_dn2nz_reads_the_transpose():
    mem = Memory("a5")
    gm = np.arange(40 * 24).reshape(40, 24).astype(np.float16)  # holds X^T for X[24, 40]
    t = place(mem, "l1", (24, 40), "nz", "f16")
    K.mte_gm_l1(gm, t, 24, 40, dn2nz=True)
    off = frac_offsets("nz", 24, 40, 16)
    assert np.array_equal(t.physical.reshape(-1)[off[:24, :40]], gm.T)


def test_gm_l1_runtime_zero_is_a_noop_and_oversize_raises():
    mem = Memory("a2")
    t = place(mem, "l1", (16, 16), "nz", "f16")
    K.mte_gm_l1(np.ones((16, 16), np.float16), t, 0, 16)
    assert (t.physical == SENTINEL).all()
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 16\] .*got 17"):
        K.mte_gm_l1(np.ones((32, 16), np.float16), t, 17, 16)
    with pytest.raises(ExecutionError, match="beyond the GM memref of shape 8x16"):
        K.mte_gm_l1(np.ones((8, 16), np.float16), t, 16, 16)


# ------------------------------------------------------------------------------------------------
# L1 -> L0
# ------------------------------------------------------------------------------------------------


def _fill_l1(mem, shape, layout, elem, seed=0):
    """An L1 tile whose every physical slot (padding included) holds a distinct value."""
    t = mem.place("l1", shape, layout, elem)
    t.physical.reshape(-1)[:] = (np.arange(t.physical.size) % 97 + 1).astype(t.physical.dtype)
    return t


def test_l1_l0a_nz_to_zz_moves_whole_fractals():
    mem = Memory("a2")
    M, Kd = 30, 70
    src = _fill_l1(mem, (M, Kd), "nz", "f16")
    dst = place(mem, "l0a", (M, Kd), "zz", "f16")
    K.mte_l1_l0(src, dst, M, Kd)
    so = frac_offsets("nz", M, Kd, 16)
    do = frac_offsets("zz", M, Kd, 16)
    # padded 32 x 80 region: the padding travels with the data
    assert np.array_equal(dst.physical.reshape(-1)[do], src.physical.reshape(-1)[so])
    # index check of the L0A Zz layout (docs/ascend.md): L0A[(m1*K1+k1)*256 + m0*16 + k0] = A[16m1+m0, 16k1+k0]
    m, k = np.indices((M, Kd))
    pos = ((m // 16) * 5 + k // 16) * 256 + (m % 16) * 16 + k % 16
    assert np.array_equal(dst.physical.reshape(-1)[pos], src.physical.reshape(-1)[so[:M, :Kd]])


def test_l1_l0b_zz_to_zn_transposes_inside_fractals():
    mem = Memory("a2")
    Kd, N = 48, 40
    src = _fill_l1(mem, (Kd, N), "zz", "f16")
    dst = place(mem, "l0b", (Kd, N), "zn", "f16")
    K.mte_l1_l0(src, dst, Kd, N)
    k, n = np.indices((Kd, N))
    N1 = ceil(N, 16)
    pos = ((k // 16) * N1 + n // 16) * 256 + (n % 16) * 16 + k % 16
    so = frac_offsets("zz", Kd, N, 16)
    assert np.array_equal(dst.physical.reshape(-1)[pos], src.physical.reshape(-1)[so[:Kd, :N]])


def test_l1_l0a_transpose_reads_the_operands_transpose():
    mem = Memory("a2")
    M, Kd = 32, 48
    src = _fill_l1(mem, (Kd, M), "nz", "f16")  # holds A^T
    dst = place(mem, "l0a", (M, Kd), "zz", "f16")
    K.mte_l1_l0(src, dst, M, Kd, transpose=True)
    so = frac_offsets("nz", Kd, M, 16)
    do = frac_offsets("zz", M, Kd, 16)
    assert np.array_equal(dst.physical.reshape(-1)[do], src.physical.reshape(-1)[so].T)


def test_l1_l0a_source_start():
    mem = Memory("a2")
    src = _fill_l1(mem, (64, 64), "nz", "f16")
    dst = place(mem, "l0a", (16, 32), "zz", "f16")
    K.mte_l1_l0(src, dst, 16, 32, row=16, col=32)
    so = frac_offsets("nz", 64, 64, 16)
    do = frac_offsets("zz", 16, 32, 16)
    assert np.array_equal(dst.physical.reshape(-1)[do], src.physical.reshape(-1)[so[16:32, 32:64]])


def test_l1_l0_out_of_range_raises():
    mem = Memory("a2")
    src = _fill_l1(mem, (32, 32), "nz", "f16")
    dst = place(mem, "l0a", (32, 32), "zz", "f16")
    with pytest.raises(ExecutionError, match=r"reads source \[16:48, 0:32\] beyond the 32x32"):
        K.mte_l1_l0(src, dst, 32, 32, row=16)
    with pytest.raises(ExecutionError, match=r"requires cols in \[0, 32\]"):
        K.mte_l1_l0(src, dst, 16, 33)


# ------------------------------------------------------------------------------------------------
# Mmad
# ------------------------------------------------------------------------------------------------


def _load(mem, space, x, layout, elem, c0):
    """A tile holding logical x, written through the reference offsets (padding = sentinel)."""
    t = place(mem, space, x.shape, layout, elem)
    off = frac_offsets(layout, x.shape[0], x.shape[1], c0)
    t.physical.reshape(-1)[off[: x.shape[0], : x.shape[1]].ravel()] = x.ravel()
    return t


def _read_c(c, M, N):
    off = frac_offsets("nz", c.shape[0], c.shape[1], 16)
    return c.physical.reshape(-1)[off[:M, :N]]


@pytest.mark.parametrize("elem,acc", [("f16", "f32"), ("bf16", "f32"), ("f32", "f32"), ("s8", "s32")])
def test_mad_acc_bias(elem, acc):
    mem = Memory("a2")
    rng = np.random.default_rng(3)
    M, N, Kd = 30, 40, 70
    a = rng.integers(-4, 5, (M, Kd)).astype(DT[elem])
    b = rng.integers(-4, 5, (Kd, N)).astype(DT[elem])
    A = _load(mem, "l0a", a, "zz", elem, C0[elem])
    B = _load(mem, "l0b", b, "zn", elem, C0[elem])
    C = place(mem, "l0c", (M, N), "nz", acc)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    K.mad(A, B, C, M, N, Kd)
    assert np.array_equal(_read_c(C, M, N), ref)
    # only the valid region is written: the padding keeps the sentinel
    off = frac_offsets("nz", M, N, 16)
    assert (C.physical.reshape(-1)[off[M:, :]] == SENTINEL).all()
    assert (C.physical.reshape(-1)[off[:, N:]] == SENTINEL).all()
    K.mad(A, B, C, M, N, Kd, accumulate=True)
    assert np.array_equal(_read_c(C, M, N), 2 * ref)
    bias = mem.place("bt", (1, N), "nd", acc)
    bias.physical[...] = np.arange(N)
    K.mad(A, B, C, M, N, Kd, bias=bias)
    assert np.array_equal(_read_c(C, M, N), ref + np.arange(N)[None, :])


def test_mad_partial_sizes_use_only_k_valid_columns():
    mem = Memory("a2")
    a = np.ones((32, 32), np.float16)
    b = np.ones((32, 32), np.float16)
    A = _load(mem, "l0a", a, "zz", "f16", 16)
    B = _load(mem, "l0b", b, "zn", "f16", 16)
    C = place(mem, "l0c", (32, 32), "nz", "f32")
    K.mad(A, B, C, 17, 5, 3)
    assert (_read_c(C, 17, 5) == 3).all()
    assert (_read_c(C, 32, 32)[17:, :] == SENTINEL).all()


def test_mad_int_accumulation_saturates():
    mem = Memory("a2")
    a = np.full((16, 32), 127, np.int8)
    b = np.full((32, 16), 127, np.int8)
    A = _load(mem, "l0a", a, "zz", "s8", 32)
    B = _load(mem, "l0b", b, "zn", "s8", 32)
    C = place(mem, "l0c", (16, 16), "nz", "s32")
    C.physical[...] = np.iinfo(np.int32).max - 10
    K.mad(A, B, C, 16, 16, 32, accumulate=True)
    assert (_read_c(C, 16, 16) == np.iinfo(np.int32).max).all()


def test_mad_gemv_reads_an_nd_vector():
    mem = Memory("a2")
    rng = np.random.default_rng(5)
    Kd, N = 256, 32
    x = rng.integers(-3, 4, (1, Kd)).astype(np.float16)
    b = rng.integers(-3, 4, (Kd, N)).astype(np.float16)
    A = mem.place("l0a", (1, Kd), "nd", "f16")
    A.physical[...] = x
    B = _load(mem, "l0b", b, "zn", "f16", 16)
    C = place(mem, "l0c", (1, N), "nz", "f32")
    K.mad(A, B, C, 1, N, Kd)
    assert np.array_equal(_read_c(C, 1, N), x.astype(np.float64) @ b.astype(np.float64))


def test_mad_runtime_checks():
    mem = Memory("a2")
    A = place(mem, "l0a", (16, 16), "zz", "f16")
    B = place(mem, "l0b", (16, 16), "zn", "f16")
    C = place(mem, "l0c", (16, 16), "nz", "f32")
    K.mad(A, B, C, 0, 16, 16)
    assert (C.physical == SENTINEL).all()
    with pytest.raises(ExecutionError, match=r"requires k in \[0, 16\] \(columns of the lhs tile\), got 32"):
        K.mad(A, B, C, 16, 16, 32)


# ------------------------------------------------------------------------------------------------
# Fixpipe
# ------------------------------------------------------------------------------------------------


def _l0c(mem, c):
    return _load(mem, "l0c", c, "nz", "f32" if c.dtype == np.float32 else "s32", 16)


def test_fixpipe_layouts():
    mem = Memory("a5")
    rng = np.random.default_rng(7)
    M, N = 30, 48
    c = rng.standard_normal((M, N)).astype(np.float32)
    C = _l0c(mem, c)
    out = np.full((40, 64), -1, np.float32)
    K.fixpipe(C, out, M, N)
    assert np.array_equal(out[:M, :N], c) and (out[M:, :] == -1).all() and (out[:, N:] == -1).all()
    dn = np.zeros((N, M), np.float32)
    K.fixpipe(C, dn, M, N, layout="nz2dn")
    assert np.array_equal(dn, c.T)
    # nz2nz to a 4-D GM memref (N1, M1, 16, 16): C_nz[n1][m1][m0][n0] = C[16m1+m0][16n1+n0]
    nz = np.zeros((3, 2, 16, 16), np.float32)
    K.fixpipe(C, nz, M, N, layout="nz2nz")
    m, n = np.indices((M, N))
    assert np.array_equal(nz[n // 16, m // 16, m % 16, n % 16], c)
    l1 = mem.place("l1", (M, N), "nz", "f16")
    K.fixpipe(C, l1, M, N, layout="nz2nz", quant="f322f16")
    off = frac_offsets("nz", M, N, 16)
    assert np.array_equal(l1.physical.reshape(-1)[off[:M, :N]], c.astype(np.float16))


def _bf16_rne(x: np.ndarray) -> np.ndarray:
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return rounded.view(ml_dtypes.bfloat16)


def test_fixpipe_float_conversions_and_relu():
    rng = np.random.default_rng(8)
    acc = (rng.standard_normal((16, 32)) * 1000).astype(np.float32)
    got = K.quantize(acc, "f322bf16", np.dtype(ml_dtypes.bfloat16))
    assert np.array_equal(got.view(np.uint16), _bf16_rne(acc).view(np.uint16))
    got = K.quantize(acc, "f322f16", np.dtype(np.float16), relu=True)
    assert np.array_equal(got, np.where(acc > 0, acc, 0).astype(np.float16))
    got = K.quantize(acc, "none", np.dtype(np.float32), relu=True)
    assert (got >= 0).all() and np.array_equal(got[acc > 0], acc[acc > 0])


def _word(scale, shift=1, mcb=False, offset=0, signed=True):
    # QUANT_PRE bit layout (docs/ascend.md "Quant modes"), written out independently of isa.quant
    bits = int(np.float32(scale).view(np.uint32))
    return bits | ((shift - 1) << 32) | (int(mcb) << 36) | ((offset & 0x1FF) << 37) | (int(signed) << 46)


def _hw_scale(scale):
    return (np.float32(scale).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("signed", [True, False])
def test_qf322b8_pre_golden(relu, signed):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((16, 48)) * 300).astype(np.float32)
    scale, offset = 0.3712345, -7
    dtype = np.dtype(np.int8 if signed else np.uint8)
    got = K.quantize(x, "qf322b8_pre", dtype, relu, _word(scale, offset=offset, signed=signed))
    m1 = _hw_scale(scale)
    m2 = np.float32(0) if relu else m1
    y = np.where(x >= 0, x * m1, x * m2).astype(np.float32)
    q = np.clip(np.rint(y), -256, 255) + offset
    lo, hi = (-128, 127) if signed else (0, 255)
    assert np.array_equal(got, np.clip(q, lo, hi).astype(dtype))


@pytest.mark.parametrize("mcb", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_deqf16_golden(mcb, relu):
    rng = np.random.default_rng(10)
    x = rng.integers(-(2**20), 2**20, (16, 32)).astype(np.int32)
    scale, shift = 0.01234567, 3
    got = K.quantize(x, "deqf16", np.dtype(np.float16), relu, _word(scale, shift=shift, mcb=mcb))
    xs = (x.astype(np.int64) >> shift) if mcb else x.astype(np.int64)
    m1 = _hw_scale(scale)
    y = np.where(xs >= 0, xs.astype(np.float32) * m1, xs.astype(np.float32) * (0 if relu else m1))
    assert np.array_equal(got, np.clip(y, -65504, 65504).astype(np.float16))


def test_deqf16_saturates_to_f16_max():
    x = np.array([[2**30, -(2**30)]], np.int32)
    got = K.quantize(x, "deqf16", np.dtype(np.float16), word=_word(1.0))
    assert list(got[0]) == [65504, -65504]


def test_req8_and_vector_modes():
    rng = np.random.default_rng(11)
    x = rng.integers(-5000, 5000, (16, 32)).astype(np.int32)
    scales = rng.uniform(0.01, 0.2, 32).astype(np.float32)
    words = np.array([_word(s, shift=2, mcb=True, offset=3) for s in scales], dtype=np.uint64)
    got = K.quantize(x, "vreq8", np.dtype(np.int8), words=words)
    xs = (x.astype(np.int64) >> 2).astype(np.float32)
    y = xs * np.array([_hw_scale(s) for s in scales], np.float32)[None, :]
    expected = np.clip(np.clip(np.rint(y), -256, 255) + 3, -128, 127).astype(np.int8)
    assert np.array_equal(got, expected)
    f = rng.standard_normal((16, 32)).astype(np.float32) * 100
    got = K.quantize(f, "vqf322b8_pre", np.dtype(np.int8), words=words)
    y = f * np.array([_hw_scale(s) for s in scales], np.float32)[None, :]
    assert np.array_equal(got, np.clip(np.clip(np.rint(y), -256, 255) + 3, -128, 127).astype(np.int8))


def test_fixpipe_vector_operand_and_sign_mismatch():
    mem = Memory("a2")
    c = np.arange(16 * 16, dtype=np.int32).reshape(16, 16) - 100
    C = _l0c(mem, c)
    vec = mem.place("fb", (1, 16), "nd", "u64")
    vec.physical[...] = np.array([_word(0.5)] * 16, dtype=np.uint64)
    out = np.zeros((16, 16), np.float16)
    K.fixpipe(C, out, 16, 16, quant="vdeqf16", vector=vec)
    assert np.array_equal(out, (c * 0.5).astype(np.float16))
    with pytest.raises(ExecutionError, match="sign bit .* selects u8 output, but the destination is s8"):
        K.fixpipe(C, np.zeros((16, 16), np.int8), 16, 16, quant="req8", word=_word(1.0, signed=False))


# ------------------------------------------------------------------------------------------------
# GatherMask: the worked vectors of the Ascend C GatherMask page (docs/ascend.md "GatherMask")
# ------------------------------------------------------------------------------------------------


def _ub(mem, values, elem):
    t = mem.place("ub", (values.size,), "nd", elem)
    t.physical[...] = values
    return t


def test_gather_vector1_u16_pattern2():
    mem = Memory("a2")
    src = _ub(mem, np.arange(1, 129, dtype=np.uint16), "u16")
    dst = _ub(mem, np.zeros(128, np.uint16), "u16")
    n = K.gather_mask(dst, src, 0, 1, 1, 0, 0, pattern=2)
    assert n == 64 and list(dst.physical[:64]) == list(range(2, 129, 2))


def test_gather_vector2_u32_aliasing_dst():
    mem = Memory("a2")
    src = _ub(mem, np.arange(1, 257, dtype=np.uint32), "u32")
    n = K.gather_mask(src, src, 0, 4, 1, 8, 0, pattern=2)
    assert n == 128 and list(src.physical[:128]) == list(range(2, 257, 2))


@pytest.mark.parametrize("method,count", [(1, 66), (2, 33)])
def test_gather_vector3_user_pattern_counter_mode(method, count):
    mem = Memory("a2" if method == 1 else "310p")
    src = _ub(mem, np.arange(256, dtype=np.uint32), "u32")
    pat = _ub(mem, np.full(8, 0x7E7C00A5, dtype=np.uint32), "u32")
    dst = _ub(mem, np.zeros(256, np.uint32), "u32")
    n = K.gather_mask(dst, src, 70, 2, 1, 4, 0, src1=pat, counter=True, method=method)
    word_bits = [0, 2, 5, 7, *range(18, 23), *range(25, 31)]
    per_repeat = [b for w in range(3) for b in (x + 32 * w for x in word_bits)]
    if method == 1:
        r0 = [e for e in per_repeat if e < 70]
        expected = r0 + [32 + e for e in r0]
    else:
        expected = [e for e in per_repeat if e < 64] + [32, 34, 37]
    assert n == count and list(dst.physical[:n]) == expected


def test_gather_vector4_f32_pattern3():
    mem = Memory("a2")
    src = _ub(mem, np.arange(64, dtype=np.float32), "f32")
    dst = _ub(mem, np.zeros(64, np.float32), "f32")
    n = K.gather_mask(dst, src, 0, 1, 1, 8, 0, pattern=3)
    assert n == 16 and list(dst.physical[:16]) == list(range(0, 64, 4))


def test_gather_block_stride_and_bounds():
    mem = Memory("a2")
    src = _ub(mem, np.arange(64, dtype=np.uint16), "u16")
    dst = _ub(mem, np.zeros(64, np.uint16), "u16")
    # counter mode, 32 elements with block stride 2: blocks 0, 2 of 16 elements each; all kept
    n = K.gather_mask(dst, src, 32, 1, 2, 0, 0, pattern=7, counter=True)
    assert list(dst.physical[:n]) == list(range(16)) + list(range(32, 48))
    with pytest.raises(ExecutionError, match="reads src0 element 71 \\(byte 142\\) beyond the 64-element src0"):
        K.gather_mask(dst, src, 40, 1, 2, 0, 0, pattern=7, counter=True)
    small = _ub(mem, np.zeros(16, np.uint16), "u16")
    with pytest.raises(ExecutionError, match="keeps 32 elements, more than the 16-element dst"):
        K.gather_mask(small, src, 64, 1, 1, 0, 0, pattern=1, counter=True)
    assert K.gather_mask(dst, src, 0, 0, 1, 0, 0, pattern=1) == 0


# ------------------------------------------------------------------------------------------------
# GM -> L1 -> L0 -> mad -> fixpipe == numpy matmul (tiled like a kernel)
# ------------------------------------------------------------------------------------------------


def tiled_matmul(a: np.ndarray, b: np.ndarray, elem: str, acc: str, tile: int = 128) -> np.ndarray:
    M, Kd = a.shape
    N = b.shape[1]
    mem = Memory("a2")
    a1 = mem.place("l1", (tile, tile), "nz", elem)
    b1 = mem.place("l1", (tile, tile), "zz", elem)
    a0 = mem.place("l0a", (tile, tile), "zz", elem)
    b0 = mem.place("l0b", (tile, tile), "zn", elem)
    c0 = mem.place("l0c", (tile, tile), "nz", acc)
    out = np.zeros((M, N), DT[acc])
    # a one-row panel takes the GEMV path (nd vector in L1 and L0A, the GEMV rule)
    a1_row = mem.place("l1", (1, tile), "nd", elem)
    a0_row = mem.place("l0a", (1, tile), "nd", elem, 0)  # aliases a0: used only after it
    for m in range(0, M, tile):
        ms = min(tile, M - m)
        la1, la0 = (a1_row, a0_row) if ms == 1 else (a1, a0)
        for n in range(0, N, tile):
            ns = min(tile, N - n)
            for k in range(0, Kd, tile):
                ks = min(tile, Kd - k)
                K.mte_gm_l1(a[m:, k:], la1, ms, ks)
                K.mte_gm_l1(b[k:, n:], b1, ks, ns)
                K.mte_l1_l0(la1, la0, ms, ks)
                K.mte_l1_l0(b1, b0, ks, ns)
                K.mad(la0, b0, c0, ms, ns, ks, accumulate=k > 0)
            K.fixpipe(c0, out[m:, n:], ms, ns)
    return out


@settings(max_examples=30, deadline=None)
@given(
    M=st.integers(1, 300),
    N=st.integers(1, 300),
    Kd=st.integers(1, 300),
    elem=st.sampled_from(["f16", "bf16", "f32", "s8"]),
    seed=st.integers(0, 2**16),
)
def test_pipeline_equals_numpy_matmul(M, N, Kd, elem, seed):
    rng = np.random.default_rng(seed)
    acc = "s32" if elem == "s8" else "f32"
    # small integers: every product and partial sum is exact in the accumulator
    a = rng.integers(-8, 9, (M, Kd)).astype(DT[elem])
    b = rng.integers(-8, 9, (Kd, N)).astype(DT[elem])
    got = tiled_matmul(a, b, elem, acc)
    assert np.array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(DT[acc]))


@settings(max_examples=30, deadline=None)
@given(M=st.integers(1, 200), N=st.integers(1, 200), Kd=st.integers(1, 300), seed=st.integers(0, 99))
def test_pipeline_real_valued_f16(M, N, Kd, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    got = tiled_matmul(a, b, "f16", "f32")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.sqrt(Kd))


def test_s4_pipeline_packs_two_per_byte():
    mem = Memory("a2")
    M, Kd, N = 20, 100, 40
    rng = np.random.default_rng(12)
    a = rng.integers(-8, 8, (M, Kd)).astype(ml_dtypes.int4)
    b = rng.integers(-8, 8, (Kd, N)).astype(ml_dtypes.int4)
    a1, b1 = mem.place("l1", (M, Kd), "nz", "s4"), mem.place("l1", (Kd, N), "zz", "s4")
    K.mte_gm_l1(a, a1, M, Kd)
    K.mte_gm_l1(b, b1, Kd, N)
    # Nz of 20x100 s4 (c0 = 64): 2 x 2 fractals of 16 x 64 nibbles = 2 KB
    assert a1.nbytes == 2048 and a1.physical.dtype == np.uint8
    a0, b0 = mem.place("l0a", (M, Kd), "zz", "s4"), mem.place("l0b", (Kd, N), "zn", "s4")
    c = mem.place("l0c", (M, N), "nz", "s32")
    K.mte_l1_l0(a1, a0, M, Kd)
    K.mte_l1_l0(b1, b0, Kd, N)
    K.mad(a0, b0, c, M, N, Kd)
    out = np.zeros((M, N), np.int32)
    K.fixpipe(c, out, M, N)
    assert np.array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


def test_f16_to_f32_table_holds_every_half_precision_value(monkeypatch):
    # The table is built once per process: rebuild it here so that its construction is tested.
    monkeypatch.setattr(K, "_F16_TABLE", None)
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = K._convert(halves, np.dtype(np.float32))
    assert got.dtype == np.float32 and got.shape == (1 << 16,)
    np.testing.assert_array_equal(got, halves.astype(np.float32))  # NaN == NaN here
    assert got[0x3C00] == 1.0 and got[0x7BFF] == 65504.0 and got[0x0001] == 2.0**-24
